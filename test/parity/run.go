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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// Options configure Run.
type Options struct {
	CAPZ    CAPZ
	Flavors []Flavor
	// Docs is docs/capz-parity.md, whose table of deliberate differences documents differences.
	Docs string
	// SwitchDocs is docs/migrating-from-capz.md, whose table of SwitchSection is what RunSwitch's verdict reads.
	SwitchDocs string
	// Inject are changes RunSwitch makes in the fake ARM after a switch, before comparing Azure: for the tests of
	// the verdict, which must fail on each.
	Inject []Injection
	// LogDir receives the logs of both sides and the ARM requests each received.
	LogDir string
	// Timeout bounds the wait for the flavors to settle; Quiet is how long Azure must receive no write of a flavor
	// for it to have settled; Steady is how long each side then runs on in steady state, measured (metrics.go).
	Timeout, Quiet, Steady time.Duration
	// Delete deletes every flavor's Cluster at once once steady state is over, measured (PhaseDelete).
	Delete bool
	// Lifecycle runs, after creation and steady state, the lifecycle of every flavor on both sides (lifecycleSteps:
	// scale out, scale in, upgrade, then the deletion of every Cluster at once), and compares each phase's writes as
	// creation's.
	Lifecycle bool
	// Out receives the report; Logf the progress.
	Out    io.Writer
	Logf   func(format string, args ...any)
	Logger logr.Logger
	// SideCommand is the command that runs one side (RunSide) in a process of its own: SideCAPZ or SideOurs, under a
	// name for its logs, for some flavors, with CAPZ's extra feature gates, writing its result to resultFile. Its
	// output goes to this process's standard error.
	SideCommand func(side SideProcess, resultFile string) *exec.Cmd
}

// SideProcess is one process of a run: a side (SideCAPZ or SideOurs) for some flavors. CAPZ runs once per set of
// feature gates its flavors need.
type SideProcess struct {
	Side, Name       string
	Flavors          []Flavor
	CAPZFeatureGates string
}

// sideProcesses are the processes of a run: ours for every flavor, CAPZ once per set of feature gates.
func sideProcesses(flavors []Flavor) []SideProcess {
	out := []SideProcess{{Side: SideOurs, Name: SideOurs, Flavors: flavors}}
	byGates := map[string]int{}
	for _, f := range flavors {
		i, ok := byGates[f.CAPZFeatureGates]
		if !ok {
			name := SideCAPZ
			if f.CAPZFeatureGates != "" {
				gates := strings.Split(f.CAPZFeatureGates, ",")
				for j := range gates {
					gates[j], _, _ = strings.Cut(gates[j], "=")
				}
				name += "+" + strings.Join(gates, "+")
			}
			i = len(out)
			byGates[f.CAPZFeatureGates] = i
			out = append(out, SideProcess{Side: SideCAPZ, Name: name, CAPZFeatureGates: f.CAPZFeatureGates})
		}
		out[i].Flavors = append(out[i].Flavors, f)
	}
	return out
}

// Result is what a run found.
type Result struct {
	Undocumented []Undocumented
	Problems     []string
}

// SideResult is what one side's process (RunSide) hands to the comparison.
type SideResult struct {
	Side    string
	Flavors map[string]SideFlavor
	Metrics *SideMetrics `json:",omitempty"`
}

// SideFlavor is one flavor on one side: the ARM requests of its subscription until it settled after creation, its
// generated names, whether it settled, and, with Options.Lifecycle, the same of each later phase.
type SideFlavor struct {
	Requests  []Request
	Names     map[string]string
	Settled   bool
	State     string
	Lifecycle []SidePhase `json:",omitempty"`
}

// Run compares CAPZ's and the provider's ARM requests for the flavors (see the package documentation) and prints the
// report. Each side runs in a process of its own (Cluster API's controllers cannot run twice in one process).
func Run(ctx context.Context, o Options) (Result, error) {
	if err := o.CAPZ.Check(); err != nil {
		return Result{}, err
	}
	if err := ensureASOFederatedToken(o.Flavors); err != nil {
		return Result{}, err
	}
	deliberate, note, err := readDeliberate(o.Docs)
	if err != nil {
		return Result{}, err
	}
	for _, f := range o.Flavors {
		objs, err := f.Render(filepath.Join(o.CAPZ.Src, "templates"))
		if err != nil {
			return Result{}, err
		}
		o.Logf("Rendered flavor %s from CAPZ %s: %s", f.Name, CAPZVersion, kinds(objs))
	}

	start := time.Now()
	// flavors are the results by side (SideCAPZ, SideOurs) and flavor.
	flavors := map[string]map[string]SideFlavor{SideCAPZ: {}, SideOurs: {}}
	metrics := newRunMetrics(ctx, o)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []error
	// The processes start one after the other: starting API servers, ASO and the managers at once on a busy machine
	// overruns their timeouts.
	for _, p := range sideProcesses(o.Flavors) {
		wg.Add(1)
		running := make(chan struct{})
		go func() {
			defer wg.Done()
			result, err := runSideProcess(o, p, running)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for name, f := range result.Flavors {
				flavors[p.Side][name] = f
			}
			metrics.add(p, result.Metrics)
		}()
		select {
		case <-running:
		case <-ctx.Done():
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	o.Logf("Both sides done (%s); comparing", time.Since(start).Round(time.Second))

	var results []FlavorResult
	for _, f := range o.Flavors {
		results = append(results, compareFlavor(f, flavors[SideCAPZ], flavors[SideOurs], o.Timeout)...)
	}
	if note != "" {
		fmt.Fprintln(o.Out, note)
	}
	undocumented, problems := Report(o.Out, results, deliberate)
	if err := metrics.report(o); err != nil {
		problems = append(problems, "performance figures: "+err.Error())
	}
	return Result{Undocumented: undocumented, Problems: problems}, nil
}

// compareFlavor compares both sides' writes for a flavor: creation's, then each later phase's (Options.Lifecycle) in
// the order the sides ran them. A side without the flavor or a phase, or one that did not settle, is a problem.
func compareFlavor(f Flavor, capz, ours map[string]SideFlavor, timeout time.Duration) []FlavorResult {
	sides := map[string]SideFlavor{}
	phases := []string{PhaseCreate}
	for name, results := range map[string]map[string]SideFlavor{SideCAPZ: capz, SideOurs: ours} {
		sf, ok := results[f.Name]
		if !ok {
			continue
		}
		sides[name] = sf
		for _, p := range sf.Lifecycle {
			if !slices.Contains(phases, p.Name) {
				phases = append(phases, p.Name)
			}
		}
	}
	slices.SortStableFunc(phases, func(a, b string) int { return slices.Index(phaseOrder, a) - slices.Index(phaseOrder, b) })
	var out []FlavorResult
	for _, phase := range phases {
		r := FlavorResult{Flavor: f.Name, Cluster: f.Cluster, Phase: phase}
		writes := map[string][]Write{}
		for _, name := range []string{SideCAPZ, SideOurs} {
			sf, ok := sides[name]
			if !ok {
				r.Problems = append(r.Problems, fmt.Sprintf("the %s side has no result for the flavor", name))
				continue
			}
			requests, settled, state, ran := sf.Requests, sf.Settled, sf.State, true
			var earlier []Request
			if phase != PhaseCreate {
				i := slices.IndexFunc(sf.Lifecycle, func(p SidePhase) bool { return p.Name == phase })
				ran = i >= 0
				if ran {
					requests, settled, state = sf.Lifecycle[i].Requests, sf.Lifecycle[i].Settled, sf.Lifecycle[i].State
					earlier = slices.Clone(sf.Requests)
					for _, p := range sf.Lifecycle[:i] {
						earlier = append(earlier, p.Requests...)
					}
				}
			}
			switch {
			case !ran:
				r.Problems = append(r.Problems, fmt.Sprintf("the %s side did not run the phase", name))
				continue
			case !settled:
				r.Problems = append(r.Problems, fmt.Sprintf("the %s side did not settle in %s: %s", name, timeout, state))
			}
			n := Normalizer{Names: sf.Names, KeepGUIDs: keepGUIDs(f), Earlier: earlier}
			w, err := n.Writes(requests)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("the %s side: %v", name, err))
			}
			writes[name] = w
		}
		r.Diffs = Compare(writes[SideCAPZ], writes[SideOurs])
		out = append(out, r)
	}
	return out
}

// runSideProcess runs one side in a process of its own and reads its result. It closes running once the side runs
// (its running marker appeared) or has ended. The command's own context (o.SideCommand) stops it.
func runSideProcess(o Options, p SideProcess, running chan<- struct{}) (SideResult, error) {
	name := p.Name
	resultFile := filepath.Join(o.LogDir, name+"-result.json")
	cmd := o.SideCommand(p, resultFile)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute
	if err := cmd.Start(); err != nil {
		close(running)
		return SideResult{}, fmt.Errorf("failed to start the %s side: %w", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-exited:
			close(running)
			waiting = false
			exited = nil
		case <-time.After(time.Second):
			if _, statErr := os.Stat(runningMarker(resultFile)); statErr == nil {
				close(running)
				err = <-exited
				waiting = false
			}
		}
	}
	if err != nil {
		return SideResult{}, fmt.Errorf("the %s side failed: %w (logs: %s)", name, err, o.LogDir)
	}
	raw, err := os.ReadFile(resultFile)
	if err != nil {
		return SideResult{}, fmt.Errorf("the %s side left no result: %w", name, err)
	}
	var r SideResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return SideResult{}, fmt.Errorf("failed to read the %s side's result %s: %w", name, resultFile, err)
	}
	return r, nil
}

// RunSide runs one side (SideCAPZ or SideOurs) under a name for its logs: it starts its management plane, applies
// every flavor, waits until they settle (or the timeout), and writes what the comparison needs to resultFile.
func RunSide(ctx context.Context, o Options, kind, name, resultFile string) error {
	var capz *CAPZ
	switch kind {
	case SideCAPZ:
		if err := o.CAPZ.Check(); err != nil {
			return err
		}
		capz = &o.CAPZ
	case SideOurs:
	default:
		return fmt.Errorf("no side %q (%s or %s)", kind, SideCAPZ, SideOurs)
	}
	manifests := map[string][]*unstructured.Unstructured{}
	for _, f := range o.Flavors {
		objs, err := f.Render(filepath.Join(o.CAPZ.Src, "templates"))
		if err != nil {
			return err
		}
		manifests[f.Name] = objs
	}
	start := time.Now()
	s, err := startSideRetrying(ctx, o, name, capz)
	defer func() {
		if s == nil {
			return
		}
		if err := s.stop(); err != nil {
			o.Logf("%s: failed to stop: %v", name, err)
		}
	}()
	if err != nil {
		return err
	}
	if err := os.WriteFile(runningMarker(resultFile), nil, 0o600); err != nil {
		return err
	}
	s.rec = newRecorder(s, o.Flavors)
	for _, f := range o.Flavors {
		s.rec.applying(f)
		if err := s.apply(ctx, f, manifests[f.Name]); err != nil {
			return err
		}
	}
	o.Logf("%s: applied %d flavors (%s)", name, len(o.Flavors), time.Since(start).Round(time.Second))
	progress := waitSettled(ctx, o, s, nil)
	s.rec.endPhase(PhaseCreate, start)
	result := SideResult{Side: name, Flavors: map[string]SideFlavor{}}
	for _, f := range o.Flavors {
		names, err := s.names(ctx, f)
		if err != nil {
			return err
		}
		p := progress[f.Name]
		result.Flavors[f.Name] = SideFlavor{Requests: s.requests(f.Subscription), Names: names, Settled: p.settled, State: p.state}
	}
	if o.Steady > 0 {
		o.Logf("%s: settled; steady state for %s", name, o.Steady)
		steadyStart := time.Now()
		s.rec.steady(ctx, o.Steady)
		s.rec.endPhase(PhaseSteady, steadyStart)
	}
	switch {
	case o.Lifecycle:
		s.runLifecycle(ctx, o, &result)
	case o.Delete:
		o.Logf("%s: deleting every Cluster", name)
		if err := s.rec.deleteAll(ctx, o.Timeout); err != nil {
			o.Logf("%s: %v", name, err)
		}
	}
	if err := saveRequests(o.LogDir, s); err != nil {
		o.Logf("%s: failed to save the ARM requests: %v", name, err)
	}
	if result.Metrics, err = s.rec.result(o.LogDir, name); err != nil {
		o.Logf("%s: %v", name, err)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return err
	}
	o.Logf("%s: done (%s)", name, time.Since(start).Round(time.Second))
	return os.WriteFile(resultFile, raw, 0o600)
}

// readDeliberate reads the table of deliberate differences; a file or section not written yet documents nothing,
// which the note says.
func readDeliberate(path string) (Deliberates, string, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Sprintf("%s does not exist: no difference is documented.", path), nil
	}
	if err != nil {
		return nil, "", err
	}
	if !strings.Contains(string(raw), DeliberateSection+"\n") {
		return nil, fmt.Sprintf("%s has no section %q: no difference is documented.", path, DeliberateSection), nil
	}
	ds, err := ParseDeliberate(raw)
	if err != nil {
		return nil, "", fmt.Errorf("failed to read the deliberate differences of %s: %w", path, err)
	}
	return ds, "", nil
}

// readSwitchTable reads the table of what a switch changes in Azure (SwitchSection).
func readSwitchTable(path string) (SwitchRows, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rows, err := ParseSwitchTable(raw)
	if err != nil {
		return nil, fmt.Errorf("failed to read the table of what a switch changes of %s: %w", path, err)
	}
	return rows, nil
}

// keepGUIDs are the GUIDs that mean the same on both sides: the flavor's subscription, the tenant and client, and
// Azure's built-in role definitions.
func keepGUIDs(f Flavor) []string {
	return append([]string{f.Subscription, asoSubscription, TenantID, ClientID}, fakearm.BuiltInRoleIDs()...)
}

// runningMarker is the file a side's process writes once the side runs.
func runningMarker(resultFile string) string { return resultFile + ".running" }

// waitSettled waits until every flavor has settled on a side, or the timeout, logging what changes. awaited, when
// set, tells what else a flavor waits for ("" when nothing).
func waitSettled(ctx context.Context, o Options, s *side, awaited func(context.Context, Flavor) string) map[string]progress {
	deadline := time.Now().Add(o.Timeout)
	last := map[string]string{}
	for {
		out := map[string]progress{}
		all := true
		for _, f := range o.Flavors {
			p := s.progressOf(ctx, f, o.Quiet)
			if s.rec != nil {
				s.rec.observe(ctx, f)
			}
			if p.settled && awaited != nil {
				if state := awaited(ctx, f); state != "" {
					p = progress{state: state}
				}
			}
			out[f.Name] = p
			all = all && p.settled
			// Counts of writes change all the time; log a flavor when what it waits for changes.
			summary := p.state
			if p.writing {
				summary = "writing"
			}
			if last[f.Name] != summary {
				o.Logf("%s: %-14s %s", s.name, f.Name, p.state)
				last[f.Name] = summary
			}
		}
		if all || time.Now().After(deadline) || ctx.Err() != nil {
			return out
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// saveRequests writes a side's ARM requests, as received, to <side>-arm-requests.json.
func saveRequests(dir string, s *side) error {
	type entry struct {
		Method, Path, APIVersion, UserAgent string
		Status                              int
		Time                                time.Time
		Body                                json.RawMessage `json:",omitempty"`
	}
	var entries []entry
	for _, r := range s.arm.Requests() {
		e := entry{Method: r.Method, Path: r.Path, APIVersion: r.APIVersion, UserAgent: r.UserAgent, Status: r.Status, Time: r.Time}
		if json.Valid(r.Body) {
			e.Body = r.Body
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.Before(entries[j].Time) })
	raw, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, s.name+"-arm-requests.json"), raw, 0o600)
}
