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

func TestBastionHost(t *testing.T) {
	subnet := infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{Name: infrav1.DefaultAzureBastionSubnetName}}
	tests := []struct {
		name string
		spec infrav1.AzureBastion
	}{
		{name: "basic", spec: infrav1.AzureBastion{
			Name: "my-cluster-azure-bastion", Subnet: subnet,
			PublicIP: infrav1.PublicIPSpec{Name: "my-cluster-azure-bastion-pip"}, Sku: infrav1.BasicBastionHostSku,
		}},
		{name: "standard-tunneling", spec: infrav1.AzureBastion{
			Name: "jump", Subnet: subnet,
			PublicIP: infrav1.PublicIPSpec{Name: "jump-pip"}, Sku: infrav1.StandardBastionHostSku, EnableTunneling: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "bastionhost-"+tt.name, BastionHost(testCluster, BastionHostInput{
				Spec: tt.spec, Subnet: SubnetReference(testCluster, testVnet, tt.spec.Subnet),
			}))
		})
	}
}
