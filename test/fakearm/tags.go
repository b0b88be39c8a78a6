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
	"strings"
)

// isTagsAtScope tells the Tags API's resource of a scope ({scope}/providers/Microsoft.Resources/tags/default),
// through which a client (CAPZ's tags service) reads and changes the tags of a resource or resource group without
// writing the resource.
func isTagsAtScope(id armID) bool {
	return id.kind == kindResource && !id.nested && strings.EqualFold(id.fullType(), "Microsoft.Resources/tags") &&
		strings.EqualFold(id.name, "default")
}

// tagsAtScope answers the Tags API on a resource or resource group the fake holds: GET reads its tags, PUT replaces
// them, PATCH merges, replaces or deletes ({"operation": "Merge"|"Replace"|"Delete", "properties": {"tags": …}}; a
// deleted tag goes when its value is empty or matches) and DELETE removes them all. A change is a write of the
// scope resource: its etag changes.
func (s *Server) tagsAtScope(method string, id armID, raw []byte) answer {
	var body map[string]any
	if method == http.MethodPut || method == http.MethodPatch {
		var err error
		if body, err = decodeObject(raw); err != nil {
			return errorAnswer(&armError{http.StatusBadRequest, "InvalidRequestContent",
				"The request content was invalid and could not be deserialized: " + err.Error()})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	scope := parseID(id.parent)
	r, ok := s.resources[scope.key()]
	if !ok || (scope.kind != kindResource && scope.kind != kindResourceGroup) {
		return errorAnswer(&armError{http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The scope '%s' was not found.", id.parent)})
	}
	current, _ := r.body["tags"].(map[string]any)
	given, _ := lookupMap(body, "properties")["tags"].(map[string]any)
	var tags map[string]any
	switch method {
	case http.MethodGet:
		tags = current
	case http.MethodPut:
		tags = copyMap(given)
	case http.MethodDelete:
		tags = map[string]any{}
	case http.MethodPatch:
		tags = copyMap(current)
		switch op := str(body, "operation"); {
		case strings.EqualFold(op, "Merge"):
			for k, v := range given {
				tags[k] = v
			}
		case strings.EqualFold(op, "Replace"):
			tags = copyMap(given)
		case strings.EqualFold(op, "Delete"):
			for k, v := range given {
				if value, _ := v.(string); value == "" || tags[k] == v {
					delete(tags, k)
				}
			}
		default:
			return errorAnswer(&armError{http.StatusBadRequest, "InvalidTagOperation", fmt.Sprintf("The operation '%s' is not Merge, Replace or Delete.", op)})
		}
	default:
		return methodNotAllowed(&http.Request{Method: method})
	}
	if method != http.MethodGet {
		r.body["tags"] = tags
		r.etag = s.newETag()
	}
	if tags == nil {
		tags = map[string]any{}
	}
	return answer{status: http.StatusOK, body: map[string]any{
		"id": id.raw, "name": "default", "type": "Microsoft.Resources/tags", "properties": map[string]any{"tags": copyMap(tags)},
	}}
}
