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

package network

import (
	"testing"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// edgeCluster is testCluster in an Edge Zone.
func edgeCluster() azure.Cluster {
	c := testCluster
	c.ExtendedLocation = &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"}
	return c
}

func TestVirtualNetwork(t *testing.T) {
	tests := []struct {
		name    string
		cluster azure.Cluster
		vnet    infrav1.VnetSpec
	}{
		{name: "default", cluster: testCluster, vnet: infrav1.VnetSpec{
			Name: "my-cluster-vnet", ResourceGroup: "my-cluster-rg",
			VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/8"}},
		}},
		{name: "dual-stack-tags-other-group-edgezone", cluster: edgeCluster(), vnet: infrav1.VnetSpec{
			Name: "shared-vnet", ResourceGroup: "network-rg",
			VnetClassSpec: infrav1.VnetClassSpec{
				CIDRBlocks: []string{"10.0.0.0/8", "2001:1234:5678:9a00::/56"},
				Tags:       infrav1.Tags{"env": "dev", azure.ClusterTagKey("my-cluster"): "shared"},
			},
		}},
		{name: "byo-without-cidr", cluster: testCluster, vnet: infrav1.VnetSpec{
			Name: "byo-vnet", ResourceGroup: "byo-rg",
			ID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/byo-rg/providers/Microsoft.Network/virtualNetworks/byo-vnet",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "virtualnetwork-"+tt.name, VirtualNetwork(tt.cluster, tt.vnet))
		})
	}
}
