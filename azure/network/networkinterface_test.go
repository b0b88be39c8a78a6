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
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestNetworkInterfaces(t *testing.T) {
	edge := testCluster
	edge.ExtendedLocation = &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"}
	tests := []struct {
		name    string
		cluster azure.Cluster
		in      NICInput
	}{
		{name: "control-plane", cluster: testCluster, in: NICInput{
			Machine:    "my-cluster-control-plane-abcde",
			Interfaces: []infrav1.NetworkInterface{{PrivateIPConfigs: 1}},
			VNetName:   "my-cluster-vnet", DefaultSubnet: "my-cluster-controlplane-subnet",
			BackendPools: []NICBackendPool{
				{LoadBalancer: "my-cluster-public-lb", Pool: "my-cluster-public-lb-backendPool"},
				{LoadBalancer: "my-cluster-outbound-lb", Pool: "my-cluster-outbound-lb-outboundBackendPool"},
			},
			SSHRule: SSHRuleObjectName("my-cluster-public-lb", "my-cluster-control-plane-abcde"),
		}},
		{name: "two-nics-public-ip", cluster: byID(testCluster), in: NICInput{
			Machine: "my-cluster-md-0-xyz12",
			Interfaces: []infrav1.NetworkInterface{
				{SubnetName: "frontend", PrivateIPConfigs: 3, AcceleratedNetworking: ptr.To(true)},
				{PrivateIPConfigs: 1, AcceleratedNetworking: ptr.To(false)},
			},
			VNetName: "shared-vnet", VNetResourceGroup: "network-rg", DefaultSubnet: "my-cluster-node-subnet",
			PublicIP: "pip-my-cluster-md-0-xyz12", EnableIPForwarding: true,
			DNSServers:     []string{"10.0.0.10", "10.0.0.11"},
			AdditionalTags: map[string]string{"cost-center": "42"},
		}},
		{name: "dual-stack", cluster: testCluster, in: NICInput{
			Machine:    "my-cluster-md-0-ipv6x",
			Interfaces: []infrav1.NetworkInterface{{PrivateIPConfigs: 1}, {SubnetName: "v4-only", PrivateIPConfigs: 1}},
			VNetName:   "my-cluster-vnet", DefaultSubnet: "my-cluster-node-subnet",
			IPv6Subnets:  []string{"my-cluster-node-subnet"},
			BackendPools: []NICBackendPool{{LoadBalancer: "my-cluster", Pool: "my-cluster-outboundBackendPool"}},
		}},
		{name: "edgezone-outbound-pool", cluster: edge, in: NICInput{
			Machine:    "my-cluster-md-0-qwert",
			Interfaces: []infrav1.NetworkInterface{{PrivateIPConfigs: 1}},
			VNetName:   "my-cluster-vnet", DefaultSubnet: "my-cluster-node-subnet",
			BackendPools: []NICBackendPool{{LoadBalancer: "my-cluster", Pool: "my-cluster-outboundBackendPool"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "networkinterface-"+tt.name, NetworkInterfaces(tt.cluster, tt.in))
		})
	}
}

func TestNetworkInterfaces_Names(t *testing.T) {
	g := NewWithT(t)
	nics := NetworkInterfaces(testCluster, NICInput{
		Machine:    "m",
		Interfaces: []infrav1.NetworkInterface{{}, {}, {}},
		VNetName:   "vnet", DefaultSubnet: "subnet", PublicIP: "pip-m",
		BackendPools: []NICBackendPool{{LoadBalancer: "lb", Pool: "pool"}},
	})
	g.Expect(nics).To(HaveLen(3))
	// Several interfaces are numbered from 0, as CAPZ numbers them; a single one is <machine>-nic.
	g.Expect(NetworkInterfaces(testCluster, NICInput{Machine: "m", Interfaces: []infrav1.NetworkInterface{{}}, VNetName: "vnet", DefaultSubnet: "subnet"})[0].Name).To(Equal("m-nic"))
	for i, want := range []string{"m-nic-0", "m-nic-1", "m-nic-2"} {
		g.Expect(nics[i].Name).To(Equal(want))
		g.Expect(nics[i].Spec.AzureName).To(Equal(want))
		// An interface without privateIPConfigs still gets its primary IP configuration.
		g.Expect(nics[i].Spec.IpConfigurations).To(HaveLen(1))
		g.Expect(*nics[i].Spec.IpConfigurations[0].Primary).To(BeTrue())
		if i > 0 {
			g.Expect(nics[i].Spec.IpConfigurations[0].LoadBalancerBackendAddressPools).To(BeEmpty())
			g.Expect(nics[i].Spec.IpConfigurations[0].PublicIPAddress).To(BeNil())
		}
	}
}

// byID owns the resource group's resources by ARM ID, as the AzureMachine controller does.
func byID(c azure.Cluster) azure.Cluster {
	c.ResourceGroupByID = true
	return c
}
