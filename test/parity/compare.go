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
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Status is how a resource's writes compare.
type Status string

const (
	// StatusEqual: both sides sent the same set of bodies.
	StatusEqual Status = "equal"
	// StatusDiffers: both sides wrote the resource, and some fields took other values.
	StatusDiffers Status = "differs"
	// StatusOnlyCAPZ and StatusOnlyOurs: one side never wrote the resource.
	StatusOnlyCAPZ Status = "only CAPZ"
	StatusOnlyOurs Status = "only ours"
)

// Absent stands for a field a body does not have.
const Absent = "(absent)"

// ResourceDiff is how one resource's writes compare.
type ResourceDiff struct {
	Resource Resource
	Status   Status
	// Fields are the fields whose values differ, by path (StatusDiffers only).
	Fields []FieldDiff
	// Writes are how many distinct bodies each side sent.
	CAPZWrites, OurWrites int
}

// FieldDiff is a field whose values differ between the sides.
type FieldDiff struct {
	// Path is the field's JSON path; a list item is named by its name ([allow_ssh]) or, without one, by its rank in
	// the list's sorted items ([0]).
	Path string
	// DocPath is the path as docs/capz-parity.md writes it: [] for every list item.
	DocPath string
	// CAPZ and Ours are the values each side sent, as JSON, sorted, Absent for a body without the field.
	CAPZ, Ours []string
}

// Compare matches the normalized writes of CAPZ and ours resource by resource (method and ID). Each side's bodies for a
// resource are a set: a field differs when the set of values it takes in CAPZ's bodies is not the set it takes in
// ours. The result is sorted by resource type, then ID, then method.
func Compare(capz, ours []Write) []ResourceDiff {
	type sides struct{ capz, ours []map[string]leaf }
	byResource := map[Resource]*sides{}
	add := func(w Write, mine bool) {
		s := byResource[w.Resource]
		if s == nil {
			s = &sides{}
			byResource[w.Resource] = s
		}
		flat := flatten(w.Body)
		if mine {
			s.ours = appendDistinct(s.ours, flat)
		} else {
			s.capz = appendDistinct(s.capz, flat)
		}
	}
	for _, w := range capz {
		add(w, false)
	}
	for _, w := range ours {
		add(w, true)
	}
	out := make([]ResourceDiff, 0, len(byResource))
	for r, s := range byResource {
		d := ResourceDiff{Resource: r, CAPZWrites: len(s.capz), OurWrites: len(s.ours)}
		switch {
		case len(s.ours) == 0:
			d.Status = StatusOnlyCAPZ
		case len(s.capz) == 0:
			d.Status = StatusOnlyOurs
		default:
			d.Fields = diffFields(s.capz, s.ours)
			d.Status = StatusEqual
			if len(d.Fields) > 0 {
				d.Status = StatusDiffers
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Resource, out[j].Resource
		if !strings.EqualFold(a.Type, b.Type) {
			return strings.ToLower(a.Type) < strings.ToLower(b.Type)
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Method < b.Method
	})
	return out
}

// leaf is a flattened field: its path as documented and its value as JSON.
type leaf struct{ doc, value string }

func appendDistinct(bodies []map[string]leaf, body map[string]leaf) []map[string]leaf {
	for _, b := range bodies {
		if equalLeaves(b, body) {
			return bodies
		}
	}
	return append(bodies, body)
}

func equalLeaves(a, b map[string]leaf) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// diffFields lists the fields whose sets of values differ, sorted by path.
func diffFields(capz, ours []map[string]leaf) []FieldDiff {
	paths := map[string]string{}
	for _, bodies := range [][]map[string]leaf{capz, ours} {
		for _, b := range bodies {
			for p, l := range b {
				paths[p] = l.doc
			}
		}
	}
	var out []FieldDiff
	for p, doc := range paths {
		c, o := valuesAt(capz, p), valuesAt(ours, p)
		if strings.Join(c, "\x00") != strings.Join(o, "\x00") {
			out = append(out, FieldDiff{Path: p, DocPath: doc, CAPZ: c, Ours: o})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// valuesAt is the sorted set of values a field takes in bodies.
func valuesAt(bodies []map[string]leaf, path string) []string {
	set := map[string]bool{}
	for _, b := range bodies {
		if l, ok := b[path]; ok {
			set[l.value] = true
		} else {
			set[Absent] = true
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// flatten turns a body into its leaves by path. An object's fields are joined with "."; a list of objects that all
// have distinct names is keyed by name, any other list of objects by rank once sorted (so that order never
// matters); a list of scalars, and an empty list or object, is one leaf.
func flatten(body map[string]any) map[string]leaf {
	out := map[string]leaf{}
	flattenInto(body, "", "", out)
	return out
}

func flattenInto(v any, path, doc string, out map[string]leaf) {
	join := func(prefix, key string) string {
		if prefix == "" {
			return key
		}
		return prefix + "." + key
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && path != "" {
			out[path] = leaf{doc, "{}"}
		}
		for k, child := range t {
			flattenInto(child, join(path, k), join(doc, k), out)
		}
	case []any:
		if len(t) == 0 {
			out[path] = leaf{doc, "[]"}
			return
		}
		if names, ok := distinctNames(t); ok {
			for i, item := range t {
				flattenInto(item, path+"["+names[i]+"]", doc+"[]", out)
			}
			return
		}
		items := make([]string, len(t))
		scalars := true
		for i, item := range t {
			items[i] = canonical(item)
			switch item.(type) {
			case map[string]any, []any:
				scalars = false
			}
		}
		if scalars {
			sorted := append([]string(nil), items...)
			sort.Strings(sorted)
			out[path] = leaf{doc, "[" + strings.Join(sorted, ",") + "]"}
			return
		}
		order := make([]int, len(t))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return items[order[a]] < items[order[b]] })
		for rank, i := range order {
			flattenInto(t[i], fmt.Sprintf("%s[%d]", path, rank), doc+"[]", out)
		}
	default:
		out[path] = leaf{doc, canonical(t)}
	}
}

// distinctNames returns the names of a list's items when every item is an object with a distinct, non-empty name.
func distinctNames(items []any) ([]string, bool) {
	names := make([]string, len(items))
	seen := map[string]bool{}
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		name, _ := m["name"].(string)
		if name == "" || seen[name] {
			return nil, false
		}
		seen[name] = true
		names[i] = name
	}
	return names, true
}

// canonical is a value's JSON with sorted keys (encoding/json sorts map keys) and numbers as written.
func canonical(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// docPathPattern finds a list item's name or rank in a path.
var docPathPattern = regexp.MustCompile(`\[[^\]]*\]`)

// DocPath writes a path as docs/capz-parity.md does: [] for every list item.
func DocPath(path string) string {
	return docPathPattern.ReplaceAllString(path, "[]")
}
