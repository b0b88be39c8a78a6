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
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// SwitchSection is the heading of docs/migrating-from-capz.md's table of what a switch may change in Azure: the
// only table make parity-switch's verdict reads.
const SwitchSection = "## What a switch changes in Azure"

// switchHeader are the table's columns.
var switchHeader = []string{"direction", "resource", "name", "field", "before", "after", "flavors", "why"}

// The directions of a switch, as the table's rows name them. ToOurs is both switches from CAPZ to the provider (the
// first one and the one after the way back); BackToCAPZ the way back.
const (
	DirectionToOurs     = "to ours"
	DirectionBackToCAPZ = "back to CAPZ"
)

// SwitchRow is a row of the switch's table: one property of one kind of resource that a switch in one direction
// changes in Azure from exactly one value to exactly another, in the flavors named, and why.
type SwitchRow struct {
	// Direction is DirectionToOurs or DirectionBackToCAPZ.
	Direction string
	// Resource is an ARM resource type (Microsoft.Network/loadBalancers); Name a glob (path.Match, any case) of the
	// resource's name as the report writes it (${CLUSTER_NAME} for the cluster's name, parent/child for a child).
	Resource, Name string
	// Field is a flattened path of the resource's body exactly as the report writes it; never WholeResource: a
	// resource a switch creates or deletes always fails.
	Field string
	// Before and After are the values the field may have before and after the switch (JSON as the report prints
	// them, Absent for a field the body does not have): the change's value before must be one of Before, its value
	// after one of After.
	Before, After []string
	// Flavors are the flavors the row applies to; at least one.
	Flavors []string
	Why     string
	// Line is the row's line in the file.
	Line int
}

func (r SwitchRow) String() string {
	return fmt.Sprintf("line %d (%s %s %s %s)", r.Line, r.Direction, r.Resource, r.Name, r.Field)
}

// SwitchRows are the table's rows.
type SwitchRows []SwitchRow

// ParseSwitchTable reads the first table of the SwitchSection section of a markdown document, whose header must be
// switchHeader. Every cell is checked; an error names the line.
func ParseSwitchTable(markdown []byte) (SwitchRows, error) {
	var out SwitchRows
	err := readTable(markdown, SwitchSection, switchHeader, func(cells []string, line int) error {
		r, err := parseSwitchRow(cells)
		if err != nil {
			return err
		}
		r.Line = line
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resourceTypePattern is a resource cell of the switch's table: an ARM resource type, no method.
var resourceTypePattern = regexp.MustCompile(`^Microsoft\.[A-Za-z]+(?:/[A-Za-z]+)+$`)

// parseSwitchRow checks and reads a row's cells.
func parseSwitchRow(cells []string) (SwitchRow, error) {
	r := SwitchRow{Resource: unquote(cells[1]), Name: unquote(cells[2]), Field: unquote(cells[3]), Why: strings.TrimSpace(cells[7])}
	for _, d := range []string{DirectionToOurs, DirectionBackToCAPZ} {
		if strings.EqualFold(strings.TrimSpace(cells[0]), d) {
			r.Direction = d
		}
	}
	if r.Direction == "" {
		return r, fmt.Errorf("direction %q: want %q or %q", cells[0], DirectionToOurs, DirectionBackToCAPZ)
	}
	if !isCode(cells[1]) || !resourceTypePattern.MatchString(r.Resource) {
		return r, fmt.Errorf("resource %q: want an ARM resource type in backticks", cells[1])
	}
	if !isCode(cells[2]) || r.Name == "" {
		return r, fmt.Errorf("name %q: want a name or a glob of names in backticks", cells[2])
	}
	if _, err := path.Match(r.Name, ""); err != nil {
		return r, fmt.Errorf("name %q: %w", r.Name, err)
	}
	if !isCode(cells[3]) || r.Field == "" {
		return r, fmt.Errorf("field %q: want a field's path in backticks", cells[3])
	}
	if r.Field == WholeResource {
		return r, errors.New("field `*`: a resource a switch creates or deletes is never excused")
	}
	var err error
	if r.Before, err = exactValues(cells[4]); err != nil {
		return r, fmt.Errorf("before: %w", err)
	}
	if r.After, err = exactValues(cells[5]); err != nil {
		return r, fmt.Errorf("after: %w", err)
	}
	for _, b := range r.Before {
		if slices.Contains(r.After, b) {
			return r, fmt.Errorf("`%s` is a value before and after: a row names a change", b)
		}
	}
	if r.Flavors, err = namedFlavors(cells[6]); err != nil {
		return r, err
	}
	if r.Why == "" {
		return r, errors.New("no why")
	}
	return r, nil
}

// exactValues reads a before or after cell: one value in backticks (JSON as the report prints it, or (absent)), or
// several joined by " or ". "any" and " and " have no place in a change of one field.
func exactValues(cell string) ([]string, error) {
	v, err := parseValues(cell)
	switch {
	case err != nil:
		return nil, err
	case v.Any:
		return nil, fmt.Errorf("%q: want exact values in backticks, not any", strings.TrimSpace(cell))
	case len(v.Set) > 1 && !v.OneOf:
		return nil, fmt.Errorf("%q: a field has one value before and one after: join alternatives with \"or\"", strings.TrimSpace(cell))
	}
	return v.Set, nil
}

// namedFlavors reads a flavors cell of the switch's table: flavors in backticks separated by commas; none and (may
// not occur) have no place in it.
func namedFlavors(cell string) ([]string, error) {
	flavors, random, err := parseFlavors(cell)
	switch {
	case err != nil:
		return nil, err
	case random:
		return nil, fmt.Errorf("flavors %q: a switch changes nothing at random", strings.TrimSpace(cell))
	case len(flavors) == 0:
		return nil, fmt.Errorf("flavors %q: a row names the flavors it excuses a change in", strings.TrimSpace(cell))
	}
	return flavors, nil
}

// SwitchMatcher finds the rows that excuse a switch's changes and remembers which rows matched in which flavor, to
// find the stale ones.
type SwitchMatcher struct {
	rows SwitchRows
	// used are the flavors each row (by index) matched in.
	used map[int]map[string]bool
}

// NewSwitchMatcher makes a SwitchMatcher of the rows.
func NewSwitchMatcher(rows SwitchRows) *SwitchMatcher {
	return &SwitchMatcher{rows: rows, used: map[int]map[string]bool{}}
}

// Excuse finds the row that excuses a change of a field in a flavor's switch in a direction: the row names the
// direction, the flavor, the resource's type and name, the field, and the values before and after exactly.
func (m *SwitchMatcher) Excuse(direction, flavor string, r Resource, field, before, after string) (SwitchRow, bool) {
	for i, row := range m.rows {
		if row.Direction == direction && slices.Contains(row.Flavors, flavor) && strings.EqualFold(row.Resource, r.Type) &&
			row.Field == field && nameMatches(row.Name, r.Name()) && slices.Contains(row.Before, before) && slices.Contains(row.After, after) {
			if m.used[i] == nil {
				m.used[i] = map[string]bool{}
			}
			m.used[i][flavor] = true
			return row, true
		}
	}
	return SwitchRow{}, false
}

// Stale lists the rows naming a flavor that excused nothing in it; call it once every switch of the flavor was
// compared.
func (m *SwitchMatcher) Stale(flavor string) []string {
	var out []string
	for i, row := range m.rows {
		if slices.Contains(row.Flavors, flavor) && !m.used[i][flavor] {
			out = append(out, fmt.Sprintf("stale row: the row of %s of %q excused nothing in flavor %s: remove or correct it", row, SwitchSection, flavor))
		}
	}
	return out
}
