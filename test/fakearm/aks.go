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

package fakearm

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// AgentPoolScaleSet is the name of the scale set AKS makes for an agent pool of a managed cluster (its ARM ID, any
// case): aks-<pool>-<number>-vmss, the number derived from the cluster, as test/kubeletsim names the pool's Nodes.
func AgentPoolScaleSet(clusterID, pool string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(clusterID)))
	return fmt.Sprintf("aks-%s-%08d-vmss", pool, h.Sum32()%100_000_000)
}

// agentPoolScaleSets answers the reads of a managed cluster's node resource group that CAPZ's
// AzureManagedMachinePool makes to find a pool's instances: the scale sets of the group, one per agent pool tagged
// aks-managed-poolName, and a scale set's instances, as many as the pool's count. AKS owns that group: the fake
// serves it as a view of the agent pools, not as stored resources, so it comes and goes with the cluster and no
// write reaches it. ok is false for any other collection.
func (s *Server) agentPoolScaleSets(id armID) (answer, bool) {
	scaleSets := strings.EqualFold(id.fullType(), "Microsoft.Compute/virtualMachineScaleSets")
	instances := strings.EqualFold(id.fullType(), "Microsoft.Compute/virtualMachineScaleSets/virtualMachines")
	if !scaleSets && !instances {
		return answer{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	group := "/subscriptions/" + id.subscription + "/resourceGroups/" + id.resourceGroup
	pools := s.nodeGroupPools(id.subscription, id.resourceGroup)
	if pools == nil {
		return answer{}, false
	}
	value := []any{}
	for _, p := range pools {
		vmssID := group + "/providers/Microsoft.Compute/virtualMachineScaleSets/" + p.scaleSet
		if scaleSets {
			value = append(value, map[string]any{
				"id": vmssID, "name": p.scaleSet, "type": "Microsoft.Compute/virtualMachineScaleSets", "location": p.location,
				"tags":       map[string]any{"aks-managed-poolName": p.name},
				"sku":        map[string]any{"name": p.vmSize, "tier": "Standard", "capacity": p.count},
				"properties": map[string]any{"provisioningState": "Succeeded", "orchestrationMode": "Uniform"},
			})
			continue
		}
		if !strings.EqualFold(id.parent, vmssID) {
			continue
		}
		for i := range p.count {
			value = append(value, map[string]any{
				"id": vmssID + "/virtualMachines/" + strconv.Itoa(i), "name": p.scaleSet + "_" + strconv.Itoa(i),
				"type": "Microsoft.Compute/virtualMachineScaleSets/virtualMachines", "location": p.location,
				"instanceId": strconv.Itoa(i), "sku": map[string]any{"name": p.vmSize, "tier": "Standard"},
				"properties": map[string]any{"provisioningState": "Succeeded", "latestModelApplied": true},
			})
		}
	}
	return answer{status: http.StatusOK, body: map[string]any{"value": value}}, true
}

// nodeGroupPool is an agent pool as its node resource group shows it.
type nodeGroupPool struct {
	name, scaleSet, location, vmSize string
	count                            int
}

// nodeGroupPools returns the agent pools of the managed cluster whose node resource group is the group, or nil
// when no cluster has it. The lock is held.
func (s *Server) nodeGroupPools(subscription, group string) []nodeGroupPool {
	var out []nodeGroupPool
	found := false
	for _, cluster := range s.resources {
		if !strings.EqualFold(cluster.id.fullType(), "Microsoft.ContainerService/managedClusters") ||
			!strings.EqualFold(cluster.id.subscription, subscription) {
			continue
		}
		rendered := s.render(cluster)
		if !strings.EqualFold(str(lookupMap(rendered, "properties"), "nodeResourceGroup"), group) {
			continue
		}
		found = true
		location := str(cluster.body, "location")
		for _, pool := range s.resources {
			if !strings.EqualFold(pool.id.parent, cluster.id.raw) || !strings.EqualFold(pool.id.lastType(), "agentPools") {
				continue
			}
			props := lookupMap(pool.body, "properties")
			count, _ := intField(props, "count")
			out = append(out, nodeGroupPool{
				name: pool.id.name, scaleSet: AgentPoolScaleSet(cluster.id.raw, pool.id.name), location: location,
				vmSize: str(props, "vmSize"), count: count,
			})
		}
	}
	if !found {
		return nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// lastSystemPool plays AKS's rule that a managed cluster keeps at least one System pool: deleting its last agent
// pool of mode System on its own is refused (the pool goes when the cluster is deleted). nil for any other
// resource. The lock is held.
func (s *Server) lastSystemPool(pool *resource) *armError {
	if !strings.EqualFold(pool.id.fullType(), "Microsoft.ContainerService/managedClusters/agentPools") || !isSystemPool(pool) {
		return nil
	}
	for _, other := range s.resources {
		if other != pool && other.state != stateDeleting && strings.EqualFold(other.id.parent, pool.id.parent) &&
			strings.EqualFold(other.id.lastType(), "agentPools") && isSystemPool(other) {
			return nil
		}
	}
	return &armError{http.StatusBadRequest, "OperationNotAllowed",
		fmt.Sprintf("Agent pool %s is the last System pool of its cluster and cannot be deleted: a managed cluster needs at least one System pool.", pool.id.name)}
}

func isSystemPool(pool *resource) bool {
	return strings.EqualFold(str(lookupMap(pool.body, "properties"), "mode"), "System")
}
