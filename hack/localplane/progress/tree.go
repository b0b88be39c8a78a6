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

package progress

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Status is how a row is doing.
type Status int

const (
	// Unknown: the object has no condition to tell yet.
	Unknown Status = iota
	// Progressing: not there yet, without a terminal failure.
	Progressing
	// OK: Ready (or Available).
	OK
	// Failed: a terminal failure, which needs a change to recover.
	Failed
)

// Row is a line of the tree: an object, or the summary of the ASO objects of one owner.
type Row struct {
	// Label is the kind and name, e.g. "Cluster default/capz-sample" or "ASO objects".
	Label string
	// State is the phase or the ready count, e.g. "Provisioned", "1/1 ready".
	State string
	// Status is the state of the Ready (or Available) condition.
	Status Status
	// Message is the first failing message when the row is not OK; for OK ASO summaries, the kinds.
	Message string
	// Children are the rows under this one.
	Children []*Row
}

const (
	clusterGroup      = "cluster.x-k8s.io"
	asoGroupSuffix    = ".azure.com"
	controlPlaneLabel = clusterGroup + "/control-plane"
	deploymentLabel   = clusterGroup + "/deployment-name"
	// failedReason is the reason the provider gives a terminal failure (ASO's severity Error).
	failedReason = "Failed"
)

// Build makes one tree per Cluster among objs (sorted by namespace and name), from the Cluster's references, the
// machines, machine deployments and machine pools naming it, and the ASO objects (any *.azure.com kind) controlled
// by its objects. objs must carry apiVersion and kind.
func Build(objs []unstructured.Unstructured) []*Row {
	idx := newIndex(objs)
	var rows []*Row
	for _, c := range idx.of(clusterGroup, "Cluster") {
		rows = append(rows, idx.clusterRow(c))
	}
	return rows
}

// index finds objects by kind and name, and ASO objects by their controller.
type index struct {
	byKind  map[schema.GroupKind][]*unstructured.Unstructured
	byKey   map[objectKey]*unstructured.Unstructured
	asoByOf map[objectKey][]*unstructured.Unstructured
}

type objectKey struct {
	gk              schema.GroupKind
	namespace, name string
}

func keyOf(obj *unstructured.Unstructured) objectKey {
	return objectKey{obj.GroupVersionKind().GroupKind(), obj.GetNamespace(), obj.GetName()}
}

func newIndex(objs []unstructured.Unstructured) *index {
	idx := &index{
		byKind:  map[schema.GroupKind][]*unstructured.Unstructured{},
		byKey:   map[objectKey]*unstructured.Unstructured{},
		asoByOf: map[objectKey][]*unstructured.Unstructured{},
	}
	for i := range objs {
		obj := &objs[i]
		k := keyOf(obj)
		idx.byKind[k.gk] = append(idx.byKind[k.gk], obj)
		idx.byKey[k] = obj
		if !strings.HasSuffix(k.gk.Group, asoGroupSuffix) {
			continue
		}
		for _, ref := range obj.GetOwnerReferences() {
			if ref.Controller != nil && *ref.Controller {
				gv, _ := schema.ParseGroupVersion(ref.APIVersion)
				owner := objectKey{schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, obj.GetNamespace(), ref.Name}
				idx.asoByOf[owner] = append(idx.asoByOf[owner], obj)
			}
		}
	}
	for _, list := range idx.byKind {
		sort.Slice(list, func(i, j int) bool { return keyLess(keyOf(list[i]), keyOf(list[j])) })
	}
	return idx
}

func keyLess(a, b objectKey) bool {
	if a.namespace != b.namespace {
		return a.namespace < b.namespace
	}
	return a.name < b.name
}

// of lists the objects of a kind, sorted by namespace and name.
func (idx *index) of(group, kind string) []*unstructured.Unstructured {
	return idx.byKind[schema.GroupKind{Group: group, Kind: kind}]
}

// ref finds the object a Cluster API reference ({apiGroup, kind, name}) at fields names, in namespace.
func (idx *index) ref(obj *unstructured.Unstructured, fields ...string) (objectKey, *unstructured.Unstructured, bool) {
	ref, ok, _ := unstructured.NestedMap(obj.Object, fields...)
	if !ok {
		return objectKey{}, nil, false
	}
	group, _ := ref["apiGroup"].(string)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if kind == "" || name == "" {
		return objectKey{}, nil, false
	}
	k := objectKey{schema.GroupKind{Group: group, Kind: kind}, obj.GetNamespace(), name}
	return k, idx.byKey[k], true
}

// ofCluster lists the objects of a kind whose spec.clusterName is the cluster's.
func (idx *index) ofCluster(group, kind string, cluster *unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, obj := range idx.of(group, kind) {
		if obj.GetNamespace() == cluster.GetNamespace() && str(obj, "spec", "clusterName") == cluster.GetName() {
			out = append(out, obj)
		}
	}
	return out
}

func (idx *index) clusterRow(c *unstructured.Unstructured) *Row {
	row := objectRow("Cluster "+c.GetNamespace()+"/"+c.GetName(), c, str(c, "status", "phase"))
	if k, infra, ok := idx.ref(c, "spec", "infrastructureRef"); ok {
		row.Children = append(row.Children, idx.infraRow(k, infra))
	}
	machines := idx.ofCluster(clusterGroup, "Machine", c)
	placed := map[*unstructured.Unstructured]bool{}
	if k, cp, ok := idx.ref(c, "spec", "controlPlaneRef"); ok {
		cpRow := idx.controlPlaneRow(k, cp)
		for _, m := range machines {
			if _, isCP := m.GetLabels()[controlPlaneLabel]; isCP {
				cpRow.Children = append(cpRow.Children, idx.machineRow(m))
				placed[m] = true
			}
		}
		row.Children = append(row.Children, cpRow)
	}
	for _, md := range idx.ofCluster(clusterGroup, "MachineDeployment", c) {
		mdRow := objectRow("MachineDeployment "+md.GetName(), md, replicas(md))
		for _, m := range machines {
			if !placed[m] && m.GetLabels()[deploymentLabel] == md.GetName() {
				mdRow.Children = append(mdRow.Children, idx.machineRow(m))
				placed[m] = true
			}
		}
		row.Children = append(row.Children, mdRow)
	}
	for _, mp := range idx.ofCluster(clusterGroup, "MachinePool", c) {
		mpRow := objectRow("MachinePool "+mp.GetName(), mp, replicas(mp))
		if k, _, ok := idx.ref(mp, "spec", "template", "spec", "infrastructureRef"); ok {
			mpRow.Children = idx.appendASO(mpRow.Children, k)
		}
		row.Children = append(row.Children, mpRow)
	}
	for _, m := range machines {
		if !placed[m] {
			row.Children = append(row.Children, idx.machineRow(m))
		}
	}
	return row
}

// infraRow is the infrastructure cluster and its ASO objects.
func (idx *index) infraRow(k objectKey, infra *unstructured.Unstructured) *Row {
	if infra == nil {
		return missingRow(k)
	}
	state := "provisioning"
	if b, _, _ := unstructured.NestedBool(infra.Object, "status", "initialization", "provisioned"); b {
		state = "provisioned"
	}
	row := objectRow(k.gk.Kind+" "+k.name, infra, state)
	row.Children = idx.appendASO(row.Children, k)
	return row
}

// controlPlaneRow is the control plane, with its replicas if it has machines, and its ASO objects.
func (idx *index) controlPlaneRow(k objectKey, cp *unstructured.Unstructured) *Row {
	if cp == nil {
		return missingRow(k)
	}
	state := "not initialized"
	if b, _, _ := unstructured.NestedBool(cp.Object, "status", "initialization", "controlPlaneInitialized"); b {
		state = "initialized"
	}
	if r := replicas(cp); r != "" {
		state += ", " + r
	}
	row := objectRow(k.gk.Kind+" "+k.name, cp, state)
	row.Children = idx.appendASO(row.Children, k)
	return row
}

// machineRow is a Machine and the ASO objects of its infrastructure machine.
func (idx *index) machineRow(m *unstructured.Unstructured) *Row {
	row := objectRow("Machine "+m.GetName(), m, str(m, "status", "phase"))
	if k, _, ok := idx.ref(m, "spec", "infrastructureRef"); ok {
		row.Children = idx.appendASO(row.Children, k)
	}
	return row
}

// missingRow stands for a referenced object that does not exist (yet).
func missingRow(k objectKey) *Row {
	return &Row{Label: k.gk.Kind + " " + k.name, State: "not found", Status: Unknown, Message: "not created yet"}
}

// appendASO appends the summary of the ASO objects owner controls, if it has any.
func (idx *index) appendASO(rows []*Row, owner objectKey) []*Row {
	objs := idx.asoByOf[owner]
	if len(objs) == 0 {
		return rows
	}
	return append(rows, asoRow(objs))
}

// asoRow summarises ASO objects: how many are Ready and, if some are not, the first failing one (a terminal
// failure first); if all are, their kinds.
func asoRow(objs []*unstructured.Unstructured) *Row {
	sorted := append([]*unstructured.Unstructured(nil), objs...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].GetKind() != sorted[j].GetKind() {
			return sorted[i].GetKind() < sorted[j].GetKind()
		}
		return sorted[i].GetName() < sorted[j].GetName()
	})
	ready := 0
	row := &Row{Label: "ASO objects", Status: OK}
	var kinds []string
	count := map[string]int{}
	for _, obj := range sorted {
		if count[obj.GetKind()] == 0 {
			kinds = append(kinds, obj.GetKind())
		}
		count[obj.GetKind()]++
		status, msg := asoStatus(obj)
		if status == OK {
			ready++
			continue
		}
		if row.Status == OK || (status == Failed && row.Status != Failed) {
			row.Status, row.Message = status, obj.GetKind()+" "+obj.GetName()+": "+msg
		}
	}
	row.State = fmt.Sprintf("%d/%d ready", ready, len(sorted))
	if row.Status == OK {
		parts := make([]string, len(kinds))
		for i, kind := range kinds {
			parts[i] = kind
			if count[kind] > 1 {
				parts[i] = fmt.Sprintf("%s×%d", kind, count[kind])
			}
		}
		row.Message = strings.Join(parts, ", ")
	}
	return row
}

// asoStatus reads ASO's Ready condition: not Ready while it describes an older generation; severity Error is
// terminal.
func asoStatus(obj *unstructured.Unstructured) (Status, string) {
	if obj.GetDeletionTimestamp() != nil {
		return Progressing, "deleting"
	}
	c := condition(obj, "Ready")
	generation, _ := number(obj.Object, "metadata", "generation")
	switch {
	case c == nil:
		return Unknown, "waiting for ASO"
	case c.observedGeneration < generation:
		return Progressing, fmt.Sprintf("waiting for ASO to reconcile generation %d", generation)
	case c.status == "True":
		return OK, ""
	case c.severity == "Error":
		return Failed, c.text()
	default:
		return Progressing, c.text()
	}
}

// objectRow is a Cluster API or provider object: its state and its Ready (or, for Cluster API's kinds without
// one, Available) condition.
func objectRow(label string, obj *unstructured.Unstructured, state string) *Row {
	row := &Row{Label: label, State: state}
	if obj.GetDeletionTimestamp() != nil {
		row.State = "Deleting"
	}
	c := condition(obj, "Ready", "Available")
	switch {
	case c == nil:
		row.Status = Unknown
	case c.status == "True":
		row.Status = OK
	case c.reason == failedReason || c.severity == "Error":
		row.Status, row.Message = Failed, c.text()
	default:
		row.Status, row.Message = Progressing, c.text()
	}
	return row
}

// replicas is "<ready>/<desired> ready" for objects with spec.replicas, or "".
func replicas(obj *unstructured.Unstructured) string {
	desired, ok := number(obj.Object, "spec", "replicas")
	if !ok {
		return ""
	}
	ready, _ := number(obj.Object, "status", "readyReplicas")
	return fmt.Sprintf("%d/%d ready", ready, desired)
}

// number reads an integer field, whether it was decoded as an integer (from a typed object) or as a float (from
// JSON or YAML without a scheme).
func number(obj map[string]any, fields ...string) (int64, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// cond is the part of a condition the view shows.
type cond struct {
	status, reason, message, severity string
	observedGeneration                int64
}

// condition finds the first of the condition types in status.conditions or else, for lack of any, among the
// v1beta1 conditions Cluster API keeps in status.deprecated.v1beta1.conditions (a MachinePool of Cluster API v1.14
// reports Ready only there).
func condition(obj *unstructured.Unstructured, types ...string) *cond {
	for _, fields := range [][]string{{"status", "conditions"}, {"status", "deprecated", "v1beta1", "conditions"}} {
		for _, t := range types {
			if c := findCondition(obj, t, fields...); c != nil {
				return c
			}
		}
	}
	return nil
}

func findCondition(obj *unstructured.Unstructured, conditionType string, fields ...string) *cond {
	list, _, _ := unstructured.NestedSlice(obj.Object, fields...)
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok || m["type"] != conditionType {
			continue
		}
		c := &cond{}
		c.status, _ = m["status"].(string)
		c.reason, _ = m["reason"].(string)
		c.message, _ = m["message"].(string)
		c.severity, _ = m["severity"].(string)
		c.observedGeneration, _ = number(m, "observedGeneration")
		return c
	}
	return nil
}

// text is the condition's message on one line (Cluster API's messages are bulleted lists), or its reason.
func (c *cond) text() string {
	var b strings.Builder
	for _, line := range strings.Split(c.message, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "* "))
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if strings.HasSuffix(b.String(), ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
	}
	if b.Len() == 0 {
		return c.reason
	}
	return b.String()
}

func str(obj *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(obj.Object, fields...)
	return s
}
