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
	"slices"
	"strings"

	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
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

// ClusterDeleteOrder orders the deletion of a cluster's resources: deepest first, where ASO cannot order them
// itself (a subnet with a load balancer frontend in it cannot be deleted, for instance), the resource group last.
// While the whole Cluster is deleted, what is in a group the cluster owns goes with the group instead
// (ClusterGoesWithGroup).
var ClusterDeleteOrder = [][]schema.GroupKind{
	{gk(asonetworkdns.GroupVersion, "PrivateDnsZonesARecord"), gk(asonetworkdns.GroupVersion, "PrivateDnsZonesVirtualNetworkLink"),
		peering, gk(asonetwork.GroupVersion, "PrivateEndpoint"),
		gk(asonetwork.GroupVersion, "BastionHost"), gk(asonetwork.GroupVersion, "LoadBalancer"),
		gk(asocomputeavset.GroupVersion, "AvailabilitySet")},
	{gk(asonetworkdns.GroupVersion, "PrivateDnsZone"), gk(asonetwork.GroupVersion, "VirtualNetworksSubnet"),
		gk(asonetwork.GroupVersion, "NetworkSecurityGroupsSecurityRule")},
	{gk(asonetwork.GroupVersion, "NatGateway"), gk(asonetwork.GroupVersion, "PublicIPAddress"),
		gk(asonetwork.GroupVersion, "RouteTable"), gk(asonetwork.GroupVersion, "NetworkSecurityGroup")},
	{gk(asonetwork.GroupVersion, "VirtualNetwork")},
	{gk(asoresources.GroupVersion, "ResourceGroup")},
}

// ClusterGoesWithGroup says which of a cluster's resources go with its resource group while the whole Cluster is
// deleted: all but the peerings, which live in the remote network too (CAPZ deletes them, then the group).
var ClusterGoesWithGroup = resources.GoWithGroup(peering)

var peering = gk(asonetwork.GroupVersion, "VirtualNetworksVirtualNetworkPeering")

func gk(gv schema.GroupVersion, kind string) schema.GroupKind { return gv.WithKind(kind).GroupKind() }

// InboundNATRules is an object of the kind of SSH rules, to list them (aso.Engine.List).
func InboundNATRules() azure.Object { return &asonetwork.LoadBalancersInboundNatRule{} }

// LoadBalancerRef names the ASO object of a load balancer, to read it (aso.Engine.Read).
func LoadBalancerRef(name string) azure.Object {
	return &asonetwork.LoadBalancer{ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(name)}}
}

// ReadFromAzure reports whether ASO has read a load balancer's object from Azure: only then does its status list
// the inbound NAT rules Azure holds (SSHRuleFor).
func ReadFromAzure(lb azure.Object) bool {
	l, ok := lb.(*asonetwork.LoadBalancer)
	return ok && l != nil && ptr.Deref(l.Status.Id, "") != ""
}

// SSHPortKnown reports whether the frontend port of a machine's SSH rule can be decided: ASO has read the load
// balancer from Azure (its status lists the rules Azure holds), the machine's rule has an object already (which keeps
// its port), or the load balancer has no ASO object and none is to come (lbObjectExpected false: the provider does
// not make the cluster's load balancers, so nothing Azure holds can be known). Otherwise (a cluster just switched
// from CAPZ, whose load balancer's object is not made or not read yet) Azure may hold a rule of the machine's name on
// another port than SSHRuleFor would pick, and a PUT of the rule would move it.
func SSHPortKnown(rule SSHRule, machine string, rules []azure.Object, lb azure.Object, lbObjectExpected bool) bool {
	if ReadFromAzure(lb) || (lb == nil && !lbObjectExpected) {
		return true
	}
	name := SSHRuleObjectName(rule.LoadBalancer, machine)
	return slices.ContainsFunc(rules, func(o azure.Object) bool { return o.GetName() == name })
}

// SSHRuleFor completes the SSH rule of a control-plane machine (its load balancer, frontend and whether it is
// attached) with its frontend port, as CAPZ makes one for each, given the load balancer's ARM ID, the inbound NAT
// rules of the namespace and the load balancer's ASO object (nil when it has none).
//
// Azure is the authority: a rule of the machine's name that Azure holds on the load balancer (as ASO last read it
// into the load balancer's status, CAPZ's rules included) keeps Azure's port, whatever order the machines are
// reconciled in. Otherwise the machine's rule object keeps the frontend port it has, unless Azure holds that port
// for another rule or an older rule object of the load balancer has it too (two machines created at once); a new
// rule takes the first free port (SSHFrontendPort), skipping the ports of Azure's rules and of the rule objects.
func SSHRuleFor(rule SSHRule, lbID, machine string, rules []azure.Object, lb azure.Object) (*SSHRule, error) {
	held, inAzure := azureSSHPorts(lb, lbID, machine)
	if port, ok := inAzure[strings.ToLower(machine)]; ok {
		rule.FrontendPort = port
		return &rule, nil
	}
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
	// Azure refuses a second rule on a port it holds, so its ports are taken for every rule object.
	inUse, takenByOlder := held.Clone(), held.Clone()
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

// azureSSHPorts reads the inbound NAT rules Azure holds on the load balancer lbID from its ASO object's status:
// held are the SSH ports (SSHFrontendPort's candidates) they take, the machine's own rule excepted, and inAzure the
// frontend port of each single-port rule by lower-case name. Both are empty when lb is not that load balancer's
// object, or ASO has not read it from Azure yet.
func azureSSHPorts(lb azure.Object, lbID, machine string) (held sets.Set[int], inAzure map[string]int) {
	held, inAzure = sets.New[int](), map[string]int{}
	l, ok := lb.(*asonetwork.LoadBalancer)
	if !ok || l == nil || !strings.EqualFold(ptr.Deref(l.Status.Id, ""), lbID) {
		return held, inAzure
	}
	for _, r := range l.Status.InboundNatRules {
		name := ptr.Deref(r.Name, "")
		if name == "" {
			// The ID ends with the name, should Azure leave the name out.
			id := ptr.Deref(r.Id, "")
			name = id[strings.LastIndex(id, "/")+1:]
		}
		if r.FrontendPort != nil && *r.FrontendPort > 0 {
			inAzure[strings.ToLower(name)] = *r.FrontendPort
			if !strings.EqualFold(name, machine) {
				held.Insert(*r.FrontendPort)
			}
			continue
		}
		// A rule of a backend pool takes a range of ports (no single one).
		start, end := ptr.Deref(r.FrontendPortRangeStart, 0), ptr.Deref(r.FrontendPortRangeEnd, 0)
		for _, port := range sshPortCandidates() {
			if start > 0 && start <= port && port <= end {
				held.Insert(port)
			}
		}
	}
	return held, inAzure
}

// olderThan orders objects by creation, then by name.
func olderThan(a, b azure.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}
