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

package managed

import (
	"context"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Labels AKS puts on every node.
const (
	// AgentPoolLabel names the node's agent pool.
	AgentPoolLabel = "kubernetes.azure.com/agentpool"
	// NodeClusterLabel names the node resource group of the node's cluster.
	NodeClusterLabel = "kubernetes.azure.com/cluster"
)

// NodeReporter reports the size and nodes of AKS agent pools for a machine pool controller.
type NodeReporter struct {
	Client client.Client
	// Engine reads the agent pool's ManagedCluster.
	Engine       *aso.Engine
	ClusterCache clustercache.ClusterCache
	// Controller is the machine pool controller; Name its name, for the watch on the workload cluster's nodes.
	Controller capicontroller.Controller
	Name       string
	// PoolsOfCluster maps a Cluster to the controller's machine pools.
	PoolsOfCluster handler.MapFunc
}

// Report reads the pool's agent pool object of that name among the objects the engine read, and the workload
// cluster's nodes of the pool: it sets the pool's size as AKS reports it (replicas, while it is known) and the
// provider IDs of its nodes (providerIDs, once the cluster's node resource group is known and while the workload
// cluster is reachable; the cluster cache's source brings the pool back once it is). It makes the MachinePool follow the AKS autoscaler.
func (n *NodeReporter) Report(ctx context.Context, cluster *clusterv1.Cluster, mp *clusterv1.MachinePool, live azure.Live, agentPool string, replicas *int32, providerIDs *[]string) error {
	pool, ok := aks.LiveAgentPool(live, agentPool)
	if !ok {
		return nil
	}
	if pool.Count != nil {
		*replicas = int32(*pool.Count)
	}
	if err := FollowAutoscaler(ctx, n.Client, mp, pool.Count); err != nil {
		return err
	}
	nodeResourceGroup := ""
	if pool.ManagedCluster != "" {
		if mc, err := n.Engine.Read(ctx, mp.Namespace, aks.ManagedClusterRef(pool.ManagedCluster)); err == nil {
			state, _ := aks.ReadManagedCluster(mc)
			nodeResourceGroup = state.NodeResourceGroup
		}
	}
	if err := WatchNodes(ctx, n.ClusterCache, n.Controller, n.Name, cluster, n.PoolsOfCluster); err != nil {
		return IgnoreNotConnected(err)
	}
	if nodeResourceGroup == "" {
		// Until the cluster's node resource group is known, the pool's nodes cannot be told from another cluster's
		// pool of the same name; a wrong list would make Cluster API delete those nodes as retired.
		return nil
	}
	reader, err := n.ClusterCache.GetReader(ctx, client.ObjectKeyFromObject(cluster))
	if err != nil {
		return IgnoreNotConnected(err)
	}
	ids, err := PoolProviderIDs(ctx, reader, pool.Name, nodeResourceGroup)
	if ids != nil {
		*providerIDs = ids
	}
	return err
}

// PoolProviderIDs lists the provider IDs of an agent pool's nodes in the workload cluster, sorted: the nodes labelled
// with the pool and, when nodeResourceGroup is set, with the cluster's node resource group.
func PoolProviderIDs(ctx context.Context, workload client.Reader, agentPool, nodeResourceGroup string) ([]string, error) {
	selector := client.MatchingLabels{AgentPoolLabel: agentPool}
	if nodeResourceGroup != "" {
		selector[NodeClusterLabel] = nodeResourceGroup
	}
	nodes := &corev1.NodeList{}
	if err := workload.List(ctx, nodes, selector); err != nil {
		return nil, fmt.Errorf("failed to list the nodes of agent pool %s: %w", agentPool, err)
	}
	ids := make([]string, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		if n.Spec.ProviderID != "" {
			ids = append(ids, n.Spec.ProviderID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// WatchNodes makes a controller reconcile a cluster's machine pools when the nodes of its workload cluster change,
// so that providerIDList follows the nodes without polling. poolsOf maps the cluster to its machine pools
// (e.g. util.ClusterToTypedObjectsMapper); the watch is set up once per cluster by the cluster cache.
func WatchNodes(ctx context.Context, cc clustercache.ClusterCache, c capicontroller.Controller, name string, cluster *clusterv1.Cluster, poolsOf handler.MapFunc) error {
	return cc.Watch(ctx, client.ObjectKeyFromObject(cluster), clustercache.NewWatcher(clustercache.WatcherOptions{
		Name:    name + "-watch-nodes",
		Watcher: c,
		Kind:    &corev1.Node{},
		EventHandler: handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
			return poolsOf(ctx, cluster)
		}),
	}))
}

// IgnoreNotConnected drops the cluster cache's error for a workload cluster it has not connected to yet: its
// source requeues the objects once it connects.
func IgnoreNotConnected(err error) error {
	if errors.Is(err, clustercache.ErrClusterNotConnected) {
		return nil
	}
	return err
}

// MarkReplicasManagedByAutoscaler tells Cluster API that the AKS autoscaler owns an autoscaling pool's replica
// count (or no longer does), so that neither fights the other.
func MarkReplicasManagedByAutoscaler(ctx context.Context, c client.Client, mp *clusterv1.MachinePool, autoscaling bool) error {
	_, marked := mp.Annotations[clusterv1.ReplicasManagedByAnnotation]
	if autoscaling == marked {
		return nil
	}
	before := mp.DeepCopy()
	if autoscaling {
		if mp.Annotations == nil {
			mp.Annotations = map[string]string{}
		}
		mp.Annotations[clusterv1.ReplicasManagedByAnnotation] = "aks"
	} else {
		delete(mp.Annotations, clusterv1.ReplicasManagedByAnnotation)
	}
	return c.Patch(ctx, mp, client.MergeFrom(before))
}

// FollowAutoscaler sets the replicas of a MachinePool whose size the AKS autoscaler owns (see
// MarkReplicasManagedByAutoscaler) to the node count AKS reports, so that Cluster API shows the pool's real size.
func FollowAutoscaler(ctx context.Context, c client.Client, mp *clusterv1.MachinePool, count *int) error {
	if _, autoscaled := mp.Annotations[clusterv1.ReplicasManagedByAnnotation]; !autoscaled || count == nil {
		return nil
	}
	if mp.Spec.Replicas != nil && int(*mp.Spec.Replicas) == *count {
		return nil
	}
	before := mp.DeepCopy()
	replicas := int32(*count)
	mp.Spec.Replicas = &replicas
	return c.Patch(ctx, mp, client.MergeFrom(before))
}
