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

package azure

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FuzzObjectName turns arbitrary Azure names into Kubernetes names: the result is always a valid object name (a
// DNS subdomain), the same for the same parts, and the joined parts themselves when they already are one.
func FuzzObjectName(f *testing.F) {
	for _, parts := range [][2]string{
		{"my-vnet", ""}, {"my-vnet", "node-subnet"}, {"My_RG", ""}, {"a..b", ""}, {"a.-b", ""}, {"_", ""},
		{"vnet.", "subnet"}, {strings.Repeat("x", 300), ""}, {"AzureBastionSubnet", ""}, {"rg(1)", ""},
	} {
		f.Add(parts[0], parts[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		parts := []string{a}
		if b != "" {
			parts = append(parts, b)
		}
		name := ObjectName(parts...)
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			t.Fatalf("ObjectName(%q) = %q is not a Kubernetes object name: %s", parts, name, strings.Join(msgs, "; "))
		}
		if again := ObjectName(parts...); again != name {
			t.Fatalf("ObjectName(%q) is %q and then %q", parts, name, again)
		}
		joined := strings.Join(parts, "-")
		if len(validation.IsDNS1123Subdomain(joined)) == 0 && name != joined {
			t.Fatalf("ObjectName(%q) = %q, want the valid name %q itself", parts, name, joined)
		}
	})
}
