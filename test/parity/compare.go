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
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
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

// The fields a resource's writes have besides their bodies' (they cannot be a body's: no body field starts with "(").
const (
	// FieldAPIVersion is the api-versions a side's writes of the resource used, sorted.
	FieldAPIVersion = "(api-version)"
	// FieldStatus is what Azure answered a side's writes of the resource: the status of the first, then every error
	// status (300 or more) of the others, sorted (a repeated write's 200 where the first created is not a
	// difference: each side's writes are compared as a set).
	FieldStatus = "(status)"
	// FieldOrder is the order of the names of a list of named objects, whose items are compared by name.
	FieldOrder = "(order)"
)

// OrderOfDeletes is the resource type of the difference between the orders in which the sides deleted the resources
// both deleted.
const OrderOfDeletes = "(order of deletes)"

// ResourceDiff is how one resource's writes compare.
type ResourceDiff struct {
	Resource Resource
	Status   Status
	// Fields are the fields whose values differ, by path (StatusDiffers only).
	Fields []FieldDiff
	// Writes are how many distinct bodies each side sent.
	CAPZWrites, OurWrites int
	// OnlyStatuses are the statuses of the writes of the side that alone wrote the resource (StatusOnlyCAPZ,
	// StatusOnlyOurs), as FieldStatus gives them: a row of the whole resource may allow only some.
	OnlyStatuses []string
}

// FieldDiff is a field whose values differ between the sides.
type FieldDiff struct {
	// Path is the field's path as flatten writes it: properties.probes[HTTPSProbe].properties.port, tags.Name, or
	// FieldAPIVersion, FieldStatus.
	Path string
	// CAPZ and Ours are the values each side sent, as JSON, sorted, Absent for a body without the field.
	CAPZ, Ours []string
}

// Compare matches the normalized writes of CAPZ and ours resource by resource (method and ID). Each side's bodies for a
// resource are a set: a field differs when the set of values it takes in CAPZ's bodies is not the set it takes in
// ours. The api-versions and statuses of the writes compare as FieldAPIVersion and FieldStatus, and the order of the
// deletes of resources both sides delete as a resource of type OrderOfDeletes. The result is sorted by resource
// type, then ID, then method.
func Compare(capz, ours []Write) []ResourceDiff {
	type sides struct {
		capz, ours []map[string]string
		// capzWrites and ourWrites are every write of the resource, in order.
		capzWrites, ourWrites []Write
	}
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
			s.ourWrites = append(s.ourWrites, w)
		} else {
			s.capz = appendDistinct(s.capz, flat)
			s.capzWrites = append(s.capzWrites, w)
		}
	}
	for _, w := range capz {
		add(w, false)
	}
	for _, w := range ours {
		add(w, true)
	}
	out := make([]ResourceDiff, 0, len(byResource)+1)
	for r, s := range byResource {
		d := ResourceDiff{Resource: r, CAPZWrites: len(s.capz), OurWrites: len(s.ours)}
		switch {
		case len(s.ours) == 0:
			d.Status, d.OnlyStatuses = StatusOnlyCAPZ, statuses(s.capzWrites)
		case len(s.capz) == 0:
			d.Status, d.OnlyStatuses = StatusOnlyOurs, statuses(s.ourWrites)
		default:
			d.Fields = diffFields(s.capz, s.ours)
			d.Fields = append(d.Fields, diffWrites(s.capzWrites, s.ourWrites)...)
			sort.Slice(d.Fields, func(i, j int) bool { return d.Fields[i].Path < d.Fields[j].Path })
			d.Status = StatusEqual
			if len(d.Fields) > 0 {
				d.Status = StatusDiffers
			}
		}
		out = append(out, d)
	}
	if d, ok := compareDeleteOrder(capz, ours); ok {
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

// diffWrites compares the api-versions and statuses of a resource's writes.
func diffWrites(capz, ours []Write) []FieldDiff {
	var out []FieldDiff
	for _, f := range []struct {
		path   string
		values func([]Write) []string
	}{{FieldAPIVersion, apiVersions}, {FieldStatus, statuses}} {
		c, o := f.values(capz), f.values(ours)
		if !slices.Equal(c, o) {
			out = append(out, FieldDiff{Path: f.path, CAPZ: c, Ours: o})
		}
	}
	return out
}

// apiVersions are the distinct api-versions of writes, sorted, as JSON strings.
func apiVersions(writes []Write) []string {
	var out []string
	for _, w := range writes {
		v := canonical(w.APIVersion)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// statuses are the status of the first write and the error statuses of the others, distinct and sorted.
func statuses(writes []Write) []string {
	var out []string
	for i, w := range writes {
		v := strconv.Itoa(w.Status)
		if (i == 0 || w.Status >= 300) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// compareDeleteOrder compares the orders in which the sides first deleted the resources both deleted; ok when they
// differ.
func compareDeleteOrder(capz, ours []Write) (ResourceDiff, bool) {
	capzOrder, ourOrder := deleteOrder(capz), deleteOrder(ours)
	var c, o []Resource
	for _, r := range capzOrder {
		if slices.Contains(ourOrder, r) {
			c = append(c, r)
		}
	}
	for _, r := range ourOrder {
		if slices.Contains(capzOrder, r) {
			o = append(o, r)
		}
	}
	if !reordered(c, o) {
		return ResourceDiff{}, false
	}
	names := func(rs []Resource) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = fmt.Sprintf("%d. %s", i+1, r)
		}
		return out
	}
	return ResourceDiff{
		Resource: Resource{Method: "DELETE", Type: OrderOfDeletes},
		Status:   StatusDiffers,
		Fields:   []FieldDiff{{Path: FieldOrder, CAPZ: names(c), Ours: names(o)}},
	}, true
}

// machineName finds the name of a machine (a generated name, <group>-*) in a normalized ID.
var machineName = regexp.MustCompile(`\$\{CLUSTER_NAME\}-[^/]*?-\*`)

// reordered says whether two orders of the same resources put two resources whose order counts (ordered) the other
// way round.
func reordered(capz, ours []Resource) bool {
	for i, a := range capz {
		for _, b := range capz[i+1:] {
			if ordered(a, b) && slices.Index(ours, a) > slices.Index(ours, b) {
				return true
			}
		}
	}
	return false
}

// ordered says whether two resources must be deleted in the same order on both sides: always, unless they are two
// machines' resources or two siblings. Cluster API deletes a phase's machines concurrently, on both sides, and which
// machine's resources Azure hears of first is timing; a machine's own resources, and a machine's and the cluster's,
// keep their order. Siblings (child resources of one type under one parent: a managed cluster's maintenance
// configurations) are ASO objects of their own that its workers delete concurrently; neither depends on the other.
func ordered(a, b Resource) bool {
	if siblings(a, b) {
		return false
	}
	ma, mb := machineName.FindString(a.ID), machineName.FindString(b.ID)
	return ma == "" || mb == "" || ma == mb
}

// siblings says whether two resources are child resources of the same type under the same parent resource (not
// two top-level resources of one resource group).
func siblings(a, b Resource) bool {
	parent := func(r Resource) string {
		segments := strings.Split(r.ID, "/")
		if strings.Count(r.Type, "/") < 2 || len(segments) < 2 {
			return ""
		}
		return strings.Join(segments[:len(segments)-2], "/")
	}
	p := parent(a)
	return p != "" && strings.EqualFold(a.Type, b.Type) && p == parent(b)
}

// deleteOrder is the resources a side deleted, in the order of their first DELETE.
func deleteOrder(writes []Write) []Resource {
	var out []Resource
	for _, w := range writes {
		if w.Resource.Method == "DELETE" && !slices.Contains(out, w.Resource) {
			out = append(out, w.Resource)
		}
	}
	return out
}

func appendDistinct(bodies []map[string]string, body map[string]string) []map[string]string {
	for _, b := range bodies {
		if maps.Equal(b, body) {
			return bodies
		}
	}
	return append(bodies, body)
}

// diffFields lists the fields whose sets of values differ, sorted by path.
func diffFields(capz, ours []map[string]string) []FieldDiff {
	paths := map[string]bool{}
	for _, bodies := range [][]map[string]string{capz, ours} {
		for _, b := range bodies {
			for p := range b {
				paths[p] = true
			}
		}
	}
	var out []FieldDiff
	for p := range paths {
		c, o := valuesAt(capz, p), valuesAt(ours, p)
		if !slices.Equal(c, o) {
			out = append(out, FieldDiff{Path: p, CAPZ: c, Ours: o})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// valuesAt is the sorted set of values a field takes in bodies.
func valuesAt(bodies []map[string]string, path string) []string {
	set := map[string]bool{}
	for _, b := range bodies {
		if v, ok := b[path]; ok {
			set[v] = true
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

// flatten turns a body into its values (JSON) by path. An object's fields are joined with "."; a list of objects that
// all have distinct names is keyed by name (properties.probes[HTTPSProbe]), with the names' order as the field
// FieldOrder of the list; any other list of objects by index in the order sent ([0]); a list of scalars, and an empty
// list or object, is one value, in the order sent.
func flatten(body map[string]any) map[string]string {
	out := map[string]string{}
	flattenInto(body, "", out)
	return out
}

func flattenInto(v any, path string, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && path != "" {
			out[path] = "{}"
		}
		for k, child := range t {
			if path == "" {
				flattenInto(child, k, out)
			} else {
				flattenInto(child, path+"."+k, out)
			}
		}
	case []any:
		if len(t) == 0 {
			out[path] = "[]"
			return
		}
		if names, ok := distinctNames(t); ok {
			for i, item := range t {
				flattenInto(item, path+"["+names[i]+"]", out)
			}
			if len(names) > 1 {
				out[path+"."+FieldOrder] = canonical(names)
			}
			return
		}
		scalars := true
		for _, item := range t {
			switch item.(type) {
			case map[string]any, []any:
				scalars = false
			}
		}
		if scalars {
			out[path] = canonical(t)
			return
		}
		for i, item := range t {
			flattenInto(item, fmt.Sprintf("%s[%d]", path, i), out)
		}
	default:
		out[path] = canonical(t)
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
