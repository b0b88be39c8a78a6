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

package parity

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// switchedCluster is what CAPZ v1.26.0 leaves in Azure for a default flavor's cluster (pdef), as far as the
// negative tests need: a control-plane VM in zone 1 with CAPZ's OS disk (no deleteOption), its interface with
// accelerated networking, the API server load balancer on 6443, the control plane's security group.
var switchedCluster = []struct{ id, body string }{
	{rgPath, `{"location":"eastus","tags":{"sigs.k8s.io_cluster-api-provider-azure_cluster_pdef":"owned"}}`},
	{rgPath + "/providers/Microsoft.Network/networkInterfaces/pdef-control-plane-abcde-nic",
		`{"location":"eastus","properties":{"enableAcceleratedNetworking":true,"ipConfigurations":[{"name":"pipConfig","properties":{"primary":true}}]}}`},
	{rgPath + "/providers/Microsoft.Compute/virtualMachines/pdef-control-plane-abcde",
		`{"location":"eastus","zones":["1"],"properties":{"hardwareProfile":{"vmSize":"Standard_D2s_v3"},"storageProfile":{"osDisk":{"name":"pdef-control-plane-abcde_OSDisk","createOption":"FromImage","diskSizeGB":128}}}}`},
	{rgPath + "/providers/Microsoft.Network/loadBalancers/pdef-public-lb",
		`{"location":"eastus","properties":{"loadBalancingRules":[{"name":"LBRuleHTTPS","properties":{"frontendPort":6443,"backendPort":6443,"protocol":"Tcp"}}]}}`},
	{rgPath + "/providers/Microsoft.Network/networkSecurityGroups/pdef-controlplane-nsg",
		`{"location":"eastus","properties":{"securityRules":[{"name":"allow_apiserver","properties":{"priority":2201,"access":"Allow","direction":"Inbound","protocol":"Tcp","sourceAddressPrefix":"*","destinationPortRange":"6443"}}]}}`},
}

// startSwitchedCluster starts a fake ARM holding switchedCluster.
func startSwitchedCluster(t *testing.T) *fakearm.Server {
	t.Helper()
	arm, err := fakearm.Start(fakearm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = arm.Close() })
	for _, r := range switchedCluster {
		var body map[string]any
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatal(err)
		}
		if err := arm.Seed(r.id, body); err != nil {
			t.Fatal(err)
		}
	}
	return arm
}

// verdictAfter is the verdict of a run in which a switch (phase) of the flavor did what the injections do, in the
// fake ARM, as RunSwitch's comparePhase compares it; the other two switches changed nothing.
func verdictAfter(t *testing.T, f Flavor, rows SwitchRows, phase string, injections ...string) (SwitchFlavor, string) {
	t.Helper()
	arm := startSwitchedCluster(t)
	m := NewSwitchMatcher(rows)
	sf := SwitchFlavor{Flavor: f.Name}
	for _, p := range switchPhases {
		before := snapshot(arm)
		if p == phase {
			for _, s := range injections {
				in, err := ParseInjection(s)
				if err != nil {
					t.Fatal(err)
				}
				done, err := in.Apply(arm, f)
				if err != nil || len(done) == 0 {
					t.Fatalf("injection %s: %v (did %v)", s, err, done)
				}
			}
		}
		sf.Phases = append(sf.Phases, phaseVerdict(p, before, snapshot(arm), nil, f, m))
	}
	sf.Problems = m.Stale(f.Name)
	var out bytes.Buffer
	ReportSwitch(&out, SwitchResult{Flavors: []SwitchFlavor{sf}})
	return sf, out.String()
}

var defaultFlavor = Flavor{Name: "default", Cluster: "pdef", Subscription: sub}

// TestInjection_VerdictFails: each change a switch must never make, injected into the fake ARM after a switch as
// make parity-switch --inject does, fails the flavor, and the report shows it under that switch: a VM moving zone,
// an OS disk's deleteOption Delete without the opt-in, accelerated networking switched off, the API server's port
// 6443 → 443, a new VM, a new allow-all security rule, a deleted interface; on the way back and in the second switch
// as in the first.
func TestInjection_VerdictFails(t *testing.T) {
	const (
		vm      = "Microsoft.Compute/virtualMachines:${CLUSTER_NAME}-control-plane-*"
		nic     = "Microsoft.Network/networkInterfaces:${CLUSTER_NAME}-control-plane-*-nic"
		lbRule  = "Microsoft.Network/loadBalancers:${CLUSTER_NAME}-public-lb"
		nsgRule = "Microsoft.Network/networkSecurityGroups:${CLUSTER_NAME}-controlplane-nsg"
		vmID    = "/subscriptions/" + sub + "/resourcegroups/pdef/providers/microsoft.compute/virtualmachines/pdef-control-plane-abcde"
	)
	tests := []struct {
		name, phase, injection string
		// want are what the report shows.
		want []string
	}{
		{"a VM moving zone", SwitchFirst, "switch:set:" + vm + `:zones=["2"]`,
			[]string{"0 ARM writes after the switch: FAILED", "zones: [\"1\"] -> [\"2\"]  [NOT IN THE TABLE]"}},
		{"deleteOption Delete without the opt-in", SwitchFirst, "switch:set:" + vm + `:properties.storageProfile.osDisk.deleteOption="Delete"`,
			[]string{`properties.storageProfile.osDisk.deleteOption: (absent) -> "Delete"  [NOT IN THE TABLE]`}},
		{"accelerated networking switched off", SwitchFirst, "switch:set:" + nic + ":properties.enableAcceleratedNetworking=false",
			[]string{"properties.enableAcceleratedNetworking: true -> false  [NOT IN THE TABLE]"}},
		{"the API server's port 6443 to 443", SwitchFirst, "switch:set:" + lbRule + ":properties.loadBalancingRules[LBRuleHTTPS].properties.frontendPort=443",
			[]string{"properties.loadBalancingRules[LBRuleHTTPS].properties.frontendPort: 6443 -> 443  [NOT IN THE TABLE]"}},
		{"a new VM", SwitchFirst, "switch:copy:" + vm + ":${CLUSTER_NAME}-md-0-extra",
			[]string{"CREATED after the switch /subscriptions/" + sub + "/resourcegroups/pdef/providers/microsoft.compute/virtualmachines/pdef-md-0-extra"}},
		{"a new allow-all security rule", SwitchFirst, "switch:set:" + nsgRule +
			`:properties.securityRules[allow-all]={"name":"allow-all","properties":{"priority":100,"access":"Allow","direction":"Inbound","protocol":"*","sourceAddressPrefix":"*","destinationPortRange":"*"}}`,
			[]string{"CREATED after the switch /subscriptions/" + sub + "/resourcegroups/pdef/providers/microsoft.network/networksecuritygroups/pdef-controlplane-nsg/securityrules/allow-all",
				`properties.securityRules[allow-all].properties.access: (absent) -> "Allow"  [NOT IN THE TABLE]`}},
		{"a deleted interface", SwitchFirst, "switch:delete:" + nic,
			[]string{"DELETED after the switch /subscriptions/" + sub + "/resourcegroups/pdef/providers/microsoft.network/networkinterfaces/pdef-control-plane-abcde-nic"}},
		{"a change on the way back", SwitchBack, "back:set:" + vm + `:properties.storageProfile.osDisk.deleteOption="Delete"`,
			[]string{"0 ARM writes on the way back to CAPZ: FAILED", `deleteOption: (absent) -> "Delete"  [NOT IN THE TABLE]`}},
		{"a change in the second switch", SwitchAgain, "again:set:" + vm + `:zones=["3"]`,
			[]string{"0 ARM writes after the switch again: FAILED", vmID, `zones: ["1"] -> ["3"]  [NOT IN THE TABLE]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			sf, report := verdictAfter(t, defaultFlavor, nil, tt.phase, tt.injection)
			g.Expect(sf.Failed()).To(BeTrue(), report)
			g.Expect(report).To(ContainSubstring("== default: the switch from CAPZ "+CAPZVersion+" FAILED"), report)
			for _, w := range tt.want {
				g.Expect(report).To(ContainSubstring(w), report)
			}
			for _, p := range sf.Phases {
				g.Expect(p.Failed()).To(Equal(p.Name == tt.phase), "only the switch the change was injected into fails: %s", report)
			}
		})
	}
}

// TestInjection_NothingChanged: a fake ARM nobody touched, and an injection that sets a field to the value it has,
// change nothing: the injection's rewrite of a resource (children included) is not itself a change.
func TestInjection_NothingChanged(t *testing.T) {
	g := NewWithT(t)
	sf, report := verdictAfter(t, defaultFlavor, nil, SwitchFirst)
	g.Expect(sf.Failed()).To(BeFalse(), report)
	sf, report = verdictAfter(t, defaultFlavor, nil, SwitchFirst,
		"switch:set:Microsoft.Compute/virtualMachines:*:zones=[\"1\"]",
		"switch:set:Microsoft.Network/networkSecurityGroups:*:properties.securityRules[allow_apiserver].properties.priority=2201",
		"switch:set:Microsoft.Network/loadBalancers:*:location=\"eastus\"")
	g.Expect(sf.Failed()).To(BeFalse(), report)
	g.Expect(sf.Phases[0].Changes).To(BeEmpty(), report)
	g.Expect(report).To(ContainSubstring("changed nothing the table of"))
}

// TestInjection_ExcusedOnlyExactly: a row excuses a change only with its exact values, in its flavor and direction;
// any other value, flavor or direction fails, and so does the row, stale, when its change does not happen.
func TestInjection_ExcusedOnlyExactly(t *testing.T) {
	rows := SwitchRows{{Direction: DirectionToOurs, Resource: "Microsoft.Compute/virtualMachines", Name: "${CLUSTER_NAME}-control-plane-*",
		Field: "properties.storageProfile.osDisk.deleteOption", Before: []string{Absent}, After: []string{`"Delete"`},
		Flavors: []string{"default"}, Why: "the user opted in", Line: 42}}
	deleteOption := func(phase, value string) string {
		return phase + ":set:Microsoft.Compute/virtualMachines:${CLUSTER_NAME}-control-plane-*:properties.storageProfile.osDisk.deleteOption=" + value
	}
	t.Run("the row's change", func(t *testing.T) {
		g := NewWithT(t)
		sf, report := verdictAfter(t, defaultFlavor, rows, SwitchFirst, deleteOption(SwitchFirst, `"Delete"`))
		g.Expect(sf.Failed()).To(BeFalse(), report)
		g.Expect(report).To(ContainSubstring(`properties.storageProfile.osDisk.deleteOption: (absent) -> "Delete"  [listed (docs/migrating-from-capz.md line 42)]`))
	})
	t.Run("in the second switch too", func(t *testing.T) {
		g := NewWithT(t)
		sf, report := verdictAfter(t, defaultFlavor, rows, SwitchAgain, deleteOption(SwitchAgain, `"Delete"`))
		g.Expect(sf.Failed()).To(BeFalse(), report)
	})
	for name, tt := range map[string]struct {
		flavor     Flavor
		phase, set string
	}{
		"another value":          {defaultFlavor, SwitchFirst, deleteOption(SwitchFirst, `"Detach"`)},
		"another flavor":         {Flavor{Name: "private", Cluster: "pdef", Subscription: sub}, SwitchFirst, deleteOption(SwitchFirst, `"Delete"`)},
		"the way back":           {defaultFlavor, SwitchBack, deleteOption(SwitchBack, `"Delete"`)},
		"another field":          {defaultFlavor, SwitchFirst, "switch:set:Microsoft.Compute/virtualMachines:*:properties.storageProfile.osDisk.caching=\"None\""},
		"another resource named": {defaultFlavor, SwitchFirst, "switch:set:Microsoft.Network/networkInterfaces:*:properties.storageProfile.osDisk.deleteOption=\"Delete\""},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			sf, report := verdictAfter(t, tt.flavor, rows, tt.phase, tt.set)
			g.Expect(sf.Failed()).To(BeTrue(), report)
			g.Expect(report).To(ContainSubstring("[NOT IN THE TABLE]"))
			if tt.flavor.Name == "default" {
				g.Expect(sf.Problems).To(ConsistOf(ContainSubstring("stale row: the row of line 42")), "the row excused nothing")
			}
		})
	}
}

// TestParseInjection: the forms --inject takes, and what it refuses.
func TestParseInjection(t *testing.T) {
	g := NewWithT(t)
	for _, s := range []string{
		`switch:set:Microsoft.Compute/virtualMachines:${CLUSTER_NAME}-control-plane-*:zones=["2"]`,
		`back:set:Microsoft.Network/loadBalancers:*:properties.loadBalancingRules[LBRuleHTTPS].properties.frontendPort=443`,
		`again:set:Microsoft.Network/networkInterfaces:*:properties.enableAcceleratedNetworking=(absent)`,
		`switch:set:Microsoft.Network/networkSecurityGroups:*:tags.a="b:c=d"`,
		`switch:copy:Microsoft.Compute/virtualMachines:*-md-0-*:${CLUSTER_NAME}-extra`,
		`again:delete:Microsoft.Network/networkInterfaces:*`,
	} {
		in, err := ParseInjection(s)
		g.Expect(err).NotTo(HaveOccurred(), s)
		g.Expect(in.String()).To(Equal(s))
	}
	in, _ := ParseInjection(`switch:set:Microsoft.Network/networkSecurityGroups:*:tags.a="b:c=d"`)
	g.Expect(in).To(Equal(Injection{Phase: SwitchFirst, Action: InjectSet, Type: "Microsoft.Network/networkSecurityGroups", Name: "*", Field: "tags.a", Value: `"b:c=d"`}))
	for s, wantErr := range map[string]string{
		"switch:set:Microsoft.A/b":                 "want <phase>",
		"later:set:Microsoft.A/b:n:f=1":            `phase "later"`,
		"switch:set:A/b:n:f=1":                     "not an ARM resource type",
		"switch:set:Microsoft.A/b:n:f":             "<field>=<value>",
		"switch:set:Microsoft.A/b:n:f=not json":    "neither JSON",
		"switch:set:Microsoft.A/b:n:[0]=1":         "follows a key",
		"switch:copy:Microsoft.A/b:n":              "new resource's name",
		"switch:delete:Microsoft.A/b:n:f=1":        "takes nothing",
		"switch:patch:Microsoft.A/b:n:f=1":         `action "patch"`,
		"switch:copy:Microsoft.A/b:n:parent/child": "new resource's name",
	} {
		_, err := ParseInjection(s)
		g.Expect(err).To(MatchError(ContainSubstring(wantErr)), s)
	}
}

// TestSetField: a flattened path as the report writes it is set in a body: objects and list items (by name, appended
// when missing, or by index) made on the way; (absent) removes it.
func TestSetField(t *testing.T) {
	tests := []struct {
		name, body, field, value, want string
	}{
		{"a new key", `{}`, "properties.a.b", `1`, `{"properties":{"a":{"b":1}}}`},
		{"a key replaced", `{"zones":["1"]}`, "zones", `["2"]`, `{"zones":["2"]}`},
		{"an item by name", `{"p":{"r":[{"name":"x","v":1},{"name":"y","v":1}]}}`, "p.r[y].v", `2`, `{"p":{"r":[{"name":"x","v":1},{"name":"y","v":2}]}}`},
		{"an item appended", `{"p":{"r":[{"name":"x"}]}}`, "p.r[z]", `{"name":"z","v":3}`, `{"p":{"r":[{"name":"x"},{"name":"z","v":3}]}}`},
		{"an item made on the way", `{}`, "p.r[z].v", `3`, `{"p":{"r":[{"name":"z","v":3}]}}`},
		{"an item by index", `{"d":[{"a":1},{"a":2}]}`, "d[1].a", `5`, `{"d":[{"a":1},{"a":5}]}`},
		{"a key removed", `{"p":{"a":1,"b":2}}`, "p.a", Absent, `{"p":{"b":2}}`},
		{"an item removed", `{"r":[{"name":"x"},{"name":"y"}]}`, "r[x]", Absent, `{"r":[{"name":"y"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var body map[string]any
			g.Expect(json.Unmarshal([]byte(tt.body), &body)).To(Succeed())
			g.Expect(setField(body, tt.field, tt.value)).To(Succeed())
			got, _ := json.Marshal(body)
			g.Expect(string(got)).To(MatchJSON(tt.want))
		})
	}
	g := NewWithT(t)
	g.Expect(setField(map[string]any{"a": "s"}, "a.b", "1")).To(MatchError(ContainSubstring(`"b" is not in an object`)))
	g.Expect(strings.Contains(Injection{Phase: SwitchFirst, Action: InjectDelete, Type: "Microsoft.A/b", Name: "n"}.String(), ":n")).To(BeTrue())
}
