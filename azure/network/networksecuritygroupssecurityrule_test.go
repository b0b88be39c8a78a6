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
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestSecurityRule(t *testing.T) {
	tests := []struct {
		name string
		rule infrav1.SecurityRule
	}{
		{name: "allow-ssh", rule: ControlPlaneSecurityRules(nil, 0)[0]},
		{name: "allow-apiserver", rule: ControlPlaneSecurityRules(nil, 0)[1]},
		{name: "allow-apiserver-port-443", rule: ControlPlaneSecurityRules(nil, 443)[1]},
		{name: "deny-outbound-sources-port-list", rule: infrav1.SecurityRule{
			Name: "deny_internet", Description: "Deny some outbound traffic", Protocol: infrav1.SecurityGroupProtocolAll,
			Direction: infrav1.SecurityRuleDirectionOutbound, Priority: 4000, Action: infrav1.SecurityRuleActionDeny,
			Sources:          []*string{ptr.To("10.0.0.0/16"), ptr.To("10.1.0.0/16")},
			SourcePorts:      ptr.To("1024-65535"),
			Destination:      ptr.To("Internet"),
			DestinationPorts: ptr.To("80, 443,8000-8080"),
		}},
		{name: "udp-unset-not-sent", rule: infrav1.SecurityRule{
			Name: "Allow_DNS", Protocol: infrav1.SecurityGroupProtocolUDP, Direction: infrav1.SecurityRuleDirectionInbound,
			Priority: 300, DestinationPorts: ptr.To("53"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "networksecuritygroupssecurityrule-"+tt.name, SecurityRule("my-cluster-controlplane-nsg", tt.rule))
		})
	}
}

// TestSecurityRule_AddressesAndPorts: addresses and ports go to Azure as written (trimmed, a port list split); an
// unset or blank one is not sent, never "*" (the webhook refuses such a rule, as Azure would).
func TestSecurityRule_AddressesAndPorts(t *testing.T) {
	type sent struct {
		source, destination, sourcePorts, destinationPorts *string
		sources, sourcePortRanges, destinationPortRanges   []string
	}
	tests := []struct {
		name string
		rule infrav1.SecurityRule
		want sent
	}{
		{name: "unset", want: sent{}},
		{name: "blank", rule: infrav1.SecurityRule{
			Source: ptr.To(" "), Destination: ptr.To(""), SourcePorts: ptr.To(""), DestinationPorts: ptr.To(" , "),
		}, want: sent{}},
		{name: "any, written", rule: infrav1.SecurityRule{
			Source: ptr.To("*"), Destination: ptr.To("*"), SourcePorts: ptr.To("*"), DestinationPorts: ptr.To("*"),
		}, want: sent{source: ptr.To("*"), destination: ptr.To("*"), sourcePorts: ptr.To("*"), destinationPorts: ptr.To("*")}},
		{name: "trimmed", rule: infrav1.SecurityRule{
			Source: ptr.To(" 10.0.0.0/8 "), Destination: ptr.To("VirtualNetwork "), SourcePorts: ptr.To(" *"), DestinationPorts: ptr.To("443 "),
		}, want: sent{source: ptr.To("10.0.0.0/8"), destination: ptr.To("VirtualNetwork"), sourcePorts: ptr.To("*"), destinationPorts: ptr.To("443")}},
		{name: "sources, without the empty ones", rule: infrav1.SecurityRule{
			Sources: []*string{ptr.To("10.0.0.0/16"), nil, ptr.To(" "), ptr.To("AzureLoadBalancer")}, Destination: ptr.To("*"),
			SourcePorts: ptr.To("*"), DestinationPorts: ptr.To("80"),
		}, want: sent{sources: []string{"10.0.0.0/16", "AzureLoadBalancer"}, destination: ptr.To("*"), sourcePorts: ptr.To("*"), destinationPorts: ptr.To("80")}},
		{name: "port lists split", rule: infrav1.SecurityRule{
			Source: ptr.To("*"), Destination: ptr.To("*"), SourcePorts: ptr.To("1000-2000,3000"), DestinationPorts: ptr.To("80, 443,"),
		}, want: sent{source: ptr.To("*"), destination: ptr.To("*"), sourcePortRanges: []string{"1000-2000", "3000"}, destinationPortRanges: []string{"80", "443"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			tt.rule.Name, tt.rule.Protocol, tt.rule.Direction, tt.rule.Priority = "r", infrav1.SecurityGroupProtocolTCP, infrav1.SecurityRuleDirectionInbound, 100
			s := SecurityRule("nsg", tt.rule).Spec
			g.Expect(sent{
				source: s.SourceAddressPrefix, destination: s.DestinationAddressPrefix,
				sourcePorts: s.SourcePortRange, destinationPorts: s.DestinationPortRange,
				sources: s.SourceAddressPrefixes, sourcePortRanges: s.SourcePortRanges, destinationPortRanges: s.DestinationPortRanges,
			}).To(Equal(tt.want))
		})
	}
}

func TestControlPlaneSecurityRules(t *testing.T) {
	ssh := infrav1.SecurityRule{Name: AllowSSHRule, Direction: infrav1.SecurityRuleDirectionInbound, Priority: 100, DestinationPorts: ptr.To("2222")}
	samePriority := infrav1.SecurityRule{Name: "custom", Direction: infrav1.SecurityRuleDirectionInbound, Priority: 2201}
	outbound := infrav1.SecurityRule{Name: "egress", Direction: infrav1.SecurityRuleDirectionOutbound, Priority: 2200}
	sshPort := infrav1.SecurityRule{Name: "my-ssh", Direction: infrav1.SecurityRuleDirectionInbound, Priority: 150, DestinationPorts: ptr.To("22")}
	apiPort := infrav1.SecurityRule{Name: "my-api", Direction: infrav1.SecurityRuleDirectionInbound, Priority: 160, DestinationPorts: ptr.To("6443")}
	names := func(rules infrav1.SecurityRules) []string {
		var out []string
		for _, r := range rules {
			out = append(out, r.Name)
		}
		return out
	}
	tests := []struct {
		name  string
		rules infrav1.SecurityRules
		want  []string
	}{
		{name: "no user rules", want: []string{AllowSSHRule, AllowAPIServerRule}},
		{name: "user rule of the same name wins", rules: infrav1.SecurityRules{ssh}, want: []string{AllowSSHRule, AllowAPIServerRule}},
		{name: "user rule with the same inbound priority wins", rules: infrav1.SecurityRules{samePriority}, want: []string{"custom", AllowSSHRule}},
		{name: "outbound priorities do not clash", rules: infrav1.SecurityRules{outbound}, want: []string{"egress", AllowSSHRule, AllowAPIServerRule}},
		{name: "user rule for port 22 replaces allow_ssh, as in CAPZ", rules: infrav1.SecurityRules{sshPort}, want: []string{"my-ssh", AllowAPIServerRule}},
		{name: "user rule for the API server port replaces allow_apiserver, as in CAPZ", rules: infrav1.SecurityRules{apiPort}, want: []string{"my-api", AllowSSHRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := ControlPlaneSecurityRules(tt.rules, 0)
			g.Expect(names(got)).To(Equal(tt.want))
			if len(tt.rules) > 0 {
				g.Expect(got[0]).To(Equal(tt.rules[0]), "the user's rule is kept as it is")
			}
		})
	}
}
