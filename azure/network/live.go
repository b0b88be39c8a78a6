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
	"fmt"
	"strings"

	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// ClusterKinds are the ASO kinds an AzureCluster may own, at the versions ClusterResources (and the availability
// sets of compute) produce.
func ClusterKinds() []azure.Object {
	return []azure.Object{
		&asoresources.ResourceGroup{},
		&asonetwork.VirtualNetwork{}, &asonetwork.VirtualNetworksSubnet{}, &asonetwork.VirtualNetworksVirtualNetworkPeering{},
		&asonetwork.NetworkSecurityGroup{}, &asonetwork.NetworkSecurityGroupsSecurityRule{},
		&asonetwork.RouteTable{}, &asonetwork.NatGateway{}, &asonetwork.PublicIPAddress{}, &asonetwork.LoadBalancer{},
		&asonetwork.BastionHost{}, &asonetwork.PrivateEndpoint{},
		&asonetworkdns.PrivateDnsZone{}, &asonetworkdns.PrivateDnsZonesVirtualNetworkLink{}, &asonetworkdns.PrivateDnsZonesARecord{},
		&asocomputeavset.AvailabilitySet{},
	}
}

// ClusterDeleteOrder orders the deletion of a cluster's resources. A resource group the cluster owns goes first,
// as a whole: Azure deletes everything in it (peerings live in the remote network too, so they go before it).
// Otherwise the resources go deepest first, where ASO cannot order them itself (a subnet with a load balancer
// frontend in it cannot be deleted, for instance).
func ClusterDeleteOrder(ownedGroup bool) [][]schema.GroupKind {
	rg := gk(asoresources.GroupVersion, "ResourceGroup")
	if ownedGroup {
		return [][]schema.GroupKind{{gk(asonetwork.GroupVersion, "VirtualNetworksVirtualNetworkPeering")}, {rg}}
	}
	return [][]schema.GroupKind{
		{gk(asonetworkdns.GroupVersion, "PrivateDnsZonesARecord"), gk(asonetworkdns.GroupVersion, "PrivateDnsZonesVirtualNetworkLink"),
			gk(asonetwork.GroupVersion, "VirtualNetworksVirtualNetworkPeering"), gk(asonetwork.GroupVersion, "PrivateEndpoint"),
			gk(asonetwork.GroupVersion, "BastionHost"), gk(asonetwork.GroupVersion, "LoadBalancer"),
			gk(asocomputeavset.GroupVersion, "AvailabilitySet")},
		{gk(asonetworkdns.GroupVersion, "PrivateDnsZone"), gk(asonetwork.GroupVersion, "VirtualNetworksSubnet"),
			gk(asonetwork.GroupVersion, "NetworkSecurityGroupsSecurityRule")},
		{gk(asonetwork.GroupVersion, "NatGateway"), gk(asonetwork.GroupVersion, "PublicIPAddress"),
			gk(asonetwork.GroupVersion, "RouteTable"), gk(asonetwork.GroupVersion, "NetworkSecurityGroup")},
		{gk(asonetwork.GroupVersion, "VirtualNetwork")},
		{rg},
	}
}

func gk(gv schema.GroupVersion, kind string) schema.GroupKind { return gv.WithKind(kind).GroupKind() }

// InboundNATRules is an object of the kind of SSH rules, to list them (aso.Engine.List).
func InboundNATRules() azure.Object { return &asonetwork.LoadBalancersInboundNatRule{} }

// SSHRuleFor completes the SSH rule of a control-plane machine (its load balancer, frontend and whether it is
// attached) with its frontend port, as CAPZ makes one for each, given the load balancer's ARM ID and the inbound
// NAT rules of the namespace. A rule keeps the frontend port it has, unless an older rule of the same load balancer
// has it too (two machines created at once); a new rule takes the first free port (SSHFrontendPort) among the
// rules of the load balancer.
func SSHRuleFor(rule SSHRule, lbID, machine string, rules []azure.Object) (*SSHRule, error) {
	name := SSHRuleObjectName(rule.LoadBalancer, machine)
	var mine *asonetwork.LoadBalancersInboundNatRule
	all := make([]*asonetwork.LoadBalancersInboundNatRule, 0, len(rules))
	for _, obj := range rules {
		if r, ok := obj.(*asonetwork.LoadBalancersInboundNatRule); ok {
			all = append(all, r)
			if r.Name == name {
				mine = r
			}
		}
	}
	inUse, takenByOlder := sets.New[int](), sets.New[int]()
	for _, other := range all {
		if other == mine || other.Spec.Owner == nil || !strings.EqualFold(other.Spec.Owner.ARMID, lbID) || other.Spec.FrontendPort == nil {
			continue
		}
		inUse.Insert(*other.Spec.FrontendPort)
		if mine != nil && olderThan(other, mine) {
			takenByOlder.Insert(*other.Spec.FrontendPort)
		}
	}
	if mine != nil && mine.Spec.FrontendPort != nil && !takenByOlder.Has(*mine.Spec.FrontendPort) {
		rule.FrontendPort = *mine.Spec.FrontendPort
		return &rule, nil
	}
	port, err := SSHFrontendPort(inUse)
	if err != nil {
		return nil, fmt.Errorf("failed to choose the SSH port of %s on load balancer %s: %w", machine, rule.LoadBalancer, err)
	}
	rule.FrontendPort = port
	return &rule, nil
}

// olderThan orders objects by creation, then by name.
func olderThan(a, b azure.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}
