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

package azureasomanagedcluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,verbs=get;list;watch

// WaitingForControlPlaneEndpointReason means the control plane has not reported its endpoint yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// Reconciler reconciles AzureASOManagedClusters.
type Reconciler struct {
	Client client.Client
	Engine *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	_, err := (&lifecycle.Kind[*infrav1.AzureASOManagedCluster, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		New:     func() *infrav1.AzureASOManagedCluster { return &infrav1.AzureASOManagedCluster{} },
		Cluster: lifecycle.ClusterWatch{ByInfrastructureRef: true},
		Watches: []lifecycle.Watch{
			// The credentials the raw resources name are judged again when they, or the identities, change.
			{Object: &infrav1.AzureClusterIdentity{}, Handler: identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedClusterList{})},
			{Object: &corev1.Secret{}, Metadata: true, Handler: identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedClusterList{})},
			{Object: &infrav1.AzureASOManagedControlPlane{}, Handler: handler.EnqueueRequestsFromMapFunc(managed.ControlPlaneToInfraCluster(r.Client, "AzureASOManagedCluster"))},
		},
		OwnedKinds:        managed.RecordedKinds,
		Finalizer:         infrav1.ASOManagedClusterFinalizer,
		CAPZFinalizer:     clusterv1.ClusterFinalizer,
		Owners:            lifecycle.ClusterOwner,
		ExternallyManaged: true,
		Scope: func(amc *infrav1.AzureASOManagedCluster, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, managedCluster: amc}
		},
		Phases:  []lifecycle.Phase[*scope]{r.reconcileResources, r.reconcileEndpoint},
		Deletes: "the cluster's Azure resources",
		Status:  updateStatus,
	}).Setup(ctx, mgr, options)
	return err
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster and managedCluster are read by the lifecycle.
	cluster        *clusterv1.Cluster
	managedCluster *infrav1.AzureASOManagedCluster

	// endpointPending is set by reconcileEndpoint while the control plane has not reported its endpoint.
	endpointPending bool
}

// reconcileResources applies the raw ASO objects.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	amc := s.managedCluster
	objs, err := asomanaged.Parse(amc.Spec.Resources)
	if err != nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: err.Error()}
		return nil
	}
	if s.Kinds, err = managed.RecordKinds(ctx, r.Client, amc, objs); err != nil {
		return err
	}
	s.Result, err = r.Engine.Reconcile(ctx, amc, asomanaged.Resources(objs), aso.Options{ClusterName: s.cluster.Name, Kinds: s.Kinds})
	return err
}

// reconcileEndpoint takes the control plane's endpoint, which Cluster API reads from the infrastructure cluster.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope) error {
	amc := s.managedCluster
	if !amc.Spec.ControlPlaneEndpoint.IsValid() && s.cluster.Spec.ControlPlaneRef.Kind == "AzureASOManagedControlPlane" {
		cp := &infrav1.AzureASOManagedControlPlane{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: amc.Namespace, Name: s.cluster.Spec.ControlPlaneRef.Name}, cp); client.IgnoreNotFound(err) != nil {
			return err
		}
		amc.Spec.ControlPlaneEndpoint = cp.Status.ControlPlaneEndpoint
	}
	s.endpointPending = !amc.Spec.ControlPlaneEndpoint.IsValid()
	return nil
}
