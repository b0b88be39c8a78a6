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

package armnorm

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const (
	sub = "00000000-0000-0000-0000-0000000000aa"
	rg  = "/subscriptions/" + sub + "/resourceGroups/pdef"
)

// TestResourceTypeAndName: the type and name of resource groups, resources, children and extension resources at a
// scope; no type for a subscription or a collection.
func TestResourceTypeAndName(t *testing.T) {
	for _, tt := range []struct{ id, resourceType, name string }{
		{rg, "Microsoft.Resources/resourceGroups", "pdef"},
		{rg + "/providers/Microsoft.Network/virtualNetworks/v", "Microsoft.Network/virtualNetworks", "v"},
		{rg + "/providers/Microsoft.Network/virtualNetworks/v/subnets/s", "Microsoft.Network/virtualNetworks/subnets", "v/s"},
		{rg + "/providers/Microsoft.Network/networkSecurityGroups/nsg/securityRules/allow_ssh", "Microsoft.Network/networkSecurityGroups/securityRules", "nsg/allow_ssh"},
		{rg + "/providers/Microsoft.Authorization/roleAssignments/r", "Microsoft.Authorization/roleAssignments", "r"},
		{"/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleAssignments/0f6e", "Microsoft.Authorization/roleAssignments", "0f6e"},
		{rg + "/providers/Microsoft.Compute/virtualMachines/vm/providers/Microsoft.Authorization/roleAssignments/g", "Microsoft.Authorization/roleAssignments", "g"},
		{rg + "/providers/Microsoft.Compute/virtualMachines/vm/providers/Microsoft.Authorization/x/y", "Microsoft.Authorization/x", "y"},
		{"/subscriptions/" + sub, "", sub},
		{rg + "/providers/Microsoft.Network/virtualNetworks", "", ""},
	} {
		t.Run(tt.id, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(ResourceType(tt.id)).To(Equal(tt.resourceType))
			g.Expect(NameOf(tt.id)).To(Equal(tt.name))
		})
	}
}

// TestRules_Value: fields dropped, redacted or with their values redacted as Field says, the rest rewritten by Text
// in keys and strings (IDs in lower case first with LowerIDs), keys visited sorted, lists named in SortByName sorted
// by their normalised names, numbers and other values as they are; the input is not changed.
func TestRules_Value(t *testing.T) {
	g := NewWithT(t)
	var seen []string
	rules := Rules{
		Field: func(key string, value any) Action {
			switch {
			case key == "etag":
				return Drop
			case key == "password" && value != nil:
				return Redact
			case key == "protectedSettings":
				return RedactValues
			}
			return Keep
		},
		Text: func(s string) string {
			seen = append(seen, s)
			return strings.ReplaceAll(s, "pdef", "${CLUSTER}")
		},
		LowerIDs:   true,
		SortByName: []string{"pools"},
	}
	in := map[string]any{
		"etag":              "1",
		"password":          "secret",
		"protectedSettings": map[string]any{"a": "x", "b": 2},
		"tags":              map[string]any{"cluster_pdef": "owned"},
		"subnet":            map[string]any{"id": rg + "/Subnet"},
		"pools":             []any{map[string]any{"name": "b"}, map[string]any{"name": "a"}},
		"count":             3,
		"empty":             nil,
	}
	before := fmt.Sprint(in)
	g.Expect(rules.Value(in)).To(Equal(map[string]any{
		"password":          Redacted,
		"protectedSettings": map[string]any{"a": Redacted, "b": Redacted},
		"tags":              map[string]any{"cluster_${CLUSTER}": "owned"},
		"subnet":            map[string]any{"id": "/subscriptions/" + sub + "/resourcegroups/${CLUSTER}/subnet"},
		"pools":             []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}},
		"count":             3,
		"empty":             nil,
	}))
	g.Expect(fmt.Sprint(in)).To(Equal(before), "the input is unchanged")
	g.Expect(seen[:4]).To(Equal([]string{"count", "empty", "password", "pools"}), "keys are visited sorted")
	g.Expect(Rules{}.Value(in)).To(Equal(in), "no rules: a copy")
}
