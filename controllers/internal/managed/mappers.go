/*
Copyright 2026 The Cluster API Provider Azure ASO Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package managed

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// ClusterToControlPlane maps a Cluster to its control plane when the control plane is of this kind.
func ClusterToControlPlane(kind string) handler.MapFunc {
	return func(_ context.Context, o client.Object) []ctrl.Request {
		cluster, ok := o.(*clusterv1.Cluster)
		if !ok || cluster.Spec.ControlPlaneRef.Kind != kind {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Spec.ControlPlaneRef.Name}}}
	}
}

// MemberToControlPlane maps an object labelled with its cluster's name (a machine pool) to the cluster's control
// plane when that is of this kind.
func MemberToControlPlane(c client.Client, kind string) handler.MapFunc {
	toControlPlane := ClusterToControlPlane(kind)
	return func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster, err := util.GetClusterFromMetadata(ctx, c, metav1.ObjectMeta{Namespace: o.GetNamespace(), Labels: o.GetLabels()})
		if err != nil {
			return nil
		}
		return toControlPlane(ctx, cluster)
	}
}

// ControlPlaneToInfraCluster maps a control plane to its Cluster's infrastructure cluster when that is of this kind:
// the infrastructure cluster of a managed cluster takes its endpoint from the control plane.
func ControlPlaneToInfraCluster(c client.Client, kind string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster, err := util.GetOwnerCluster(ctx, c, metav1.ObjectMeta{Namespace: o.GetNamespace(), OwnerReferences: o.GetOwnerReferences()})
		if err != nil || cluster == nil || cluster.Spec.InfrastructureRef.Kind != kind {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Spec.InfrastructureRef.Name}}}
	}
}
