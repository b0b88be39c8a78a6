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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
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
	if r.Client == nil || r.Engine == nil {
		return fmt.Errorf("client and engine are required")
	}
	log := ctrl.LoggerFrom(ctx)
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedCluster{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The credentials the raw resources name are judged again when they, or the identities, change.
		Watches(&infrav1.AzureClusterIdentity{}, identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedClusterList{})).
		WatchesMetadata(&corev1.Secret{}, identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedClusterList{})).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(util.ClusterToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureASOManagedCluster"), mgr.GetClient(), &infrav1.AzureASOManagedCluster{})),
			predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		Watches(&infrav1.AzureASOManagedControlPlane{}, handler.EnqueueRequestsFromMapFunc(managed.ControlPlaneToInfraCluster(r.Client, "AzureASOManagedCluster")))
	// The raw objects may be of any ASO kind the manager caches: a change of one brings its owner back.
	for _, obj := range aso.Kinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// Reconcile applies the cluster's raw ASO objects and reports the endpoint.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureASOManagedCluster, scope]{
		New:               func() *infrav1.AzureASOManagedCluster { return &infrav1.AzureASOManagedCluster{} },
		Finalizer:         infrav1.ASOManagedClusterFinalizer,
		Owners:            lifecycle.ClusterOwner,
		ExternallyManaged: true,
		Scope: func(amc *infrav1.AzureASOManagedCluster, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, managedCluster: amc}
		},
		PauseKinds: managed.RecordedKinds,
		Normal:     r.reconcileNormal,
		Delete: func(ctx context.Context, s *scope) (bool, error) {
			s.deleting = true
			done, result, err := r.Engine.Delete(ctx, s.managedCluster, aso.DeleteOptions{ClusterName: s.cluster.Name, Kinds: managed.RecordedKinds(s.managedCluster)})
			s.result = result
			return done, err
		},
		Status: updateStatus,
	}, req)
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	// cluster and managedCluster are read by the lifecycle.
	cluster        *clusterv1.Cluster
	managedCluster *infrav1.AzureASOManagedCluster

	// invalid is set by reconcileNormal when spec.resources cannot be applied; it says why.
	invalid string
	// result is set by reconcileNormal and the deletion: the state of every ASO object.
	result *aso.Result
	// endpointPending is set by reconcileNormal while the control plane has not reported its endpoint.
	endpointPending bool
	// deleting is set while the cluster's ASO objects are deleted.
	deleting bool
}

// reconcileNormal applies the raw ASO objects and takes the control plane's endpoint, which Cluster API reads from
// the infrastructure cluster.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	amc := s.managedCluster
	objs, err := asomanaged.Parse(amc.Spec.Resources)
	if err != nil {
		s.invalid = err.Error()
		return ctrl.Result{}, nil
	}
	kinds, err := managed.RecordKinds(ctx, r.Client, amc, objs)
	if err != nil {
		return ctrl.Result{}, err
	}
	if s.result, err = r.Engine.Reconcile(ctx, amc, managed.Resources(objs), aso.Options{ClusterName: s.cluster.Name, Kinds: kinds}); err != nil {
		return ctrl.Result{}, err
	}
	if !amc.Spec.ControlPlaneEndpoint.IsValid() && s.cluster.Spec.ControlPlaneRef.Kind == "AzureASOManagedControlPlane" {
		cp := &infrav1.AzureASOManagedControlPlane{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: amc.Namespace, Name: s.cluster.Spec.ControlPlaneRef.Name}, cp); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		amc.Spec.ControlPlaneEndpoint = cp.Status.ControlPlaneEndpoint
	}
	s.endpointPending = !amc.Spec.ControlPlaneEndpoint.IsValid()
	return ctrl.Result{}, nil
}
