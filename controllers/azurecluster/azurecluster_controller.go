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

	"k8s.io/apimachinery/pkg/runtime/schema"
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
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters;azureclusters/status;azureclusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;clusters/status,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=resources.azure.com,resources=resourcegroups,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=network.azure.com,resources=virtualnetworks;virtualnetworkssubnets;virtualnetworksvirtualnetworkpeerings;networksecuritygroups;networksecuritygroupssecurityrules;routetables;natgateways;publicipaddresses;loadbalancers;bastionhosts;privateendpoints;privatednszones;privatednszonesvirtualnetworklinks;privatednszonesarecords,verbs=get;list;watch;create;update;patch;delete

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
			predicates.ClusterPausedTransitions(mgr.GetScheme(), log))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
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
		PauseKinds: func(client.Object) []schema.GroupVersionKind { return r.kinds },
		Normal:     r.reconcileNormal,
		Delete:     r.reconcileDelete,
		Status:     updateStatus,
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
