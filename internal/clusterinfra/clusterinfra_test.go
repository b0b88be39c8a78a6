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

package clusterinfra

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
)

// TestResolve_AzureClusterFromTheCache checks that an AzureCluster is read from the cache: the API reader here
// holds nothing (neither the object nor its CRD), so any read through it fails.
func TestResolve_AzureClusterFromTheCache(t *testing.T) {
	ac := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
		Spec: infrav1.AzureClusterSpec{
			ResourceGroup: "rg",
			AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
				SubscriptionID: "sub", Location: "westeurope",
			},
			NetworkSpec: infrav1.NetworkSpec{Vnet: infrav1.VnetSpec{Name: "vnet"}},
		},
	}
	cached := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ac).Build()
	apiReader := fake.NewClientBuilder().WithScheme(scheme.New()).Build()

	for _, tc := range []struct {
		name     string
		kind     string
		wantErr  bool
		wantVNet string
	}{
		{name: "AzureCluster", kind: "AzureCluster", wantVNet: "vnet"},
		{name: "another kind is read from the API server", kind: "AzureManagedCluster", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			cluster := &clusterv1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
				Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: infrav1.GroupVersion.Group, Kind: tc.kind, Name: "c1",
				}},
				Status: clusterv1.ClusterStatus{Initialization: clusterv1.ClusterInitializationStatus{InfrastructureProvisioned: ptr.To(true)}},
			}
			infra, waiting, err := Resolve(t.Context(), apiReader, cached, cluster)
			if tc.wantErr {
				g.Expect(err).To(HaveOccurred())
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(waiting).To(BeEmpty())
			g.Expect(infra.Kind).To(Equal("AzureCluster"))
			g.Expect(infra.Network.Vnet.Name).To(Equal(tc.wantVNet))
			g.Expect(infra.SubscriptionID).To(Equal("sub"))
		})
	}
}

// Machines go into availability sets only where the provider's own AzureCluster makes them: in a region without
// zones, with no failure domains in its spec.
func TestFrom_AvailabilitySets(t *testing.T) {
	object := func(kind, location string, annotations map[string]string, failureDomains map[string]any) *unstructured.Unstructured {
		spec := map[string]any{"location": location}
		if failureDomains != nil {
			spec["failureDomains"] = failureDomains
		}
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetGroupVersionKind(infrav1.GroupVersion.WithKind(kind))
		u.SetName("c1")
		u.SetAnnotations(annotations)
		return u
	}
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		want bool
	}{
		{name: "an AzureCluster in a region without zones", obj: object("AzureCluster", "northcentralus", nil, nil), want: true},
		{name: "an AzureCluster in a region with zones", obj: object("AzureCluster", "eastus", nil, nil)},
		{name: "an AzureCluster naming failure domains", obj: object("AzureCluster", "northcentralus", nil, map[string]any{"fd-1": map[string]any{"controlPlane": true}})},
		{name: "an externally managed AzureCluster", obj: object("AzureCluster", "northcentralus", map[string]string{clusterv1.ManagedByAnnotation: "someone"}, nil)},
		{name: "another provider's kind", obj: object("ExampleCluster", "northcentralus", nil, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			infra, err := From(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if infra.AvailabilitySets != tc.want {
				t.Errorf("AvailabilitySets = %v, want %v", infra.AvailabilitySets, tc.want)
			}
		})
	}
}

// TestLBPools: control plane machines join the control plane outbound load balancer (first, as in CAPZ) and the API
// server's; a worker
// joins the node outbound load balancer only without a public IP and without a NAT gateway on its subnet, as in CAPZ.
func TestLBPools(t *testing.T) {
	lb := func(name string) *infrav1.LoadBalancerSpec {
		return &infrav1.LoadBalancerSpec{Name: name, BackendPool: infrav1.BackendPool{Name: name + "-pool"}}
	}
	infra := &Infrastructure{Network: infrav1.NetworkSpec{
		APIServerLB: lb("api"), ControlPlaneOutboundLB: lb("cp-out"), NodeOutboundLB: lb("node-out"),
		Subnets: infrav1.Subnets{
			{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "with-nat"}, NatGateway: infrav1.NatGateway{NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: "natgw"}}},
			{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "without-nat"}},
		},
	}}
	tests := []struct {
		name                               string
		controlPlane, publicIP, natGateway bool
		want                               []BackendPool
	}{
		{name: "control plane", controlPlane: true, want: []BackendPool{{"cp-out", "cp-out-pool"}, {"api", "api-pool"}}},
		{name: "worker", want: []BackendPool{{"node-out", "node-out-pool"}}},
		{name: "worker with a public IP", publicIP: true},
		{name: "worker on a subnet with a NAT gateway", natGateway: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(infra.LBPools(tt.controlPlane, tt.publicIP, tt.natGateway)).To(Equal(tt.want))
		})
	}
	g := NewWithT(t)
	g.Expect(infra.SubnetHasNATGateway("with-nat")).To(BeTrue())
	g.Expect(infra.SubnetHasNATGateway("without-nat")).To(BeFalse())
	g.Expect(infra.SubnetHasNATGateway("unknown")).To(BeFalse())
}
