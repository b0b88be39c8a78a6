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

package armnorm

import (
	"sort"
	"strings"
)

// Redacted replaces the value of a secret or of a value that is random in every run.
const Redacted = "<redacted>"

// Action is what Rules.Value does with a field of an object.
type Action int

const (
	// Keep normalises the field's key and value.
	Keep Action = iota
	// Drop removes the field.
	Drop
	// Redact replaces the field's value with Redacted.
	Redact
	// RedactValues keeps an object's keys and replaces each of their values with Redacted (any other value with
	// Redacted).
	RedactValues
)

// Rules say how Value rewrites a decoded JSON value.
type Rules struct {
	// Field decides by a field's key and value what becomes of it; nil keeps every field.
	Field func(key string, value any) Action
	// Text rewrites keys and strings (the run's names into placeholders); nil leaves them as they are.
	Text func(string) string
	// LowerIDs puts strings that are ARM IDs (/subscriptions/…) in lower case before Text.
	LowerIDs bool
	// SortByName are the keys of lists of objects that Value sorts by their (normalised) names: a writer that
	// sends them in no fixed order (ASO, a managed cluster's agentPoolProfiles).
	SortByName []string
}

// Value returns a normalised copy of a decoded JSON value. An object's keys are visited sorted, so that a Text with
// state (one numbering GUIDs as it meets them) numbers alike from run to run.
func (r Rules) Value(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child, action := t[k], Keep
			if r.Field != nil {
				action = r.Field(k, child)
			}
			switch action {
			case Drop:
				continue
			case Redact:
				out[r.text(k)] = Redacted
			case RedactValues:
				out[r.text(k)] = redactValues(child)
			default:
				out[r.text(k)] = r.Value(child)
			}
		}
		for _, k := range r.SortByName {
			if list, ok := out[k].([]any); ok {
				sort.SliceStable(list, func(i, j int) bool { return nameOf(list[i]) < nameOf(list[j]) })
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = r.Value(e)
		}
		return out
	case string:
		if r.LowerIDs && strings.HasPrefix(t, "/subscriptions/") {
			t = strings.ToLower(t)
		}
		return r.text(t)
	default:
		return v
	}
}

func (r Rules) text(s string) string {
	if r.Text == nil {
		return s
	}
	return r.Text(s)
}

// redactValues keeps the keys of an object and redacts its values.
func redactValues(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return Redacted
	}
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = Redacted
	}
	return out
}

// nameOf is the name of a JSON object, or "".
func nameOf(v any) string {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	return name
}

// ResourceType is the ARM resource type of an ID: the provider namespace after its last "providers" segment and
// every type segment after it (Microsoft.Network/virtualNetworks/subnets for a subnet, the extension's type for an
// extension resource), Microsoft.Resources/resourceGroups for a resource group, "" for anything else.
func ResourceType(id string) string {
	segs, last := providerSegments(id)
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

// NameOf is the name of the resource an ID names, with its parents' for a child (<security group>/<rule>): the
// names after its last "providers" segment, or the ID's last segment (a resource group's name).
func NameOf(id string) string {
	segs, last := providerSegments(id)
	if last < 0 || last+3 > len(segs) {
		return segs[len(segs)-1]
	}
	var names []string
	for i := last + 3; i < len(segs); i += 2 {
		names = append(names, segs[i])
	}
	return strings.Join(names, "/")
}

// providerSegments splits an ID into its segments and finds its last "providers" segment (-1: none).
func providerSegments(id string) ([]string, int) {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			last = i
		}
	}
	return segs, last
}
