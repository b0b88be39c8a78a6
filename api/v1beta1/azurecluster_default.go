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

package v1beta1

import (
	"fmt"
	"net/netip"

	"k8s.io/utils/ptr"
)

// SetDefaults fills in every name and setting the user left empty, the way CAPZ does, so that the ASO objects
// are named deterministically and the user sees the effective spec.
func (c *AzureCluster) SetDefaults() {
	s := &c.Spec
	if s.ResourceGroup == "" {
		s.ResourceGroup = c.Name
	}
	if s.AzureEnvironment == "" {
		s.AzureEnvironment = DefaultAzureCloud
	}
	if s.ControlPlaneEnabled == nil {
		s.ControlPlaneEnabled = ptr.To(true)
	}
	c.setVnetDefaults()
	c.setBastionDefaults()
	c.setSubnetDefaults()
	for i := range s.NetworkSpec.Vnet.Peerings {
		if s.NetworkSpec.Vnet.Peerings[i].ResourceGroup == "" {
			s.NetworkSpec.Vnet.Peerings[i].ResourceGroup = s.ResourceGroup
		}
	}
	if *s.ControlPlaneEnabled {
		c.setAPIServerLBDefaults()
		c.setControlPlaneOutboundLBDefaults()
	}
	c.setNodeOutboundLBDefaults()
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = MergePatchType
		}
	}
}

func (c *AzureCluster) setVnetDefaults() {
	vnet := &c.Spec.NetworkSpec.Vnet
	if vnet.ResourceGroup == "" {
		vnet.ResourceGroup = c.Spec.ResourceGroup
	}
	if vnet.Name == "" {
		vnet.Name = VnetName(c.Name)
	}
	if vnet.ID == "" && len(vnet.CIDRBlocks) == 0 {
		vnet.CIDRBlocks = []string{DefaultVnetCIDR}
	}
}

func (c *AzureCluster) setSubnetDefaults() {
	subnets := c.Spec.NetworkSpec.Subnets
	hasCluster, hasControlPlane, nodeCount := false, false, 0
	for i := range subnets {
		switch subnets[i].Role {
		case SubnetCluster:
			hasCluster = true
			setClusterSubnetDefaults(&subnets[i], c.Name)
		case SubnetControlPlane:
			hasControlPlane = true
			setControlPlaneSubnetDefaults(&subnets[i], c.Name)
		case SubnetNode:
			nodeCount++
			setNodeSubnetDefaults(&subnets[i], c.Name, nodeCount)
		}
	}
	if *c.Spec.ControlPlaneEnabled && !hasControlPlane && !hasCluster {
		cp := SubnetSpec{SubnetClassSpec: SubnetClassSpec{Role: SubnetControlPlane}}
		setControlPlaneSubnetDefaults(&cp, c.Name)
		subnets = append(subnets, cp)
	}
	if nodeCount == 0 && !hasCluster {
		node := SubnetSpec{SubnetClassSpec: SubnetClassSpec{
			Name: NodeSubnetName(c.Name), Role: SubnetNode, CIDRBlocks: []string{DefaultNodeSubnetCIDR},
		}}
		node.NatGateway.Name = NodeNatGatewayName(c.Name)
		setNodeSubnetDefaults(&node, c.Name, 1)
		subnets = append(subnets, node)
	}
	if *c.Spec.ControlPlaneEnabled {
		setControlPlaneRouteTableDefault(subnets)
	}
	c.Spec.NetworkSpec.Subnets = subnets
}

// setControlPlaneRouteTableDefault gives the first control-plane subnet without a route table the route table of
// the first node or cluster subnet, as CAPZ defaults it: cloud-provider-azure writes the pod routes of every node
// into that one table, so that control-plane machines reach pods on workers when the CNI relies on Azure routes
// (dual-stack and IPv6 without encapsulation); with an overlay CNI the table holds no routes.
func setControlPlaneRouteTableDefault(subnets []SubnetSpec) {
	table := ""
	for _, s := range subnets {
		if s.Role == SubnetNode || s.Role == SubnetCluster {
			table = s.RouteTable.Name
			break
		}
	}
	for i := range subnets {
		if subnets[i].Role == SubnetControlPlane {
			if subnets[i].RouteTable.Name == "" {
				subnets[i].RouteTable.Name = table
			}
			return
		}
	}
}

func setControlPlaneSubnetDefaults(s *SubnetSpec, cluster string) {
	if s.Name == "" {
		s.Name = ControlPlaneSubnetName(cluster)
	}
	if len(s.CIDRBlocks) == 0 {
		s.CIDRBlocks = []string{DefaultControlPlaneSubnetCIDR}
	}
	if s.SecurityGroup.Name == "" {
		s.SecurityGroup.Name = ControlPlaneSecurityGroupName(cluster)
	}
	setSecurityRuleDefaults(s.SecurityGroup.SecurityRules)
}

// setNodeSubnetDefaults defaults the index-th node subnet (counting from 1). NAT gateways are the default way out
// for IPv4 node subnets that the provider creates; a subnet given by ID is left as it is.
func setNodeSubnetDefaults(s *SubnetSpec, cluster string, index int) {
	if s.Name == "" {
		s.Name = WithIndex(NodeSubnetName(cluster), index)
	}
	if len(s.CIDRBlocks) == 0 {
		s.CIDRBlocks = []string{fmt.Sprintf(DefaultNodeSubnetCIDRPattern, index)}
	}
	if s.SecurityGroup.Name == "" {
		s.SecurityGroup.Name = NodeSecurityGroupName(cluster)
	}
	setSecurityRuleDefaults(s.SecurityGroup.SecurityRules)
	if s.RouteTable.Name == "" {
		s.RouteTable.Name = NodeRouteTableName(cluster)
	}
	if !s.IsIPv6Enabled() && s.ID == "" {
		if s.NatGateway.Name == "" {
			s.NatGateway.Name = WithIndex(NodeNatGatewayName(cluster), index)
		}
		if s.NatGateway.NatGatewayIP.Name == "" {
			s.NatGateway.NatGatewayIP.Name = NatGatewayIPName(s.NatGateway.Name)
		}
	}
}

func setClusterSubnetDefaults(s *SubnetSpec, cluster string) {
	if s.Name == "" {
		s.Name = ClusterSubnetName(cluster)
	}
	if len(s.CIDRBlocks) == 0 {
		s.CIDRBlocks = []string{DefaultClusterSubnetCIDR}
	}
	if s.SecurityGroup.Name == "" {
		s.SecurityGroup.Name = ClusterSecurityGroupName(cluster)
	}
	setSecurityRuleDefaults(s.SecurityGroup.SecurityRules)
	if s.RouteTable.Name == "" {
		s.RouteTable.Name = ClusterRouteTableName(cluster)
	}
	if !s.IsIPv6Enabled() && s.ID == "" {
		if s.NatGateway.Name == "" {
			s.NatGateway.Name = ClusterNatGatewayName(cluster)
		}
		if s.NatGateway.NatGatewayIP.Name == "" {
			s.NatGateway.NatGatewayIP.Name = NatGatewayIPName(s.NatGateway.Name)
		}
	}
}

func setSecurityRuleDefaults(rules SecurityRules) {
	for i := range rules {
		if rules[i].Action == "" {
			rules[i].Action = SecurityRuleActionAllow
		}
	}
}

func (c *AzureCluster) setBastionDefaults() {
	b := c.Spec.BastionSpec.AzureBastion
	if b == nil {
		return
	}
	if b.Name == "" {
		b.Name = AzureBastionName(c.Name)
	}
	if b.Subnet.Name == "" {
		b.Subnet.Name = DefaultAzureBastionSubnetName
	}
	if len(b.Subnet.CIDRBlocks) == 0 {
		b.Subnet.CIDRBlocks = []string{DefaultAzureBastionSubnetCIDR}
	}
	if b.Subnet.Role == "" {
		b.Subnet.Role = SubnetBastion
	}
	if b.PublicIP.Name == "" {
		b.PublicIP.Name = AzureBastionPublicIPName(c.Name)
	}
	if b.Sku == "" {
		b.Sku = BasicBastionHostSku
	}
}

func (c *AzureCluster) setAPIServerLBDefaults() {
	s := &c.Spec
	if s.NetworkSpec.APIServerLB == nil {
		s.NetworkSpec.APIServerLB = &LoadBalancerSpec{}
	}
	lb := s.NetworkSpec.APIServerLB
	if lb.Type == "" {
		lb.Type = Public
	}
	if lb.SKU == "" {
		lb.SKU = SKUStandard
	}
	if lb.IdleTimeoutInMinutes == nil {
		lb.IdleTimeoutInMinutes = ptr.To[int32](DefaultLBIdleTimeoutInMinutes)
	}
	if lb.Type == Public {
		if lb.Name == "" {
			lb.Name = PublicLBName(c.Name)
		}
		if len(lb.FrontendIPs) == 0 {
			lb.FrontendIPs = []FrontendIP{{
				Name:     FrontendIPConfigName(lb.Name),
				PublicIP: &PublicIPSpec{Name: APIServerPublicIPName(c.Name)},
			}}
		}
		for i := range lb.FrontendIPs {
			if ip := lb.FrontendIPs[i].PublicIP; ip != nil && ip.DNSName == "" {
				ip.DNSName = APIServerFQDN(s.SubscriptionID, s.ResourceGroup, ip.Name, c.clusterName(), s.Location, s.AzureEnvironment)
			}
		}
	} else {
		if lb.Name == "" {
			lb.Name = InternalLBName(c.Name)
		}
		if len(lb.FrontendIPs) == 0 {
			lb.FrontendIPs = []FrontendIP{{
				Name:            FrontendIPConfigName(lb.Name),
				FrontendIPClass: FrontendIPClass{PrivateIPAddress: DefaultInternalLBIPAddress},
			}}
		}
	}
	if lb.BackendPool.Name == "" {
		lb.BackendPool.Name = BackendPoolName(lb.Name)
	}
}

// setNodeOutboundLBDefaults creates the node outbound load balancer only where NAT gateways cannot serve: a public
// cluster with IPv6 node subnets. A user-given one is completed.
func (c *AzureCluster) setNodeOutboundLBDefaults() {
	s := &c.Spec
	if s.NetworkSpec.NodeOutboundLB == nil {
		if s.NetworkSpec.APIServerLB == nil || s.NetworkSpec.APIServerLB.Type == Internal {
			return
		}
		needed := false
		for _, subnet := range s.NetworkSpec.Subnets {
			if (subnet.Role == SubnetNode || subnet.Role == SubnetCluster) && subnet.IsIPv6Enabled() {
				needed = true
			}
		}
		if !needed {
			return
		}
		s.NetworkSpec.NodeOutboundLB = &LoadBalancerSpec{}
	}
	lb := s.NetworkSpec.NodeOutboundLB
	if lb.Name == "" {
		lb.Name = NodeOutboundLBName(c.Name)
	}
	setOutboundLBDefaults(lb, NodeOutboundIPName(c.Name))
}

// setControlPlaneOutboundLBDefaults completes a control-plane outbound load balancer the user asked for; only
// private clusters need one.
func (c *AzureCluster) setControlPlaneOutboundLBDefaults() {
	lb := c.Spec.NetworkSpec.ControlPlaneOutboundLB
	if lb == nil {
		return
	}
	if lb.Name == "" {
		lb.Name = ControlPlaneOutboundLBName(c.Name)
	}
	setOutboundLBDefaults(lb, ControlPlaneOutboundIPName(c.Name))
}

func setOutboundLBDefaults(lb *LoadBalancerSpec, publicIPName string) {
	// An outbound load balancer is public; a type set otherwise is left for the validation to refuse.
	if lb.Type == "" {
		lb.Type = Public
	}
	lb.SKU = SKUStandard
	if lb.IdleTimeoutInMinutes == nil {
		lb.IdleTimeoutInMinutes = ptr.To[int32](DefaultLBIdleTimeoutInMinutes)
	}
	if lb.FrontendIPsCount == nil {
		lb.FrontendIPsCount = ptr.To[int32](1)
	}
	if len(lb.FrontendIPs) == 0 {
		count := int(*lb.FrontendIPsCount)
		for i := 1; i <= count; i++ {
			name, ip := FrontendIPConfigName(lb.Name), publicIPName
			if count > 1 {
				name, ip = WithIndex(name, i), WithIndex(ip, i)
			}
			lb.FrontendIPs = append(lb.FrontendIPs, FrontendIP{Name: name, PublicIP: &PublicIPSpec{Name: ip}})
		}
	}
	if lb.BackendPool.Name == "" {
		lb.BackendPool.Name = OutboundBackendPoolName(lb.Name)
	}
}

// IsIPv6Enabled reports whether the subnet has an IPv6 address prefix.
func (s SubnetSpec) IsIPv6Enabled() bool { return s.SubnetClassSpec.IsIPv6Enabled() }

// IsIPv6Enabled reports whether the subnet has an IPv6 address prefix.
func (s SubnetClassSpec) IsIPv6Enabled() bool {
	for _, cidr := range s.CIDRBlocks {
		if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is6() {
			return true
		}
	}
	return false
}

// clusterName is the name of the Cluster the AzureCluster belongs to, as CAPZ names the API server's DNS label after
// it (ClusterScope.ClusterName): its cluster-name label, which Cluster API's topology controller sets on the
// AzureCluster it makes (and names at random), else the AzureCluster's own name, which CAPZ's templates give the
// Cluster too.
func (c *AzureCluster) clusterName() string {
	if name := c.Labels[ClusterNameLabel]; name != "" {
		return name
	}
	return c.Name
}
