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

package azureasomanagedmachinepool

import (
	"context"
	"fmt"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/finalizers"
	"sigs.k8s.io/cluster-api/util/patch"
	"sigs.k8s.io/cluster-api/util/paused"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools;azureasomanagedmachinepools/status;azureasomanagedmachinepools/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch;update;patch

// Reconciler reconciles AzureASOManagedMachinePools.
type Reconciler struct {
	Client       client.Client
	Engine       *aso.Engine
	ClusterCache clustercache.ClusterCache

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// controller and poolsOfCluster are set by SetupWithManager, for the watch of the workload cluster's nodes.
	controller     capicontroller.Controller
	poolsOfCluster handler.MapFunc
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.Engine == nil || r.ClusterCache == nil {
		return fmt.Errorf("client, engine and cluster cache are required")
	}
	log := ctrl.LoggerFrom(ctx)
	clusterToPools, err := util.ClusterToTypedObjectsMapper(mgr.GetClient(), &infrav1.AzureASOManagedMachinePoolList{}, mgr.GetScheme())
	if err != nil {
		return err
	}
	c, err := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedMachinePool{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.MachinePool{},
			handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureASOManagedMachinePool")))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToPools), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		WatchesRawSource(r.ClusterCache.GetClusterSource("azureasomanagedmachinepool", clusterToPools)).
		Owns(&asocontainerservice.ManagedClustersAgentPool{}).
		Build(ctx, r)
	r.controller = c
	r.poolsOfCluster = clusterToPools
	return err
}

// Reconcile applies the pool's raw ASO objects and reports its nodes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	pool := &infrav1.AzureASOManagedMachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	machinePool, err := util.GetOwnerMachinePool(ctx, r.Client, pool.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if machinePool == nil {
		log.Info("Waiting for the MachinePool controller to set an owner reference on the AzureASOManagedMachinePool")
		return ctrl.Result{}, nil
	}
	cluster, err := util.GetClusterFromMetadata(ctx, r.Client, machinePool.ObjectMeta)
	if err != nil {
		log.Info("Waiting for the MachinePool's Cluster", "reason", err.Error())
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, log.WithValues("MachinePool", klog.KObj(machinePool), "Cluster", klog.KObj(cluster)))

	if added, err := finalizers.EnsureFinalizer(ctx, r.Client, pool, infrav1.ASOManagedMachinePoolFinalizer); err != nil || added {
		return ctrl.Result{}, err
	}
	patchHelper, err := patch.NewHelper(pool, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	kinds := managed.RecordedKinds(pool)
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, pool); err != nil || isPaused || requeue {
		if err != nil || requeue || !isPaused {
			return ctrl.Result{}, err
		}
		done, _, err := r.Engine.Pause(ctx, pool, cluster.Name, kinds)
		if err != nil || !done {
			return ctrl.Result{}, err
		}
		aso.SetBlockMove(pool, false)
		return ctrl.Result{}, patchHelper.Patch(ctx, pool)
	}

	s := &scope{}
	defer func() {
		setStatus(pool, s, !pool.DeletionTimestamp.IsZero())
		options := []patch.Option{patch.WithOwnedConditions{Conditions: []string{clusterv1.ReadyCondition, clusterv1.PausedCondition,
			infrav1.ResourcesReadyCondition, infrav1.PatchesAppliedCondition, managed.ResourcesFamily + "Ready"}}}
		if reterr == nil {
			options = append(options, patch.WithStatusObservedGeneration{})
		}
		if err := patchHelper.Patch(ctx, pool, options...); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if !pool.DeletionTimestamp.IsZero() {
		done, result, err := r.Engine.Delete(ctx, pool, aso.DeleteOptions{ClusterName: cluster.Name, Kinds: kinds})
		s.result = result
		if err == nil && done {
			controllerutil.RemoveFinalizer(pool, infrav1.ASOManagedMachinePoolFinalizer)
		}
		return ctrl.Result{}, err
	}
	aso.SetBlockMove(pool, true)
	if err := r.reconcileResources(ctx, s, pool, machinePool, cluster.Name); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.reconcileNodes(ctx, s, pool, machinePool, cluster)
}

// scope holds what one reconciliation learns.
type scope struct {
	// result is the state of every ASO object.
	result *aso.Result
	// agentPool is the name of the agent pool object; invalid says why the resources cannot be applied.
	agentPool, invalid string
}

// reconcileResources sets what the MachinePool owns on the agent pool and applies the raw objects.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope, pool *infrav1.AzureASOManagedMachinePool, mp *clusterv1.MachinePool, clusterName string) error {
	objs, err := asomanaged.Parse(pool.Spec.Resources)
	if err != nil {
		s.invalid = err.Error()
		return nil
	}
	ap := asomanaged.Find(objs, asomanaged.AgentPoolKind)
	if ap == nil {
		s.invalid = "spec.resources has no ManagedClustersAgentPool"
		return nil
	}
	s.agentPool = ap.GetName()
	if err := asomanaged.SetAgentPoolDefaults(ap, asomanaged.AgentPoolInput{Version: mp.Spec.Template.Spec.Version, Replicas: mp.Spec.Replicas}); err != nil {
		s.invalid = fmt.Sprintf("ManagedClustersAgentPool %s: %v", ap.GetName(), err)
		return nil
	}
	if err := managed.MarkReplicasManagedByAutoscaler(ctx, r.Client, mp, asomanaged.Autoscaling(ap)); err != nil {
		return err
	}
	kinds, err := managed.RecordKinds(ctx, r.Client, pool, objs)
	if err != nil {
		return err
	}
	s.result, err = r.Engine.Reconcile(ctx, pool, managed.Resources(objs), aso.Options{ClusterName: clusterName, Kinds: kinds})
	return err
}

// reconcileNodes reads the agent pool's nodes from the workload cluster into providerIDList, and the pool's
// size into status.replicas.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope, pool *infrav1.AzureASOManagedMachinePool, mp *clusterv1.MachinePool, cluster *clusterv1.Cluster) error {
	if s.agentPool == "" {
		return nil
	}
	live := &asocontainerservice.ManagedClustersAgentPool{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: s.agentPool}, live); err != nil {
		return client.IgnoreNotFound(err)
	}
	pool.Status.Replicas = int32(ptr.Deref(live.Status.Count, 0))
	if err := managed.FollowAutoscaler(ctx, r.Client, mp, live.Status.Count); err != nil {
		return err
	}
	nodeResourceGroup := ""
	if live.Spec.Owner != nil {
		mc := &asocontainerservice.ManagedCluster{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: live.Spec.Owner.Name}, mc); err == nil {
			nodeResourceGroup = ptr.Deref(mc.Status.NodeResourceGroup, "")
		}
	}
	// Until the workload cluster is reachable, its nodes are unknown; the cluster cache's source requeues the
	// pool once it connects.
	if err := managed.WatchNodes(ctx, r.ClusterCache, r.controller, "azureasomanagedmachinepool", cluster, r.poolsOfCluster); err != nil {
		return managed.IgnoreNotConnected(err)
	}
	reader, err := r.ClusterCache.GetReader(ctx, client.ObjectKeyFromObject(cluster))
	if err != nil {
		return managed.IgnoreNotConnected(err)
	}
	name := live.Spec.AzureName
	if name == "" {
		name = live.Name
	}
	ids, err := managed.PoolProviderIDs(ctx, reader, name, nodeResourceGroup)
	if err != nil {
		return err
	}
	pool.Spec.ProviderIDList = ids
	return nil
}

// setStatus summarises the pool's state: Ready, status.ready and status.initialization.provisioned.
func setStatus(pool *infrav1.AzureASOManagedMachinePool, s *scope, deleting bool) {
	var first *infrav1.ResourceStatus
	if s.result != nil {
		pool.Status.Resources = s.result.Statuses()
		for _, c := range s.result.Conditions() {
			conditions.Set(pool, c)
		}
		first = s.result.FirstNotReady()
	}
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	switch {
	case deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the pool's Azure resources"
	case s.invalid != "":
		ready.Reason, ready.Message = "InvalidResources", s.invalid
	case s.result == nil:
		return
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(pool, ready)
	pool.Status.Ready = ready.Status == metav1.ConditionTrue
	if pool.Status.Ready {
		pool.Status.Initialization.Provisioned = ptr.To(true)
	}
}
