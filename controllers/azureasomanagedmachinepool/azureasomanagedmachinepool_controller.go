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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
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
	clusterToPools, err := lifecycle.ClusterToObjects(mgr, infrav1.GroupVersion.WithKind("AzureASOManagedMachinePool"))
	if err != nil {
		return err
	}
	name := "azureasomanagedmachinepool"
	k := &lifecycle.Kind[*infrav1.AzureASOManagedMachinePool, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs: map[string]any{"cluster cache": r.ClusterCache},
		New:   func() *infrav1.AzureASOManagedMachinePool { return &infrav1.AzureASOManagedMachinePool{} },
		Watches: []lifecycle.Watch{
			// The credentials the raw resources name are judged again when they, or the identities, change.
			{Object: &infrav1.AzureClusterIdentity{}, Handler: identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedMachinePoolList{})},
			{Object: &corev1.Secret{}, Metadata: true, Handler: identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedMachinePoolList{})},
			{Object: &clusterv1.MachinePool{},
				Handler: handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureASOManagedMachinePool")))},
		},
		OwnedKinds:    managed.RecordedKinds,
		Finalizer:     infrav1.ASOManagedMachinePoolFinalizer,
		CAPZFinalizer: clusterv1.ClusterFinalizer,
		Owners:        lifecycle.MachinePoolOwner,
		Scope: func(pool *infrav1.AzureASOManagedMachinePool, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machinePool: owners.MachinePool, pool: pool}
		},
		Phases:  []lifecycle.Phase[*scope]{r.reconcileResources, r.reconcileNodes},
		Deletes: "the pool's Azure resources",
		// A deleted Cluster's agent pool goes with its managed cluster, when the control plane deletes it.
		GoWithCluster: aks.GoWithManagedCluster,
		Status:        updateStatus,
	}
	if r.ClusterCache != nil {
		k.Watches = append(k.Watches, lifecycle.Watch{Source: r.ClusterCache.GetClusterSource(name, clusterToPools)})
	}
	c, err := k.Setup(ctx, mgr, options)
	r.nodes = &managed.NodeReporter{Client: r.Client, Engine: r.Engine, ClusterCache: r.ClusterCache, Controller: c, Name: name, PoolsOfCluster: clusterToPools}
	return err
}

// scope holds what one reconciliation learns; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster, machinePool and pool are read by the lifecycle.
	cluster     *clusterv1.Cluster
	machinePool *clusterv1.MachinePool
	pool        *infrav1.AzureASOManagedMachinePool

	// agentPool is set by reconcileResources: the name of the agent pool object.
	agentPool string
}

// reconcileResources sets what the MachinePool owns on the agent pool and applies the raw objects.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
	objs, err := asomanaged.Parse(pool.Spec.Resources)
	if err != nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: err.Error()}
		return nil
	}
	ap := asomanaged.Find(objs, asomanaged.AgentPoolKind)
	if ap == nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: "spec.resources has no ManagedClustersAgentPool"}
		return nil
	}
	s.agentPool = ap.GetName()
	if err := asomanaged.SetAgentPoolDefaults(ap, asomanaged.AgentPoolInput{Version: mp.Spec.Template.Spec.Version, Replicas: mp.Spec.Replicas}); err != nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: fmt.Sprintf("ManagedClustersAgentPool %s: %v", ap.GetName(), err)}
		return nil
	}
	if err := managed.MarkReplicasManagedByAutoscaler(ctx, r.Client, mp, asomanaged.Autoscaling(ap)); err != nil {
		return err
	}
	if s.Kinds, err = managed.RecordKinds(ctx, r.Client, pool, objs); err != nil {
		return err
	}
	s.Result, err = r.Engine.Reconcile(ctx, pool, asomanaged.Resources(objs), aso.Options{ClusterName: s.cluster.Name, Kinds: s.Kinds})
	return err
}

// reconcileNodes reads the agent pool's nodes from the workload cluster into providerIDList, and the pool's
// size into status.replicas.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope) error {
	return r.nodes.Report(ctx, s.cluster, s.machinePool, s.Result, s.agentPool, &s.pool.Status.Replicas, &s.pool.Spec.ProviderIDList)
}
