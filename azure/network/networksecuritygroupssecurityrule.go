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
	"slices"
	"strconv"
	"strings"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// Default security rules of the control-plane security group, named as in CAPZ.
const (
	// AllowSSHRule lets SSH reach control-plane machines.
	AllowSSHRule = "allow_ssh"
	// AllowAPIServerRule lets clients reach the API server (and the extra API server load balancer ports).
	AllowAPIServerRule = "allow_apiserver"

	allowSSHPriority       = 2200
	allowAPIServerPriority = 2201
	anyAddressOrPort       = "*"
)

// ControlPlaneSecurityRules returns the rules of a control-plane security group: the user's rules followed by
// CAPZ's defaults, allow_ssh (TCP 22, priority 2200) and allow_apiserver (TCP apiServerPort, 6443 when 0, priority
// 2201), inbound from anywhere. As in CAPZ, a default is left out when a user's rule has its destination port; it
// is also left out when the user wrote a rule of the same name, or an inbound rule with the same priority (Azure
// rejects two rules of one name, or with one priority in one direction).
func ControlPlaneSecurityRules(rules infrav1.SecurityRules, apiServerPort int32) infrav1.SecurityRules {
	if apiServerPort == 0 {
		apiServerPort = infrav1.DefaultAPIServerPort
	}
	defaults := infrav1.SecurityRules{
		defaultInboundRule(AllowSSHRule, "Allow SSH", allowSSHPriority, "22"),
		defaultInboundRule(AllowAPIServerRule, "Allow K8s API Server", allowAPIServerPriority, strconv.Itoa(int(apiServerPort))),
	}
	out := slices.Clone(rules)
	for _, d := range defaults {
		taken := slices.ContainsFunc(rules, func(r infrav1.SecurityRule) bool {
			return ptr.Deref(r.DestinationPorts, "") == *d.DestinationPorts || r.Name == d.Name ||
				(r.Direction == d.Direction && r.Priority == d.Priority)
		})
		if !taken {
			out = append(out, d)
		}
	}
	return out
}

func defaultInboundRule(name, description string, priority int32, ports string) infrav1.SecurityRule {
	return infrav1.SecurityRule{
		Name:             name,
		Description:      description,
		Protocol:         infrav1.SecurityGroupProtocolTCP,
		Direction:        infrav1.SecurityRuleDirectionInbound,
		Priority:         priority,
		SourcePorts:      ptr.To(anyAddressOrPort),
		DestinationPorts: ptr.To(ports),
		Source:           ptr.To(anyAddressOrPort),
		Destination:      ptr.To(anyAddressOrPort),
		Action:           infrav1.SecurityRuleActionAllow,
	}
}

// SecurityRule returns a rule of a network security group. A port list ("80,443-445") becomes several ranges, since
// Azure refuses a comma list in one range; several sources become source address prefixes. An address, port range
// or protocol left empty is not sent, as CAPZ sends none, and never becomes "*": Azure refuses such a rule, and the
// AzureCluster webhook refuses it at admission. An empty action allows.
func SecurityRule(securityGroup string, rule infrav1.SecurityRule) *asonetwork.NetworkSecurityGroupsSecurityRule {
	access := asonetwork.SecurityRuleAccess_Allow
	if rule.Action == infrav1.SecurityRuleActionDeny {
		access = asonetwork.SecurityRuleAccess_Deny
	}
	out := &asonetwork.NetworkSecurityGroupsSecurityRule{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(securityGroup, rule.Name)},
		Spec: asonetwork.NetworkSecurityGroupsSecurityRule_Spec{
			AzureName: rule.Name,
			Owner:     objectOwner(securityGroup),
			Access:    ptr.To(access),
			Direction: ptr.To(asonetwork.SecurityRuleDirection(rule.Direction)),
		},
	}
	if rule.Protocol != "" {
		out.Spec.Protocol = ptr.To(asonetwork.SecurityRulePropertiesFormat_Protocol(rule.Protocol))
	}
	if rule.Priority != 0 {
		out.Spec.Priority = ptr.To(int(rule.Priority))
	}
	if rule.Description != "" {
		out.Spec.Description = ptr.To(rule.Description)
	}
	if len(rule.Sources) > 0 {
		for _, s := range rule.Sources {
			if p := address(s); p != nil {
				out.Spec.SourceAddressPrefixes = append(out.Spec.SourceAddressPrefixes, *p)
			}
		}
	} else {
		out.Spec.SourceAddressPrefix = address(rule.Source)
	}
	out.Spec.DestinationAddressPrefix = address(rule.Destination)
	out.Spec.SourcePortRange, out.Spec.SourcePortRanges = portRanges(rule.SourcePorts)
	out.Spec.DestinationPortRange, out.Spec.DestinationPortRanges = portRanges(rule.DestinationPorts)
	return out
}

// portRanges splits "80,443-445" into several ranges; a single range stays one, and none is not sent.
func portRanges(ports *string) (*string, []string) {
	if ports == nil {
		return nil, nil
	}
	var ranges []string
	for _, r := range strings.Split(*ports, ",") {
		if r = strings.TrimSpace(r); r != "" {
			ranges = append(ranges, r)
		}
	}
	switch len(ranges) {
	case 0:
		return nil, nil
	case 1:
		return ptr.To(ranges[0]), nil
	}
	return nil, ranges
}

// address returns an address prefix without surrounding spaces, or nil when there is none.
func address(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	return ptr.To(strings.TrimSpace(*s))
}
