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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
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

	// instanceKinds, controller and poolsOfCluster are set by SetupWithManager.
	// instanceKinds are the kinds of a Flexible pool's instances, which the pool's patches also reach.
	instanceKinds  []schema.GroupVersionKind
	controller     capicontroller.Controller
	poolsOfCluster handler.MapFunc
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	r.azureJSON = &azurejson.Writer{Client: r.Client, APIReader: r.APIReader, Metadata: mgr.GetCache()}
	var err error
	if r.instanceKinds, err = aso.GVKs(mgr.GetScheme(), compute.ReplicaKinds()...); err != nil {
		return err
	}
	if r.poolsOfCluster, err = lifecycle.ClusterToObjects(mgr, infrav1exp.GroupVersion.WithKind("AzureMachinePool")); err != nil {
		return err
	}
	k := &lifecycle.Kind[*infrav1exp.AzureMachinePool, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs:   map[string]any{"API reader": r.APIReader, "cluster cache": r.ClusterCache},
		New:     func() *infrav1exp.AzureMachinePool { return &infrav1exp.AzureMachinePool{} },
		Cluster: lifecycle.ClusterWatch{Provisioned: true},
		Watches: []lifecycle.Watch{
			{Object: &clusterv1.MachinePool{},
				Handler: handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1exp.GroupVersion.WithKind("AzureMachinePool")))},
			// A pool's azure.json follows its AzureCluster's spec and the revocation of the cluster's identity.
			{Object: &infrav1.AzureCluster{}, Handler: handler.EnqueueRequestsFromMapFunc(r.poolsOfAzureCluster),
				Predicates: []predicate.Predicate{specOrCredentialsChanged()}},
			// An instance's readiness and deletion move the rollout on.
			{Object: &infrav1exp.AzureMachinePoolMachine{},
				Handler: handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &infrav1exp.AzureMachinePool{})},
		},
		// The instances' AzureMachinePoolMachines own, and pause, their own objects.
		Owns:          compute.ScaleSetKinds(),
		Finalizer:     infrav1exp.MachinePoolFinalizer,
		CAPZFinalizer: clusterv1.MachinePoolFinalizer,
		Owners:        lifecycle.MachinePoolOwner,
		Scope: func(pool *infrav1exp.AzureMachinePool, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machinePool: owners.MachinePool, pool: pool}
		},
		WhilePaused: r.revokeWhilePaused,
		// A Flexible pool's scale set, then its instances; a Uniform pool's Nodes, then its scale set.
		Phases: []lifecycle.Phase[*scope]{
			r.reconcileClusterInfrastructure, r.reconcileAzureJSON, r.requireCredentials,
			r.readScaleSet, r.reconcileNodes, r.reconcileScaleSet, r.reconcileReplicas,
		},
		Deletes:      "the scale set",
		BeforeDelete: r.beforeDelete,
		DeleteOrder:  compute.ScaleSetDeleteOrder,
		// As CAPZ's, a deleted Cluster's scale sets go with its resource group, when the cluster owns it.
		GoWithCluster: resources.GoWithGroup(),
		Status:        updateStatus,
	}
	if r.ClusterCache != nil {
		k.Watches = append(k.Watches, lifecycle.Watch{Source: r.ClusterCache.GetClusterSource("azuremachinepool", r.poolsOfCluster)})
	}
	r.controller, err = k.Setup(ctx, mgr, options)
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

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster, machinePool and pool are read by the lifecycle.
	cluster     *clusterv1.Cluster
	machinePool *clusterv1.MachinePool
	pool        *infrav1exp.AzureMachinePool

	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// replicas is set by reconcileReplicas (Flexible) and deleteReplicas: the pool's AzureMachinePoolMachines.
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
	// draining is set by reconcileScaleSet while a Uniform scale set's capacity waits for Nodes to be drained.
	draining string
	// scaleSetName is set by readScaleSet: the name of the pool's scale set in Azure (compute.ScaleSetName).
	scaleSetName string
	// scaleSet is set by readScaleSet: the live ASO object of the scale set (nil: none yet); taken is what Azure
	// has of a scale set the provider did not make (takenOver), nil for one it made.
	scaleSet azure.Object
	taken    *compute.TakenOverScaleSet
	// capzDifferences is set by reconcileScaleSet for a taken-over scale set: the deliberate differences from CAPZ
	// waiting for the user's opt-in.
	capzDifferences []string
	// deleting is set by takeOverBeforeDelete: the pass takes over the scale set of a pool being deleted.
	deleting bool
}

// isFlexible reports whether the pool is a Flexible scale set.
func isFlexible(pool *infrav1exp.AzureMachinePool) bool {
	return pool.Spec.OrchestrationMode == infrav1exp.FlexibleOrchestrationMode
}

// azureMakesInstances reports whether Azure makes the pool's instances from the scale set's VM profile: a Uniform
// scale set's, or that of a Flexible one taken over from CAPZ, which makes every scale set with a profile. Otherwise
// the provider makes them, one AzureMachinePoolMachine each. known is false while ASO has not yet read a Flexible
// scale set being taken over: until then the provider makes no instance.
func (s *scope) azureMakesInstances() (yes, known bool) {
	if !isFlexible(s.pool) {
		return true, true
	}
	if s.taken == nil {
		return false, true
	}
	return s.taken.Profile, s.taken.Known
}
