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

package main

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// handoutAnnotation marks the kubeconfig Secrets kubeconfigHandout wrote, so that a later run (--keep) updates them
// for its own workload API server, while a user's stay as they are.
const handoutAnnotation = "localplane.capzaso.io/workload-kubeconfig"

// kubeconfigHandout gives every self-managed Cluster applied to the plane (selfManaged), the samples and a user's alike, the
// simulated workload cluster's kubeconfig: its <cluster>-kubeconfig Secret, written as a user-provided one (not of
// Cluster API's type, so KubeadmControlPlane neither adopts nor rotates it) before the control plane needs it.
// Without it, KubeadmControlPlane generates a kubeconfig for the Azure load balancer, which nothing serves, and
// the control plane is never initialized. The Secret is owned by the Cluster, so that the garbage collector deletes
// it with the Cluster. AKS clusters get theirs from the simulated AKS.
type kubeconfigHandout struct {
	client     client.Client
	kubeconfig []byte
}

// setupWithManager watches Clusters, and the kubeconfig Secrets of Clusters, so that one replaced or deleted is
// written again.
func (k *kubeconfigHandout) setupWithManager(mgr ctrl.Manager) error {
	kubeconfigSecret := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.GetLabels()[clusterv1.ClusterNameLabel] != "" &&
			obj.GetName() == secret.Name(obj.GetLabels()[clusterv1.ClusterNameLabel], secret.Kubeconfig)
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("localplane-kubeconfig").
		For(&clusterv1.Cluster{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []ctrl.Request {
			return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetLabels()[clusterv1.ClusterNameLabel]}}}
		}), builder.WithPredicates(kubeconfigSecret)).
		Complete(k)
}

// Reconcile writes a self-managed Cluster's kubeconfig Secret. One that KubeadmControlPlane generated (for the
// unreachable load balancer) is deleted, to be written again; one a user provided is left alone.
func (k *kubeconfigHandout) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.Cluster{}
	if err := k.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() || !selfManaged(cluster) {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
	existing := &corev1.Secret{}
	switch err := k.client.Get(ctx, key, existing); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("failed to get Secret %s: %w", key, err)
	case existing.Type == clusterv1.ClusterSecretType:
		log.Info("Deleting the kubeconfig KubeadmControlPlane generated, to write the simulated workload cluster's", "Secret", klog.KObj(existing))
		if err := k.client.Delete(ctx, existing, client.Preconditions{UID: &existing.UID}); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete Secret %s: %w", key, err)
		}
		// Its deletion is watched: the next reconcile writes the kubeconfig.
		return ctrl.Result{}, nil
	case bytes.Equal(existing.Data[secret.KubeconfigDataName], k.kubeconfig):
		return ctrl.Result{}, nil
	case existing.Annotations[handoutAnnotation] == "":
		// A user's own kubeconfig.
		return ctrl.Result{}, nil
	default:
		// Written by an earlier run (--keep), for a workload API server that is gone.
		log.Info("Updating the simulated workload cluster's kubeconfig", "Secret", klog.KObj(existing))
		patch := client.MergeFrom(existing.DeepCopy())
		existing.Data = map[string][]byte{secret.KubeconfigDataName: k.kubeconfig}
		if err := k.client.Patch(ctx, existing, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to update Secret %s: %w", key, err)
		}
		return ctrl.Result{}, nil
	}
	kubeconfig := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: key.Namespace, Name: key.Name,
			Labels:      map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			Annotations: map[string]string{handoutAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: cluster.Name, UID: cluster.UID,
			}},
		},
		Data: map[string][]byte{secret.KubeconfigDataName: k.kubeconfig},
	}
	log.Info("Writing the simulated workload cluster's kubeconfig", "Secret", klog.KObj(kubeconfig))
	if err := k.client.Create(ctx, kubeconfig); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("failed to create Secret %s: %w", key, err)
	}
	return ctrl.Result{}, nil
}

// selfManaged tells whether a Cluster's workload cluster is reached through a kubeconfig that Cluster API generates:
// that of KubeadmControlPlane, or the Cluster controller's for a cluster of stand-alone control plane Machines (no
// control plane and no topology, which would name one).
func selfManaged(cluster *clusterv1.Cluster) bool {
	ref := cluster.Spec.ControlPlaneRef
	if !ref.IsDefined() {
		return !cluster.Spec.Topology.IsDefined()
	}
	return ref.APIGroup == controlplanev1.GroupVersion.Group && ref.Kind == "KubeadmControlPlane"
}
