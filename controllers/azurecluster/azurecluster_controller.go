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

package azurecluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,verbs=get;list;watch

// Reconciler reconciles AzureClusters.
type Reconciler struct {
	Client client.Client
	Engine *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// kinds are the GroupVersionKinds of OwnedKinds, resolved by SetupWithManager.
	kinds []schema.GroupVersionKind
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.Engine == nil {
		return fmt.Errorf("client and engine are required")
	}
	var err error
	if r.kinds, err = aso.GVKs(mgr.GetScheme(), OwnedKinds()...); err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureCluster{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(util.ClusterToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureCluster"), mgr.GetClient(), &infrav1.AzureCluster{})),
			predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		// The identity and the Secret it reads (metadata only): a change of allowedNamespaces, or a client secret
		// created or rotated after the cluster, reaches the cluster at once (internal/identities' indexes).
		Watches(&infrav1.AzureClusterIdentity{}, identities.IdentityToUsers(mgr.GetClient(), &infrav1.AzureClusterList{})).
		WatchesMetadata(&corev1.Secret{}, identities.SecretToUsers(mgr.GetClient(), &infrav1.AzureClusterList{})).
		// A machine created or gone may add or remove its node group's availability set.
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(r.machineToAvailabilitySetCluster),
			predicate.Funcs{
				UpdateFunc:  func(event.UpdateEvent) bool { return false },
				GenericFunc: func(event.GenericEvent) bool { return false },
			})
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// machineToAvailabilitySetCluster maps a Machine to its cluster's AzureCluster when that cluster's machines go
// into availability sets.
func (r *Reconciler) machineToAvailabilitySetCluster(ctx context.Context, obj client.Object) []ctrl.Request {
	clusterName := obj.GetLabels()[clusterv1.ClusterNameLabel]
	if clusterName == "" {
		return nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: clusterName}, cluster); err != nil {
		return nil
	}
	ref := cluster.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "AzureCluster" {
		return nil
	}
	ac := &infrav1.AzureCluster{}
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: ref.Name}
	if err := r.Client.Get(ctx, key, ac); err != nil ||
		!compute.ClusterHasAvailabilitySets(ac.Spec.Location, ac.Spec.FailureDomains, ac.Spec.ExtendedLocation) {
		return nil
	}
	return []ctrl.Request{{NamespacedName: key}}
}

// Reconcile makes the AzureCluster's Azure infrastructure match its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureCluster, scope]{
		New:               func() *infrav1.AzureCluster { return &infrav1.AzureCluster{} },
		Finalizer:         infrav1.ClusterFinalizer,
		Owners:            lifecycle.ClusterOwner,
		ExternallyManaged: true,
		Scope: func(ac *infrav1.AzureCluster, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, azureCluster: ac}
		},
		PauseKinds:  func(client.Object) []schema.GroupVersionKind { return r.kinds },
		WhilePaused: r.revokeWhilePaused,
		Normal:      r.reconcileNormal,
		Delete:      r.reconcileDelete,
		Status:      updateStatus,
	}, req)
}

// reconcileNormal runs the phases of a live AzureCluster.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, phase := range []func(context.Context, *scope) error{
		r.reconcileCredentials,
		r.reconcileResources,
		r.reconcileEndpoint,
		r.reconcileFailureDomains,
	} {
		if err := phase(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if s.stop {
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{}, nil
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster and azureCluster are read by the lifecycle.
	cluster      *clusterv1.Cluster
	azureCluster *infrav1.AzureCluster

	// credentials is set by reconcileCredentials.
	credentials aso.Credentials
	// subscriptionID is set by reconcileResources: the spec's, or the one ASO reports for the resource group.
	subscriptionID string
	// result is set by reconcileResources (and reconcileDelete): the state of every ASO object.
	result *aso.Result
	// endpointPending is set by reconcileEndpoint when the control plane endpoint is not known yet; its message says why.
	endpointPending string
	// deleting is set by reconcileDelete while ASO deletes the cluster's resources.
	deleting bool
	// stop is set by a phase that found nothing more can be done in this pass.
	stop bool
}
