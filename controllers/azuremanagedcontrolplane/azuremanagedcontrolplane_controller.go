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

package azuremanagedcontrolplane

import (
	"context"
	"fmt"
	"time"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
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

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools;azureclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch

// kubeconfigRefresh is how often a ready control plane re-reads the kubeconfig ASO writes, which ASO rotates.
const kubeconfigRefresh = 10 * time.Minute

// OwnedKinds are the ASO kinds an AzureManagedControlPlane owns; the controller watches them.
func OwnedKinds() []client.Object {
	return []client.Object{
		&asoresources.ResourceGroup{}, &asonetwork.VirtualNetwork{}, &asonetwork.VirtualNetworksSubnet{},
		&asonetwork.PrivateEndpoint{}, &asocontainerservice.ManagedCluster{},
	}
}

// Reconciler reconciles AzureManagedControlPlanes.
type Reconciler struct {
	Client    client.Client
	APIReader client.Reader
	Engine    *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// kinds are the GroupVersionKinds of OwnedKinds, resolved by SetupWithManager.
	kinds []schema.GroupVersionKind
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Engine == nil {
		return fmt.Errorf("client, API reader and engine are required")
	}
	var err error
	if r.kinds, err = aso.GVKs(mgr.GetScheme(), OwnedKinds()...); err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureManagedControlPlane{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(managed.ClusterToControlPlane("AzureManagedControlPlane")), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		// A new machine pool may be the system pool the managed cluster waits for.
		Watches(&infrav1.AzureManagedMachinePool{}, handler.EnqueueRequestsFromMapFunc(managed.MemberToControlPlane(r.Client, "AzureManagedControlPlane"))).
		// The identity and the Secret it reads (metadata only), as for AzureClusters.
		Watches(&infrav1.AzureClusterIdentity{}, identities.IdentityToUsers(mgr.GetClient(), &infrav1.AzureManagedControlPlaneList{})).
		WatchesMetadata(&corev1.Secret{}, identities.SecretToUsers(mgr.GetClient(), &infrav1.AzureManagedControlPlaneList{}))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// Reconcile makes the control plane's Azure resources match its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureManagedControlPlane, scope]{
		New:       func() *infrav1.AzureManagedControlPlane { return &infrav1.AzureManagedControlPlane{} },
		Finalizer: infrav1.ManagedControlPlaneFinalizer,
		Owners:    lifecycle.ClusterOwner,
		Scope: func(cp *infrav1.AzureManagedControlPlane, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, controlPlane: cp}
		},
		PauseKinds:  func(client.Object) []schema.GroupVersionKind { return r.kinds },
		WhilePaused: r.revokeWhilePaused,
		Normal:      r.reconcileNormal,
		Delete:      r.reconcileDelete,
		Status:      updateStatus,
	}, req)
}

// reconcileNormal runs the phases of a live control plane, and re-reads the kubeconfig ASO rotates.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, phase := range []func(context.Context, *scope) error{
		r.reconcileCredentials,
		r.reconcileResources,
		r.reconcileManagedClusterStatus,
	} {
		if err := phase(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if s.stop {
			return ctrl.Result{}, nil
		}
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
	controlPlane *infrav1.AzureManagedControlPlane

	// credentials is set by reconcileCredentials.
	credentials aso.Credentials
	// waiting is set by a phase that must wait (for a system pool, the subscription).
	waiting lifecycle.Wait
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// kubeconfigWritten is set by reconcileResources once Cluster API's kubeconfig secret is written;
	// localAccountsDisabled when it is the Entra ID user kubeconfig, which Cluster API cannot use by itself.
	kubeconfigWritten, localAccountsDisabled bool
	// deleting is set by reconcileDelete.
	deleting bool
	// stop is set by a phase after which nothing more can be done in this pass.
	stop bool
}
