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
// subscriptions, etags, provisioning states and an empty list left out are not; a change a row of the flavor excuses
// (its resource by name with the cluster's placeholder, CAPZ's value before and ours after) is deliberate, any other
// fails the flavor; on the way back, CAPZ's value is the one after.
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
	ds := Deliberates{
		{Side: SideBoth, Method: "PUT", Resource: "Microsoft.Network/loadBalancers", Name: "lb", Field: "properties.probes[p].properties.protocol",
			CAPZ: Values{Set: []string{`"Tcp"`}}, Ours: Values{Set: []string{`"Https"`}}, Flavors: []string{"default"}, Line: 7},
		{Side: SideOurs, Method: "PUT", Resource: "Microsoft.Compute/virtualMachines/extensions", Name: "${CLUSTER_NAME}-*/bootstrap", Field: WholeResource,
			CAPZ: Values{Set: []string{Absent}}, Ours: Values{Any: true}, Flavors: []string{"default"}, Line: 9},
	}
	f := Flavor{Name: "default", Cluster: "pdef", Subscription: sub}
	changes, created, deleted := stateChanges(before, after, f, ds, true)
	g.Expect(created).To(Equal([]string{strings.ToLower(ext)}))
	g.Expect(deleted).To(Equal([]string{strings.ToLower(nsg)}))
	g.Expect(changes).To(HaveLen(3))
	// By resource ID: the VM, its extension, the load balancer.
	g.Expect(changes[0]).To(And(HaveField("Resource", strings.ToLower(vm)), HaveField("Field", "tags.Name"), HaveField("Deliberate", BeNil())))
	g.Expect(changes[1]).To(And(HaveField("Resource", strings.ToLower(ext)), HaveField("Field", "*"), HaveField("Deliberate.Line", 9)))
	g.Expect(changes[2]).To(And(HaveField("Resource", strings.ToLower(lb)), HaveField("Field", "properties.probes[p].properties.protocol"),
		HaveField("Before", `"Tcp"`), HaveField("After", `"Https"`), HaveField("Deliberate.Line", 7)))

	sf := SwitchFlavor{Flavor: "default", Changes: changes, Created: created, Deleted: deleted}
	g.Expect(sf.Failed()).To(BeTrue())
	var out bytes.Buffer
	ReportSwitch(&out, SwitchResult{Flavors: []SwitchFlavor{sf}})
	g.Expect(out.String()).To(And(ContainSubstring("FAILED"), ContainSubstring("DELETED after the switch "+strings.ToLower(nsg)),
		ContainSubstring(`tags.Name: (none) -> "vm"  [NOT DOCUMENTED]`), ContainSubstring("deliberate (docs/capz-parity.md line 7)")))

	// Only documented changes: the flavor passes.
	sf = SwitchFlavor{Flavor: "default", Changes: []StateChange{changes[1], changes[2]}, Created: created}
	g.Expect(sf.Failed()).To(BeFalse())

	// Another flavor: no row names it.
	private := f
	private.Name = "private"
	changes, _, _ = stateChanges(before, after, private, ds, true)
	g.Expect(changes).To(HaveEach(HaveField("Deliberate", BeNil())))

	// The way back: CAPZ's value is the one after; a resource CAPZ creates is excused by a row of CAPZ's only.
	changes, _, _ = stateChanges(after, before, f, ds, false)
	g.Expect(changes).To(ContainElement(And(HaveField("Field", "properties.probes[p].properties.protocol"), HaveField("Deliberate.Line", 7))))
	changes, _, _ = stateChanges(before, after, f, ds, false)
	g.Expect(changes).To(HaveEach(HaveField("Deliberate", BeNil())))
}
