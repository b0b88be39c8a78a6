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

package azuremanagedcluster

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedclusters/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,verbs=get;list;watch

// WaitingForControlPlaneEndpointReason means the control plane has not reported its endpoint yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// Reconciler reconciles AzureManagedClusters. An AzureManagedCluster owns no ASO object: it takes the endpoint of
// its AzureManagedControlPlane, which Cluster API reads from the infrastructure cluster.
type Reconciler struct {
	Client client.Client

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	_, err := (&lifecycle.Kind[*infrav1.AzureManagedCluster, *scope]{
		Client: r.Client, WatchFilterValue: r.WatchFilterValue,
		New:     func() *infrav1.AzureManagedCluster { return &infrav1.AzureManagedCluster{} },
		Cluster: lifecycle.ClusterWatch{ByInfrastructureRef: true},
		Watches: []lifecycle.Watch{
			{Object: &infrav1.AzureManagedControlPlane{}, Handler: handler.EnqueueRequestsFromMapFunc(managed.ControlPlaneToInfraCluster(r.Client, "AzureManagedCluster"))},
		},
		Owners:            lifecycle.ClusterOwner,
		ExternallyManaged: true,
		Scope: func(amc *infrav1.AzureManagedCluster, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, managedCluster: amc}
		},
		Phases: []lifecycle.Phase[*scope]{r.reconcileEndpoint},
		Status: updateStatus,
	}).Setup(ctx, mgr, options)
	return err
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster and managedCluster are read by the lifecycle.
	cluster        *clusterv1.Cluster
	managedCluster *infrav1.AzureManagedCluster

	// endpointChecked is set by reconcileEndpoint.
	endpointChecked bool
}

// reconcileEndpoint copies the control plane's endpoint.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope) error {
	amc := s.managedCluster
	if !amc.Spec.ControlPlaneEndpoint.IsValid() && s.cluster.Spec.ControlPlaneRef.Kind == "AzureManagedControlPlane" {
		cp := &infrav1.AzureManagedControlPlane{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: amc.Namespace, Name: s.cluster.Spec.ControlPlaneRef.Name}, cp); client.IgnoreNotFound(err) != nil {
			return err
		}
		amc.Spec.ControlPlaneEndpoint = cp.Spec.ControlPlaneEndpoint
	}
	s.endpointChecked = true
	return nil
}

// updateStatus reports the cluster provisioned once it has the control plane's endpoint.
func updateStatus(s *scope, _ error) {
	amc := s.managedCluster
	if !s.endpointChecked {
		return
	}
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason}
	if !amc.Spec.ControlPlaneEndpoint.IsValid() {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, WaitingForControlPlaneEndpointReason,
			"waiting for the AzureManagedControlPlane to report the AKS cluster's endpoint"
	} else {
		amc.Status.Initialization.Provisioned = ptr.To(true)
	}
	conditions.Set(amc, ready)
}
