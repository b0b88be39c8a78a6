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
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Provisioning states, as ARM resource providers report them.
const (
	stateSucceeded = "Succeeded"
	stateCreating  = "Creating"
	stateUpdating  = "Updating"
	stateDeleting  = "Deleting"
)

// defaultTenant is the tenant of what Seed creates (no token wrote it).
const defaultTenant = "00000000-0000-0000-0000-0000000000f0"

// resource is one resource the fake holds.
type resource struct {
	// id is the ID of the first PUT, whose case every answer keeps.
	id armID
	// body is the resource as last written, without id, name and type and without its child collections, which are
	// held as resources of their own.
	body  map[string]any
	state string
	// op is the key of the long-running operation in progress on the resource, if any.
	op string
	// tenant is the tenant of the token that created the resource, for the tenant IDs Azure reports.
	tenant string
	// etag changes with every write.
	etag string
	// instance counts the resources of this ID that were deleted before this one was created: Azure gives a new
	// instance new unique IDs (vmId).
	instance int
	// nextInstance is the number of a Uniform scale set's next instance; model is the model (modelHash) a scale
	// set's instance was made from.
	nextInstance int
	model        string
	// flexibleScaleSet is the key of the Flexible scale set from whose model the fake made this VM, and number the
	// VM's place among that scale set's instances (the fake numbers them upwards, as Azure orders them by age).
	flexibleScaleSet string
	number           int
}

// armError is an answer in ARM's error shape.
type armError struct {
	status        int
	code, message string
}

func (e *armError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func resourceGroupNotFound(name string) *armError {
	return &armError{404, "ResourceGroupNotFound", fmt.Sprintf("Resource group '%s' could not be found.", name)}
}

func resourceNotFound(id armID) *armError {
	message := fmt.Sprintf("The Resource '%s' was not found.", typedName(id))
	if id.resourceGroup != "" {
		message = fmt.Sprintf("The Resource '%s' under resource group '%s' was not found.", typedName(id), id.resourceGroup)
	}
	return &armError{404, "ResourceNotFound", message + " For more details please go to https://aka.ms/ARMResourceNotFoundFix"}
}

// typedName is the provider-relative name ARM's messages use: Microsoft.Network/virtualNetworks/v/subnets/s.
func typedName(id armID) string {
	if id.kind == kindResourceGroup {
		return id.name
	}
	i := strings.LastIndex(strings.ToLower(id.raw), "/providers/")
	if i < 0 {
		return id.raw
	}
	return id.raw[i+len("/providers/"):]
}

// missingParent tells what an ID needs and does not find: its resource group, then the resource it nests in or is
// an extension of. Subscriptions always exist. The lock is held.
func (s *Server) missingParent(id armID) *armError {
	if rg := id.resourceGroupKey(); rg != "" && id.kind != kindResourceGroup {
		if _, ok := s.resources[rg]; !ok {
			return resourceGroupNotFound(id.resourceGroup)
		}
	}
	parent := parseID(id.parent)
	if parent.kind != kindResource {
		return nil
	}
	if _, ok := s.resources[parent.key()]; !ok {
		name := parent.name
		if !id.nested {
			name = parent.raw
		}
		return &armError{404, "ParentResourceNotFound", fmt.Sprintf(
			"Can not perform requested operation on nested resource. Parent resource '%s' not found.", name)}
	}
	return nil
}

// upsert creates or replaces a resource's body, and its child collections as resources of their own (created or
// replaced, never removed: a parent's PUT that omits a child keeps it). It does not touch the resource's state. The
// lock is held and the parents were checked.
func (s *Server) upsert(id armID, body map[string]any, tenant string) (*resource, bool) {
	children := takeChildren(id, body)
	r, exists := s.resources[id.key()]
	if !exists {
		r = &resource{id: id, tenant: tenant, instance: s.removed[id.key()]}
		s.resources[id.key()] = r
	}
	for _, k := range []string{"id", "name", "type", "etag"} {
		delete(body, k)
	}
	r.body = body
	r.etag = s.newETag()
	for _, c := range children {
		child, _ := s.upsert(parseID(r.id.raw+"/"+c.childType+"/"+c.name), c.body, r.tenant)
		if child.state == "" {
			child.state = stateSucceeded
		}
	}
	return r, !exists
}

// remove deletes a resource and everything under its ID: its children, the extension resources on it and, for a
// resource group, everything in it. Operations on what it removes end. The lock is held.
func (s *Server) remove(key string) {
	for _, disk := range s.disksDeletedWithVM(key) {
		s.remove(disk)
	}
	if vmss, ok := s.resources[key]; ok && isFlexibleWithModel(vmss) {
		for _, vm := range s.flexibleInstancesOf(vmss) {
			s.remove(vm.id.key())
		}
	}
	for k, r := range s.resources {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(s.resources, k)
			s.removed[k]++
			if op, ok := s.ops[r.op]; ok {
				op.done = true
			}
		}
	}
}

// childrenOf lists the children of one type of a resource, by name. The lock is held.
func (s *Server) childrenOf(parentKey, childType string) []*resource {
	var out []*resource
	for _, r := range s.resources {
		if r.id.nested && strings.EqualFold(r.id.parent, parentKey) && strings.EqualFold(r.id.lastType(), childType) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id.key() < out[j].id.key() })
	return out
}

// render is a resource as a GET answers it: its body, its ID, name and type, its provisioning state, its child
// collections and what Azure computes. The lock is held.
func (s *Server) render(r *resource) map[string]any {
	out := copyMap(r.body)
	out["id"] = r.id.raw
	out["name"] = r.id.name
	out["type"] = r.id.fullType()
	if reportsETag(r.id) {
		out["etag"] = r.etag
	}
	props, ok := out["properties"].(map[string]any)
	if !ok {
		props = map[string]any{}
		out["properties"] = props
	}
	props["provisioningState"] = r.state
	s.listChildren(out, r)
	s.compute(out, r)
	return out
}

// Resource is a resource as a GET of its ID (any case) would return it, decoded as encoding/json decodes (numbers
// are float64).
func (s *Server) Resource(id string) (map[string]any, bool) {
	s.mu.Lock()
	r, ok := s.resources[parseID(id).key()]
	var raw []byte
	var err error
	if ok {
		raw, err = json.Marshal(s.render(r))
	}
	s.mu.Unlock()
	if !ok || err != nil {
		return nil, false
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false
	}
	return out, true
}

// Resources lists the IDs of every resource held, in the case of their first PUT, sorted case-insensitively (so a
// parent comes before its children).
func (s *Server) Resources() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.resources))
	for k := range s.resources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = s.resources[k].id.raw
	}
	return out
}

// Remove deletes a resource (any case) and everything under its ID outside the cluster, as a user with the portal
// or the CLI would; the next PUT of the ID creates a new instance. It is not logged. false when there is none.
func (s *Server) Remove(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := parseID(id).key()
	if _, ok := s.resources[key]; !ok {
		return false
	}
	s.remove(key)
	return true
}

// Seed makes a resource exist before the test, as one created outside the cluster (bring-your-own): a resource group
// or a resource whose parents exist. Its child collections become children and a Uniform scale set gets its
// instances, as with a PUT. It is not logged.
func (s *Server) Seed(id string, body map[string]any) error {
	parsed := parseID(id)
	if parsed.kind != kindResource && parsed.kind != kindResourceGroup {
		return fmt.Errorf("failed to seed %q: not the ID of a resource group or a resource", id)
	}
	if body == nil {
		body = map[string]any{}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("failed to seed %q: %w", id, err)
	}
	copied, err := decodeObject(raw)
	if err != nil {
		return fmt.Errorf("failed to seed %q: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if missing := s.missingParent(parsed); missing != nil {
		return fmt.Errorf("failed to seed %q: %w", id, missing)
	}
	r, _ := s.upsert(parsed, copied, defaultTenant)
	s.endOperation(r)
	r.state = stateSucceeded
	s.syncInstances(r)
	return nil
}
