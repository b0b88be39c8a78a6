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
	"strings"
)

// Resource is what a write is to: its method, its ARM resource type and its ID (normalized, in lower case).
type Resource struct {
	Method string
	// Type is the ARM resource type as written (Microsoft.Network/virtualNetworks/subnets).
	Type string
	ID   string
}

// Name is the resource's name, with its parents' for a child (vm/extension), as its ID names them after its last
// provider namespace.
func (r Resource) Name() string {
	segs := strings.Split(strings.Trim(r.ID, "/"), "/")
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			last = i
		}
	}
	if last < 0 || last+3 > len(segs) {
		return segs[len(segs)-1]
	}
	var names []string
	for i := last + 3; i < len(segs); i += 2 {
		names = append(names, segs[i])
	}
	return strings.Join(names, "/")
}

func (r Resource) String() string {
	s := r.Type + " " + r.Name()
	if r.Method != "PUT" {
		s = r.Method + " " + s
	}
	return s
}

// resourceType is the ARM resource type of an ID: the provider namespace after its last "providers" segment and
// every type segment after it, Microsoft.Resources/resourceGroups for a resource group, "" for anything else.
func resourceType(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			last = i
		}
	}
	if last < 0 {
		if len(segs) == 4 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups") {
			return "Microsoft.Resources/resourceGroups"
		}
		return ""
	}
	rest := segs[last+1:]
	if len(rest) < 3 {
		return ""
	}
	types := []string{rest[0]}
	for i := 1; i < len(rest); i += 2 {
		types = append(types, rest[i])
	}
	return strings.Join(types, "/")
}
