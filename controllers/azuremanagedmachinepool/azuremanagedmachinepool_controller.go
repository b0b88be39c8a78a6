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

package azuremanagedmachinepool

import (
	"context"
	"fmt"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/version"
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
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools;azuremanagedmachinepools/status;azuremanagedmachinepools/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=containerservice.azure.com,resources=managedclustersagentpools,verbs=get;list;watch;create;update;patch;delete

// WaitingForControlPlaneReason means the pool's AzureManagedControlPlane is missing or does not know its
// subscription yet.
const WaitingForControlPlaneReason = "WaitingForControlPlane"

// Reconciler reconciles AzureManagedMachinePools.
type Reconciler struct {
	Client       client.Client
	Engine       *aso.Engine
	ClusterCache clustercache.ClusterCache

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// kinds, controller and poolsOfCluster are set by SetupWithManager.
	kinds          []schema.GroupVersionKind
	controller     capicontroller.Controller
	poolsOfCluster handler.MapFunc
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.Engine == nil || r.ClusterCache == nil {
		return fmt.Errorf("client, engine and cluster cache are required")
	}
	var err error
	if r.kinds, err = aso.GVKs(mgr.GetScheme(), &asocontainerservice.ManagedClustersAgentPool{}); err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	clusterToPools, err := util.ClusterToTypedObjectsMapper(mgr.GetClient(), &infrav1.AzureManagedMachinePoolList{}, mgr.GetScheme())
	if err != nil {
		return err
	}
	controlPlaneToPools := func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster, err := util.GetOwnerCluster(ctx, r.Client, metav1.ObjectMeta{Namespace: o.GetNamespace(), OwnerReferences: o.GetOwnerReferences()})
		if err != nil || cluster == nil {
			return nil
		}
		return clusterToPools(ctx, cluster)
	}
	c, err := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureManagedMachinePool{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.MachinePool{},
			handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureManagedMachinePool")))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToPools), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		// The control plane's subscription and auto-upgrade version are the pool's too.
		Watches(&infrav1.AzureManagedControlPlane{}, handler.EnqueueRequestsFromMapFunc(controlPlaneToPools)).
		WatchesRawSource(r.ClusterCache.GetClusterSource("azuremanagedmachinepool", clusterToPools)).
		Owns(&asocontainerservice.ManagedClustersAgentPool{}).
		Build(ctx, r)
	r.controller = c
	r.poolsOfCluster = clusterToPools
	return err
}

// Reconcile makes the pool's agent pool match its spec and reports its nodes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	pool := &infrav1.AzureManagedMachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	machinePool, err := util.GetOwnerMachinePool(ctx, r.Client, pool.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if machinePool == nil {
		log.Info("Waiting for the MachinePool controller to set an owner reference on the AzureManagedMachinePool")
		return ctrl.Result{}, nil
	}
	cluster, err := util.GetClusterFromMetadata(ctx, r.Client, machinePool.ObjectMeta)
	if err != nil {
		log.Info("Waiting for the MachinePool's Cluster", "reason", err.Error())
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, log.WithValues("MachinePool", klog.KObj(machinePool), "Cluster", klog.KObj(cluster)))
	if added, err := finalizers.EnsureFinalizer(ctx, r.Client, pool, infrav1.ManagedMachinePoolFinalizer); err != nil || added {
		return ctrl.Result{}, err
	}
	patchHelper, err := patch.NewHelper(pool, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, pool); err != nil || isPaused || requeue {
		if err != nil || requeue || !isPaused {
			return ctrl.Result{}, err
		}
		done, _, err := r.Engine.Pause(ctx, pool, cluster.Name, r.kinds)
		if err != nil || !done {
			return ctrl.Result{}, err
		}
		aso.SetBlockMove(pool, false)
		return ctrl.Result{}, patchHelper.Patch(ctx, pool)
	}

	s := &scope{cluster: cluster, machinePool: machinePool, pool: pool}
	defer func() {
		updateStatus(s)
		options := []patch.Option{patch.WithOwnedConditions{Conditions: []string{clusterv1.ReadyCondition, clusterv1.PausedCondition,
			infrav1.ResourcesReadyCondition, infrav1.PatchesAppliedCondition, aks.FamilyAgentPool + "Ready"}}}
		if reterr == nil {
			options = append(options, patch.WithStatusObservedGeneration{})
		}
		if err := patchHelper.Patch(ctx, pool, options...); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if !pool.DeletionTimestamp.IsZero() {
		s.deleting = true
		done, result, err := r.Engine.Delete(ctx, pool, aso.DeleteOptions{ClusterName: cluster.Name, Kinds: r.kinds})
		s.result = result
		if err == nil && done {
			controllerutil.RemoveFinalizer(pool, infrav1.ManagedMachinePoolFinalizer)
		}
		return ctrl.Result{}, err
	}
	aso.SetBlockMove(pool, true)
	if err := r.reconcileAgentPool(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.reconcileNodes(ctx, s)
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	cluster     *clusterv1.Cluster
	machinePool *clusterv1.MachinePool
	pool        *infrav1.AzureManagedMachinePool

	// waiting says why the agent pool cannot be applied yet.
	waiting string
	// result is the state of the agent pool object.
	result *aso.Result
	// deleting is set while the pool is deleted.
	deleting bool
}

// reconcileAgentPool translates the pool with what its control plane and MachinePool own, and applies it.
func (r *Reconciler) reconcileAgentPool(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
	if s.cluster.Spec.ControlPlaneRef.Kind != "AzureManagedControlPlane" {
		s.waiting = "the Cluster's control plane is not an AzureManagedControlPlane"
		return nil
	}
	cp := &infrav1.AzureManagedControlPlane{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: s.cluster.Spec.ControlPlaneRef.Name}, cp); err != nil {
		if client.IgnoreNotFound(err) == nil {
			s.waiting = fmt.Sprintf("waiting for AzureManagedControlPlane %s", s.cluster.Spec.ControlPlaneRef.Name)
		}
		return client.IgnoreNotFound(err)
	}
	c := azure.Cluster{
		Name:           s.cluster.Name,
		SubscriptionID: cp.Spec.SubscriptionID,
		Location:       cp.Spec.Location,
		ResourceGroup:  cp.Spec.ResourceGroupName,
		AdditionalTags: cp.Spec.AdditionalTags,
	}
	if c.SubscriptionID == "" {
		c.SubscriptionID = aso.SubscriptionFromResourceGroup(ctx, r.Client, cp.Namespace, azure.ObjectName(cp.Spec.ResourceGroupName))
	}
	if c.SubscriptionID == "" {
		s.waiting = "waiting for the AzureManagedControlPlane's resource group, whose ID names the subscription"
		return nil
	}
	if err := managed.MarkReplicasManagedByAutoscaler(ctx, r.Client, mp, pool.Spec.Scaling != nil); err != nil {
		return err
	}
	in := aks.AgentPoolInput{
		Cluster:            c,
		ManagedClusterName: cp.Name,
		Name:               pool.Name,
		Spec:               pool.Spec,
		Replicas:           mp.Spec.Replicas,
		Version:            newer(mp.Spec.Template.Spec.Version, cp.Status.AutoUpgradeVersion),
		VNetSubnetID:       aks.SubnetID(c, cp.Spec.VirtualNetwork),
	}
	if pool.Spec.Scaling != nil {
		// The autoscaler owns the count once the pool exists: apply what AKS reports so that no apply scales it back.
		live := &asocontainerservice.ManagedClustersAgentPool{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: azure.ObjectName(pool.Name)}, live); err == nil && live.Status.Count != nil {
			in.Replicas = ptr.To(int32(*live.Status.Count))
		} else if client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	credentialSecret := ""
	if cp.Spec.IdentityRef != nil {
		credentialSecret = aso.CredentialSecretName(s.cluster.Name)
	}
	var err error
	s.result, err = r.Engine.Reconcile(ctx, pool, aks.MachinePoolResources(in), aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: credentialSecret, Kinds: r.kinds,
		Patches: append(aso.MergePatches("ManagedClustersAgentPool", "asoManagedClustersAgentPoolPatches", pool.Spec.ASOManagedClustersAgentPoolPatches),
			aso.UserPatches(pool.Spec.ASOPatches)...),
	})
	return err
}

// newer is the newer of two versions; an empty or unparsable b loses.
func newer(a, b string) string {
	va, errA := version.ParseGeneric(a)
	vb, errB := version.ParseGeneric(b)
	if errB == nil && (errA != nil || vb.GreaterThan(va)) {
		return b
	}
	return a
}

// reconcileNodes reports the pool's size (status.replicas) and its nodes, read from the workload cluster, as
// providerIDList.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope) error {
	if s.result == nil {
		return nil
	}
	pool := s.pool
	live := &asocontainerservice.ManagedClustersAgentPool{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: azure.ObjectName(pool.Name)}, live); err != nil {
		return client.IgnoreNotFound(err)
	}
	pool.Status.Replicas = int32(ptr.Deref(live.Status.Count, 0))
	if err := managed.FollowAutoscaler(ctx, r.Client, s.machinePool, live.Status.Count); err != nil {
		return err
	}
	nodeResourceGroup := ""
	if live.Spec.Owner != nil {
		mc := &asocontainerservice.ManagedCluster{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: live.Spec.Owner.Name}, mc); err == nil {
			nodeResourceGroup = ptr.Deref(mc.Status.NodeResourceGroup, "")
		}
	}
	// Until the workload cluster is reachable its nodes are unknown; the cluster cache's source requeues the
	// pool once it connects.
	if err := managed.WatchNodes(ctx, r.ClusterCache, r.controller, "azuremanagedmachinepool", s.cluster, r.poolsOfCluster); err != nil {
		return managed.IgnoreNotConnected(err)
	}
	reader, err := r.ClusterCache.GetReader(ctx, client.ObjectKeyFromObject(s.cluster))
	if err != nil {
		return managed.IgnoreNotConnected(err)
	}
	ids, err := managed.PoolProviderIDs(ctx, reader, live.Spec.AzureName, nodeResourceGroup)
	if err != nil {
		return err
	}
	pool.Spec.ProviderIDList = ids
	return nil
}

// updateStatus summarises the pool's state: Ready, status.ready and status.initialization.provisioned.
func updateStatus(s *scope) {
	pool := s.pool
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
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the agent pool"
	case s.waiting != "":
		ready.Reason, ready.Message = WaitingForControlPlaneReason, s.waiting
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
