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

package realaso

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// readyInAzure tells whether ASO reports obj Ready for its current generation, and the Azure resource ASO recorded
// for it exists in the fake Azure.
func readyInAzure(obj client.Object) bool {
	ready := genruntime.GetReadyCondition(obj.(genruntime.MetaObject))
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != obj.GetGeneration() {
		return false
	}
	id := obj.GetAnnotations()[genruntime.ResourceIDAnnotation]
	_, exists := p.ARM.Resource(id)
	return id != "" && exists
}

// armGolden is a resource whose first PUT body is a golden file.
type armGolden struct{ resourceType, name, golden string }

// armGoldens are the resources whose first PUT body (what Azure receives when ASO creates them) is a golden file:
// the ARM resource type, the name of a resource of a cluster (CLUSTER stands for the cluster's name), and the
// golden file's name.
var armGoldens = []armGolden{
	{"Microsoft.Network/virtualNetworks", "CLUSTER-vnet", "virtual-network"},
	{"Microsoft.Network/virtualNetworks/subnets", "node-subnet", "subnet"},
	{"Microsoft.Network/networkSecurityGroups", "CLUSTER-controlplane-nsg", "network-security-group"},
	{"Microsoft.Network/loadBalancers", "CLUSTER-public-lb", "load-balancer"},
	{"Microsoft.Network/loadBalancers/inboundNatRules", "CLUSTER-control-plane-0", "inbound-nat-rule"},
	{"Microsoft.Network/networkInterfaces", "CLUSTER-control-plane-0-nic", "network-interface"},
	{"Microsoft.Compute/virtualMachines", "CLUSTER-control-plane-0", "virtual-machine"},
	{"Microsoft.Compute/virtualMachineScaleSets", "CLUSTER-mp-0", "virtual-machine-scale-set"},
}

// assertAKSRequests compares the first PUT of an AKS cluster's managed cluster and of one of its agent pools with
// their golden files.
func assertAKSRequests(t *testing.T, namespace, clusterName, pool string) {
	t.Helper()
	assertFirstPuts(t, namespace, clusterName, []armGolden{
		{"Microsoft.ContainerService/managedClusters", clusterName, "managed-cluster"},
		{"Microsoft.ContainerService/managedClusters/agentPools", strings.TrimPrefix(pool, clusterName+"-"), "agent-pool"},
	})
}

// assertFirstPuts compares the body of the first PUT of each resource with its golden file
// (testdata/arm-<golden>.golden.yaml), with the cluster's name and namespace replaced.
func assertFirstPuts(t *testing.T, namespace, clusterName string, goldens []armGolden) {
	t.Helper()
	first := map[string][]byte{}
	for _, r := range p.ARM.Requests() {
		if r.Method == "PUT" {
			if _, seen := first[strings.ToLower(r.Path)]; !seen {
				first[strings.ToLower(r.Path)] = r.Body
			}
		}
	}
	for _, want := range goldens {
		name := strings.ReplaceAll(want.name, "CLUSTER", clusterName)
		types := strings.Split(want.resourceType, "/")
		suffix := strings.ToLower("/" + types[len(types)-1] + "/" + name)
		var paths []string
		for path := range first {
			if strings.HasSuffix(path, suffix) {
				paths = append(paths, path)
			}
		}
		sort.Strings(paths)
		if len(paths) != 1 {
			t.Errorf("want one PUT of %s %s, got %v", want.resourceType, name, paths)
			continue
		}
		body := strings.NewReplacer(clusterName, "CLUSTER", namespace, "NAMESPACE").Replace(string(first[paths[0]]))
		var doc map[string]any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Errorf("the PUT of %s %s is not JSON: %v", want.resourceType, name, err)
			continue
		}
		golden.Assert(t, "arm-"+want.golden, normalized(doc))
	}
}

// normalized replaces what must never be in a golden file, and changes from run to run, in a request body:
// bootstrap data, passwords and SSH keys; and sorts the agent pool profiles of a managed cluster by name (ASO adds
// the cluster's agent pools in no fixed order).
func normalized(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			switch k {
			case "customData", "adminPassword", "keyData":
				v[k] = "<redacted>"
			default:
				v[k] = normalized(child)
			}
		}
		if pools, ok := v["agentPoolProfiles"].([]any); ok {
			sort.SliceStable(pools, func(i, j int) bool { return nameOf(pools[i]) < nameOf(pools[j]) })
		}
	case []any:
		for i := range v {
			v[i] = normalized(v[i])
		}
	}
	return v
}

// nameOf is the name of a JSON object, or "".
func nameOf(v any) string {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	return name
}
