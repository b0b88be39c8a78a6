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

// idKind is what an ARM path names.
type idKind int

const (
	kindInvalid idKind = iota
	kindSubscription
	kindResourceGroup
	kindResource
	// kindCollection is a list of resources of one type: the path ends with a type and no name.
	kindCollection
)

// armID is an ARM resource ID (or a path that is not one), split into what the parent rules need.
type armID struct {
	// raw is the ID as written, without a trailing slash.
	raw  string
	kind idKind
	// subscription and resourceGroup are the ID's own, when it has them.
	subscription, resourceGroup string
	// namespace and types are the resource provider and the resource types after it (virtualNetworks, subnets).
	namespace string
	types     []string
	name      string
	// parent is what must exist before this resource: its resource group, the resource it nests in, or the scope of
	// an extension resource. Empty for a subscription.
	parent string
	// nested tells a child resource (its type nests in its parent's) from a resource at a scope.
	nested bool
}

// key is the case-insensitive identity of an ID.
func (a armID) key() string { return strings.ToLower(a.raw) }

// fullType is the ARM resource type, e.g. Microsoft.Network/virtualNetworks/subnets.
func (a armID) fullType() string {
	if a.kind == kindResourceGroup {
		return "Microsoft.Resources/resourceGroups"
	}
	if a.namespace == "" {
		return ""
	}
	return a.namespace + "/" + strings.Join(a.types, "/")
}

// lastType is the last segment of the resource type (subnets for a subnet).
func (a armID) lastType() string {
	if len(a.types) == 0 {
		return ""
	}
	return a.types[len(a.types)-1]
}

// resourceGroupKey is the key of the resource group the ID lives in, or "".
func (a armID) resourceGroupKey() string {
	if a.resourceGroup == "" {
		return ""
	}
	return strings.ToLower("/subscriptions/" + a.subscription + "/resourceGroups/" + a.resourceGroup)
}

// parseID splits an ARM path. The last "providers" segment starts the resource's own part, so that an extension
// resource ({scope}/providers/Microsoft.Authorization/roleAssignments/{name}) has its scope as parent.
func parseID(path string) armID {
	p := strings.TrimRight(path, "/")
	if !strings.HasPrefix(p, "/") {
		return armID{raw: p}
	}
	segs := strings.Split(p[1:], "/")
	for _, s := range segs {
		if s == "" {
			return armID{raw: p}
		}
	}
	id := armID{raw: p}
	if len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions") {
		id.subscription = segs[1]
		if len(segs) >= 4 && strings.EqualFold(segs[2], "resourceGroups") {
			id.resourceGroup = segs[3]
		}
	}
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			last = i
		}
	}
	if last < 0 {
		switch {
		case len(segs) == 2 && id.subscription != "":
			id.kind = kindSubscription
		case len(segs) == 4 && id.resourceGroup != "":
			id.kind, id.name, id.parent = kindResourceGroup, segs[3], "/subscriptions/"+segs[1]
		}
		return id
	}
	scope := ""
	if last > 0 {
		scope = "/" + strings.Join(segs[:last], "/")
		switch parseID(scope).kind {
		case kindSubscription, kindResourceGroup, kindResource:
		default:
			return armID{raw: p}
		}
	}
	rest := segs[last+1:]
	if len(rest) < 2 {
		return armID{raw: p}
	}
	id.namespace = rest[0]
	typesAndNames := rest[1:]
	for i := 0; i < len(typesAndNames); i += 2 {
		id.types = append(id.types, typesAndNames[i])
	}
	if len(typesAndNames)%2 == 1 {
		id.kind, id.parent = kindCollection, scope
		if len(id.types) > 1 {
			id.parent, id.nested = "/"+strings.Join(segs[:len(segs)-1], "/"), true
		}
		return id
	}
	id.kind, id.name = kindResource, typesAndNames[len(typesAndNames)-1]
	if len(id.types) > 1 {
		id.parent, id.nested = "/"+strings.Join(segs[:len(segs)-2], "/"), true
	} else {
		id.parent = scope
	}
	return id
}
