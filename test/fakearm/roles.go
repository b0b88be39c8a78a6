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
	"net/http"
	"regexp"
	"sort"
	"strings"
)

// builtInRoles are the built-in role definitions ASO may resolve a role assignment's wellKnownName against, by
// name, with their IDs in every Azure tenant.
var builtInRoles = map[string]string{
	"AcrPull": "7f951dda-4ed3-4680-a7ca-43fe172d538d",
	"Azure Kubernetes Service Cluster Admin Role": "0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8",
	"Azure Kubernetes Service Cluster User Role":  "4abbcc35-e782-43d8-92c5-2d3f1bd2253f",
	"Azure Kubernetes Service RBAC Cluster Admin": "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b",
	"Contributor":                  "b24988ac-6180-42a0-ab88-20f7382dd24c",
	"Managed Identity Contributor": "e40ec5ca-96e0-45a2-b4ff-59039f2c2b59",
	"Managed Identity Operator":    "f1a07417-d97a-45cb-824c-7a7467783830",
	"Network Contributor":          "4d97b98b-1d4f-4787-a291-c67834d212e7",
	"Owner":                        "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
	"Reader":                       "acdd72a7-3385-48ef-bd42-f606fba81ae7",
	"Role Based Access Control Administrator": "f58310d9-a9f6-439a-9e8d-f62e7b41a168",
	"Storage Blob Data Contributor":           "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
	"User Access Administrator":               "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
	"Virtual Machine Contributor":             "9980e02c-c2be-4d73-94e8-173b1dc7cf3c",
}

func isRoleDefinitions(id armID) bool {
	return strings.EqualFold(id.fullType(), "Microsoft.Authorization/roleDefinitions")
}

// roleDefinition is a built-in role definition as ARM lists it at a scope ("" for the tenant).
func roleDefinition(scope, name, guid string) map[string]any {
	return map[string]any{
		"id":   scope + "/providers/Microsoft.Authorization/roleDefinitions/" + guid,
		"name": guid,
		"type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{
			"roleName": name, "type": "BuiltInRole", "description": name, "assignableScopes": []any{"/"},
			"permissions": []any{},
		},
	}
}

// builtInRoleDefinition answers a GET of a built-in role definition that was not seeded.
func builtInRoleDefinition(id armID) (map[string]any, bool) {
	if id.kind != kindResource || !isRoleDefinitions(id) {
		return nil, false
	}
	for name, guid := range builtInRoles {
		if strings.EqualFold(guid, id.name) {
			return roleDefinition(id.parent, name, guid), true
		}
	}
	return nil, false
}

// roleFilter is the one $filter the list understands, ARM's roleName eq '…'.
var roleFilter = regexp.MustCompile(`^roleName eq '(.*)'$`)

// listRoleDefinitions lists the built-in role definitions (what ASO's role assignment extension pages through to
// resolve a wellKnownName), optionally filtered by name.
func listRoleDefinitions(id armID, filter string) answer {
	var wanted string
	if filter != "" {
		m := roleFilter.FindStringSubmatch(filter)
		if m == nil {
			return errorAnswer(&armError{http.StatusBadRequest, "UnsupportedQuery", "The fake ARM understands only $filter=roleName eq '<name>'."})
		}
		wanted = m[1]
	}
	names := make([]string, 0, len(builtInRoles))
	for name := range builtInRoles {
		if wanted == "" || strings.EqualFold(name, wanted) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	value := make([]any, 0, len(names))
	for _, name := range names {
		value = append(value, roleDefinition(id.parent, name, builtInRoles[name]))
	}
	return answer{status: http.StatusOK, body: map[string]any{"value": value}}
}

// BuiltInRoleIDs are the GUIDs of the built-in role definitions the fake knows, sorted.
func BuiltInRoleIDs() []string {
	out := make([]string, 0, len(builtInRoles))
	for _, guid := range builtInRoles {
		out = append(out, guid)
	}
	sort.Strings(out)
	return out
}
