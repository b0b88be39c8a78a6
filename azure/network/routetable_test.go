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

	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestRouteTable(t *testing.T) {
	tests := []struct {
		name string
		in   RouteTableInput
	}{
		{name: "node", in: RouteTableInput{Name: "my-cluster-node-routetable", ResourceGroup: "my-cluster-rg"}},
		{name: "vnet-group", in: RouteTableInput{Name: "my-cluster-routetable", ResourceGroup: "network-rg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "routetable-"+tt.name, RouteTable(testCluster, tt.in))
		})
	}
}
