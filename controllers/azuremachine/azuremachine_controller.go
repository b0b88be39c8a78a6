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
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/finalizers"
	"sigs.k8s.io/cluster-api/util/patch"
	"sigs.k8s.io/cluster-api/util/paused"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines;azuremachines/status;azuremachines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;machines/status,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=compute.azure.com,resources=virtualmachines;virtualmachinesextensions,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=network.azure.com,resources=networkinterfaces;publicipaddresses,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=authorization.azure.com,resources=roleassignments,verbs=get;list;watch;create;update;patch;delete

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
		For(&infrav1.AzureMachine{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Machine{},
			handler.EnqueueRequestsFromMapFunc(util.MachineToInfrastructureMapFunc(infrav1.GroupVersion.WithKind("AzureMachine")))).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(clusterToMachines),
			predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	return b.Complete(ctx, r)
}

// Reconcile makes the AzureMachine's VM match its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	azureMachine := &infrav1.AzureMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, azureMachine); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)

	machine, err := util.GetOwnerMachine(ctx, r.Client, azureMachine.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if machine == nil {
		log.Info("Waiting for the Machine controller to set an owner reference on the AzureMachine")
		return ctrl.Result{}, nil
	}
	log = log.WithValues("Machine", klog.KObj(machine))
	cluster, err := util.GetClusterFromMetadata(ctx, r.Client, machine.ObjectMeta)
	if err != nil {
		log.Info("Waiting for the Machine's Cluster", "reason", err.Error())
		return ctrl.Result{}, nil
	}
	log = log.WithValues("Cluster", klog.KObj(cluster))
	ctx = ctrl.LoggerInto(ctx, log)

	if added, err := finalizers.EnsureFinalizer(ctx, r.Client, azureMachine, infrav1.MachineFinalizer); err != nil || added {
		return ctrl.Result{}, err
	}
	patchHelper, err := patch.NewHelper(azureMachine, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster, machine: machine, azureMachine: azureMachine}
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, azureMachine); err != nil || isPaused || requeue {
		if err != nil || requeue || !isPaused {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.reconcilePaused(ctx, s, patchHelper)
	}

	defer func() {
		updateStatus(s)
		options := []patch.Option{patch.WithOwnedConditions{Conditions: ownedConditions()}}
		if reterr == nil {
			options = append(options, patch.WithStatusObservedGeneration{})
		}
		if err := patchHelper.Patch(ctx, azureMachine, options...); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if !azureMachine.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, s)
	}
	for _, phase := range []func(context.Context, *scope) error{
		r.reconcileClusterInfrastructure,
		r.reconcileBootstrapData,
		r.reconcileResources,
		r.reconcileMachineStatus,
	} {
		if err := phase(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if s.waiting != "" {
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{}, nil
}

// reconcilePaused sets reconcile-policy skip on every ASO object of the machine and lifts the block on
// clusterctl move once that is done.
func (r *Reconciler) reconcilePaused(ctx context.Context, s *scope, patchHelper *patch.Helper) error {
	done, _, err := r.Engine.Pause(ctx, s.azureMachine, s.cluster.Name, r.kinds)
	if err != nil || !done {
		return err
	}
	aso.SetBlockMove(s.azureMachine, false)
	return patchHelper.Patch(ctx, s.azureMachine)
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster, machine and azureMachine are read by Reconcile.
	cluster      *clusterv1.Cluster
	machine      *clusterv1.Machine
	azureMachine *infrav1.AzureMachine

	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// bootstrapData is set by reconcileBootstrapData while the VM does not exist yet; nil afterwards.
	bootstrapData []byte
	// vmCreated is set by reconcileBootstrapData: ASO has reported the VM created.
	vmCreated bool
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// waiting is set by a phase that must wait (for the cluster, the bootstrap data); it is the Ready message.
	waiting, waitingReason string
	// deleting is set by reconcileDelete while ASO deletes the machine's resources.
	deleting bool
}
