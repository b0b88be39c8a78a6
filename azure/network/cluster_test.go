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
	"reflect"
	"strings"
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

const testSubscription = "00000000-0000-0000-0000-000000000001"

// defaulted returns the AzureCluster my-cluster with the given spec, defaulted as the webhook does.
func defaulted(spec infrav1.AzureClusterSpec) *infrav1.AzureCluster {
	ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "my-cluster", Namespace: "default"}, Spec: spec}
	if ac.Spec.Location == "" {
		ac.Spec.Location = "eastus"
	}
	if ac.Spec.SubscriptionID == "" {
		ac.Spec.SubscriptionID = testSubscription
	}
	ac.SetDefaults()
	return ac
}

// inputOf builds the composer's input from an AzureCluster the way the controller does.
func inputOf(ac *infrav1.AzureCluster) ClusterInput {
	s := ac.Spec
	return ClusterInput{
		Cluster: azure.Cluster{
			Name: ac.Name, SubscriptionID: s.SubscriptionID, Location: s.Location, ExtendedLocation: s.ExtendedLocation,
			ResourceGroup: s.ResourceGroup, AdditionalTags: s.AdditionalTags,
		},
		Network:             s.NetworkSpec,
		Bastion:             s.BastionSpec.AzureBastion,
		ControlPlaneEnabled: ptr.Deref(s.ControlPlaneEnabled, true),
		VNet:                VNetOwned,
	}
}

// resourceView is how a composed resource appears in a golden file.
type resourceView struct {
	Kind       string `json:"kind"`
	Family     string `json:"family"`
	Adoptable  bool   `json:"adoptable,omitempty"`
	Referenced bool   `json:"referenced,omitempty"`
	Object     object `json:"object"`
}

func view(resources []azure.Resource) []resourceView {
	out := make([]resourceView, 0, len(resources))
	for _, r := range resources {
		out = append(out, resourceView{
			Kind: kindOf(r.Object), Family: r.Family, Adoptable: r.Adoptable, Referenced: r.Referenced, Object: r.Object,
		})
	}
	return out
}

func kindOf(obj object) string { return reflect.TypeOf(obj).Elem().Name() }

const byoVnetID = "/subscriptions/" + testSubscription + "/resourceGroups/byo-rg/providers/Microsoft.Network/virtualNetworks/byo-vnet"

// clusterCases are the AzureClusters of the composer's golden files.
func clusterCases() map[string]*infrav1.AzureCluster {
	return map[string]*infrav1.AzureCluster{
		// CAPZ's default cluster: a public API server, a control-plane and a node subnet, NAT gateway for nodes.
		"default": defaulted(infrav1.AzureClusterSpec{}),

		// A private cluster: internal API server load balancer over three zones, a control-plane outbound load
		// balancer and a private DNS zone in another resource group.
		"private": defaulted(infrav1.AzureClusterSpec{
			ResourceGroup: "private-rg",
			NetworkSpec: infrav1.NetworkSpec{
				APIServerLB: &infrav1.LoadBalancerSpec{
					AvailabilityZones:     []string{"1", "2", "3"},
					LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Internal},
				},
				ControlPlaneOutboundLB: &infrav1.LoadBalancerSpec{},
				NetworkClassSpec: infrav1.NetworkClassSpec{
					PrivateDNSZoneName: "private.example.com", PrivateDNSZoneResourceGroup: "dns-rg",
				},
			},
		}),

		// An Azure Bastion host with the Standard SKU.
		"bastion": defaulted(infrav1.AzureClusterSpec{
			BastionSpec: infrav1.BastionSpec{AzureBastion: &infrav1.AzureBastion{Sku: infrav1.StandardBastionHostSku, EnableTunneling: true}},
		}),

		// A virtual network brought by the user, in its own resource group.
		"byo-vnet": defaulted(infrav1.AzureClusterSpec{
			NetworkSpec: infrav1.NetworkSpec{
				Vnet: infrav1.VnetSpec{Name: "byo-vnet", ResourceGroup: "byo-rg", ID: byoVnetID},
				Subnets: infrav1.Subnets{
					{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "cp-subnet", Role: infrav1.SubnetControlPlane, CIDRBlocks: []string{"172.16.0.0/24"}}},
					{
						SubnetClassSpec: infrav1.SubnetClassSpec{Name: "node-subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"172.16.1.0/24"}},
						ID:              byoVnetID + "/subnets/node-subnet",
					},
				},
			},
		}),

		// Peerings, private endpoints, custom security rules (one replaces allow_ssh) and an extra API server port.
		"peerings-endpoints-rules": defaulted(infrav1.AzureClusterSpec{
			NetworkSpec: infrav1.NetworkSpec{
				Vnet: infrav1.VnetSpec{Peerings: infrav1.VnetPeerings{
					{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{
						RemoteVnetName: "hub-vnet", ResourceGroup: "hub-rg",
						ForwardPeeringProperties: infrav1.VnetPeeringProperties{AllowForwardedTraffic: ptr.To(true), UseRemoteGateways: ptr.To(true)},
						ReversePeeringProperties: infrav1.VnetPeeringProperties{AllowGatewayTransit: ptr.To(true)},
					}},
					{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{RemoteVnetName: "mgmt-vnet"}},
				}},
				Subnets: infrav1.Subnets{
					{
						SubnetClassSpec: infrav1.SubnetClassSpec{Name: "cp", Role: infrav1.SubnetControlPlane},
						SecurityGroup: infrav1.SecurityGroup{SecurityGroupClass: infrav1.SecurityGroupClass{SecurityRules: infrav1.SecurityRules{
							{
								Name: AllowSSHRule, Description: "SSH from the corporate network only", Protocol: infrav1.SecurityGroupProtocolTCP,
								Direction: infrav1.SecurityRuleDirectionInbound, Priority: 2200,
								Source: ptr.To("192.168.0.0/16"), SourcePorts: ptr.To("*"), Destination: ptr.To("*"), DestinationPorts: ptr.To("22"),
							},
							{
								Name: "allow_rke2", Description: "RKE2 node registration", Protocol: infrav1.SecurityGroupProtocolTCP,
								Direction: infrav1.SecurityRuleDirectionInbound, Priority: 2202,
								Sources: []*string{ptr.To("10.0.0.0/16"), ptr.To("10.1.0.0/16")}, SourcePorts: ptr.To("*"),
								Destination: ptr.To("*"), DestinationPorts: ptr.To("9345"),
							},
						}}},
					},
					{SubnetClassSpec: infrav1.SubnetClassSpec{
						Name: "nodes", Role: infrav1.SubnetNode,
						ServiceEndpoints: infrav1.ServiceEndpoints{{Service: "Microsoft.Storage", Locations: []string{"eastus"}}},
						PrivateEndpoints: infrav1.PrivateEndpoints{{
							Name: "storage-pe",
							PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{
								Name:                 "blob",
								PrivateLinkServiceID: "/subscriptions/" + testSubscription + "/resourceGroups/data-rg/providers/Microsoft.Storage/storageAccounts/data",
								GroupIDs:             []string{"blob"},
							}},
						}},
					}},
				},
				AdditionalAPIServerLBPorts: []infrav1.LoadBalancerPort{{Name: "RKE2", Port: 9345}},
			},
		}),

		// A dual-stack cluster: its IPv6 node subnet has no NAT gateway, so the webhook adds a node outbound LB.
		"dual-stack": defaulted(infrav1.AzureClusterSpec{
			NetworkSpec: infrav1.NetworkSpec{
				Vnet: infrav1.VnetSpec{VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/8", "2001:1234:5678:9a00::/56"}}},
				Subnets: infrav1.Subnets{
					{SubnetClassSpec: infrav1.SubnetClassSpec{
						Name: "control-plane-subnet", Role: infrav1.SubnetControlPlane,
						CIDRBlocks: []string{"10.0.0.0/16", "2001:1234:5678:9abc::/64"},
					}},
					{SubnetClassSpec: infrav1.SubnetClassSpec{
						Name: "node-subnet", Role: infrav1.SubnetNode,
						CIDRBlocks: []string{"10.1.0.0/16", "2001:1234:5678:9abd::/64"},
					}},
				},
			},
		}),

		// A cluster without an Azure control plane: no API server load balancer.
		"no-control-plane": defaulted(infrav1.AzureClusterSpec{ControlPlaneEnabled: ptr.To(false)}),
	}
}

func TestClusterResources(t *testing.T) {
	for name, ac := range clusterCases() {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, "cluster-"+name, view(ClusterResources(inputOf(ac))))
		})
	}
}

// names lists the composed resources as "Kind/name", in order.
func names(resources []azure.Resource) []string {
	out := make([]string, 0, len(resources))
	for _, r := range resources {
		out = append(out, kindOf(r.Object)+"/"+r.Object.GetName())
	}
	return out
}

func TestClusterResources_Default(t *testing.T) {
	g := NewWithT(t)
	got := ClusterResources(inputOf(clusterCases()["default"]))
	g.Expect(names(got)).To(Equal([]string{
		"ResourceGroup/my-cluster",
		"VirtualNetwork/my-cluster-vnet",
		"NetworkSecurityGroup/my-cluster-controlplane-nsg",
		"NetworkSecurityGroupsSecurityRule/my-cluster-controlplane-nsg-allow-ssh-23804069",
		"NetworkSecurityGroupsSecurityRule/my-cluster-controlplane-nsg-allow-apiserver-a3ec2574",
		"NetworkSecurityGroup/my-cluster-node-nsg",
		"RouteTable/my-cluster-node-routetable",
		"PublicIPAddress/pip-my-cluster-apiserver",
		"PublicIPAddress/pip-my-cluster-node-natgw",
		"NatGateway/my-cluster-node-natgw",
		"VirtualNetworksSubnet/my-cluster-vnet-my-cluster-controlplane-subnet",
		"VirtualNetworksSubnet/my-cluster-vnet-my-cluster-node-subnet",
		"LoadBalancer/my-cluster-public-lb",
	}))
	for _, r := range got {
		g.Expect(r.Referenced).To(BeFalse(), r.Object.GetName())
		g.Expect(r.Adoptable).To(Equal(r.Family == FamilyResourceGroup || r.Family == FamilyVNet), r.Object.GetName())
	}
}

func TestClusterResources_BringYourOwnVnet(t *testing.T) {
	g := NewWithT(t)
	got := ClusterResources(inputOf(clusterCases()["byo-vnet"]))
	families := map[string]int{}
	for _, r := range got {
		families[r.Family]++
		if r.Family == FamilyVNet || r.Family == FamilySubnets {
			g.Expect(r.Referenced).To(BeTrue(), r.Object.GetName())
			g.Expect(r.Adoptable).To(BeFalse(), r.Object.GetName())
		}
	}
	g.Expect(families).NotTo(HaveKey(FamilySecurityGroups))
	g.Expect(families).NotTo(HaveKey(FamilyRouteTables))
	g.Expect(families).NotTo(HaveKey(FamilyNATGateways))
	g.Expect(families[FamilySubnets]).To(Equal(2))

	// A virtual network with an id and the cluster's owned tag was created by CAPZ: it stays managed.
	ac := clusterCases()["byo-vnet"]
	ac.Spec.NetworkSpec.Vnet.Tags = infrav1.Tags{azure.ClusterTagKey("my-cluster"): infrav1.ResourceLifecycleOwned}
	got = ClusterResources(inputOf(ac))
	g.Expect(got[1].Adoptable).To(BeTrue())
	g.Expect(got[1].Referenced).To(BeFalse())
}

func TestClusterResources_PrivateDNSZoneNone(t *testing.T) {
	g := NewWithT(t)
	ac := clusterCases()["private"]
	ac.Spec.NetworkSpec.PrivateDNSZone = ptr.To(infrav1.PrivateDNSZoneModeNone)
	for _, r := range ClusterResources(inputOf(ac)) {
		g.Expect(r.Family).NotTo(Equal(FamilyPrivateDNS), r.Object.GetName())
	}
}

func TestClusterResources_Deterministic(t *testing.T) {
	g := NewWithT(t)
	for name, ac := range clusterCases() {
		first := ClusterResources(inputOf(ac))
		for range 5 {
			g.Expect(ClusterResources(inputOf(ac))).To(Equal(first), name)
		}
	}
}

func TestClusterResources_VNetAdoption(t *testing.T) {
	g := NewWithT(t)
	in := inputOf(clusterCases()["default"])

	// Until the engine knows whose the network is, nothing goes into it.
	in.VNet = VNetUnknown
	g.Expect(kindsOf(ClusterResources(in))).To(Equal([]string{"ResourceGroup", "VirtualNetwork"}))

	// The user's network is only referenced, with its subnets, and gets nothing attached. The node subnet's NAT
	// gateway and its public IP are still made, as CAPZ v1.26.0 makes them, and the gateway stays the user's when
	// one of its name exists.
	in.VNet = VNetUsers
	var subnets, natGateways int
	for _, r := range ClusterResources(in) {
		kind := reflect.TypeOf(r.Object).Elem().Name()
		g.Expect([]string{"NetworkSecurityGroup", "RouteTable"}).NotTo(ContainElement(kind))
		switch kind {
		case "VirtualNetworksSubnet":
			subnets++
			g.Expect(r.Referenced).To(BeTrue(), r.Object.GetName())
			subnet := r.Object.(*asonetwork.VirtualNetworksSubnet)
			g.Expect(subnet.Spec.NatGateway).To(BeNil(), "nothing is attached to the user's subnet")
		case "NatGateway":
			natGateways++
			g.Expect(r.Object.GetName()).To(Equal("my-cluster-node-natgw"))
			g.Expect(r.Adoptable).To(BeTrue(), "a NAT gateway of that name in the user's network may be the user's")
		case "PublicIPAddress":
			g.Expect(r.Adoptable || r.Referenced).To(BeFalse(), r.Object.GetName())
		case "VirtualNetwork":
			g.Expect(r.Adoptable).To(BeTrue(), "the engine keeps its decision on the object")
		}
	}
	g.Expect(subnets).To(Equal(2))
	g.Expect(natGateways).To(Equal(1))
}

// kindsOf lists the kinds of resources in order.
func kindsOf(resources []azure.Resource) []string {
	out := make([]string, 0, len(resources))
	for _, r := range resources {
		out = append(out, reflect.TypeOf(r.Object).Elem().Name())
	}
	return out
}

// TestClusterResources_IDsWrittenBackByCAPZ: CAPZ writes the IDs of the subnets, security groups, route tables and
// NAT gateways it created back into the AzureCluster's spec. Such a manifest composes exactly as the one without
// them, while an id of a resource elsewhere (another group, another name) stays the user's.
func TestClusterResources_IDsWrittenBackByCAPZ(t *testing.T) {
	g := NewWithT(t)
	want := ClusterResources(inputOf(clusterCases()["default"]))

	ac := clusterCases()["default"]
	group := "/subscriptions/" + testSubscription + "/resourceGroups/my-cluster/providers/Microsoft.Network/"
	for i := range ac.Spec.NetworkSpec.Subnets {
		s := &ac.Spec.NetworkSpec.Subnets[i]
		s.ID = group + "virtualNetworks/my-cluster-vnet/subnets/" + s.Name
		s.SecurityGroup.ID = group + "networkSecurityGroups/" + s.SecurityGroup.Name
		if s.RouteTable.Name != "" {
			s.RouteTable.ID = group + "routeTables/" + s.RouteTable.Name
		}
		if s.NatGateway.Name != "" {
			// Azure's IDs keep their case, and CAPZ's are compared case-insensitively.
			s.NatGateway.ID = strings.ToUpper(group) + "natGateways/" + s.NatGateway.Name
		}
	}
	g.Expect(ClusterResources(inputOf(ac))).To(Equal(want))

	// A NAT gateway of another resource group is the user's: attached by ID, not created.
	theirs := "/subscriptions/" + testSubscription + "/resourceGroups/shared-rg/providers/Microsoft.Network/natGateways/my-cluster-node-natgw"
	nodeSubnet := &ac.Spec.NetworkSpec.Subnets[1]
	g.Expect(nodeSubnet.NatGateway.Name).To(Equal("my-cluster-node-natgw"))
	nodeSubnet.NatGateway.ID = theirs
	got := ClusterResources(inputOf(ac))
	g.Expect(kindsOf(got)).NotTo(ContainElement("NatGateway"))
	var node *asonetwork.VirtualNetworksSubnet
	for _, r := range got {
		if s, ok := r.Object.(*asonetwork.VirtualNetworksSubnet); ok && s.Spec.AzureName == nodeSubnet.Name {
			node = s
		}
	}
	g.Expect(node).NotTo(BeNil())
	g.Expect(node.Spec.NatGateway.Reference.ARMID).To(Equal(theirs))
}
