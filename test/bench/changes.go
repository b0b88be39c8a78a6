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

package bench

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// changedKinds are the kinds whose every write the benchmark explains, field by field: one object per unit.
func changedKinds() []client.Object {
	return []client.Object{&infrav1.AzureMachine{}, &infrav1exp.AzureMachinePoolMachine{}, &infrav1.AzureManagedMachinePool{}}
}

// keepManagedFields keeps the managedFields of changedKinds in the observer's cache: they tell who wrote.
func keepManagedFields() map[client.Object]cache.ByObject {
	out := map[client.Object]cache.ByObject{}
	for _, obj := range changedKinds() {
		out[obj] = cache.ByObject{Transform: func(in any) (any, error) { return in, nil }}
	}
	return out
}

// changeLog records, for every update of an object of changedKinds the benchmark sees, which fields changed and
// which field manager wrote: the "why" behind the writes the audit log counts.
type changeLog struct {
	mu      sync.Mutex
	changes []change
}

type change struct {
	at     time.Time
	kind   string
	writer string
	fields string
}

func startChangeLog(ctx context.Context, c cache.Cache) (*changeLog, error) {
	l := &changeLog{}
	for _, obj := range changedKinds() {
		informer, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, err
		}
		kind := fmt.Sprintf("%T", obj)[strings.LastIndex(fmt.Sprintf("%T", obj), ".")+1:]
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			UpdateFunc: func(before, after any) { l.observe(kind, before, after) },
		}); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *changeLog) observe(kind string, before, after any) {
	b, bok := before.(client.Object)
	a, aok := after.(client.Object)
	if !bok || !aok || b.GetResourceVersion() == a.GetResourceVersion() {
		return // a resync, not a write
	}
	bu, err1 := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	au, err2 := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	if err1 != nil || err2 != nil {
		return
	}
	fields := changedFields(bu, au)
	c := change{at: time.Now(), kind: kind, writer: writers(b.GetManagedFields(), a.GetManagedFields()), fields: strings.Join(fields, ", ")}
	if c.fields == "" {
		c.fields = "(no field changed)"
	}
	l.mu.Lock()
	l.changes = append(l.changes, c)
	l.mu.Unlock()
}

// ChangeCount is how many writes of a kind by one field manager changed one set of fields.
type ChangeCount struct {
	Kind   string `json:"kind"`
	Writer string `json:"writer"`
	Fields string `json:"fields"`
	Count  int    `json:"count"`
}

// between counts the changes seen in [from, to), most frequent first.
func (l *changeLog) between(from, to time.Time) []ChangeCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	counts := map[ChangeCount]int{}
	for _, c := range l.changes {
		if !c.at.Before(from) && c.at.Before(to) {
			counts[ChangeCount{Kind: c.kind, Writer: c.writer, Fields: c.fields}]++
		}
	}
	out := make([]ChangeCount, 0, len(counts))
	for k, n := range counts {
		k.Count = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Writer+out[i].Fields < out[j].Writer+out[j].Fields
	})
	return out
}

// writers names the field managers whose entries a write changed: manager (operation[, subresource]).
func writers(before, after []metav1.ManagedFieldsEntry) string {
	key := func(e metav1.ManagedFieldsEntry) string {
		s := e.Manager + " (" + strings.ToLower(string(e.Operation))
		if e.Subresource != "" {
			s += " " + e.Subresource
		}
		return s + ")"
	}
	old := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range before {
		old[key(e)] = e
	}
	var out []string
	for _, e := range after {
		prev, ok := old[key(e)]
		if !ok || !reflect.DeepEqual(prev.FieldsV1, e.FieldsV1) || !prev.Time.Equal(e.Time) {
			out = append(out, key(e))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		// A manager's entry keeps its time (seconds) and fields when it writes the same fields twice in a second.
		return "unattributed (same fields, same second)"
	}
	return strings.Join(out, " + ")
}

// changedFields lists what differs between two versions of an object: metadata keys, spec fields, status fields,
// conditions by type and status.resources by kind.
func changedFields(before, after map[string]any) []string {
	var out []string
	bm, _ := before["metadata"].(map[string]any)
	am, _ := after["metadata"].(map[string]any)
	for _, f := range []string{"labels", "annotations"} {
		bl, _ := bm[f].(map[string]any)
		al, _ := am[f].(map[string]any)
		for _, k := range unionKeys(bl, al) {
			if !reflect.DeepEqual(bl[k], al[k]) {
				out = append(out, fmt.Sprintf("metadata.%s[%s]", f, k))
			}
		}
	}
	for _, f := range []string{"finalizers", "ownerReferences", "deletionTimestamp"} {
		if !reflect.DeepEqual(bm[f], am[f]) {
			out = append(out, "metadata."+f)
		}
	}
	bs, _ := before["spec"].(map[string]any)
	as, _ := after["spec"].(map[string]any)
	for _, k := range unionKeys(bs, as) {
		if !reflect.DeepEqual(bs[k], as[k]) {
			out = append(out, "spec."+k)
		}
	}
	bst, _ := before["status"].(map[string]any)
	ast, _ := after["status"].(map[string]any)
	for _, k := range unionKeys(bst, ast) {
		if reflect.DeepEqual(bst[k], ast[k]) {
			continue
		}
		switch k {
		case "conditions":
			out = append(out, listChanges("status.conditions", bst[k], ast[k], func(m map[string]any) string {
				return fmt.Sprint(m["type"])
			}, "lastTransitionTime")...)
		case "resources":
			out = append(out, listChanges("status.resources", bst[k], ast[k], func(m map[string]any) string {
				r, _ := m["resource"].(map[string]any)
				return fmt.Sprint(r["kind"])
			})...)
		default:
			out = append(out, "status."+k)
		}
	}
	return dedupe(out)
}

// listChanges compares two lists of objects by a key and names the keys whose items differ, with the fields that
// changed; ignored fields change along with others and are left out.
func listChanges(path string, before, after any, keyOf func(map[string]any) string, ignored ...string) []string {
	index := func(list any) map[string]map[string]any {
		out := map[string]map[string]any{}
		items, _ := list.([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				out[keyOf(m)] = m
			}
		}
		return out
	}
	b, a := index(before), index(after)
	var out []string
	for _, k := range unionKeys(b, a) {
		switch {
		case b[k] == nil:
			out = append(out, fmt.Sprintf("%s[%s] added", path, k))
		case a[k] == nil:
			out = append(out, fmt.Sprintf("%s[%s] removed", path, k))
		default:
			var fields []string
			for _, f := range unionKeys(b[k], a[k]) {
				if !reflect.DeepEqual(b[k][f], a[k][f]) && !slices.Contains(ignored, f) {
					fields = append(fields, f)
				}
			}
			if len(fields) > 0 {
				out = append(out, fmt.Sprintf("%s[%s].%s", path, k, strings.Join(fields, "+")))
			}
		}
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return sortedKeys(seen)
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
