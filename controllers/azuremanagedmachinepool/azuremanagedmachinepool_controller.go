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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machinepools,verbs=get;list;watch;patch

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

	// nodes is set by SetupWithManager.
	nodes *managed.NodeReporter
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	clusterToPools, err := lifecycle.ClusterToObjects(mgr, infrav1.GroupVersion.WithKind("AzureManagedMachinePool"))
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
	name := "azuremanagedmachinepool"
	k := &lifecycle.Kind[*infrav1.AzureManagedMachinePool, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs: map[string]any{"cluster cache": r.ClusterCache},
		New:   func() *infrav1.AzureManagedMachinePool { return &infrav1.AzureManagedMachinePool{} },
		Watches: []lifecycle.Watch{
			{Object: &clusterv1.MachinePool{},
				Handler: handler.EnqueueRequestsFromMapFunc(util.MachinePoolToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureManagedMachinePool")))},
			// The control plane's subscription and auto-upgrade version are the pool's too.
			{Object: &infrav1.AzureManagedControlPlane{}, Handler: handler.EnqueueRequestsFromMapFunc(controlPlaneToPools)},
		},
		Owns:          aks.AgentPoolKinds(),
		Finalizer:     infrav1.ManagedMachinePoolFinalizer,
		CAPZFinalizer: infrav1.ClusterFinalizer,
		Owners:        lifecycle.MachinePoolOwner,
		Scope: func(pool *infrav1.AzureManagedMachinePool, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machinePool: owners.MachinePool, pool: pool}
		},
		WhilePaused: func(ctx context.Context, s *scope) error {
			cp, _, err := r.controlPlane(ctx, s)
			if err != nil || cp == nil {
				return err
			}
			creds, err := r.Engine.ClusterCredentials(ctx, s.pool, aso.CredentialsInput{ClusterName: s.cluster.Name, IdentityRef: cp.Spec.IdentityRef, Kinds: s.Kinds})
			s.Credentials = &creds
			return err
		},
		Phases:  []lifecycle.Phase[*scope]{r.reconcileAgentPool, r.reconcileNodes},
		Deletes: "the agent pool",
		// A deleted Cluster's agent pool goes with its managed cluster, which the control plane deletes.
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
	pool        *infrav1.AzureManagedMachinePool
}

// controlPlane reads the cluster's AzureManagedControlPlane; nil, and what the pool waits for, while there is none.
func (r *Reconciler) controlPlane(ctx context.Context, s *scope) (*infrav1.AzureManagedControlPlane, string, error) {
	if s.cluster.Spec.ControlPlaneRef.Kind != "AzureManagedControlPlane" {
		return nil, "the Cluster's control plane is not an AzureManagedControlPlane", nil
	}
	cp := &infrav1.AzureManagedControlPlane{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.pool.Namespace, Name: s.cluster.Spec.ControlPlaneRef.Name}, cp); err != nil {
		return nil, fmt.Sprintf("waiting for AzureManagedControlPlane %s", s.cluster.Spec.ControlPlaneRef.Name), client.IgnoreNotFound(err)
	}
	return cp, "", nil
}

// reconcileAgentPool translates the pool with what its control plane and MachinePool own, and applies it.
func (r *Reconciler) reconcileAgentPool(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
	cp, waiting, err := r.controlPlane(ctx, s)
	if err != nil || cp == nil {
		s.Waiting = lifecycle.Wait{Reason: WaitingForControlPlaneReason, Message: waiting}
		return err
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
		s.Waiting = lifecycle.Wait{Reason: WaitingForControlPlaneReason, Message: "waiting for the AzureManagedControlPlane's resource group, whose ID names the subscription"}
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
		live, err := r.Engine.Read(ctx, pool.Namespace, aks.AgentPoolRef(azure.ObjectName(pool.Name)))
		if err != nil {
			return err
		}
		if ap, ok := aks.ReadAgentPool(live); ok && ap.Count != nil {
			in.Replicas = ptr.To(int32(*ap.Count))
		}
	}
	// The pool's objects use the control plane's identity, if it allows the pool's namespace.
	creds, err := r.Engine.ClusterCredentials(ctx, pool, aso.CredentialsInput{ClusterName: s.cluster.Name, IdentityRef: cp.Spec.IdentityRef, Kinds: s.Kinds})
	if err != nil {
		return err
	}
	if s.Credentials = &creds; !creds.Ready {
		return nil
	}
	s.Result, err = r.Engine.Reconcile(ctx, pool, aks.MachinePoolResources(in), aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: creds.SecretName, Kinds: s.Kinds,
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
	if s.Result == nil {
		return nil
	}
	return r.nodes.Report(ctx, s.cluster, s.machinePool, s.Result, azure.ObjectName(s.pool.Name), &s.pool.Status.Replicas, &s.pool.Spec.ProviderIDList)
}
