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

func TestNatGateway(t *testing.T) {
	tests := []struct {
		name string
		spec infrav1.NatGateway
	}{
		{name: "default", spec: infrav1.NatGateway{
			NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "my-cluster-node-natgw-1"},
			NatGatewayIP:        infrav1.PublicIPSpec{Name: "pip-my-cluster-node-natgw-1"},
		}},
		{name: "zonal", spec: infrav1.NatGateway{
			NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "natgw-zone-2"},
			NatGatewayIP:        infrav1.PublicIPSpec{Name: "pip-natgw-zone-2"},
			Zones:               []string{"2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "natgateway-"+tt.name, NatGateway(testCluster, tt.spec))
		})
	}
}
