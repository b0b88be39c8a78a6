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
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// operation is a long-running PUT or DELETE. A PUT's is an Azure-AsyncOperation status ({"status": ...}, azcore's
// async poller, which then GETs the resource); a DELETE's is a Location that answers 202 while it runs and 204 once
// the resource is gone (azcore's location poller). Each stays in progress for Options.Polls polls.
type operation struct {
	id string
	// key is the resource's.
	key      string
	deleting bool
	// base is the URL the operation's request was sent to (see baseURL); path is the operation's URL path; apiVersion
	// the version it was started with, which its URL carries.
	base, path, apiVersion string
	remaining              int
	// done is set once the operation completed, or ended without effect: a later operation on the same resource
	// replaced it, or the resource went away.
	done bool
}

// synchronousTypes are the types whose PUT and DELETE Azure always answers at once (200, 201 or 204: their REST
// specifications have no long-running operation, and the Azure SDK's clients of them accept no 202).
var synchronousTypes = map[string]bool{
	"microsoft.authorization/roleassignments":                                       true,
	"microsoft.compute/availabilitysets":                                            true,
	"microsoft.managedidentity/userassignedidentities":                              true,
	"microsoft.managedidentity/userassignedidentities/federatedidentitycredentials": true,
}

// synchronous tells whether a PUT (or a DELETE) of a resource is answered at once. A resource group's PUT always is;
// its DELETE is long-running, as in Azure.
func (s *Server) synchronous(id armID, deleting bool) bool {
	return s.opts.Polls == 0 || synchronousTypes[strings.ToLower(id.fullType())] || (id.kind == kindResourceGroup && !deleting)
}

// startOperation starts a long-running operation on a resource, ending the one in progress, and returns its URL on
// base. The lock is held.
func (s *Server) startOperation(r *resource, deleting bool, base, apiVersion string) string {
	s.endOperation(r)
	s.opSeq++
	op := &operation{
		id:         fmt.Sprintf("00000000-0000-0000-0000-%012x", s.opSeq),
		key:        r.id.key(),
		deleting:   deleting,
		base:       base,
		apiVersion: apiVersion,
		remaining:  s.opts.Polls,
	}
	namespace := r.id.namespace
	if r.id.kind == kindResourceGroup {
		namespace = "Microsoft.Resources"
	}
	loc := strings.ToLower(strings.ReplaceAll(str(r.body, "location"), " ", ""))
	if loc == "" {
		loc = "global"
	}
	kind := "operations"
	if deleting {
		kind = "operationResults"
	}
	op.path = fmt.Sprintf("/providers/%s/locations/%s/%s/%s", namespace, loc, kind, op.id)
	if r.id.subscription != "" {
		op.path = "/subscriptions/" + r.id.subscription + op.path
	}
	s.ops[strings.ToLower(op.path)] = op
	r.op = strings.ToLower(op.path)
	return s.operationURL(op)
}

// operationURL is where an operation is polled.
func (s *Server) operationURL(op *operation) string {
	return op.base + op.path + "?api-version=" + url.QueryEscape(op.apiVersion)
}

// endOperation ends the operation in progress on a resource without effect. The lock is held.
func (s *Server) endOperation(r *resource) {
	if op, ok := s.ops[r.op]; ok {
		op.done = true
	}
	r.op = ""
}

// poll answers a poll of an operation, completing it after its polls: a PUT's resource then reports Succeeded, a
// DELETE's resource and everything under it are gone. The lock is held.
func (s *Server) poll(op *operation) answer {
	if !op.done && op.remaining > 0 {
		op.remaining--
		if op.deleting {
			return answer{status: http.StatusAccepted, header: http.Header{"Location": {s.operationURL(op)}, "Retry-After": {"1"}}}
		}
		return answer{status: http.StatusOK, header: http.Header{"Retry-After": {"1"}}, body: s.operationStatus(op, "InProgress")}
	}
	if !op.done {
		op.done = true
		if r, ok := s.resources[op.key]; ok && r.op == strings.ToLower(op.path) {
			r.op = ""
			if op.deleting {
				s.remove(op.key)
			} else {
				r.state = stateSucceeded
			}
		}
	}
	if op.deleting {
		return answer{status: http.StatusNoContent}
	}
	return answer{status: http.StatusOK, body: s.operationStatus(op, "Succeeded")}
}

func (s *Server) operationStatus(op *operation, status string) map[string]any {
	return map[string]any{"id": op.path, "name": op.id, "status": status}
}
