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

package fakearm

import (
	"strings"
)

// collection is where Azure lists the children of one type on their parent's GET.
type collection struct {
	// childType is the child's last type segment (subnets).
	childType string
	// path is where the parent's body lists them.
	path []string
	// flatten lists a child as its name and properties in one object, as a managed cluster's agentPoolProfiles do;
	// the others list id, name, type and properties.
	flatten bool
}

// collections are the child collections of a parent type (lower case). ASO's extensions for virtual networks,
// network security groups, route tables and load balancers GET the parent and fail when the list is missing, so it
// is always there, empty or not; a scale set's extensions are listed where its body has an extensionProfile (ASO
// accepts a scale set without one).
var collections = map[string][]collection{
	"microsoft.network/virtualnetworks": {
		{childType: "subnets", path: []string{"properties", "subnets"}},
		{childType: "virtualNetworkPeerings", path: []string{"properties", "virtualNetworkPeerings"}},
	},
	"microsoft.network/networksecuritygroups": {
		{childType: "securityRules", path: []string{"properties", "securityRules"}},
	},
	"microsoft.network/routetables": {
		{childType: "routes", path: []string{"properties", "routes"}},
	},
	"microsoft.network/loadbalancers": {
		{childType: "inboundNatRules", path: []string{"properties", "inboundNatRules"}},
	},
	"microsoft.containerservice/managedclusters": {
		{childType: "agentPools", path: []string{"properties", "agentPoolProfiles"}, flatten: true},
	},
	"microsoft.compute/virtualmachinescalesets": {
		{childType: "extensions", path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"}},
	},
}

// inlineChild is a child written inside its parent's body.
type inlineChild struct {
	childType, name string
	body            map[string]any
}

// takeChildren removes the child collections from a parent's body and returns them as the bodies of child
// resources, as Azure creates or updates the subnets a virtual network's PUT lists.
func takeChildren(id armID, body map[string]any) []inlineChild {
	var out []inlineChild
	for _, c := range collections[strings.ToLower(id.fullType())] {
		container := lookupMap(body, c.path[:len(c.path)-1]...)
		last := c.path[len(c.path)-1]
		if container == nil {
			continue
		}
		items, _ := container[last].([]any)
		delete(container, last)
		for _, item := range items {
			m, ok := item.(map[string]any)
			name := str(m, "name")
			if !ok || name == "" || strings.Contains(name, "/") {
				continue
			}
			child := copyMap(m)
			if c.flatten {
				delete(child, "name")
				child = map[string]any{"properties": child}
			} else {
				for _, k := range []string{"id", "name", "type", "etag"} {
					delete(child, k)
				}
			}
			out = append(out, inlineChild{childType: c.childType, name: name, body: child})
		}
	}
	return out
}

// listChildren adds a parent's child collections to its rendered body. The lock is held.
func (s *Server) listChildren(out map[string]any, r *resource) {
	for _, c := range collections[strings.ToLower(r.id.fullType())] {
		children := s.childrenOf(r.id.key(), c.childType)
		container := lookupMap(out, c.path[:len(c.path)-1]...)
		if container == nil {
			if len(children) == 0 {
				continue
			}
			container = ensureMap(out, c.path[:len(c.path)-1]...)
		}
		list := make([]any, 0, len(children))
		for _, child := range children {
			rendered := s.render(child)
			props, _ := rendered["properties"].(map[string]any)
			if c.flatten {
				entry := copyMap(props)
				entry["name"] = child.id.name
				list = append(list, entry)
				continue
			}
			entry := map[string]any{"id": child.id.raw, "name": child.id.name, "type": child.id.fullType(), "properties": props}
			if etag, ok := rendered["etag"]; ok {
				entry["etag"] = etag
			}
			list = append(list, entry)
		}
		container[c.path[len(c.path)-1]] = list
	}
}
