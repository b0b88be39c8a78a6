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

	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestVirtualNetworkPeerings(t *testing.T) {
	byoVnet := infrav1.VnetSpec{
		Name: "byo-vnet", ResourceGroup: "byo-rg",
		ID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/byo-rg/providers/Microsoft.Network/virtualNetworks/byo-vnet",
	}
	tests := []struct {
		name    string
		vnet    infrav1.VnetSpec
		peering infrav1.VnetPeeringSpec
	}{
		{name: "properties", vnet: testVnet, peering: infrav1.VnetPeeringSpec{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{
			RemoteVnetName: "hub-vnet", ResourceGroup: "hub-rg",
			ForwardPeeringProperties: infrav1.VnetPeeringProperties{
				AllowForwardedTraffic: ptr.To(true), AllowGatewayTransit: ptr.To(false),
				AllowVirtualNetworkAccess: ptr.To(true), UseRemoteGateways: ptr.To(true),
			},
			ReversePeeringProperties: infrav1.VnetPeeringProperties{
				AllowForwardedTraffic: ptr.To(true), AllowGatewayTransit: ptr.To(true), AllowVirtualNetworkAccess: ptr.To(true),
			},
		}}},
		{name: "byo-vnet", vnet: byoVnet, peering: infrav1.VnetPeeringSpec{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{
			RemoteVnetName: "other-vnet", ResourceGroup: "byo-rg",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forward, reverse := VirtualNetworkPeerings(testCluster, tt.vnet, tt.peering)
			golden.Assert(t, "virtualnetworksvirtualnetworkpeering-"+tt.name+"-forward", forward)
			golden.Assert(t, "virtualnetworksvirtualnetworkpeering-"+tt.name+"-reverse", reverse)
		})
	}
}
