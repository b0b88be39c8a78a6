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
// subscriptions, etags, provisioning states and an empty list left out are not; a change the table lists is deliberate, any other fails the flavor.
func TestStateChanges(t *testing.T) {
	g := NewWithT(t)
	other := "/subscriptions/other/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb"
	vm := rgPath + "/providers/Microsoft.Compute/virtualMachines/vm"
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
		{Resource: "Microsoft.Network/loadBalancers", Field: "properties.probes[].properties.protocol", Line: 7},
		{Resource: "Microsoft.Compute/virtualMachines/extensions", Field: "*", Line: 9},
	}
	changes, created, deleted := stateChanges(before, after, strings.ToLower(rgPath[:strings.Index(rgPath, "/resourceGroups")+1]), ds)
	g.Expect(created).To(Equal([]string{strings.ToLower(ext)}))
	g.Expect(deleted).To(Equal([]string{strings.ToLower(nsg)}))
	g.Expect(changes).To(HaveLen(3))
	// By resource ID: the VM, its extension, the load balancer.
	g.Expect(changes[0]).To(And(HaveField("Resource", strings.ToLower(vm)), HaveField("Field", "tags.Name"), HaveField("Deliberate", BeNil())))
	g.Expect(changes[1]).To(And(HaveField("Resource", strings.ToLower(ext)), HaveField("Field", "*"), HaveField("Deliberate.Line", 9)))
	g.Expect(changes[2]).To(And(HaveField("Resource", strings.ToLower(lb)), HaveField("Field", "properties.probes[p].properties.protocol"),
		HaveField("Before", `"Tcp"`), HaveField("After", `"Https"`), HaveField("Deliberate.Line", 7)))

	f := SwitchFlavor{Flavor: "default", Changes: changes, Created: created, Deleted: deleted}
	g.Expect(f.Failed()).To(BeTrue())
	var out bytes.Buffer
	ReportSwitch(&out, SwitchResult{Flavors: []SwitchFlavor{f}})
	g.Expect(out.String()).To(And(ContainSubstring("FAILED"), ContainSubstring("DELETED after the switch "+strings.ToLower(nsg)),
		ContainSubstring(`tags.Name: (none) -> "vm"  [NOT DOCUMENTED]`), ContainSubstring("deliberate (docs/capz-parity.md line 7)")))

	// Only documented changes: the flavor passes.
	f = SwitchFlavor{Flavor: "default", Changes: []StateChange{changes[1], changes[2]}, Created: created}
	g.Expect(f.Failed()).To(BeFalse())
}
