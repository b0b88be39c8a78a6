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

	. "github.com/onsi/gomega"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

var testVnet = infrav1.VnetSpec{
	Name: "my-cluster-vnet", ResourceGroup: "my-cluster-rg",
	VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/8"}},
}

func TestSubnet(t *testing.T) {
	tests := []struct {
		name   string
		subnet infrav1.SubnetSpec
	}{
		{name: "control-plane", subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{Name: "my-cluster-controlplane-subnet", Role: infrav1.SubnetControlPlane, CIDRBlocks: []string{"10.0.0.0/16"}},
			SecurityGroup:   infrav1.SecurityGroup{Name: "my-cluster-controlplane-nsg"},
		}},
		{name: "node-with-nat-gateway", subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{Name: "my-cluster-node-subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.1.0.0/16"}},
			SecurityGroup:   infrav1.SecurityGroup{Name: "my-cluster-node-nsg"},
			RouteTable:      infrav1.RouteTable{Name: "my-cluster-node-routetable"},
			NatGateway:      infrav1.NatGateway{NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "my-cluster-node-natgw-1"}},
		}},
		{name: "byo-parts-by-id", subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{Name: "Node_Subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.2.0.0/16"}},
			SecurityGroup: infrav1.SecurityGroup{
				Name: "shared-nsg",
				ID:   "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/shared-rg/providers/Microsoft.Network/networkSecurityGroups/shared-nsg",
			},
			RouteTable: infrav1.RouteTable{
				Name: "shared-rt",
				ID:   "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/shared-rg/providers/Microsoft.Network/routeTables/shared-rt",
			},
			NatGateway: infrav1.NatGateway{
				ID:                  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/shared-rg/providers/Microsoft.Network/natGateways/shared-natgw",
				NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "shared-natgw"},
			},
		}},
		{name: "dual-stack-no-nat-gateway", subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{
				Name: "my-cluster-node-subnet", Role: infrav1.SubnetNode,
				CIDRBlocks: []string{"10.1.0.0/16", "2001:1234:5678:9abd::/64"},
			},
			SecurityGroup: infrav1.SecurityGroup{Name: "my-cluster-node-nsg"},
			NatGateway:    infrav1.NatGateway{NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "ignored-natgw"}},
		}},
		{name: "service-and-private-endpoints", subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{
				Name: "my-cluster-node-subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.1.0.0/16"},
				ServiceEndpoints: infrav1.ServiceEndpoints{
					{Service: "Microsoft.AzureActiveDirectory", Locations: []string{"*"}},
					{Service: "Microsoft.Storage", Locations: []string{"eastus", "westus"}},
				},
				PrivateEndpoints: infrav1.PrivateEndpoints{{Name: "my-pe"}},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "virtualnetworkssubnet-"+tt.name, Subnet(testCluster, SubnetInput{Vnet: testVnet, Spec: tt.subnet}))
		})
	}
}

// TestSubnet_PrivateEndpointNetworkPolicies: the API has no field for it (nor has CAPZ's), so it is never sent, with
// or without private endpoints; Azure's default applies unless an ASO patch sets it.
func TestSubnet_PrivateEndpointNetworkPolicies(t *testing.T) {
	for _, endpoints := range []infrav1.PrivateEndpoints{nil, {{Name: "my-pe"}}} {
		g := NewWithT(t)
		subnet := infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{
			Name: "my-cluster-node-subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.1.0.0/16"}, PrivateEndpoints: endpoints,
		}}
		g.Expect(Subnet(testCluster, SubnetInput{Vnet: testVnet, Spec: subnet}).Spec.PrivateEndpointNetworkPolicies).To(BeNil())
	}
}
