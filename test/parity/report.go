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

// FlavorResult is the comparison of one flavor.
type FlavorResult struct {
	Flavor, Cluster string
	Diffs           []ResourceDiff
	// Problems make the comparison incomplete: a side that did not settle, an object that was not created. Each
	// fails the run.
	Problems []string
}

// Undocumented is a difference the table of deliberate differences does not hold.
type Undocumented struct {
	Flavor   string
	Resource Resource
	// Field is the field's path, or "*" for a resource only one side writes.
	Field string
}

func (u Undocumented) String() string {
	return fmt.Sprintf("%s: %s %s %s", u.Flavor, u.Resource.Type, u.Resource.Name(), u.Field)
}

// maxValue bounds a value in the report.
const maxValue = 160

// Report prints each flavor resource by resource (equal, or each differing field with both sides' values and whether
// the table documents it), a summary per flavor, and every undocumented difference at the end. It returns the
// undocumented differences and the problems.
func Report(w io.Writer, results []FlavorResult, ds Deliberates) ([]Undocumented, []string) {
	var undocumented []Undocumented
	var problems []string
	for _, r := range results {
		fmt.Fprintf(w, "\n== flavor %s (cluster %s)\n", r.Flavor, r.Cluster)
		counts := map[Status]int{}
		before := len(undocumented)
		for _, d := range r.Diffs {
			counts[d.Status]++
			fmt.Fprintf(w, "  %-9s  %s\n", d.Status, d.Resource)
			switch d.Status {
			case StatusOnlyCAPZ, StatusOnlyOurs:
				note := "UNDOCUMENTED"
				if row, ok := ds.ForResource(d.Resource.Type); ok {
					note = fmt.Sprintf("documented (docs line %d)", row.Line)
				} else {
					undocumented = append(undocumented, Undocumented{Flavor: r.Flavor, Resource: d.Resource, Field: "*"})
				}
				fmt.Fprintf(w, "      %s\n", note)
			case StatusDiffers:
				for _, f := range d.Fields {
					note := "UNDOCUMENTED"
					if row, ok := ds.ForField(d.Resource.Type, f.DocPath); ok {
						note = fmt.Sprintf("documented (docs line %d)", row.Line)
					} else {
						undocumented = append(undocumented, Undocumented{Flavor: r.Flavor, Resource: d.Resource, Field: f.Path})
					}
					fmt.Fprintf(w, "      %s: CAPZ %s; ours %s  [%s]\n", f.Path, values(f.CAPZ), values(f.Ours), note)
				}
			}
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  PROBLEM: %s\n", p)
			problems = append(problems, r.Flavor+": "+p)
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
	if len(problems) > 0 {
		fmt.Fprintf(w, "%d problems made the comparison incomplete:\n", len(problems))
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
