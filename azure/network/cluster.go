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
	"strings"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
)

// Families of the AzureCluster's resources: each family is one condition, <Family>Ready.
var (
	FamilyResourceGroup    = azure.NewFamily("ResourceGroup")
	FamilyVNet             = azure.NewFamily("VNet")
	FamilySecurityGroups   = azure.NewFamily("SecurityGroups")
	FamilyRouteTables      = azure.NewFamily("RouteTables")
	FamilyPublicIPs        = azure.NewFamily("PublicIPs")
	FamilyNATGateways      = azure.NewFamily("NATGateways")
	FamilySubnets          = azure.NewFamily("Subnets")
	FamilyVNetPeerings     = azure.NewFamily("VNetPeerings")
	FamilyLoadBalancers    = azure.NewFamily("LoadBalancers")
	FamilyPrivateDNS       = azure.NewFamily("PrivateDNS")
	FamilyPrivateEndpoints = azure.NewFamily("PrivateEndpoints")
	FamilyBastionHost      = azure.NewFamily("BastionHost")
)

// ClusterInput is what ClusterResources needs to know about an AzureCluster.
type ClusterInput struct {
	// Cluster is the resolved cluster: name, subscription, location, Edge Zone, resource group, additional tags.
	Cluster azure.Cluster
	// Network is the cluster's network, defaulted by the webhook.
	Network infrav1.NetworkSpec
	// Bastion is the cluster's Azure Bastion host, defaulted by the webhook; nil for none.
	Bastion *infrav1.AzureBastion
	// ControlPlaneEnabled is false for a cluster whose control plane is not made of Azure machines: it gets no API
	// server load balancer (nor its public IPs, control-plane outbound load balancer, private DNS or default
	// control-plane security rules).
	ControlPlaneEnabled bool
	// VNet is what the engine found out about a virtual network without id (see VNetAdoption); the controller reads
	// it from the live ASO object.
	VNet VNetAdoption
	// APIServerPort is the port the API server listens on: the Cluster's spec.clusterNetwork.apiServerPort; 0 means
	// 6443. The API server load balancers forward to it and probe it, and allow_apiserver lets it in.
	APIServerPort int32
	// APIServerFrontendPort is the port of the API server load balancers' frontends: the AzureCluster's
	// spec.controlPlaneEndpoint.port; 0 means APIServerPort.
	APIServerFrontendPort int32
}

// VNetAdoption is what is known of whether an adoptable virtual network is the user's.
type VNetAdoption int

const (
	// VNetUnknown means the engine has not found out yet: only the resource group and the virtual network are
	// returned, as everything else depends on the answer.
	VNetUnknown VNetAdoption = iota
	// VNetOwned means the provider created (or owns) the virtual network.
	VNetOwned
	// VNetUsers means the virtual network exists and is the user's: it is treated as one given by id.
	VNetUsers
)

// ClusterResources returns every ASO object of an AzureCluster's infrastructure, in dependency order (the order of
// CAPZ's services): resource group, virtual network, security groups and their rules, route tables, public IPs,
// NAT gateways, subnets, virtual network peerings, load balancers, private DNS, private endpoints, bastion host.
//
//   - The resource group and a virtual network without id are Adoptable: the engine finds out whether they are the
//     user's. Until it has for the network (in.VNet), nothing else is returned; a network that turns out to be the
//     user's is then treated as one given by id. The private DNS zone and its links are Adoptable too, as a zone
//     may be shared with other clusters.
//   - A virtual network with an id (and without the cluster's "owned" tag, see IsVirtualNetworkReferenced) is the
//     user's: it and its subnets are Referenced, and no security group, route table or NAT gateway is created for
//     its subnets, since a referenced subnet is never updated and they could not be attached (CAPZ creates them
//     anyway and leaves them unused: kubernetes-sigs/cluster-api-provider-azure#5262). Everything else still
//     references the subnets, by ARM ID.
//   - A security group, route table or NAT gateway with an id is the user's: it is attached by ARM ID, never
//     created; unless the id is the ARM ID of the one the provider makes for its name (CAPZ writes the IDs of the
//     resources it created back into the spec, and manifests taken from CAPZ clusters have them). One named by several subnets is created once; a security group gets the rules of all of them.
//   - The security group of a control-plane (or cluster) subnet gets CAPZ's default rules allow_ssh and
//     allow_apiserver on APIServerPort (see ControlPlaneSecurityRules).
//   - A subnet with an IPv6 prefix never gets a NAT gateway. Other subnets of any role get the NAT gateway they
//     name.
//   - Public IPs are created for the public frontends of the API server and outbound load balancers, for NAT
//     gateways and for the bastion host. Addresses of load balancers and NAT gateways are zone-redundant over the
//     load balancer's availability zones or the NAT gateway's zones, otherwise over the location's zones (as CAPZ
//     does with its failure domains), as is the bastion host's; none in an Edge Zone. Only the API server load
//     balancer's first public frontend gets one, the only frontend CAPZ gives that load balancer.
//   - Only load balancers the network spec has are created, and no API server load balancer without control plane.
//   - The private DNS zone (privateDNSZoneName, default <cluster>.capz.io, in privateDNSZoneResourceGroup or the
//     cluster's group), its links to the cluster's network and every peered network (<vnet>-link, as CAPZ), and
//     the record apiserver.<zone> exist for an internal API server load balancer unless privateDNSZone is None.
func ClusterResources(in ClusterInput) []azure.Resource {
	byID := IsVirtualNetworkReferenced(in.Cluster, in.Network.Vnet)
	b := &clusterBuilder{ClusterInput: in, vnetReferenced: byID || in.VNet == VNetUsers}
	b.subnets = clusterSubnets(in)

	b.add(FamilyResourceGroup, resources.ResourceGroup(in.Cluster), adoptable)
	if byID {
		b.add(FamilyVNet, VirtualNetwork(in.Cluster, in.Network.Vnet), referenced)
	} else {
		b.add(FamilyVNet, VirtualNetwork(in.Cluster, in.Network.Vnet), adoptable)
		if in.VNet == VNetUnknown {
			// Subnets, security groups, NAT gateways... go into the user's network only by reference.
			return b.out
		}
	}
	b.securityGroups()
	b.routeTables()
	b.publicIPs()
	b.natGateways()
	b.subnetObjects()
	b.peerings()
	b.loadBalancers()
	b.privateDNS()
	b.privateEndpoints()
	b.bastionHost()
	return b.out
}

type clusterBuilder struct {
	ClusterInput
	// vnetReferenced is true when the virtual network is the user's.
	vnetReferenced bool
	// subnets are the network's subnets followed by the bastion subnet.
	subnets []infrav1.SubnetSpec
	out     []azure.Resource
}

// object is a Kubernetes object, as azure.Resource holds it (translators do not import the controller-runtime client).
type object interface {
	metav1.Object
	runtime.Object
}

type resourceMode int

const (
	managed resourceMode = iota
	adoptable
	referenced
)

func (b *clusterBuilder) add(family string, obj object, mode resourceMode) {
	b.out = append(b.out, azure.Resource{Object: obj, Family: family, Adoptable: mode == adoptable, Referenced: mode == referenced})
}

// clusterSubnets returns the network's subnets and the bastion subnet, each name once.
func clusterSubnets(in ClusterInput) []infrav1.SubnetSpec {
	subnets := append([]infrav1.SubnetSpec{}, in.Network.Subnets...)
	if in.Bastion != nil && in.Bastion.Subnet.Name != "" {
		subnets = append(subnets, in.Bastion.Subnet)
	}
	seen := map[string]bool{}
	out := subnets[:0]
	for _, s := range subnets {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, withoutOwnIDs(in.Cluster, in.Network.Vnet, s))
		}
	}
	return out
}

// withoutOwnIDs clears the ids of a subnet's security group, route table and NAT gateway that are the ARM IDs of the
// ones the provider makes for their names: those are the provider's, not the user's.
func withoutOwnIDs(c azure.Cluster, vnet infrav1.VnetSpec, s infrav1.SubnetSpec) infrav1.SubnetSpec {
	own := func(id, group, resourceType, name string) bool {
		return name != "" && strings.EqualFold(id, azure.ResourceID(c.SubscriptionID, group, resourceType, name))
	}
	vnetGroup := virtualNetworkGroup(c, vnet)
	if own(s.SecurityGroup.ID, vnetGroup, azure.TypeNetworkSecurityGroup, s.SecurityGroup.Name) {
		s.SecurityGroup.ID = ""
	}
	if own(s.RouteTable.ID, vnetGroup, azure.TypeRouteTable, s.RouteTable.Name) {
		s.RouteTable.ID = ""
	}
	if own(s.NatGateway.ID, c.ResourceGroup, azure.TypeNatGateway, s.NatGateway.Name) {
		s.NatGateway.ID = ""
	}
	return s
}

// apiServerLB returns the API server load balancer, nil when the cluster has none.
func (b *clusterBuilder) apiServerLB() *infrav1.LoadBalancerSpec {
	if !b.ControlPlaneEnabled {
		return nil
	}
	return b.Network.APIServerLB
}

// controlPlaneOutboundLB returns the control-plane outbound load balancer, nil when the cluster has none.
func (b *clusterBuilder) controlPlaneOutboundLB() *infrav1.LoadBalancerSpec {
	if !b.ControlPlaneEnabled {
		return nil
	}
	return b.Network.ControlPlaneOutboundLB
}

func isControlPlaneSubnet(s infrav1.SubnetSpec) bool {
	return s.Role == infrav1.SubnetControlPlane || s.Role == infrav1.SubnetCluster
}

func (b *clusterBuilder) securityGroups() {
	if b.vnetReferenced {
		return
	}
	type group struct {
		spec         infrav1.SecurityGroup
		controlPlane bool
	}
	var order []string
	groups := map[string]*group{}
	for _, s := range b.subnets {
		sg := s.SecurityGroup
		if sg.Name == "" || sg.ID != "" {
			continue
		}
		g, ok := groups[sg.Name]
		if !ok {
			g = &group{spec: infrav1.SecurityGroup{Name: sg.Name}}
			groups[sg.Name] = g
			order = append(order, sg.Name)
		}
		if g.spec.Tags == nil {
			g.spec.Tags = sg.Tags
		}
		for _, rule := range sg.SecurityRules {
			if !hasRule(g.spec.SecurityRules, rule.Name) {
				g.spec.SecurityRules = append(g.spec.SecurityRules, rule)
			}
		}
		g.controlPlane = g.controlPlane || isControlPlaneSubnet(s)
	}
	rg := virtualNetworkGroup(b.Cluster, b.Network.Vnet)
	for _, name := range order {
		g := groups[name]
		rules := g.spec.SecurityRules
		if g.controlPlane && b.ControlPlaneEnabled {
			rules = ControlPlaneSecurityRules(rules, b.APIServerPort)
		}
		b.add(FamilySecurityGroups, NetworkSecurityGroup(b.Cluster, SecurityGroupInput{Spec: g.spec, ResourceGroup: rg}), managed)
		for _, rule := range rules {
			b.add(FamilySecurityGroups, SecurityRule(name, rule), managed)
		}
	}
}

func hasRule(rules infrav1.SecurityRules, name string) bool {
	for _, r := range rules {
		if r.Name == name {
			return true
		}
	}
	return false
}

func (b *clusterBuilder) routeTables() {
	if b.vnetReferenced {
		return
	}
	seen := map[string]bool{}
	rg := virtualNetworkGroup(b.Cluster, b.Network.Vnet)
	for _, s := range b.subnets {
		rt := s.RouteTable
		if rt.Name == "" || rt.ID != "" || seen[rt.Name] {
			continue
		}
		seen[rt.Name] = true
		b.add(FamilyRouteTables, RouteTable(b.Cluster, RouteTableInput{Name: rt.Name, ResourceGroup: rg}), managed)
	}
}

// natGatewaySpecs returns the NAT gateways the provider creates, each name once. A brought network's subnets
// get theirs too, as CAPZ v1.26.0 makes them (its webhook names one for every node subnet without an ID), but
// the provider never attaches them to the user's subnets (subnetObjects).
func (b *clusterBuilder) natGatewaySpecs() []infrav1.NatGateway {
	var out []infrav1.NatGateway
	seen := map[string]bool{}
	for _, s := range b.subnets {
		ng := s.NatGateway
		if ng.Name == "" || ng.ID != "" || s.IsIPv6Enabled() || seen[ng.Name] {
			continue
		}
		seen[ng.Name] = true
		out = append(out, ng)
	}
	return out
}

func (b *clusterBuilder) publicIPs() {
	c := b.Cluster
	seen := map[string]bool{}
	add := func(in PublicIPInput) {
		if in.Spec.Name == "" || seen[in.Spec.Name] {
			return
		}
		seen[in.Spec.Name] = true
		b.add(FamilyPublicIPs, PublicIPAddress(c, in), managed)
	}
	lbIPs := func(lb *infrav1.LoadBalancerSpec, role LoadBalancerRole) {
		if lb == nil || lb.Type == infrav1.Internal {
			return
		}
		for _, fe := range apiServerFrontends(LoadBalancerInput{Role: role, Spec: *lb}) {
			if fe.PublicIP != nil {
				add(PublicIPInput{Spec: *fe.PublicIP, Zones: b.zonesOr(lb.AvailabilityZones)})
			}
		}
	}
	lbIPs(b.apiServerLB(), APIServerLoadBalancer)
	lbIPs(b.controlPlaneOutboundLB(), ControlPlaneOutboundLoadBalancer)
	lbIPs(b.Network.NodeOutboundLB, NodeOutboundLoadBalancer)
	for _, ng := range b.natGatewaySpecs() {
		add(PublicIPInput{Spec: ng.NatGatewayIP, Zones: b.zonesOr(ng.Zones), RegionOnly: true})
	}
	if b.Bastion != nil {
		add(PublicIPInput{Spec: b.Bastion.PublicIP, Zones: b.zonesOr(nil), RegionOnly: true})
	}
}

// zonesOr returns the given zones, or else the zones of the cluster's location (none in an Edge Zone).
func (b *clusterBuilder) zonesOr(zones []string) []string {
	if len(zones) > 0 || b.Cluster.ExtendedLocation != nil {
		return zones
	}
	return azure.Zones(b.Cluster.Location)
}

func (b *clusterBuilder) natGateways() {
	// In a brought network a NAT gateway of that name may be the user's: CAPZ manages it only when it finds none.
	mode := managed
	if b.vnetReferenced {
		mode = adoptable
	}
	for _, ng := range b.natGatewaySpecs() {
		b.add(FamilyNATGateways, NatGateway(b.Cluster, ng), mode)
	}
}

func (b *clusterBuilder) subnetObjects() {
	mode := managed
	if b.vnetReferenced {
		mode = referenced
	}
	for _, s := range b.subnets {
		if b.vnetReferenced {
			s.SecurityGroup, s.RouteTable, s.NatGateway = infrav1.SecurityGroup{}, infrav1.RouteTable{}, infrav1.NatGateway{}
		}
		b.add(FamilySubnets, Subnet(b.Cluster, SubnetInput{Vnet: b.Network.Vnet, Spec: s}), mode)
	}
}

func (b *clusterBuilder) peerings() {
	for _, p := range b.Network.Vnet.Peerings {
		forward, reverse := VirtualNetworkPeerings(b.Cluster, b.Network.Vnet, p)
		b.add(FamilyVNetPeerings, forward, managed)
		b.add(FamilyVNetPeerings, reverse, managed)
	}
}

// controlPlaneSubnetReference references the subnet of the API server's private frontends: the first
// control-plane subnet, else the first cluster subnet.
func (b *clusterBuilder) controlPlaneSubnetReference() *genruntime.ResourceReference {
	for _, role := range []infrav1.SubnetRole{infrav1.SubnetControlPlane, infrav1.SubnetCluster} {
		for _, s := range b.subnets {
			if s.Role == role {
				return SubnetReference(b.Cluster, b.Network.Vnet, s)
			}
		}
	}
	return nil
}

func (b *clusterBuilder) loadBalancers() {
	if lb := b.apiServerLB(); lb != nil {
		b.add(FamilyLoadBalancers, LoadBalancer(b.Cluster, LoadBalancerInput{
			Role: APIServerLoadBalancer, Spec: *lb, AdditionalPorts: b.Network.AdditionalAPIServerLBPorts,
			Subnet: b.controlPlaneSubnetReference(), APIServerPort: b.APIServerPort, FrontendPort: b.APIServerFrontendPort,
		}), managed)
		if internal := APIServerInternalLB(lb); internal != nil {
			b.add(FamilyLoadBalancers, LoadBalancer(b.Cluster, LoadBalancerInput{
				Role: APIServerInternalLoadBalancer, Spec: *internal, AdditionalPorts: b.Network.AdditionalAPIServerLBPorts,
				Subnet: b.controlPlaneSubnetReference(), APIServerPort: b.APIServerPort, FrontendPort: b.APIServerFrontendPort,
			}), managed)
		}
	}
	if lb := b.Network.NodeOutboundLB; lb != nil {
		b.add(FamilyLoadBalancers, LoadBalancer(b.Cluster, LoadBalancerInput{Role: NodeOutboundLoadBalancer, Spec: *lb}), managed)
	}
	if lb := b.controlPlaneOutboundLB(); lb != nil {
		b.add(FamilyLoadBalancers, LoadBalancer(b.Cluster, LoadBalancerInput{Role: ControlPlaneOutboundLoadBalancer, Spec: *lb}), managed)
	}
}

func (b *clusterBuilder) privateDNS() {
	lb := b.apiServerLB()
	if lb == nil || lb.Type != infrav1.Internal {
		return
	}
	if b.Network.PrivateDNSZone != nil && *b.Network.PrivateDNSZone == infrav1.PrivateDNSZoneModeNone {
		return
	}
	c, vnet := b.Cluster, b.Network.Vnet
	zone := b.Network.PrivateDNSZoneName
	if zone == "" {
		zone = infrav1.PrivateDNSZoneName(c.Name)
	}
	zoneInput := PrivateDNSZoneInput{Zone: zone, ResourceGroup: b.Network.PrivateDNSZoneResourceGroup}
	b.add(FamilyPrivateDNS, PrivateDNSZone(c, zoneInput), adoptable)
	b.add(FamilyPrivateDNS, PrivateDNSZonesVirtualNetworkLink(c, VirtualNetworkLinkInput{
		Zone: zone, VnetName: vnet.Name, VirtualNetwork: VirtualNetworkReference(c, vnet),
	}), adoptable)
	for _, p := range vnet.Peerings {
		b.add(FamilyPrivateDNS, PrivateDNSZonesVirtualNetworkLink(c, VirtualNetworkLinkInput{
			Zone: zone, VnetName: p.RemoteVnetName, VirtualNetwork: armReference(remoteVirtualNetworkID(c, p)),
		}), adoptable)
	}
	if len(lb.FrontendIPs) > 0 && lb.FrontendIPs[0].PrivateIPAddress != "" {
		b.add(FamilyPrivateDNS, PrivateDNSZonesARecord(zone, lb.FrontendIPs[0].PrivateIPAddress), managed)
	}
}

func (b *clusterBuilder) privateEndpoints() {
	seen := map[string]bool{}
	for _, s := range b.subnets {
		for _, pe := range s.PrivateEndpoints {
			if seen[pe.Name] {
				continue
			}
			seen[pe.Name] = true
			b.add(FamilyPrivateEndpoints, PrivateEndpoint(b.Cluster, PrivateEndpointInput{
				Spec: pe, Subnet: SubnetReference(b.Cluster, b.Network.Vnet, s),
			}), managed)
		}
	}
}

func (b *clusterBuilder) bastionHost() {
	if b.Bastion == nil {
		return
	}
	b.add(FamilyBastionHost, BastionHost(b.Cluster, BastionHostInput{
		Spec: *b.Bastion, Subnet: SubnetReference(b.Cluster, b.Network.Vnet, b.Bastion.Subnet),
	}), managed)
}
