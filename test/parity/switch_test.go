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
)

// state decodes resources given as ID → JSON body, keyed as snapshot keys them.
func state(t *testing.T, resources ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for i := 0; i < len(resources); i += 2 {
		var body map[string]any
		if err := json.Unmarshal([]byte(resources[i+1]), &body); err != nil {
			t.Fatal(err)
		}
		out[strings.ToLower(resources[i])] = body
	}
	return out
}

// TestStateChanges: a changed property, a created and a deleted resource are found, resources of other
// subscriptions, etags, provisioning states and an empty list left out are not; a change is excused only by a row of
// the switch's direction and flavor naming its resource (by name with the cluster's placeholder), field and values;
// a created or deleted resource never is.
func TestStateChanges(t *testing.T) {
	g := NewWithT(t)
	other := "/subscriptions/other/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb"
	vm := rgPath + "/providers/Microsoft.Compute/virtualMachines/pdef-vm"
	ext := vm + "/extensions/bootstrap"
	before := state(t,
		lb, `{"etag":"1","properties":{"provisioningState":"Creating","probes":[{"name":"p","etag":"1","properties":{"protocol":"Tcp"}}]}}`,
		nsg, `{"location":"eastus"}`,
		vm, `{"properties":{"osProfile":{"customData":"abc"},"storageProfile":{"dataDisks":[]}}}`,
		other, `{"location":"eastus"}`,
	)
	after := state(t,
		lb, `{"etag":"2","properties":{"provisioningState":"Succeeded","probes":[{"name":"p","etag":"2","properties":{"protocol":"Https"}}]}}`,
		vm, `{"properties":{"osProfile":{"customData":"abc"}},"tags":{"Name":"vm"}}`,
		ext, `{"location":"eastus"}`,
		other, `{"location":"westus"}`,
	)
	rows := SwitchRows{
		{Direction: DirectionToOurs, Resource: "Microsoft.Network/loadBalancers", Name: "lb", Field: "properties.probes[p].properties.protocol",
			Before: []string{`"Tcp"`}, After: []string{`"Https"`}, Flavors: []string{"default"}, Line: 7},
	}
	f := Flavor{Name: "default", Cluster: "pdef", Subscription: sub}
	changes, created, deleted := stateChanges(before, after, f, NewSwitchMatcher(rows), DirectionToOurs)
	g.Expect(created).To(Equal([]string{strings.ToLower(ext)}))
	g.Expect(deleted).To(Equal([]string{strings.ToLower(nsg)}))
	g.Expect(changes).To(HaveLen(2))
	// By resource ID: the VM, the load balancer.
	g.Expect(changes[0]).To(And(HaveField("Resource", strings.ToLower(vm)), HaveField("Field", "tags.Name"),
		HaveField("Before", Absent), HaveField("After", `"vm"`), HaveField("Excused", BeNil())))
	g.Expect(changes[1]).To(And(HaveField("Resource", strings.ToLower(lb)), HaveField("Field", "properties.probes[p].properties.protocol"),
		HaveField("Before", `"Tcp"`), HaveField("After", `"Https"`), HaveField("Excused.Line", 7)))

	// Only the excused change: the switch passes; a created or a deleted resource fails it.
	g.Expect(SwitchPhase{Name: SwitchFirst, Changes: changes[1:]}.Failed()).To(BeFalse())
	g.Expect(SwitchPhase{Name: SwitchFirst, Changes: changes[1:], Created: created}.Failed()).To(BeTrue())
	g.Expect(SwitchPhase{Name: SwitchFirst, Changes: changes[1:], Deleted: deleted}.Failed()).To(BeTrue())
	g.Expect(SwitchPhase{Name: SwitchFirst, Changes: changes}.Failed()).To(BeTrue())

	// Another flavor, the way back: the row names neither.
	private := f
	private.Name = "private"
	changes, _, _ = stateChanges(before, after, private, NewSwitchMatcher(rows), DirectionToOurs)
	g.Expect(changes).To(HaveEach(HaveField("Excused", BeNil())))
	changes, _, _ = stateChanges(before, after, f, NewSwitchMatcher(rows), DirectionBackToCAPZ)
	g.Expect(changes).To(HaveEach(HaveField("Excused", BeNil())))
}

// TestSwitchFlavor_Failed: each switch (to ours, back to CAPZ, to ours again) fails the flavor alone, with the same
// strictness; the report names the switch that failed and what it did.
func TestSwitchFlavor_Failed(t *testing.T) {
	clean := func() []SwitchPhase {
		return []SwitchPhase{{Name: SwitchFirst}, {Name: SwitchBack}, {Name: SwitchAgain}}
	}
	undocumented := StateChange{Resource: strings.ToLower(lb), Field: "properties.frontendPort", Before: "6443", After: "443"}
	for i, title := range []string{"after the switch", "on the way back to CAPZ", "after the switch again"} {
		for what, p := range map[string]SwitchPhase{
			"a change":  {Changes: []StateChange{undocumented}},
			"a created": {Created: []string{strings.ToLower(nsg)}},
			"a deleted": {Deleted: []string{strings.ToLower(nsg)}},
		} {
			t.Run(title+": "+what, func(t *testing.T) {
				g := NewWithT(t)
				sf := SwitchFlavor{Flavor: "default", Phases: clean()}
				g.Expect(sf.Failed()).To(BeFalse())
				p.Name = sf.Phases[i].Name
				sf.Phases[i] = p
				g.Expect(sf.Failed()).To(BeTrue())
				var out bytes.Buffer
				ReportSwitch(&out, SwitchResult{Flavors: []SwitchFlavor{sf}})
				g.Expect(out.String()).To(And(ContainSubstring("== default: the switch from CAPZ "+CAPZVersion+" FAILED"),
					ContainSubstring("0 ARM writes "+title+": FAILED")))
				switch what {
				case "a change":
					g.Expect(out.String()).To(ContainSubstring("properties.frontendPort: 6443 -> 443  [NOT IN THE TABLE]"))
				case "a created":
					g.Expect(out.String()).To(ContainSubstring("CREATED " + title + " " + strings.ToLower(nsg)))
				case "a deleted":
					g.Expect(out.String()).To(ContainSubstring("DELETED " + title + " " + strings.ToLower(nsg)))
				}
			})
		}
	}
	t.Run("a problem", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(SwitchFlavor{Flavor: "default", Phases: clean(), Problems: []string{"stale row: x"}}.Failed()).To(BeTrue())
	})
}
