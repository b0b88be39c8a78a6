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

package azureasomanagedcontrolplane

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch

// kubeconfigRefresh is how often a ready control plane re-reads the kubeconfig ASO writes, which ASO rotates.
const kubeconfigRefresh = 10 * time.Minute

// Reconciler reconciles AzureASOManagedControlPlanes.
type Reconciler struct {
	Client    client.Client
	APIReader client.Reader
	Engine    *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Engine == nil {
		return fmt.Errorf("client, API reader and engine are required")
	}
	log := ctrl.LoggerFrom(ctx)
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedControlPlane{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The credentials the raw resources name are judged again when they, or the identities, change.
		Watches(&infrav1.AzureClusterIdentity{}, identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedControlPlaneList{})).
		WatchesMetadata(&corev1.Secret{}, identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedControlPlaneList{})).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(managed.ClusterToControlPlane("AzureASOManagedControlPlane")), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		// A new machine pool may be the system pool the managed cluster waits for.
		Watches(&infrav1.AzureASOManagedMachinePool{}, handler.EnqueueRequestsFromMapFunc(managed.MemberToControlPlane(r.Client, "AzureASOManagedControlPlane")))
	// The raw objects may be of any ASO kind the manager caches: a change of one brings its owner back.
	for _, obj := range aso.Kinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// Reconcile makes the control plane's ASO objects match spec.resources.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureASOManagedControlPlane, scope]{
		New:       func() *infrav1.AzureASOManagedControlPlane { return &infrav1.AzureASOManagedControlPlane{} },
		Finalizer: infrav1.ASOManagedControlPlaneFinalizer,
		Owners:    lifecycle.ClusterOwner,
		Scope: func(cp *infrav1.AzureASOManagedControlPlane, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, controlPlane: cp, kinds: managed.RecordedKinds(cp)}
		},
		PauseKinds: managed.RecordedKinds,
		Normal:     r.reconcileNormal,
		Delete:     r.reconcileDelete,
		Status:     updateStatus,
	}, req)
}

// reconcileNormal applies the raw objects, reads the managed cluster's state, and re-reads the kubeconfig ASO
// rotates.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := r.reconcileResources(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.reconcileManagedClusterStatus(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.kubeconfigWritten {
		return ctrl.Result{RequeueAfter: kubeconfigRefresh}, nil
	}
	return ctrl.Result{}, nil
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster and controlPlane are read by the lifecycle.
	cluster      *clusterv1.Cluster
	controlPlane *infrav1.AzureASOManagedControlPlane
	// kinds are the recorded kinds of the control plane's raw objects: read by the lifecycle, extended by
	// reconcileResources.
	kinds []schema.GroupVersionKind

	// invalid is set by reconcileResources when spec.resources cannot be applied as given (a value contradicting
	// what Cluster API owns); it is the Ready message.
	invalid string
	// waiting is set by reconcileResources while the managed cluster cannot be created yet.
	waiting string
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// kubeconfigWritten is set by reconcileResources once Cluster API's kubeconfig secret is written.
	kubeconfigWritten bool
	// kubeconfigMissing is set by reconcileResources when ASO was asked for no kubeconfig Cluster API can use.
	kubeconfigMissing string
	// managedClusterName is set by reconcileResources: the ManagedCluster object's name.
	managedClusterName string
	// deleting is set by reconcileDelete.
	deleting bool
}
