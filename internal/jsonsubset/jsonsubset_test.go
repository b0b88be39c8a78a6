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

package jsonsubset

import (
	"encoding/json"
	"testing"
)

func TestContains(t *testing.T) {
	got := map[string]any{
		"location": "eastus",
		"tags":     map[string]any{"owner": "the user", "added": "by a provider"},
		"properties": map[string]any{
			"priority": float64(3000),
			"prefixes": []any{"10.0.0.0/16", "10.1.0.0/16"},
		},
	}
	tests := []struct {
		name string
		want any
		ok   bool
	}{
		{"every field the same, more in got", map[string]any{"location": "eastus", "tags": map[string]any{"owner": "the user"}}, true},
		{"a number of another Go type", map[string]any{"properties": map[string]any{"priority": 3000}}, true},
		{"a json.Number", map[string]any{"properties": map[string]any{"priority": json.Number("3000")}}, true},
		{"the same list", map[string]any{"properties": map[string]any{"prefixes": []any{"10.0.0.0/16", "10.1.0.0/16"}}}, true},
		{"an empty map for an absent one", map[string]any{"zones": map[string]any{}}, true},
		{"another value", map[string]any{"location": "westus"}, false},
		{"another number", map[string]any{"properties": map[string]any{"priority": 3001}}, false},
		{"a key got lacks", map[string]any{"tags": map[string]any{"cost-center": "42"}}, false},
		{"a list of another length", map[string]any{"properties": map[string]any{"prefixes": []any{"10.0.0.0/16"}}}, false},
		{"a list in another order", map[string]any{"properties": map[string]any{"prefixes": []any{"10.1.0.0/16", "10.0.0.0/16"}}}, false},
		{"a map where got has a string", map[string]any{"location": map[string]any{"name": "eastus"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok := Contains(got, tt.want); ok != tt.ok {
				t.Errorf("Contains(got, %v) = %t, want %t", tt.want, ok, tt.ok)
			}
		})
	}
}
