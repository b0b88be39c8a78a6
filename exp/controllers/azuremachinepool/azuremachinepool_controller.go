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

package azuremachinepool

import (
	"context"
	"fmt"
	"strings"
	"time"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepoolmachine"
	"github.com/capzaso/cluster-api-provider-azure/internal/azurejson"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch;delete

// OwnedKinds are the ASO kinds an AzureMachinePool owns; the controller watches them. The objects of a Flexible
// scale set's instances belong to their AzureMachinePoolMachines.
func OwnedKinds() []client.Object {
	return []client.Object{&asocompute.VirtualMachineScaleSet{}, &asoauthorization.RoleAssignment{}}
}

// Reconciler reconciles AzureMachinePools.
type Reconciler struct {
	Client client.Client
	// APIReader reads what the manager does not cache: bootstrap data secrets and the cluster's infrastructure
	// object of a kind it does not watch.
	APIReader client.Reader
	Engine    *aso.Engine
	// ClusterCache reaches workload clusters, for the Nodes of Uniform scale sets.
	ClusterCache clustercache.ClusterCache

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// azureJSON writes the azure.json Secrets.
	azureJSON *azurejson.Writer

	// kinds, instanceKinds, controller and poolsOfCluster are set by SetupWithManager.
	kinds []schema.GroupVersionKind
	// instanceKinds are the kinds of a Flexible pool's instances, which the pool's patches also reach.
	instanceKinds  []schema.GroupVersionKind
	controller     capicontroller.Controller
	poolsOfCluster handler.MapFunc
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Engine == nil || r.ClusterCache == nil {
		return fmt.Errorf("client, API reader, engine and cluster cache are required")
	}
	r.azureJSON = &azurejson.Writer{Client: r.Client, APIReader: r.APIReader, Metadata: mgr.GetCache()}
	var err error
	if r.kinds, err = aso.GVKs(mgr.GetScheme(), OwnedKinds()...); err != nil {
		return err
	}
	if r.instanceKinds, err = aso.GVKs(mgr.GetScheme(), azuremachinepoolmachine.OwnedKinds()...); err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	r.poolsOfCluster, err = util.ClusterToTypedObjectsMapper(mgr.GetClient(), &infrav1exp.AzureMachinePoolList{}, mgr.GetScheme())
	if err != nil {
		return err
	}
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1exp.AzureMachinePool{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.MachinePool{},
			handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1exp.GroupVersion.WithKind("AzureMachinePool")))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.poolsOfCluster),
			predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log)).
		// A pool's azure.json follows its AzureCluster's spec and the revocation of the cluster's identity.
		Watches(&infrav1.AzureCluster{}, handler.EnqueueRequestsFromMapFunc(r.poolsOfAzureCluster),
			specOrCredentialsChanged()).
		// An instance's readiness and deletion move the rollout on.
		Watches(&infrav1exp.AzureMachinePoolMachine{},
			handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &infrav1exp.AzureMachinePool{})).
		WatchesRawSource(r.ClusterCache.GetClusterSource("azuremachinepool", r.poolsOfCluster))
	for _, obj := range OwnedKinds() {
		b = b.Owns(obj)
	}
	r.controller, err = b.Build(ctx, r)
	return err
}

// poolsOfAzureCluster maps an AzureCluster to the pools of its Cluster (its owner, or the one its cluster-name
// label names).
func (r *Reconciler) poolsOfAzureCluster(ctx context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[clusterv1.ClusterNameLabel]
	for _, ref := range o.GetOwnerReferences() {
		if ref.Kind == "Cluster" && strings.HasPrefix(ref.APIVersion, clusterv1.GroupVersion.Group+"/") {
			name = ref.Name
		}
	}
	if name == "" {
		return nil
	}
	return r.poolsOfCluster(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: o.GetNamespace(), Name: name}})
}

// specOrCredentialsChanged passes an AzureCluster's updates that change its spec or its CredentialsReady
// condition, not the many status updates of its provisioning.
func specOrCredentialsChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				return true
			}
			credentials := func(o client.Object) metav1.Condition {
				getter, ok := o.(conditions.Getter)
				if !ok {
					return metav1.Condition{}
				}
				if c := conditions.Get(getter, infrav1.CredentialsReadyCondition); c != nil {
					return metav1.Condition{Status: c.Status, Reason: c.Reason}
				}
				return metav1.Condition{}
			}
			return credentials(e.ObjectOld) != credentials(e.ObjectNew)
		},
	}
}

// Reconcile makes the AzureMachinePool's scale set and instances match its spec and its MachinePool.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1exp.AzureMachinePool, scope]{
		New:       func() *infrav1exp.AzureMachinePool { return &infrav1exp.AzureMachinePool{} },
		Finalizer: infrav1exp.MachinePoolFinalizer,
		Owners:    lifecycle.MachinePoolOwner,
		Scope: func(pool *infrav1exp.AzureMachinePool, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machinePool: owners.MachinePool, pool: pool}
		},
		// The instances' AzureMachinePoolMachines pause their own objects.
		PauseKinds:  func(client.Object) []schema.GroupVersionKind { return r.kinds },
		WhilePaused: r.revokeWhilePaused,
		Normal:      r.reconcileNormal,
		Delete:      r.reconcileDelete,
		Status:      updateStatus,
	}, req)
}

// reconcileNormal runs the phases of a live pool: a Flexible pool's scale set, then its instances; a Uniform
// pool's Nodes, then its scale set.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	phases := []func(context.Context, *scope) error{r.reconcileClusterInfrastructure, r.reconcileAzureJSON, r.requireCredentials}
	if isFlexible(s.pool) {
		phases = append(phases, r.reconcileScaleSet, r.reconcileReplicas)
	} else {
		phases = append(phases, r.reconcileNodes, r.reconcileScaleSet)
	}
	for _, phase := range phases {
		if err := phase(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if s.waiting.Message != "" {
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{RequeueAfter: s.requeueAfter}, nil
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster, machinePool and pool are read by the lifecycle.
	cluster     *clusterv1.Cluster
	machinePool *clusterv1.MachinePool
	pool        *infrav1exp.AzureMachinePool

	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// credentials is set by reconcileClusterInfrastructure: whether the cluster's identity may be used here.
	credentials aso.Credentials
	// result is set by reconcileScaleSet and reconcileDelete: the state of the pool's own ASO objects.
	result *aso.Result
	// replicas is set by reconcileReplicas (Flexible) and reconcileDelete: the pool's AzureMachinePoolMachines.
	replicas []infrav1exp.AzureMachinePoolMachine
	// nodes is set by reconcileNodes (Uniform): the scale set's Nodes, or nil while the workload cluster is not
	// reachable (nodesKnown false).
	nodes      []nodeInfo
	nodesKnown bool
	// watermark is set by reconcileNodes (Uniform): instances numbered up to it run an outdated model.
	watermark int
	// capacity is set by reconcileScaleSet (Uniform): the scale set's capacity as Azure reports it.
	capacity int32
	// provisioningState is set by reconcileScaleSet: the scale set's provisioning state as ASO reports it.
	provisioningState string
	// waiting is set by a phase that must wait (for the cluster, the bootstrap data).
	waiting lifecycle.Wait
	// draining is set by reconcileScaleSet while a Uniform scale set's capacity waits for Nodes to be drained.
	draining string
	// requeueAfter asks for another pass (to check a drain's pods, which are not watched).
	requeueAfter time.Duration
	// deleting is set by reconcileDelete while the instances and the scale set are deleted.
	deleting bool
}

// isFlexible reports whether the pool is a Flexible scale set.
func isFlexible(pool *infrav1exp.AzureMachinePool) bool {
	return pool.Spec.OrchestrationMode == infrav1exp.FlexibleOrchestrationMode
}
