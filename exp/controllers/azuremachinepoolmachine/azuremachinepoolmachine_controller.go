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

	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/labels/format"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools;machines,verbs=get;list;watch

// Reconciler reconciles AzureMachinePoolMachines.
type Reconciler struct {
	Client client.Client
	// APIReader reads what the manager does not cache: bootstrap data secrets and the cluster's infrastructure
	// object of a kind it does not watch.
	APIReader client.Reader
	Engine    *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// patchTargets are the kinds of the pool's patches that an instance does not report when they match none of its
	// objects: its own (a patch may name another instance's object) and the pool's scale set, which the pool reports.
	patchTargets []schema.GroupVersionKind
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	var err error
	if r.patchTargets, err = aso.GVKs(mgr.GetScheme(), append(compute.ReplicaKinds(), compute.ScaleSets())...); err != nil {
		return err
	}
	_, err = (&lifecycle.Kind[*infrav1exp.AzureMachinePoolMachine, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs:         map[string]any{"API reader": r.APIReader},
		New:           func() *infrav1exp.AzureMachinePoolMachine { return &infrav1exp.AzureMachinePoolMachine{} },
		ForPredicates: []predicate.Predicate{lifecycle.IgnoreStatusOnlyUpdates()},
		Cluster:       lifecycle.ClusterWatch{Provisioned: true},
		Watches: []lifecycle.Watch{
			// The pool's patches and model are its instances' too; its status (which follows its instances') is not.
			{Object: &infrav1exp.AzureMachinePool{}, Handler: handler.EnqueueRequestsFromMapFunc(r.poolToMachines),
				Predicates: []predicate.Predicate{lifecycle.IgnoreStatusOnlyUpdates()}},
			// The MachinePool's spec names the bootstrap data secret, once the bootstrap provider has written it.
			{Object: &clusterv1.MachinePool{}, Handler: handler.EnqueueRequestsFromMapFunc(r.machinePoolToMachines),
				Predicates: []predicate.Predicate{predicate.GenerationChangedPredicate{}}},
		},
		Owns:      compute.ReplicaKinds(),
		Finalizer: infrav1exp.MachinePoolMachineFinalizer,
		// Deleting needs neither the pool nor the MachinePool, which may go first: the cluster label is enough.
		Owners: lifecycle.ClusterLabel,
		Scope: func(m *infrav1exp.AzureMachinePoolMachine, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machine: m}
		},
		WhilePaused: func(ctx context.Context, s *scope) error {
			_, creds, err := clusterinfra.PausedCredentials(ctx, r.APIReader, r.Client, r.Engine, s.cluster, s.machine, s.Kinds)
			s.Credentials = &creds
			return err
		},
		Phases: []lifecycle.Phase[*scope]{
			r.reconcileOwners, r.reconcileClusterInfrastructure, r.reconcileBootstrapData, r.reconcileResources, r.reconcileVMStatus,
		},
		Deletes:     "the instance's Azure resources",
		DeleteOrder: compute.MachineDeleteOrder,
		// As CAPZ's, a deleted Cluster's instances go with its resource group, when the cluster owns it.
		GoWithCluster: resources.GoWithGroup(),
		Status:        updateStatus,
	}).Setup(ctx, mgr, options)
	return err
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

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster and machine are read by the lifecycle.
	cluster *clusterv1.Cluster
	machine *infrav1exp.AzureMachinePoolMachine

	// pool and machinePool are set by reconcileOwners.
	pool        *infrav1exp.AzureMachinePool
	machinePool *clusterv1.MachinePool
	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// bootstrapData is set by reconcileBootstrapData while the VM does not exist yet; nil afterwards.
	bootstrapData []byte
	// vm is set by reconcileVMStatus: the VM's resource ID and state as ASO reports them.
	vm compute.VMState
}
