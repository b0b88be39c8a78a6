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

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch;patch

// Reconciler reconciles AzureASOManagedMachinePools.
type Reconciler struct {
	Client       client.Client
	Engine       *aso.Engine
	ClusterCache clustercache.ClusterCache

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// nodes is set by SetupWithManager.
	nodes *managed.NodeReporter
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
	name := "azureasomanagedmachinepool"
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedMachinePool{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The credentials the raw resources name are judged again when they, or the identities, change.
		Watches(&infrav1.AzureClusterIdentity{}, identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedMachinePoolList{})).
		WatchesMetadata(&corev1.Secret{}, identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedMachinePoolList{})).
		Watches(&clusterv1.MachinePool{},
			handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureASOManagedMachinePool")))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToPools), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		WatchesRawSource(r.ClusterCache.GetClusterSource(name, clusterToPools))
	// The raw objects may be of any ASO kind the manager caches: a change of one brings its owner back.
	for _, obj := range aso.Kinds() {
		b = b.Owns(obj)
	}
	c, err := b.Build(ctx, r)
	r.nodes = &managed.NodeReporter{Client: r.Client, ClusterCache: r.ClusterCache, Controller: c, Name: name, PoolsOfCluster: clusterToPools}
	return err
}

// Reconcile applies the pool's raw ASO objects and reports its nodes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return lifecycle.Reconcile(ctx, r.Client, r.Engine, &lifecycle.Kind[*infrav1.AzureASOManagedMachinePool, scope]{
		New:       func() *infrav1.AzureASOManagedMachinePool { return &infrav1.AzureASOManagedMachinePool{} },
		Finalizer: infrav1.ASOManagedMachinePoolFinalizer,
		Owners:    lifecycle.MachinePoolOwner,
		Scope: func(pool *infrav1.AzureASOManagedMachinePool, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machinePool: owners.MachinePool, pool: pool}
		},
		PauseKinds: managed.RecordedKinds,
		Normal: func(ctx context.Context, s *scope) (ctrl.Result, error) {
			if err := r.reconcileResources(ctx, s); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, r.reconcileNodes(ctx, s)
		},
		Delete: func(ctx context.Context, s *scope) (bool, error) {
			s.deleting = true
			done, result, err := r.Engine.Delete(ctx, s.pool, aso.DeleteOptions{ClusterName: s.cluster.Name, Kinds: managed.RecordedKinds(s.pool)})
			s.result = result
			return done, err
		},
		Status: updateStatus,
	}, req)
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	// cluster, machinePool and pool are read by the lifecycle.
	cluster     *clusterv1.Cluster
	machinePool *clusterv1.MachinePool
	pool        *infrav1.AzureASOManagedMachinePool

	// result is set by reconcileResources and the deletion: the state of every ASO object.
	result *aso.Result
	// agentPool is set by reconcileResources: the name of the agent pool object; invalid says why the resources
	// cannot be applied.
	agentPool, invalid string
	// deleting is set while the pool's ASO objects are deleted.
	deleting bool
}

// reconcileResources sets what the MachinePool owns on the agent pool and applies the raw objects.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
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
	s.result, err = r.Engine.Reconcile(ctx, pool, managed.Resources(objs), aso.Options{ClusterName: s.cluster.Name, Kinds: kinds})
	return err
}

// reconcileNodes reads the agent pool's nodes from the workload cluster into providerIDList, and the pool's
// size into status.replicas.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope) error {
	if s.agentPool == "" {
		return nil
	}
	count, ids, err := r.nodes.Report(ctx, s.cluster, s.machinePool, client.ObjectKey{Namespace: s.pool.Namespace, Name: s.agentPool})
	if count != nil {
		s.pool.Status.Replicas = int32(*count)
	}
	if ids != nil {
		s.pool.Spec.ProviderIDList = ids
	}
	return err
}
