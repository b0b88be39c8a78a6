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
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// The actions of an Injection.
const (
	// InjectSet sets a field of every resource matched to a value (JSON, or Absent to remove it).
	InjectSet = "set"
	// InjectCopy creates a resource of another name (Value) with the body of the first resource matched.
	InjectCopy = "copy"
	// InjectDelete deletes every resource matched.
	InjectDelete = "delete"
)

// Injection is a change RunSwitch makes in the fake ARM once the flavors settled after a switch, before it compares
// Azure: what a switch that went wrong would have done, to show that the verdict fails on it. Written
// "<phase>:<action>:<resource type>:<name glob>[:<field>=<value> | :<new name>]", e.g.
// "switch:set:Microsoft.Compute/virtualMachines:${CLUSTER_NAME}-control-plane-*:zones=["2"]".
type Injection struct {
	// Phase is the switch after which the change is made: SwitchFirst, SwitchBack or SwitchAgain.
	Phase string
	// Action is InjectSet, InjectCopy or InjectDelete.
	Action string
	// Type is an ARM resource type; Name a glob of the resource's name as the table's rows name it (${CLUSTER_NAME}
	// for the flavor's cluster).
	Type, Name string
	// Field is the flattened path of the field InjectSet sets, as the report writes it (a list item by its name in
	// brackets, appended when the list has none of that name, or by its index).
	Field string
	// Value is InjectSet's value (JSON, or Absent) or InjectCopy's new name.
	Value string
}

// ParseInjection reads an Injection as the parity command's --inject takes it.
func ParseInjection(s string) (Injection, error) {
	parts := strings.SplitN(s, ":", 5)
	if len(parts) < 4 {
		return Injection{}, fmt.Errorf("injection %q: want <phase>:<action>:<resource type>:<name glob>[:<field>=<value> | :<new name>]", s)
	}
	in := Injection{Phase: parts[0], Action: parts[1], Type: parts[2], Name: parts[3]}
	if !slices.Contains(switchPhases, in.Phase) {
		return in, fmt.Errorf("injection %q: phase %q, want one of %s", s, in.Phase, strings.Join(switchPhases, ", "))
	}
	if !resourceTypePattern.MatchString(in.Type) {
		return in, fmt.Errorf("injection %q: %q is not an ARM resource type", s, in.Type)
	}
	rest := ""
	if len(parts) == 5 {
		rest = parts[4]
	}
	switch in.Action {
	case InjectSet:
		field, value, ok := strings.Cut(rest, "=")
		if !ok || field == "" {
			return in, fmt.Errorf("injection %q: want <field>=<value> after the name", s)
		}
		in.Field, in.Value = field, value
		if value != Absent && !json.Valid([]byte(value)) {
			return in, fmt.Errorf("injection %q: the value %q is neither JSON nor %s", s, value, Absent)
		}
		if _, err := fieldPath(field); err != nil {
			return in, fmt.Errorf("injection %q: %w", s, err)
		}
	case InjectCopy:
		if rest == "" || strings.Contains(rest, "/") {
			return in, fmt.Errorf("injection %q: want the new resource's name after the name", s)
		}
		in.Value = rest
	case InjectDelete:
		if rest != "" {
			return in, fmt.Errorf("injection %q: a deletion takes nothing after the name", s)
		}
	default:
		return in, fmt.Errorf("injection %q: action %q, want %s, %s or %s", s, in.Action, InjectSet, InjectCopy, InjectDelete)
	}
	return in, nil
}

func (in Injection) String() string {
	s := strings.Join([]string{in.Phase, in.Action, in.Type, in.Name}, ":")
	switch in.Action {
	case InjectSet:
		s += ":" + in.Field + "=" + in.Value
	case InjectCopy:
		s += ":" + in.Value
	}
	return s
}

// Apply makes the change in the flavor's resources of the fake ARM, and returns the IDs it changed, created or
// deleted.
func (in Injection) Apply(arm *fakearm.Server, f Flavor) ([]string, error) {
	var done []string
	for _, id := range arm.Resources() {
		r := switchedResource(strings.ToLower(id), f)
		if !strings.HasPrefix(strings.ToLower(id), subscriptionPrefix(f)) || !strings.EqualFold(r.Type, in.Type) || !nameMatches(in.Name, r.Name()) {
			continue
		}
		if in.Action == InjectDelete {
			if arm.Remove(id) {
				done = append(done, id)
			}
			continue
		}
		body, ok := arm.Resource(id)
		if !ok {
			continue
		}
		switch in.Action {
		case InjectSet:
			if err := setField(body, in.Field, in.Value); err != nil {
				return done, fmt.Errorf("%s: %w", id, err)
			}
			if err := arm.Seed(id, body); err != nil {
				return done, err
			}
			done = append(done, id)
		case InjectCopy:
			name := strings.ReplaceAll(in.Value, ClusterPlaceholder, f.Cluster)
			copied := id[:strings.LastIndex(id, "/")+1] + name
			for _, k := range []string{"id", "name", "etag"} {
				delete(body, k)
			}
			if err := arm.Seed(copied, body); err != nil {
				return done, err
			}
			return append(done, copied), nil
		}
	}
	return done, nil
}

// pathStep is one step of a flattened path: an object's key, or a list's item by name or index.
type pathStep struct {
	key  string
	item string
	list bool
}

// fieldPath splits a flattened path as flatten writes it: keys joined by ".", list items in brackets.
func fieldPath(field string) ([]pathStep, error) {
	var out []pathStep
	for i := 0; i < len(field); {
		switch field[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(field[i:], ']')
			if end < 0 || len(out) == 0 {
				return nil, fmt.Errorf("field %q: a list item in brackets follows a key", field)
			}
			out = append(out, pathStep{item: field[i+1 : i+end], list: true})
			i += end + 1
		default:
			end := strings.IndexAny(field[i:], ".[")
			if end < 0 {
				end = len(field) - i
			}
			out = append(out, pathStep{key: field[i : i+end]})
			i += end
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("field %q: empty", field)
	}
	return out, nil
}

// setField sets a flattened path of a body to a JSON value, or removes it (Absent), making the objects and list
// items on the way.
func setField(body map[string]any, field, value string) error {
	steps, err := fieldPath(field)
	if err != nil {
		return err
	}
	var v any
	if value != Absent {
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return err
		}
	}
	_, err = setStep(body, steps, v, value == Absent)
	return err
}

// setStep sets the rest of a path under node and returns the node (a list may grow).
func setStep(node any, steps []pathStep, v any, remove bool) (any, error) {
	st := steps[0]
	last := len(steps) == 1
	if !st.list {
		obj, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not in an object", st.key)
		}
		switch {
		case last && remove:
			delete(obj, st.key)
		case last:
			obj[st.key] = v
		default:
			next, err := setStep(orNew(obj[st.key], steps[1]), steps[1:], v, remove)
			if err != nil {
				return nil, err
			}
			obj[st.key] = next
		}
		return obj, nil
	}
	items, _ := node.([]any)
	at := -1
	for i, it := range items {
		if m, ok := it.(map[string]any); ok && m["name"] == st.item {
			at = i
		}
	}
	if n, err := strconv.Atoi(st.item); at < 0 && err == nil && n >= 0 && n < len(items) {
		at = n
	}
	if at < 0 {
		items = append(items, map[string]any{"name": st.item})
		at = len(items) - 1
	}
	switch {
	case last && remove:
		return slices.Delete(items, at, at+1), nil
	case last:
		items[at] = v
	default:
		next, err := setStep(orNew(items[at], steps[1]), steps[1:], v, remove)
		if err != nil {
			return nil, err
		}
		items[at] = next
	}
	return items, nil
}

// orNew is node, or a new object or list for the next step when there is none.
func orNew(node any, next pathStep) any {
	if node != nil {
		return node
	}
	if next.list {
		return []any{}
	}
	return map[string]any{}
}
