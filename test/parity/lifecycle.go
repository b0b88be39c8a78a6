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
	"maps"
	"strings"
	"time"
)

// SidePhase is what one side did in a phase of the lifecycle after creation: the ARM requests of the flavor's
// subscription from the phase's change until it settled, and whether it settled.
type SidePhase struct {
	Name     string
	Requests []Request
	Settled  bool
	State    string
}

// lifecycleSteps are the changes make parity makes to every flavor after creation (and steady state), on both sides
// alike, each until the flavors settle again; the deletion of the clusters (PhaseDelete) comes last.
var lifecycleSteps = []struct {
	phase string
	do    func(context.Context, *side, Flavor) error
}{
	{PhaseScaleOut, func(ctx context.Context, s *side, f Flavor) error { return s.scale(ctx, f, 1) }},
	{PhaseScaleIn, func(ctx context.Context, s *side, f Flavor) error { return s.scale(ctx, f, -1) }},
	{PhaseUpgrade, func(ctx context.Context, s *side, f Flavor) error { return s.upgrade(ctx, f, UpgradeVersion) }},
}

// runLifecycle runs the lifecycle after creation on a side: each of lifecycleSteps, then the deletion of every
// Cluster at once. Each phase's requests go to the flavor's SideFlavor.Lifecycle, and the names of the machines
// each phase made to its Names.
func (s *side) runLifecycle(ctx context.Context, o Options, result *SideResult) {
	record := func(phase string, marks map[string]int, settled func(Flavor) (bool, string)) {
		for _, f := range o.Flavors {
			sf := result.Flavors[f.Name]
			ok, state := settled(f)
			sf.Lifecycle = append(sf.Lifecycle, SidePhase{Name: phase, Requests: s.requests(f.Subscription)[marks[f.Name]:], Settled: ok, State: state})
			result.Flavors[f.Name] = sf
		}
	}
	for _, step := range lifecycleSteps {
		o.Logf("%s: %s", s.name, step.phase)
		start, marks := time.Now(), s.marks(o.Flavors)
		failed := map[string]error{}
		for _, f := range o.Flavors {
			if err := step.do(ctx, s, f); err != nil {
				failed[f.Name] = err
			}
		}
		progress := waitSettled(ctx, o, s, notBefore(start, o.Quiet, func(ctx context.Context, f Flavor) string { return s.rolledOut(ctx, f, true) }))
		s.rec.endPhase(step.phase, start)
		s.addNames(ctx, o, result)
		record(step.phase, marks, func(f Flavor) (bool, string) {
			if err := failed[f.Name]; err != nil {
				return false, err.Error()
			}
			return progress[f.Name].settled, progress[f.Name].state
		})
	}

	o.Logf("%s: deleting every Cluster", s.name)
	marks := s.marks(o.Flavors)
	deleteErr := s.rec.deleteAll(ctx, o.Timeout)
	quiet := s.waitQuiet(ctx, o)
	record(PhaseDelete, marks, func(f Flavor) (bool, string) {
		if _, gone := s.rec.deletedAt(f); !gone {
			return false, fmt.Sprintf("the Cluster was not deleted: %v", deleteErr)
		}
		if lost := s.lost(f); len(lost) > 0 {
			return false, "the Cluster's deletion deleted or changed what the user brought: " + strings.Join(lost, ", ")
		}
		return quiet[f.Name], "deleted"
	})
}

// marks are how many ARM requests of each flavor's subscription the side has received: where a phase's start.
func (s *side) marks(flavors []Flavor) map[string]int {
	out := map[string]int{}
	for _, f := range flavors {
		out[f.Name] = len(s.requests(f.Subscription))
	}
	return out
}

// addNames adds the names of the machines a phase made to each flavor's names, which keep those of machines since
// deleted: the requests of every phase are normalized with them.
func (s *side) addNames(ctx context.Context, o Options, result *SideResult) {
	for _, f := range o.Flavors {
		names, err := s.names(ctx, f)
		if err != nil {
			o.Logf("%s: %v", s.name, err)
			continue
		}
		sf := result.Flavors[f.Name]
		if sf.Names == nil {
			sf.Names = map[string]string{}
		}
		maps.Copy(sf.Names, names)
		result.Flavors[f.Name] = sf
	}
}

// waitQuiet waits until no flavor's subscription received a write for the quiet period, or the timeout; it reports
// which flavors became quiet.
func (s *side) waitQuiet(ctx context.Context, o Options) map[string]bool {
	deadline := time.Now().Add(o.Timeout)
	for {
		quiet := map[string]bool{}
		all := true
		for _, f := range o.Flavors {
			last, _ := s.lastWrite(f.Subscription)
			quiet[f.Name] = time.Since(last) >= o.Quiet
			all = all && quiet[f.Name]
		}
		if all || time.Now().After(deadline) || ctx.Err() != nil {
			return quiet
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}
