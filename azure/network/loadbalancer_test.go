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
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestLoadBalancer(t *testing.T) {
	controlPlaneSubnet := SubnetReference(testCluster, testVnet, infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "my-cluster-controlplane-subnet"}})
	tests := []struct {
		name    string
		cluster azure.Cluster
		in      LoadBalancerInput
	}{
		{name: "apiserver-public-edgezone", cluster: edgeCluster(), in: LoadBalancerInput{
			Role: APIServerLoadBalancer,
			Spec: infrav1.LoadBalancerSpec{
				Name:        "my-cluster-public-lb",
				FrontendIPs: []infrav1.FrontendIP{{Name: "my-cluster-public-lb-frontEnd", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-apiserver"}}},
				BackendPool: infrav1.BackendPool{Name: "my-cluster-public-lb-backendPool"},
				LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
					SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To[int32](4),
				},
			},
			Subnet: controlPlaneSubnet,
		}},
		{name: "apiserver-internal-zones-additional-ports", cluster: testCluster, in: LoadBalancerInput{
			Role: APIServerLoadBalancer,
			Spec: infrav1.LoadBalancerSpec{
				Name: "my-cluster-internal-lb",
				FrontendIPs: []infrav1.FrontendIP{
					{Name: "my-cluster-internal-lb-frontEnd", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.0.0.100"}},
					{Name: "second-frontEnd", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.0.0.101"}},
				},
				BackendPool:       infrav1.BackendPool{Name: "my-cluster-internal-lb-backendPool"},
				AvailabilityZones: []string{"1", "2", "3"},
				LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
					SKU: infrav1.SKUStandard, Type: infrav1.Internal, IdleTimeoutInMinutes: ptr.To[int32](10),
				},
			},
			AdditionalPorts: []infrav1.LoadBalancerPort{{Name: "RKE2", Port: 9345}, {Name: "konnectivity", Port: 8132}},
			Subnet:          controlPlaneSubnet,
		}},
		{name: "apiserver-public-ports", cluster: testCluster, in: LoadBalancerInput{
			// The API server binds to 8443 (spec.clusterNetwork.apiServerPort); clients use 443
			// (controlPlaneEndpoint.port). Only the first public frontend is used, as in CAPZ.
			Role: APIServerLoadBalancer,
			Spec: infrav1.LoadBalancerSpec{
				Name: "my-cluster-public-lb",
				FrontendIPs: []infrav1.FrontendIP{
					{Name: "my-cluster-public-lb-frontEnd", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-apiserver"}},
					{Name: "my-cluster-public-lb-frontEnd-2", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-apiserver-2"}},
				},
				BackendPool: infrav1.BackendPool{Name: "my-cluster-public-lb-backendPool"},
				LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
					SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To[int32](4),
				},
			},
			Subnet: controlPlaneSubnet, APIServerPort: 8443, FrontendPort: 443,
		}},
		{name: "node-outbound-two-frontends", cluster: testCluster, in: LoadBalancerInput{
			Role: NodeOutboundLoadBalancer,
			Spec: infrav1.LoadBalancerSpec{
				Name: "my-cluster",
				FrontendIPs: []infrav1.FrontendIP{
					{Name: "my-cluster-frontEnd-1", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-node-outbound-1"}},
					{Name: "my-cluster-frontEnd-2", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-node-outbound-2"}},
				},
				FrontendIPsCount: ptr.To[int32](2),
				BackendPool:      infrav1.BackendPool{Name: "my-cluster-outboundBackendPool"},
				LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
					SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To[int32](4),
				},
			},
		}},
		{name: "control-plane-outbound", cluster: testCluster, in: LoadBalancerInput{
			Role: ControlPlaneOutboundLoadBalancer,
			Spec: infrav1.LoadBalancerSpec{
				Name:        "my-cluster-outbound-lb",
				FrontendIPs: []infrav1.FrontendIP{{Name: "my-cluster-outbound-lb-frontEnd", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-controlplane-outbound"}}},
				BackendPool: infrav1.BackendPool{Name: "my-cluster-outbound-lb-outboundBackendPool"},
				LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
					SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To[int32](15),
				},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "loadbalancer-"+tt.name, LoadBalancer(tt.cluster, tt.in))
		})
	}
}

// TestAPIServerInternalLB covers the apiserver-ilb shape: a public API server load balancer with a private
// frontend becomes the public load balancer (public frontends only) and its internal companion.
func TestAPIServerInternalLB(t *testing.T) {
	controlPlaneSubnet := SubnetReference(testCluster, testVnet, infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "my-cluster-controlplane-subnet"}})
	public := infrav1.LoadBalancerSpec{
		Name: "my-cluster-public-lb",
		FrontendIPs: []infrav1.FrontendIP{
			{Name: "my-cluster-internal-lb-frontEnd", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.0.0.100"}},
			{Name: "my-cluster-public-lb-frontEnd", PublicIP: &infrav1.PublicIPSpec{Name: "pip-my-cluster-apiserver"}},
		},
		BackendPool: infrav1.BackendPool{Name: "my-cluster-public-lb-backendPool"},
		LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{
			SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To[int32](4),
		},
	}
	internal := APIServerInternalLB(&public)
	if internal == nil {
		t.Fatal("a public API server load balancer with a private frontend has an internal companion")
	}
	for _, in := range []struct {
		name string
		role LoadBalancerRole
		spec infrav1.LoadBalancerSpec
	}{{"apiserver-ilb-public", APIServerLoadBalancer, public}, {"apiserver-ilb-internal", APIServerInternalLoadBalancer, *internal}} {
		t.Run(in.name, func(t *testing.T) {
			golden.Assert(t, "loadbalancer-"+in.name, LoadBalancer(testCluster, LoadBalancerInput{
				Role: in.role, Spec: in.spec, Subnet: controlPlaneSubnet,
			}))
		})
	}

	for name, lb := range map[string]*infrav1.LoadBalancerSpec{
		"nil":                nil,
		"internal":           {Name: "lb", FrontendIPs: []infrav1.FrontendIP{{Name: "fe", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.0.0.100"}}}, LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Internal}},
		"public-only-public": {Name: "lb", FrontendIPs: []infrav1.FrontendIP{{Name: "fe", PublicIP: &infrav1.PublicIPSpec{Name: "pip"}}}, LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Public}},
	} {
		if got := APIServerInternalLB(lb); got != nil {
			t.Errorf("%s: got an internal companion %q, want none", name, got.Name)
		}
	}
}
