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
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestPrivateDNSZonesVirtualNetworkLink(t *testing.T) {
	peering := infrav1.VnetPeeringSpec{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{RemoteVnetName: "hub-vnet", ResourceGroup: "hub-rg"}}
	tests := []struct {
		name string
		in   VirtualNetworkLinkInput
	}{
		{name: "cluster-vnet", in: VirtualNetworkLinkInput{
			Zone: "my-cluster.capz.io", VnetName: testVnet.Name, VirtualNetwork: VirtualNetworkReference(testCluster, testVnet),
		}},
		{name: "peered-vnet", in: VirtualNetworkLinkInput{
			Zone: "my-cluster.capz.io", VnetName: peering.RemoteVnetName, VirtualNetwork: armReference(remoteVirtualNetworkID(testCluster, peering)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "privatednszonesvirtualnetworklink-"+tt.name, PrivateDNSZonesVirtualNetworkLink(testCluster, tt.in))
		})
	}
}
