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
	"fmt"
	"io"
	"strings"
)

// FlavorResult is the comparison of one flavor in one phase (PhaseCreate, or one of the lifecycle's).
type FlavorResult struct {
	Flavor, Cluster, Phase string
	Diffs                  []ResourceDiff
	// Problems make the comparison incomplete: a side that did not settle, an object that was not created. Each
	// fails the run.
	Problems []string
}

// Undocumented is a difference the table of deliberate differences does not hold.
type Undocumented struct {
	Flavor, Phase string
	Resource      Resource
	// Field is the field's path, or WholeResource for a resource only one side writes.
	Field string
}

func (u Undocumented) String() string {
	return fmt.Sprintf("%s: %s %s", flavorPhase(u.Flavor, u.Phase), u.Resource, u.Field)
}

// flavorPhase names a flavor and, after creation, the phase.
func flavorPhase(flavor, phase string) string {
	if phase == "" || phase == PhaseCreate {
		return flavor
	}
	return flavor + " (" + phase + ")"
}

// maxValue bounds a value in the report.
const maxValue = 160

// Report prints each flavor resource by resource (equal, or each differing field with both sides' values and the row
// that excuses it), a summary per flavor, every undocumented difference, and the stale rows: those that excused
// nothing in a flavor they name that ran. It returns the undocumented differences, and the problems with the stale
// rows among them (each fails the run).
func Report(w io.Writer, results []FlavorResult, ds Deliberates) ([]Undocumented, []string) {
	m := NewMatcher(ds)
	var undocumented []Undocumented
	var problems, ran []string
	for _, r := range results {
		ran = append(ran, r.Flavor)
		if r.Phase == "" || r.Phase == PhaseCreate {
			fmt.Fprintf(w, "\n== flavor %s (cluster %s)\n", r.Flavor, r.Cluster)
		} else {
			fmt.Fprintf(w, "\n== flavor %s (cluster %s): %s\n", r.Flavor, r.Cluster, r.Phase)
		}
		counts := map[Status]int{}
		before := len(undocumented)
		note := func(row Deliberate, ok bool, field string, d ResourceDiff) string {
			if ok {
				return fmt.Sprintf("documented (docs line %d)", row.Line)
			}
			undocumented = append(undocumented, Undocumented{Flavor: r.Flavor, Phase: r.Phase, Resource: d.Resource, Field: field})
			return "UNDOCUMENTED"
		}
		for _, d := range r.Diffs {
			m.Saw(r.Flavor, d.Resource.Method)
			counts[d.Status]++
			fmt.Fprintf(w, "  %-9s  %s\n", d.Status, d.Resource)
			switch d.Status {
			case StatusOnlyCAPZ, StatusOnlyOurs:
				row, ok := m.ExcuseResource(r.Flavor, d)
				fmt.Fprintf(w, "      %s %s  [%s]\n", FieldStatus, strings.Join(d.OnlyStatuses, ", "), note(row, ok, WholeResource, d))
			case StatusDiffers:
				for _, f := range d.Fields {
					row, ok := m.ExcuseField(r.Flavor, d.Resource, f)
					fmt.Fprintf(w, "      %s: CAPZ %s; ours %s  [%s]\n", f.Path, values(f.CAPZ), values(f.Ours), note(row, ok, f.Path, d))
				}
			}
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  PROBLEM: %s\n", p)
			problems = append(problems, flavorPhase(r.Flavor, r.Phase)+": "+p)
		}
		fmt.Fprintf(w, "  summary: %d resources: %d equal, %d differ, %d only CAPZ, %d only ours; %d undocumented differences\n",
			len(r.Diffs), counts[StatusEqual], counts[StatusDiffers], counts[StatusOnlyCAPZ], counts[StatusOnlyOurs], len(undocumented)-before)
	}
	fmt.Fprintln(w)
	if len(undocumented) > 0 {
		fmt.Fprintf(w, "%d undocumented differences (add a row to the table of %q in docs/capz-parity.md, or fix them):\n", len(undocumented), DeliberateSection)
		for _, u := range undocumented {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	if stale := m.Stale(ran); len(stale) > 0 {
		fmt.Fprintf(w, "%d stale rows of the table of %q in docs/capz-parity.md:\n", len(stale), DeliberateSection)
		for _, s := range stale {
			fmt.Fprintf(w, "  %s\n", s)
			problems = append(problems, "stale row: "+s.String())
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "%d problems made the comparison incomplete or the table wrong:\n", len(problems))
		for _, p := range problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	return undocumented, problems
}

// values prints a field's values: one, or a set in braces.
func values(vs []string) string {
	short := make([]string, len(vs))
	for i, v := range vs {
		if len(v) > maxValue {
			v = v[:maxValue] + "…"
		}
		short[i] = v
	}
	if len(short) == 1 {
		return short[0]
	}
	return "{" + strings.Join(short, ", ") + "}"
}
