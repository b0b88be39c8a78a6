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
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// SideSwitch names the logs of a switch run (RunSwitch).
const SideSwitch = "switch"

// SwitchResult is what a switch from CAPZ to the provider did to Azure, by flavor.
type SwitchResult struct {
	Flavors []SwitchFlavor
}

// The switches of a run whose changes to Azure the verdict compares, in order: the switch to the provider, the way
// back to CAPZ, and the switch to the provider again.
const (
	SwitchFirst = "switch"
	SwitchBack  = "back"
	SwitchAgain = "again"
)

// switchPhases are the switches of a run, in order.
var switchPhases = []string{SwitchFirst, SwitchBack, SwitchAgain}

// SwitchPhase is what one switch did to a flavor's Azure resources.
type SwitchPhase struct {
	// Name is SwitchFirst, SwitchBack or SwitchAgain.
	Name string
	// Writes are the ARM writes from the switch until the flavors settled, as "METHOD path (status)".
	Writes []string
	// Changes are the properties whose value in Azure the switch changed.
	Changes []StateChange
	// Created and Deleted are the resources the switch created and deleted: never excused.
	Created, Deleted []string
}

// Direction is the direction of the switch as the table's rows name it.
func (p SwitchPhase) Direction() string {
	if p.Name == SwitchBack {
		return DirectionBackToCAPZ
	}
	return DirectionToOurs
}

// Title is how the report names the switch.
func (p SwitchPhase) Title() string {
	switch p.Name {
	case SwitchBack:
		return "on the way back to CAPZ"
	case SwitchAgain:
		return "after the switch again"
	}
	return "after the switch"
}

// Failed reports whether the switch created or deleted a resource, or changed a property no row of the table
// excuses.
func (p SwitchPhase) Failed() bool {
	if len(p.Created) > 0 || len(p.Deleted) > 0 {
		return true
	}
	for _, c := range p.Changes {
		if c.Excused == nil {
			return true
		}
	}
	return false
}

// SwitchFlavor is what the switches did to one flavor's Azure resources.
type SwitchFlavor struct {
	Flavor string
	// Phases are the switches compared, in order (switchPhases).
	Phases []SwitchPhase
	// Steps are what users did next under the provider (scale, upgrade, the way back, delete), as they went.
	Steps []string
	// Problems are what went wrong: a phase that did not settle, a change a user could not make, what a deleted
	// cluster left in Azure, a row of the table that excused nothing.
	Problems []string
}

// Failed reports whether any switch (to the provider, back to CAPZ, to the provider again) did anything the table
// of SwitchSection does not list: a created or deleted resource, a change no row excuses; or a problem.
func (f SwitchFlavor) Failed() bool {
	if len(f.Problems) > 0 {
		return true
	}
	for _, p := range f.Phases {
		if p.Failed() {
			return true
		}
	}
	return false
}

// StateChange is a property of an Azure resource whose value a switch changed.
type StateChange struct {
	Resource, Field string
	// Before and After are the values (JSON, Absent when the resource has no such field).
	Before, After string
	// Excused is the row of the switch's table that lists the change, if one does.
	Excused *SwitchRow
}

// RunSwitch switches the flavors from CAPZ to the provider on one management plane, as a user replaces CAPZ's
// controller: CAPZ builds every flavor on the fake ARM and settles; then, as docs/migrating-from-capz.md gives it,
// the MachineHealthChecks and Clusters are paused, the dry run reads them, CAPZ's manager is stopped and its webhook
// configurations removed, the provider's CRDs replace CAPZ's, the provider starts on the same objects and the
// Clusters are unpaused (remediation resumes once the provider has taken every flavor over). Once the
// flavors settle again (every infrastructure object Ready under the provider, Azure quiet), it reports every ARM
// write since the switch and every property of Azure that changed. CAPZ runs with every gate its flavors need.
func RunSwitch(ctx context.Context, o Options) (SwitchResult, error) {
	if err := o.CAPZ.Check(); err != nil {
		return SwitchResult{}, err
	}
	if err := ensureASOFederatedToken(o.Flavors); err != nil {
		return SwitchResult{}, err
	}
	rows, err := readSwitchTable(o.SwitchDocs)
	if err != nil {
		return SwitchResult{}, err
	}
	m := NewSwitchMatcher(rows)
	manifests := map[string][]*unstructured.Unstructured{}
	var gates []string
	for _, f := range o.Flavors {
		if manifests[f.Name], err = f.Render(filepath.Join(o.CAPZ.Src, "templates")); err != nil {
			return SwitchResult{}, err
		}
		if f.CAPZFeatureGates != "" {
			gates = append(gates, f.CAPZFeatureGates)
		}
	}
	capz := o.CAPZ
	capz.FeatureGates = strings.Join(append([]string{capz.FeatureGates}, gates...), ",")
	start := time.Now()
	s, err := startSideRetrying(ctx, o, SideSwitch, &capz)
	defer func() {
		if s != nil {
			if err := s.stop(); err != nil {
				o.Logf("%s: failed to stop: %v", SideSwitch, err)
			}
		}
	}()
	if err != nil {
		return SwitchResult{}, err
	}
	for _, f := range o.Flavors {
		if err := s.apply(ctx, f, manifests[f.Name]); err != nil {
			return SwitchResult{}, err
		}
	}
	o.Logf("%s: CAPZ builds %d flavors (%s)", SideSwitch, len(o.Flavors), time.Since(start).Round(time.Second))
	built := waitSettled(ctx, o, s, nil)
	if err := s.addHealthChecks(ctx, o.Flavors); err != nil {
		return SwitchResult{}, err
	}

	// The switch as docs/migrating-from-capz.md gives it (procedure.go): what the dry run finds that would block it
	// is a problem of the flavor.
	before := snapshot(s.arm)
	mark := len(s.arm.Requests())
	o.Logf("%s: switching to the provider (%s)", SideSwitch, time.Since(start).Round(time.Second))
	switched := time.Now()
	dryRun, err := s.switchFromCAPZ(ctx, o)
	if err != nil {
		return SwitchResult{}, err
	}
	adopted := waitSettled(ctx, o, s, s.notAdopted)
	o.Logf("%s: the provider settled (%s after the switch)", SideSwitch, time.Since(switched).Round(time.Second))
	if err := s.resumeRemediation(ctx, o.Flavors); err != nil {
		return SwitchResult{}, err
	}
	result := SwitchResult{}
	for _, f := range o.Flavors {
		sf := SwitchFlavor{Flavor: f.Name, Problems: dryRun[f.Name]}
		sf.settled("CAPZ", built[f.Name], o.Timeout)
		sf.settled("the provider after the switch", adopted[f.Name], o.Timeout)
		result.Flavors = append(result.Flavors, sf)
	}
	s.comparePhase(o, &result, m, SwitchFirst, before, mark)

	// What users do next, under the provider.
	underOurs := func(ctx context.Context, f Flavor) string {
		if state := s.notAdopted(ctx, f); state != "" {
			return state
		}
		return s.rolledOut(ctx, f, true)
	}
	for _, step := range lifecycleSteps {
		s.runStep(ctx, o, &result, step.phase, func(f Flavor) error { return step.do(ctx, s, f) }, underOurs)
	}

	// The way back to CAPZ, and forward again.
	before, mark = snapshot(s.arm), len(s.arm.Requests())
	o.Logf("%s: switching back to CAPZ (%s)", SideSwitch, time.Since(start).Round(time.Second))
	if err := s.switchToCAPZ(ctx, &capz); err != nil {
		return result, err
	}
	// CAPZ must be running the flavors again: each infrastructure object ready under CAPZ, besides rolled out.
	underCAPZ := func(ctx context.Context, f Flavor) string {
		if state := s.notCAPZs(ctx, f); state != "" {
			return state
		}
		return s.rolledOut(ctx, f, false)
	}
	back := waitSettled(ctx, o, s, notBefore(time.Now(), o.Quiet, underCAPZ))
	for i, f := range o.Flavors {
		result.Flavors[i].settled("CAPZ after the way back", back[f.Name], o.Timeout)
	}
	s.comparePhase(o, &result, m, SwitchBack, before, mark)

	before, mark = snapshot(s.arm), len(s.arm.Requests())
	o.Logf("%s: switching to the provider again (%s)", SideSwitch, time.Since(start).Round(time.Second))
	if dryRun, err = s.switchFromCAPZ(ctx, o); err != nil {
		return result, err
	}
	for i, f := range o.Flavors {
		result.Flavors[i].Problems = append(result.Flavors[i].Problems, dryRun[f.Name]...)
	}
	s.runStep(ctx, o, &result, "the switch again", func(Flavor) error { return nil }, underOurs)
	if err := s.resumeRemediation(ctx, o.Flavors); err != nil {
		return result, err
	}
	s.comparePhase(o, &result, m, SwitchAgain, before, mark)
	// Every switch is compared: a row that excused nothing in a flavor it names is wrong.
	for i, f := range o.Flavors {
		result.Flavors[i].Problems = append(result.Flavors[i].Problems, m.Stale(f.Name)...)
	}

	// Deleting the clusters leaves nothing in Azure but what existed before them, and all of that.
	for i, f := range o.Flavors {
		sf := &result.Flavors[i]
		if err := s.deleteCluster(ctx, f, o.Timeout); err != nil {
			sf.Problems = append(sf.Problems, err.Error())
			continue
		}
		if left := s.leftovers(f); len(left) > 0 {
			sf.Problems = append(sf.Problems, "left in Azure after the Cluster's deletion: "+strings.Join(left, ", "))
		}
		if lost := s.lost(f); len(lost) > 0 {
			sf.Problems = append(sf.Problems, "the Cluster's deletion deleted or changed what the user brought: "+strings.Join(lost, ", "))
		}
		sf.Steps = append(sf.Steps, "deleted: nothing left in Azure")
		if len(f.Brought) > 0 {
			sf.Steps = append(sf.Steps, fmt.Sprintf("deleted: the %d resources the user brought are still in Azure, as the user made them", len(f.Brought)))
		}
	}
	if err := saveRequests(o.LogDir, s); err != nil {
		o.Logf("%s: failed to save the ARM requests: %v", SideSwitch, err)
	}
	ReportSwitch(o.Out, result)
	return result, nil
}

// runStep makes a change to every flavor and waits until they settle again, noting in each flavor's result how it
// went.
func (s *side) runStep(ctx context.Context, o Options, result *SwitchResult, name string, do func(Flavor) error, awaited func(context.Context, Flavor) string) {
	start := time.Now()
	o.Logf("%s: %s", SideSwitch, name)
	failed := map[string]bool{}
	for i, f := range o.Flavors {
		if err := do(f); err != nil {
			result.Flavors[i].Problems = append(result.Flavors[i].Problems, fmt.Sprintf("%s: %v", name, err))
			failed[f.Name] = true
		}
	}
	settled := waitSettled(ctx, o, s, notBefore(start, o.Quiet, awaited))
	for i, f := range o.Flavors {
		sf := &result.Flavors[i]
		if failed[f.Name] {
			continue
		}
		if sf.settled(name, settled[f.Name], o.Timeout) {
			sf.Steps = append(sf.Steps, fmt.Sprintf("%s: settled (%s)", name, time.Since(start).Round(time.Second)))
		}
	}
}

// notBefore makes a flavor wait, besides what awaited tells, until the quiet period has passed since a change
// (start): Azure may have been quiet for long when the change is made, before the controllers react to it.
func notBefore(start time.Time, quiet time.Duration, awaited func(context.Context, Flavor) string) func(context.Context, Flavor) string {
	return func(ctx context.Context, f Flavor) string {
		if time.Since(start) < quiet {
			return fmt.Sprintf("waiting %s after the change", quiet)
		}
		return awaited(ctx, f)
	}
}

// settled notes a phase that did not settle as a problem, and reports whether it settled.
func (f *SwitchFlavor) settled(phase string, p progress, timeout time.Duration) bool {
	if !p.settled {
		f.Problems = append(f.Problems, fmt.Sprintf("%s: not settled in %s: %s", phase, timeout, p.state))
	}
	return p.settled
}

// subscriptionPrefix is the start of the IDs of a flavor's resources, in lower case.
func subscriptionPrefix(f Flavor) string {
	return strings.ToLower("/subscriptions/" + f.Subscription + "/")
}

// flavorWrites are the ARM writes of a flavor among requests, as "METHOD path (status)".
func flavorWrites(requests []fakearm.Request, f Flavor) []string {
	var out []string
	for _, w := range requests {
		if w.Method != "GET" && w.Method != "HEAD" && strings.HasPrefix(strings.ToLower(w.Path), subscriptionPrefix(f)) {
			out = append(out, fmt.Sprintf("%s %s (%d)", w.Method, w.Path, w.Status))
		}
	}
	return out
}

// startSideRetrying starts a side; a start can overrun its timeouts on a busy machine, so it gets a second chance.
// On error, the side returned (if any) holds what started, for stop.
func startSideRetrying(ctx context.Context, o Options, name string, capz *CAPZ) (*side, error) {
	start := time.Now()
	for attempt := 1; ; attempt++ {
		s, err := startSide(ctx, name, capz, o.LogDir, o.Logger)
		if err == nil {
			o.Logf("%s: running (%s)", name, time.Since(start).Round(time.Second))
			return s, nil
		}
		if s != nil {
			_ = s.stop()
		}
		if attempt == 2 || ctx.Err() != nil {
			return nil, err
		}
		o.Logf("%s: failed to start, trying again: %v", name, err)
	}
}

// comparePhase compares what a switch (SwitchFirst, SwitchBack or SwitchAgain) did to every flavor, once the flavors
// settled after it: the changes Options.Inject asks for are made first, then Azure is compared with before, the
// snapshot taken before the switch, and the ARM writes since mark are listed.
func (s *side) comparePhase(o Options, result *SwitchResult, m *SwitchMatcher, phase string, before map[string]map[string]any, mark int) {
	for _, in := range o.Inject {
		if in.Phase != phase {
			continue
		}
		for _, f := range o.Flavors {
			done, err := in.Apply(s.arm, f)
			if err != nil {
				o.Logf("%s: failed to inject %s into %s: %v", SideSwitch, in, f.Name, err)
			}
			for _, id := range done {
				o.Logf("%s: injected %s: %s", SideSwitch, in, id)
			}
		}
	}
	after := snapshot(s.arm)
	requests := s.arm.Requests()[mark:]
	for i, f := range o.Flavors {
		sf := &result.Flavors[i]
		sf.Phases = append(sf.Phases, phaseVerdict(phase, before, after, requests, f, m))
	}
}

// phaseVerdict is what a switch did to a flavor: its ARM writes, and its changes to Azure judged by the table.
func phaseVerdict(phase string, before, after map[string]map[string]any, requests []fakearm.Request, f Flavor, m *SwitchMatcher) SwitchPhase {
	p := SwitchPhase{Name: phase, Writes: flavorWrites(requests, f)}
	p.Changes, p.Created, p.Deleted = stateChanges(before, after, f, m, p.Direction())
	return p
}

// snapshot is every resource of the fake ARM as a GET answers it, by ID in lower case.
func snapshot(arm *fakearm.Server) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, id := range arm.Resources() {
		if r, ok := arm.Resource(id); ok {
			out[strings.ToLower(id)] = r
		}
	}
	return out
}

// volatile reports whether a field changes without a change of the resource: the etag of a resource or of a child
// listed in it, which every write renews, and the provisioning state, which tells how far Azure's last operation
// got.
func volatile(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	return last == "etag" || last == "provisioningState"
}

// presentLeaves are a resource's leaves without empty lists and objects: an empty list sent and one left out mean
// the same to Azure (no data disks, no backend pools).
func presentLeaves(body map[string]any) map[string]string {
	out := flatten(body)
	for path, v := range out {
		if v == "[]" || v == "{}" {
			delete(out, path)
		}
	}
	return out
}

// stateChanges compares the resources of a flavor's subscription before and after a switch in a direction
// (DirectionToOurs, DirectionBackToCAPZ): the properties that changed, and the resources created and deleted. A
// change is excused when a row of the switch's table names the direction, the flavor, the resource, the field and
// both values; a created or deleted resource never is.
func stateChanges(before, after map[string]map[string]any, f Flavor, m *SwitchMatcher, direction string) (changes []StateChange, created, deleted []string) {
	prefix := subscriptionPrefix(f)
	for id, b := range before {
		if !strings.HasPrefix(id, prefix) {
			continue
		}
		a, ok := after[id]
		if !ok {
			deleted = append(deleted, id)
			continue
		}
		fb, fa := presentLeaves(b), presentLeaves(a)
		for _, path := range unionKeys(fb, fa) {
			vb, inB := fb[path]
			va, inA := fa[path]
			if (inB && inA && vb == va) || volatile(path) {
				continue
			}
			c := StateChange{Resource: id, Field: path, Before: Absent, After: Absent}
			if inB {
				c.Before = vb
			}
			if inA {
				c.After = va
			}
			if row, ok := m.Excuse(direction, f.Name, switchedResource(id, f), path, c.Before, c.After); ok {
				c.Excused = &row
			}
			changes = append(changes, c)
		}
	}
	for id := range after {
		if _, ok := before[id]; !ok && strings.HasPrefix(id, prefix) {
			created = append(created, id)
		}
	}
	sort.Strings(created)
	sort.Strings(deleted)
	sort.Slice(changes, func(i, j int) bool {
		if changes[i].Resource != changes[j].Resource {
			return changes[i].Resource < changes[j].Resource
		}
		return changes[i].Field < changes[j].Field
	})
	return changes, created, deleted
}

// switchedResource is the resource of an ID of a flavor's subscription as the rows name it: a PUT, with the
// cluster's name replaced by ClusterPlaceholder.
func switchedResource(id string, f Flavor) Resource {
	return Resource{Method: "PUT", Type: armnorm.ResourceType(id), ID: strings.ReplaceAll(id, strings.ToLower(f.Cluster), ClusterPlaceholder)}
}

func unionKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ReportSwitch prints what each switch did to each flavor: its ARM writes, the resources it created and deleted and
// the properties it changed, each with the row of the switch's table that excuses it or NOT IN THE TABLE.
func ReportSwitch(w io.Writer, r SwitchResult) {
	for _, f := range r.Flavors {
		verdict := "changed nothing the table of " + strconv.Quote(SwitchSection) + " does not list"
		if f.Failed() {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "\n== %s: the switch from CAPZ %s %s\n", f.Flavor, CAPZVersion, verdict)
		for _, p := range f.Problems {
			fmt.Fprintf(w, "  problem: %s\n", p)
		}
		for i, p := range f.Phases {
			printPhase(w, p)
			if i == 0 {
				for _, st := range f.Steps {
					fmt.Fprintf(w, "  then %s\n", st)
				}
			}
		}
	}
}

// printPhase prints a switch's ARM writes, the resources it created and deleted and the properties it changed.
func printPhase(w io.Writer, p SwitchPhase) {
	verdict := ""
	if p.Failed() {
		verdict = ": FAILED"
	}
	fmt.Fprintf(w, "  %d ARM writes %s%s\n", len(p.Writes), p.Title(), verdict)
	for _, wr := range p.Writes {
		fmt.Fprintf(w, "    %s\n", wr)
	}
	for _, id := range p.Created {
		fmt.Fprintf(w, "  CREATED %s %s\n", p.Title(), id)
	}
	for _, id := range p.Deleted {
		fmt.Fprintf(w, "  DELETED %s %s\n", p.Title(), id)
	}
	resource := ""
	for _, c := range p.Changes {
		if c.Resource != resource {
			resource = c.Resource
			fmt.Fprintf(w, "  %s\n", resource)
		}
		why := "NOT IN THE TABLE"
		if c.Excused != nil {
			why = fmt.Sprintf("listed (docs/migrating-from-capz.md line %d)", c.Excused.Line)
		}
		fmt.Fprintf(w, "    %s: %s -> %s  [%s]\n", c.Field, shorten(c.Before), shorten(c.After), why)
	}
}

// shorten keeps a long value readable in the report.
func shorten(v string) string {
	if len(v) > 120 {
		return v[:117] + "..."
	}
	return v
}

// infrastructureKinds are the provider's kinds whose Ready condition tells that it reconciled a flavor.
var infrastructureKinds = []string{
	"AzureCluster", "AzureMachine", "AzureMachinePool", "AzureManagedControlPlane", "AzureManagedCluster",
	"AzureManagedMachinePool", "AzureASOManagedCluster", "AzureASOManagedControlPlane", "AzureASOManagedMachinePool",
}

// notAdopted tells what keeps a flavor from being the provider's after the switch: an infrastructure object whose
// Ready condition the provider has not written True for its generation (CAPZ's conditions have no
// observedGeneration); "" once every one is.
func (s *side) notAdopted(ctx context.Context, f Flavor) string {
	waiting, err := s.infrastructureWhere(ctx, f, func(o unstructured.Unstructured) bool { return !readyFor(o) })
	if err != nil {
		return err.Error()
	}
	if len(waiting) == 0 {
		return ""
	}
	return "not Ready under the provider: " + strings.Join(waiting, ", ")
}

// infrastructureWhere names, as "Kind name", the infrastructure objects of a flavor (infrastructureKinds) that match.
func (s *side) infrastructureWhere(ctx context.Context, f Flavor, match func(unstructured.Unstructured) bool) ([]string, error) {
	var out []string
	for _, kind := range infrastructureKinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
		list.SetKind(kind + "List")
		if err := s.reader.List(ctx, list, client.InNamespace(f.Namespace())); err != nil {
			return nil, fmt.Errorf("cannot list %s: %w", kind, err)
		}
		for _, o := range list.Items {
			if match(o) {
				out = append(out, kind+" "+o.GetName())
			}
		}
	}
	return out, nil
}

// readyFor reports whether an object's Ready condition is True for its generation.
func readyFor(o unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Ready" {
			continue
		}
		gen, _, _ := unstructured.NestedInt64(m, "observedGeneration")
		return m["status"] == "True" && gen == o.GetGeneration()
	}
	return false
}
