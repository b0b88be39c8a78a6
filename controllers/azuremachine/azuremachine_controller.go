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

package azuremachine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// Reconciler reconciles AzureMachines.
type Reconciler struct {
	Client client.Client
	// APIReader reads what the manager does not cache: bootstrap data secrets and the cluster's infrastructure
	// object of a kind it does not watch.
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
	clusterToMachines, err := util.ClusterToTypedObjectsMapper(mgr.GetClient(), &infrav1.AzureMachineList{}, mgr.GetScheme())
	if err != nil {
		return err
	}
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureMachine{}, builder.WithPredicates(lifecycle.IgnoreStatusOnlyUpdates())).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The Machine's spec (bootstrap data secret, version, failure domain), labels and owners matter here, not
		// its status, which Cluster API updates many times while the machine comes up.
		Watches(&clusterv1.Machine{},
			handler.EnqueueRequestsFromMapFunc(util.MachineToInfrastructureMapFunc(infrav1.GroupVersion.WithKind("AzureMachine"))),
			lifecycle.IgnoreStatusOnlyUpdates()).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(clusterToMachines),
			predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// Reconcile makes the AzureMachine's VM match its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureMachine, scope]{
		New:       func() *infrav1.AzureMachine { return &infrav1.AzureMachine{} },
		Finalizer: infrav1.MachineFinalizer,
		Owners:    lifecycle.MachineOwner,
		Scope: func(am *infrav1.AzureMachine, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machine: owners.Machine, azureMachine: am}
		},
		PauseKinds: func(client.Object) []schema.GroupVersionKind { return r.kinds },
		WhilePaused: func(ctx context.Context, s *scope) (err error) {
			_, s.credentials, err = clusterinfra.PausedCredentials(ctx, r.APIReader, r.Client, r.Engine, s.cluster, s.azureMachine, r.kinds)
			return err
		},
		Normal: r.reconcileNormal,
		Delete: r.reconcileDelete,
		Status: updateStatus,
	}, req)
}

// reconcileNormal runs the phases of a live AzureMachine.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, phase := range []func(context.Context, *scope) error{
		r.reconcileClusterInfrastructure,
		r.reconcileBootstrapData,
		r.reconcileResources,
		r.reconcileMachineStatus,
	} {
		if err := phase(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if s.waiting.Message != "" {
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{}, nil
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster, machine and azureMachine are read by the lifecycle.
	cluster      *clusterv1.Cluster
	machine      *clusterv1.Machine
	azureMachine *infrav1.AzureMachine

	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// credentials is set by reconcileClusterInfrastructure: whether the cluster's identity may be used here.
	credentials aso.Credentials
	// bootstrapData is set by reconcileBootstrapData while the VM does not exist yet; nil afterwards.
	bootstrapData []byte
	// vmCreated is set by reconcileBootstrapData: ASO has reported the VM created.
	vmCreated bool
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// waiting is set by a phase that must wait (for the cluster, the bootstrap data).
	waiting lifecycle.Wait
	// deleting is set by reconcileDelete while ASO deletes the machine's resources.
	deleting bool
}
