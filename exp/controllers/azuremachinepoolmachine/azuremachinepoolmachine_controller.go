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

package azuremachinepoolmachine

import (
	"context"
	"fmt"
	"slices"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/labels/format"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools;machines,verbs=get;list;watch

// OwnedKinds are the ASO kinds an AzureMachinePoolMachine owns; the controller watches them.
func OwnedKinds() []client.Object {
	return []client.Object{
		&asonetwork.NetworkInterface{}, &asocompute.VirtualMachine{}, &asocompute.VirtualMachinesExtension{},
		&asoauthorization.RoleAssignment{},
	}
}

// Reconciler reconciles AzureMachinePoolMachines.
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
	// patchTargets are the kinds of the pool's patches that an instance does not report when they match none of its
	// objects: its own (a patch may name another instance's object) and the pool's scale set, which the pool reports.
	patchTargets []schema.GroupVersionKind
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
	scaleSet, err := aso.GVKs(mgr.GetScheme(), &asocompute.VirtualMachineScaleSet{})
	if err != nil {
		return err
	}
	r.patchTargets = append(slices.Clone(r.kinds), scaleSet...)
	log := ctrl.LoggerFrom(ctx)
	clusterToMachines, err := util.ClusterToTypedObjectsMapper(mgr.GetClient(), &infrav1exp.AzureMachinePoolMachineList{}, mgr.GetScheme())
	if err != nil {
		return err
	}
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1exp.AzureMachinePoolMachine{}, builder.WithPredicates(lifecycle.IgnoreStatusOnlyUpdates())).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The pool's patches and model are its instances' too; its status (which follows its instances') is not.
		Watches(&infrav1exp.AzureMachinePool{}, handler.EnqueueRequestsFromMapFunc(r.poolToMachines),
			lifecycle.IgnoreStatusOnlyUpdates()).
		// The MachinePool's spec names the bootstrap data secret, once the bootstrap provider has written it.
		Watches(&clusterv1.MachinePool{}, handler.EnqueueRequestsFromMapFunc(r.machinePoolToMachines),
			predicate.GenerationChangedPredicate{}).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToMachines),
			predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// poolToMachines maps an AzureMachinePool to the AzureMachinePoolMachines it owns.
func (r *Reconciler) poolToMachines(ctx context.Context, o client.Object) []reconcile.Request {
	list := &infrav1exp.AzureMachinePoolMachineList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, m := range list.Items {
		for _, ref := range m.OwnerReferences {
			if ref.UID == o.GetUID() {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&m)})
			}
		}
	}
	return out
}

// machinePoolToMachines maps a MachinePool to the AzureMachinePoolMachines of its pool, by their pool-name label.
func (r *Reconciler) machinePoolToMachines(ctx context.Context, o client.Object) []reconcile.Request {
	list := &infrav1exp.AzureMachinePoolMachineList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()),
		client.MatchingLabels{clusterv1.MachinePoolNameLabel: format.MustFormatValue(o.GetName())}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, m := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&m)})
	}
	return out
}

// Reconcile makes the instance's VM match its model.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1exp.AzureMachinePoolMachine, scope]{
		New:       func() *infrav1exp.AzureMachinePoolMachine { return &infrav1exp.AzureMachinePoolMachine{} },
		Finalizer: infrav1exp.MachinePoolMachineFinalizer,
		// Deleting needs neither the pool nor the MachinePool, which may go first: the cluster label is enough.
		Owners: lifecycle.ClusterLabel,
		Scope: func(m *infrav1exp.AzureMachinePoolMachine, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machine: m}
		},
		PauseKinds: func(client.Object) []schema.GroupVersionKind { return r.kinds },
		WhilePaused: func(ctx context.Context, s *scope) (err error) {
			_, s.credentials, err = clusterinfra.PausedCredentials(ctx, r.APIReader, r.Client, r.Engine, s.cluster, s.machine, r.kinds)
			return err
		},
		Normal: r.reconcileNormal,
		Delete: r.reconcileDelete,
		Status: updateStatus,
	}, req)
}

// reconcileNormal runs the phases of a live instance.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	for _, phase := range []func(context.Context, *scope) error{
		r.reconcileOwners,
		r.reconcileClusterInfrastructure,
		r.reconcileBootstrapData,
		r.reconcileResources,
		r.reconcileVMStatus,
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
	// cluster and machine are read by the lifecycle.
	cluster *clusterv1.Cluster
	machine *infrav1exp.AzureMachinePoolMachine

	// pool and machinePool are set by reconcileOwners.
	pool        *infrav1exp.AzureMachinePool
	machinePool *clusterv1.MachinePool
	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// credentials is set by reconcileClusterInfrastructure: whether the cluster's identity may be used here.
	credentials aso.Credentials
	// bootstrapData is set by reconcileBootstrapData while the VM does not exist yet; nil afterwards.
	bootstrapData []byte
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// vmID and provisioningState are set by reconcileVMStatus: the VM's resource ID and state as ASO reports them.
	vmID, provisioningState string
	// waiting is set by a phase that must wait.
	waiting lifecycle.Wait
	// deleting is set by reconcileDelete while ASO deletes the instance's resources.
	deleting bool
}
