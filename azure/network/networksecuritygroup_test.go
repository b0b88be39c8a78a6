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

func TestNetworkSecurityGroup(t *testing.T) {
	tests := []struct {
		name string
		in   SecurityGroupInput
	}{
		{name: "control-plane", in: SecurityGroupInput{
			Spec: infrav1.SecurityGroup{Name: "my-cluster-controlplane-nsg"}, ResourceGroup: "my-cluster-rg",
		}},
		{name: "tags-vnet-group", in: SecurityGroupInput{
			Spec: infrav1.SecurityGroup{
				Name:               "my-cluster-node-nsg",
				SecurityGroupClass: infrav1.SecurityGroupClass{Tags: infrav1.Tags{"purpose": "workers"}},
			},
			ResourceGroup: "network-rg",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "networksecuritygroup-"+tt.name, NetworkSecurityGroup(testCluster, tt.in))
		})
	}
}
