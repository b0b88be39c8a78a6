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

package v1beta1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// completeRule is a security rule as CAPZ's documentation writes one: every address and port set, "*" for any.
func completeRule() map[string]any {
	return map[string]any{
		"name": "allow_https", "description": "Allow HTTPS", "protocol": "Tcp", "direction": "Inbound", "priority": 2300,
		"source": "*", "sourcePorts": "*", "destination": "*", "destinationPorts": "443", "action": "Allow",
	}
}

// withRule returns a merge patch that gives the control-plane subnet of the samples one security rule.
func withRule(g Gomega, rule map[string]any) string {
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"networkSpec": map[string]any{"subnets": []any{
		map[string]any{"name": "control-plane-subnet", "role": "control-plane", "cidrBlocks": []string{"10.0.0.0/16"},
			"securityGroup": map[string]any{"name": "control-plane-nsg", "securityRules": []any{rule}}},
		map[string]any{"name": "node-subnet", "role": "node", "cidrBlocks": []string{"10.1.0.0/16"}},
	}}}})
	g.Expect(err).NotTo(HaveOccurred())
	return string(patch)
}

// TestAdmission_SecurityRulesNeedAddressesAndPorts: Azure refuses a security rule without a priority, a source, a
// destination, source ports or destination ports, and CAPZ sends such a rule as written; the webhook refuses it
// with a message naming the field and what to write, instead of sending "*" in its place. Rules CAPZ's
// documentation writes are admitted.
func TestAdmission_SecurityRulesNeedAddressesAndPorts(t *testing.T) {
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "security-rules")
	const rule = "spec.networkSpec.subnets[0].securityGroup.securityRules[0]"
	tests := []struct {
		name   string
		change func(r map[string]any)
		// want is the error's text; empty means admitted.
		want string
	}{
		{name: "complete", change: func(map[string]any) {}},
		{name: "sources instead of source", change: func(r map[string]any) {
			delete(r, "source")
			r["sources"] = []string{"10.0.0.0/8", "VirtualNetwork"}
		}},
		{name: "a comma list of destination ports", change: func(r map[string]any) { r["destinationPorts"] = "80,443" }},
		{name: "ICMP, every port written as *", change: func(r map[string]any) { r["protocol"], r["destinationPorts"] = "Icmp", "*" }},
		{
			name:   "without source",
			change: func(r map[string]any) { delete(r, "source") },
			want: rule + `.source: Required value: Azure refuses a security rule without a source: set source to a CIDR, ` +
				`an IP address, a service tag such as VirtualNetwork, or "*" for any source (or list several in sources)`,
		},
		{name: "blank source", change: func(r map[string]any) { r["source"] = " " }, want: rule + ".source: Required value"},
		{name: "empty sources", change: func(r map[string]any) { delete(r, "source"); r["sources"] = []string{} }, want: rule + ".source: Required value"},
		{
			name:   "an empty entry in sources",
			change: func(r map[string]any) { delete(r, "source"); r["sources"] = []string{"10.0.0.0/8", ""} },
			want:   rule + ".sources[1]: Required value: Azure refuses an empty source address prefix",
		},
		{
			name:   "without destination",
			change: func(r map[string]any) { delete(r, "destination") },
			want:   rule + ".destination: Required value: Azure refuses a security rule without a destination",
		},
		{
			name:   "without source ports",
			change: func(r map[string]any) { delete(r, "sourcePorts") },
			want:   rule + `.sourcePorts: Required value: Azure refuses a security rule without source ports: set sourcePorts to a port, a range such as 1024-65535, or "*" for any port`,
		},
		{
			name:   "without destination ports",
			change: func(r map[string]any) { delete(r, "destinationPorts") },
			want:   rule + ".destinationPorts: Required value: Azure refuses a security rule without destination ports",
		},
		{name: "only commas as destination ports", change: func(r map[string]any) { r["destinationPorts"] = " , " }, want: rule + ".destinationPorts: Required value"},
		{
			name:   "without priority",
			change: func(r map[string]any) { delete(r, "priority") },
			want:   rule + ".priority: Required value: Azure refuses a security rule without a priority",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			r := completeRule()
			tt.change(r)
			obj := patched(g, samples["AzureCluster"], withRule(g, r))
			obj.SetNamespace(ns.Name)
			obj.SetName(fmt.Sprintf("rule-%d", i))
			err := env.Env.Create(ctx, obj)
			if tt.want == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.want)))
		})
	}

	t.Run("every missing part at once, on the bastion's subnet", func(t *testing.T) {
		g := NewWithT(t)
		obj := patched(g, samples["AzureCluster"], `{"spec":{"bastionSpec":{"azureBastion":{"subnet":{"securityGroup":{"name":"bastion-nsg",
			"securityRules":[{"name":"r","description":"d","protocol":"Tcp","direction":"Inbound"}]}}}}}}`)
		obj.SetNamespace(ns.Name)
		obj.SetName("bastion")
		err := env.Env.Create(ctx, obj)
		g.Expect(err).To(HaveOccurred())
		for _, f := range []string{"priority", "source", "destination", "sourcePorts", "destinationPorts"} {
			g.Expect(err.Error()).To(ContainSubstring("spec.bastionSpec.azureBastion.subnet.securityGroup.securityRules[0]." + f + ": Required value"))
		}
	})

	t.Run("a rule may be completed on update", func(t *testing.T) {
		g := NewWithT(t)
		obj := patched(g, samples["AzureCluster"], withRule(g, completeRule()))
		obj.SetNamespace(ns.Name)
		obj.SetName("update")
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
		r := completeRule()
		delete(r, "destination")
		err := env.Env.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(withRule(g, r))))
		g.Expect(err).To(MatchError(ContainSubstring(rule + ".destination: Required value")))
		r["destination"] = "VirtualNetwork"
		g.Expect(env.Env.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(withRule(g, r))))).To(Succeed())
	})
}

// warningRecorder keeps the warnings the API server returns.
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// TestAdmission_TemplateSecurityRulesMayBeIncomplete: a template may leave a rule's addresses and ports to a
// ClusterClass patch, so an AzureClusterTemplate with an incomplete rule is admitted, with a warning naming what
// is missing; the AzureCluster made from it without the patch is refused.
func TestAdmission_TemplateSecurityRulesMayBeIncomplete(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "template-security-rules")
	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(env.Env.Config)
	cfg.WarningHandlerWithContext = warnings
	c, err := client.New(cfg, client.Options{Scheme: env.Env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())

	template := patched(g, samples["AzureClusterTemplate"], `{"spec":{"template":{"spec":{"networkSpec":{"subnets":[
		{"name":"control-plane-subnet","role":"control-plane","securityGroup":{"securityRules":[
			{"name":"allow_ssh_from","description":"SSH from the cluster's variable","protocol":"Tcp","direction":"Inbound",
			 "priority":2200,"sourcePorts":"*","destination":"*","destinationPorts":"22"}]}},
		{"name":"node-subnet","role":"node"}]}}}}}`)
	template.SetNamespace(ns.Name)
	g.Expect(c.Create(ctx, template)).To(Succeed())
	g.Expect(warnings.warnings).To(ConsistOf(
		"spec.template.spec.networkSpec.subnets[0].securityGroup.securityRules[0].source: Required value: Azure refuses a " +
			`security rule without a source: set source to a CIDR, an IP address, a service tag such as VirtualNetwork, or "*" ` +
			"for any source (or list several in sources); an AzureCluster made from this template is refused unless a " +
			"ClusterClass patch sets it"))

	r := completeRule()
	delete(r, "source")
	cluster := patched(g, samples["AzureCluster"], withRule(g, r))
	cluster.SetNamespace(ns.Name)
	g.Expect(c.Create(ctx, cluster)).To(MatchError(ContainSubstring(
		"spec.networkSpec.subnets[0].securityGroup.securityRules[0].source: Required value")))
}
