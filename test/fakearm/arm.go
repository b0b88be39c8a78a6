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
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// maxBody bounds a request body; ARM's own limit is 4 MiB.
const maxBody = 4 << 20

// serveARM answers and logs one ARM request.
func (s *Server) serveARM(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	var a answer
	switch {
	case err != nil:
		a = errorAnswer(&armError{http.StatusBadRequest, "InvalidRequestContent", err.Error()})
	case len(body) > maxBody:
		a = errorAnswer(&armError{http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request content is too large."})
	default:
		a = s.handleARM(r, body)
	}
	s.mu.Lock()
	s.requestSeq++
	requestID := fmt.Sprintf("00000000-0000-0000-0001-%012x", s.requestSeq)
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, APIVersion: r.URL.Query().Get("api-version"), Body: body, Status: a.status, Time: received,
		Identity: s.identityOf(r), UserAgent: r.UserAgent(),
	})
	s.mu.Unlock()
	a.write(w, requestID)
}

// handleARM checks the token, the injected faults and the api-version, then routes by method and path.
func (s *Server) handleARM(r *http.Request, body []byte) answer {
	tenant, denied := s.authorize(r)
	if denied != nil {
		return errorAnswer(denied)
	}
	if a, ok := s.fault(r.Method, r.URL.Path); ok {
		return a
	}
	apiVersion := r.URL.Query().Get("api-version")
	if apiVersion == "" {
		return errorAnswer(&armError{http.StatusBadRequest, "MissingApiVersionParameter",
			"The api-version query parameter (?api-version=) is required for all requests."})
	}
	if r.Method == http.MethodPost {
		return s.post(r.URL.Path)
	}
	if a, ok := s.pollIfOperation(r); ok {
		return a
	}
	id := parseID(r.URL.Path)
	if isTagsAtScope(id) {
		return s.tagsAtScope(r.Method, id, body)
	}
	switch id.kind {
	case kindSubscription:
		return s.subscription(r, id, tenant)
	case kindCollection:
		switch {
		case r.Method == http.MethodGet && isRoleDefinitions(id):
			return listRoleDefinitions(id, r.URL.Query().Get("$filter"))
		case r.Method == http.MethodGet && isResourceSKUs(id):
			return listResourceSKUs(r.URL.Query().Get("$filter"))
		case r.Method == http.MethodGet:
			if a, ok := s.agentPoolScaleSets(id); ok {
				return a
			}
			return s.list(id)
		}
		return methodNotAllowed(r)
	case kindResourceGroup, kindResource:
		switch r.Method {
		case http.MethodPut:
			return s.put(id, apiVersion, body, tenant, s.baseURL(r), preconditionsOf(r))
		case http.MethodGet, http.MethodHead:
			return s.get(id, r.Method == http.MethodHead)
		case http.MethodPatch:
			return s.patch(id, body, preconditionsOf(r))
		case http.MethodDelete:
			return s.delete(id, apiVersion, s.baseURL(r))
		}
		return methodNotAllowed(r)
	}
	return errorAnswer(&armError{http.StatusNotFound, "NotFound", fmt.Sprintf("The fake ARM serves no %s %s.", r.Method, r.URL.Path)})
}

// pollIfOperation answers a request for one of the fake's operation URLs.
func (s *Server) pollIfOperation(r *http.Request) (answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op, ok := s.ops[strings.ToLower(strings.TrimRight(r.URL.Path, "/"))]
	switch {
	case !ok:
		return answer{}, false
	case r.Method != http.MethodGet:
		return methodNotAllowed(r), true
	}
	return s.poll(op), true
}

func methodNotAllowed(r *http.Request) answer {
	return errorAnswer(&armError{http.StatusMethodNotAllowed, "MethodNotAllowed",
		fmt.Sprintf("The requested resource does not support http method '%s'.", r.Method)})
}

// subscription answers for a subscription, which always exists.
func (s *Server) subscription(r *http.Request, id armID, tenant string) answer {
	switch r.Method {
	case http.MethodHead:
		return answer{status: http.StatusNoContent}
	case http.MethodGet:
		return answer{status: http.StatusOK, body: map[string]any{
			"id": id.raw, "subscriptionId": id.subscription, "displayName": id.subscription, "state": "Enabled", "tenantId": tenant,
		}}
	}
	return methodNotAllowed(r)
}

// list answers a GET of a collection: the resources of its type in its resource group, parent or scope, in one page.
func (s *Server) list(id armID) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if missing := s.missingParent(id); missing != nil {
		return errorAnswer(missing)
	}
	if vmss, ok := s.resources[parseID(id.parent).key()]; ok && strings.EqualFold(id.fullType(), scaleSetInstanceType) && isFlexible(vmss) {
		return answer{status: http.StatusOK, body: map[string]any{"value": s.renderFlexibleInstances(vmss)}}
	}
	keys := make([]string, 0, len(s.resources))
	for k, r := range s.resources {
		if strings.EqualFold(r.id.parent, id.parent) && strings.EqualFold(r.id.fullType(), id.fullType()) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	value := make([]any, 0, len(keys))
	for _, k := range keys {
		value = append(value, s.render(s.resources[k]))
	}
	return answer{status: http.StatusOK, body: map[string]any{"value": value}}
}

// put creates (201) or replaces (200) a resource, at once or as a long-running operation polled on base, when the
// resource meets the request's preconditions.
func (s *Server) put(id armID, apiVersion string, raw []byte, tenant, base string, cond preconditions) answer {
	body, err := decodeObject(raw)
	if err != nil {
		return errorAnswer(&armError{http.StatusBadRequest, "InvalidRequestContent",
			"The request content was invalid and could not be deserialized: " + err.Error()})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if missing := s.missingParent(id); missing != nil {
		return errorAnswer(missing)
	}
	if failed := cond.check(s.resources[id.key()]); failed != nil {
		return errorAnswer(failed)
	}
	if refused := keepCustomData(s.resources[id.key()], body); refused != nil {
		return errorAnswer(refused)
	}
	keepScaleSetModel(s.resources[id.key()], body)
	r, created := s.upsert(id, body, tenant)
	s.vmDisks(r)
	s.syncInstances(r)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	if s.synchronous(r.id, false) {
		s.endOperation(r)
		r.state = stateSucceeded
		return answer{status: status, body: s.render(r)}
	}
	switch {
	case created:
		r.state = stateCreating
	case r.state != stateCreating: // a PUT during the create goes on creating
		r.state = stateUpdating
	}
	header := http.Header{"Azure-AsyncOperation": {s.startOperation(r, false, base, apiVersion)}, "Retry-After": {"1"}}
	return answer{status: status, header: header, body: s.render(r)}
}

// notFound is the 404 of a GET: the resource group's, else the resource's.
func (s *Server) notFound(id armID) *armError {
	if id.kind == kindResourceGroup {
		return resourceGroupNotFound(id.name)
	}
	if rg := id.resourceGroupKey(); rg != "" {
		if _, ok := s.resources[rg]; !ok {
			return resourceGroupNotFound(id.resourceGroup)
		}
	}
	return resourceNotFound(id)
}

// get answers a GET (200 or 404) or a HEAD (204 or 404, what ASO's CheckExistenceByID expects).
func (s *Server) get(id armID, head bool) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resources[id.key()]
	switch {
	case ok && head:
		return answer{status: http.StatusNoContent}
	case ok:
		return answer{status: http.StatusOK, body: s.render(r)}
	case head:
		return answer{status: http.StatusNotFound}
	}
	if definition, ok := builtInRoleDefinition(id); ok {
		return answer{status: http.StatusOK, body: definition}
	}
	return errorAnswer(s.notFound(id))
}

// patch merges a JSON merge patch into a resource, at once, when the resource meets the request's preconditions.
func (s *Server) patch(id armID, raw []byte, cond preconditions) answer {
	invalid := func(err error) answer {
		return errorAnswer(&armError{http.StatusBadRequest, "InvalidRequestContent",
			"The request content was invalid and could not be deserialized: " + err.Error()})
	}
	if _, err := decodeObject(raw); err != nil {
		return invalid(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resources[id.key()]
	if !ok {
		return errorAnswer(s.notFound(id))
	}
	if failed := cond.check(r); failed != nil {
		return errorAnswer(failed)
	}
	current, err := json.Marshal(r.body)
	if err != nil {
		return errorAnswer(&armError{http.StatusInternalServerError, "InternalServerError", err.Error()})
	}
	merged, err := jsonpatch.MergePatch(current, raw)
	if err != nil {
		return invalid(err)
	}
	body, err := decodeObject(merged)
	if err != nil {
		return invalid(err)
	}
	s.upsert(r.id, body, r.tenant)
	return answer{status: http.StatusOK, body: s.render(r)}
}

// delete deletes a resource and everything under it: at once (200), or as a long-running operation (202 and a
// Location on base). A resource already gone answers 204.
func (s *Server) delete(id armID, apiVersion, base string) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resources[id.key()]
	if !ok {
		if rg := id.resourceGroupKey(); rg != "" && id.kind != kindResourceGroup {
			if _, ok := s.resources[rg]; !ok {
				return errorAnswer(resourceGroupNotFound(id.resourceGroup))
			}
		}
		return answer{status: http.StatusNoContent}
	}
	if e := s.lastSystemPool(r); e != nil {
		return errorAnswer(e)
	}
	if s.synchronous(r.id, true) {
		s.instanceRemoved(r)
		s.endOperation(r)
		s.remove(r.id.key())
		return answer{status: http.StatusOK}
	}
	if op, ok := s.ops[r.op]; ok && op.deleting && !op.done {
		return answer{status: http.StatusAccepted, header: http.Header{"Location": {s.operationURL(op)}, "Retry-After": {"1"}}}
	}
	s.instanceRemoved(r)
	r.state = stateDeleting
	header := http.Header{"Location": {s.startOperation(r, true, base, apiVersion)}, "Retry-After": {"1"}}
	return answer{status: http.StatusAccepted, header: header}
}

// keepCustomData plays Azure's rule for a virtual machine's custom data, which only its creation sets: a PUT of an
// existing VM that omits it keeps it, and one that changes it is refused.
func keepCustomData(existing *resource, body map[string]any) *armError {
	if existing == nil || !strings.EqualFold(existing.id.fullType(), "Microsoft.Compute/virtualMachines") {
		return nil
	}
	had, ok := lookupMap(existing.body, "properties", "osProfile")["customData"]
	if !ok {
		return nil
	}
	profile := lookupMap(body, "properties", "osProfile")
	sent, ok := profile["customData"]
	switch {
	case !ok:
		ensureMap(body, "properties", "osProfile")["customData"] = had
	case sent != had:
		return &armError{http.StatusConflict, "PropertyChangeNotAllowed", "Changing property 'customData' is not allowed."}
	}
	return nil
}
