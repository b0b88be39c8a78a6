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

// testCluster is the cluster the network golden files are made for.
var testCluster = azure.Cluster{
	Name: "my-cluster", SubscriptionID: "00000000-0000-0000-0000-000000000001", Location: "eastus",
	ResourceGroup: "my-cluster-rg", AdditionalTags: map[string]string{"team": "platform"},
}

func TestPublicIPAddress(t *testing.T) {
	edge := testCluster
	edge.ExtendedLocation = &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"}
	tests := []struct {
		name    string
		cluster azure.Cluster
		in      PublicIPInput
	}{
		{name: "apiserver", cluster: testCluster, in: PublicIPInput{
			Spec:  infrav1.PublicIPSpec{Name: "pip-my-cluster-apiserver", DNSName: "my-cluster-1a2b3c4d.eastus.cloudapp.azure.com"},
			Zones: []string{"1", "2", "3"},
		}},
		{name: "ip-tags-ipv6-edgezone", cluster: edge, in: PublicIPInput{
			Spec: infrav1.PublicIPSpec{Name: "pip-my-cluster-node-outbound-v6", IPTags: []infrav1.IPTag{{Type: "FirstPartyUsage", Tag: "/NonProd"}}},
			IPv6: true,
		}},
		{name: "nat-gateway-edgezone", cluster: edge, in: PublicIPInput{
			Spec: infrav1.PublicIPSpec{Name: "pip-my-cluster-node-natgw-1"}, RegionOnly: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "publicipaddress-"+tt.name, PublicIPAddress(tt.cluster, tt.in))
		})
	}
}
