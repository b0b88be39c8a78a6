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

func TestPrivateEndpoint(t *testing.T) {
	storage := "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/data-rg/providers/Microsoft.Storage/storageAccounts/data"
	pls := "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/data-rg/providers/Microsoft.Network/privateLinkServices/pls"
	tests := []struct {
		name string
		spec infrav1.PrivateEndpointSpec
	}{
		{name: "automatic", spec: infrav1.PrivateEndpointSpec{
			Name: "my-pe",
			PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{
				{Name: "blob", PrivateLinkServiceID: storage, GroupIDs: []string{"blob"}},
			},
		}},
		{name: "manual-everything", spec: infrav1.PrivateEndpointSpec{
			Name: "my-manual-pe", Location: "westus", CustomNetworkInterfaceName: "my-manual-pe-nic",
			PrivateIPAddresses:        []string{"10.1.0.10", "10.1.0.11"},
			ApplicationSecurityGroups: []string{"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/my-cluster-rg/providers/Microsoft.Network/applicationSecurityGroups/asg"},
			ManualApproval:            true,
			PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{
				{PrivateLinkServiceID: pls, RequestMessage: "please approve"},
				{PrivateLinkServiceID: storage, GroupIDs: []string{"file", "blob"}},
			},
		}},
	}
	subnet := infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "my-cluster-node-subnet"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "privateendpoint-"+tt.name, PrivateEndpoint(testCluster, PrivateEndpointInput{
				Spec: tt.spec, Subnet: SubnetReference(testCluster, testVnet, subnet),
			}))
		})
	}
}
