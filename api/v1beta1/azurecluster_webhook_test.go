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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
)

// TestAzureClusterWebhook_SecurityRulesAdmittedBefore: an AzureCluster stored before rules without source,
// destination or ports were refused (the API server cannot hold one now, so the webhook is called directly) can
// still be updated while that rule stays as it is, so that its controller and the user can write it; a new or
// changed incomplete rule is refused.
func TestAzureClusterWebhook_SecurityRulesAdmittedBefore(t *testing.T) {
	incomplete := SecurityRule{
		Name: "allow_dns", Description: "DNS", Protocol: SecurityGroupProtocolUDP, Direction: SecurityRuleDirectionInbound,
		Priority: 300, DestinationPorts: ptr.To("53"), Action: SecurityRuleActionAllow,
	}
	withRules := func(rules ...SecurityRule) *AzureCluster {
		c := newAzureCluster(true, nil)
		for i := range c.Spec.NetworkSpec.Subnets {
			if c.Spec.NetworkSpec.Subnets[i].Role == SubnetControlPlane {
				c.Spec.NetworkSpec.Subnets[i].SecurityGroup.SecurityRules = rules
			}
		}
		return c
	}
	changed := incomplete
	changed.DestinationPorts = ptr.To("5353")
	other := incomplete
	other.Name, other.Priority = "allow_ntp", 301

	tests := []struct {
		name    string
		old, c  *AzureCluster
		refused []string
		passes  string
	}{
		{name: "kept as it was, with a new annotation", old: withRules(incomplete), c: func() *AzureCluster {
			c := withRules(incomplete)
			c.Annotations = map[string]string{"team": "network"}
			return c
		}()},
		{name: "changed", old: withRules(incomplete), c: withRules(changed),
			refused: []string{"securityRules[0].source", "securityRules[0].destination", "securityRules[0].sourcePorts"}},
		{name: "a new one beside it", old: withRules(incomplete), c: withRules(incomplete, other),
			refused: []string{"securityRules[1].source", "securityRules[1].destination", "securityRules[1].sourcePorts"},
			passes:  "securityRules[0]"},
	}
	w := azureClusterWebhook{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := w.ValidateUpdate(context.Background(), tt.old, tt.c)
			if len(tt.refused) == 0 {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(HaveOccurred())
			for _, f := range tt.refused {
				g.Expect(err.Error()).To(ContainSubstring(f + ": Required value"))
			}
			if tt.passes != "" {
				g.Expect(err.Error()).NotTo(ContainSubstring(tt.passes), "the rule kept as it was passes")
			}
		})
	}

	g := NewWithT(t)
	_, err := w.ValidateCreate(context.Background(), withRules(incomplete))
	g.Expect(err).To(MatchError(ContainSubstring("securityRules[0].source: Required value")), "a new AzureCluster gets no such pass")
}
