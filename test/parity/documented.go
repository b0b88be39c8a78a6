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
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// DeliberateSection is the heading of docs/capz-parity.md's table of deliberate differences.
const DeliberateSection = "## Deliberate differences"

// deliberateHeader are the table's columns.
var deliberateHeader = []string{"side", "resource", "name", "field", "CAPZ v1.26.0", "ours", "flavors", "why"}

// SideBoth is the side of a row whose field both sides send, with other values; SideCAPZ and SideOurs (any case in
// the table) name the side that alone sends the field or writes the resource.
const SideBoth = "both"

// WholeResource is the field of a row that excuses a resource only one side writes.
const WholeResource = "*"

// NoFlavor is the flavors cell of a row that no flavor of make parity or make parity-switch reaches yet: it documents
// a difference and excuses nothing.
const NoFlavor = "none"

// mayNotOccur ends a flavors cell whose difference is random: it may be missing from a run without the row being
// stale.
const mayNotOccur = "(may not occur)"

// Deliberate is a row of the table: a difference from CAPZ made on purpose, what it excuses exactly, and why.
type Deliberate struct {
	// Side is SideCAPZ or SideOurs when only that side's requests have the field (or the resource), SideBoth when
	// both send it with other values.
	Side string
	// Method is the request's method (PUT unless the cell names another); Resource is an ARM resource type
	// (Microsoft.Network/loadBalancers), Name a glob (path.Match, any case) of the resource's name as the report
	// writes it (${CLUSTER_NAME}-control-plane-*, parent/child for a child).
	Method, Resource, Name string
	// Field is a flattened path of the request body, exactly as the report writes it (properties.probes[HTTPSProbe].port,
	// tags.Name, (api-version), (status)), or WholeResource.
	Field string
	// CAPZ and Ours are the values each side may send.
	CAPZ, Ours Values
	// Flavors are the flavors the row applies to (none: it excuses nothing); MayNotOccur rows are not stale when they
	// match nothing.
	Flavors     []string
	MayNotOccur bool
	Why         string
	// Line is the row's line in the file.
	Line int
}

// Values are what a side may send for a field: any value (Any); exactly the set of values it sends over its writes
// of the resource (Set, written "`a` and `b`"); or some of them, at least one (OneOf, written "`a` or `b`").
type Values struct {
	Any   bool
	OneOf bool
	Set   []string
}

// Allows reports whether a side's values of a field (sorted, Absent for writes without it) are what v allows.
func (v Values) Allows(values []string) bool {
	switch {
	case v.Any:
		return true
	case v.OneOf:
		if len(values) == 0 {
			return false
		}
		for _, x := range values {
			if !slices.Contains(v.Set, x) {
				return false
			}
		}
		return true
	}
	want := slices.Clone(v.Set)
	sort.Strings(want)
	return slices.Equal(want, values)
}

// onlyAbsent reports whether the values are exactly "(absent)".
func (v Values) onlyAbsent() bool {
	return !v.Any && len(v.Set) == 1 && v.Set[0] == Absent
}

func (v Values) String() string {
	if v.Any {
		return "any"
	}
	sep := " and "
	if v.OneOf {
		sep = " or "
	}
	return strings.Join(v.Set, sep)
}

// Deliberates are the table's rows.
type Deliberates []Deliberate

// ParseDeliberate reads the table of the DeliberateSection section of a markdown document: its first table, whose
// header must be deliberateHeader. Every cell is checked (see the section of docs/capz-parity.md); an error names the
// line.
func ParseDeliberate(markdown []byte) (Deliberates, error) {
	var out Deliberates
	err := readTable(markdown, DeliberateSection, deliberateHeader, func(cells []string, line int) error {
		d, err := parseRow(cells)
		if err != nil {
			return err
		}
		d.Line = line
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readTable calls row with the cells and line of each row of the first table of a markdown document's section (a
// "## " heading), whose header must be header; an error names the line.
func readTable(markdown []byte, section string, header []string, row func(cells []string, line int) error) error {
	s := bufio.NewScanner(bytes.NewReader(markdown))
	s.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line, inSection, inTable, sawHeader := 0, false, false, false
	finish := func() error {
		if !sawHeader {
			return fmt.Errorf("no table in the section %q", section)
		}
		return nil
	}
	for s.Scan() {
		line++
		text := strings.TrimSpace(s.Text())
		switch {
		case !inSection:
			inSection = text == section
			continue
		case strings.HasPrefix(text, "## ") || strings.HasPrefix(text, "# "):
			return finish()
		case !strings.HasPrefix(text, "|"):
			if inTable {
				return finish()
			}
			continue
		}
		inTable = true
		cells := splitRow(text)
		switch {
		case !sawHeader:
			if !equalFold(cells, header) {
				return fmt.Errorf("line %d: the table of %q has the columns %q, want %q", line, section, cells, header)
			}
			sawHeader = true
			continue
		case isDelimiterRow(cells):
			continue
		case len(cells) != len(header):
			return fmt.Errorf("line %d: a row of %d cells, want %d", line, len(cells), len(header))
		}
		if err := row(cells, line); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := s.Err(); err != nil {
		return err
	}
	if !inSection {
		return fmt.Errorf("no section %q", section)
	}
	return finish()
}

// resourcePattern is a resource cell: an optional method and an ARM resource type.
var resourcePattern = regexp.MustCompile(`^(?:(PUT|PATCH|DELETE|POST) )?(Microsoft\.[A-Za-z]+(?:/[A-Za-z]+)+)$`)

// parseRow checks and reads a row's cells.
func parseRow(cells []string) (Deliberate, error) {
	d := Deliberate{Name: unquote(cells[2]), Field: unquote(cells[3]), Why: cells[7]}
	for _, side := range []string{SideCAPZ, SideOurs, SideBoth} {
		if strings.EqualFold(unquote(cells[0]), side) {
			d.Side = side
		}
	}
	if d.Side == "" {
		return d, fmt.Errorf("side %q: want %s, %s or %s", cells[0], SideCAPZ, SideOurs, SideBoth)
	}
	m := resourcePattern.FindStringSubmatch(unquote(cells[1]))
	if m == nil {
		return d, fmt.Errorf("resource %q: want an ARM resource type, after a method other than PUT", cells[1])
	}
	d.Method, d.Resource = m[1], m[2]
	if d.Method == "" {
		d.Method = "PUT"
	}
	if !isCode(cells[2]) || d.Name == "" {
		return d, fmt.Errorf("name %q: want a name or a glob of names in backticks", cells[2])
	}
	if _, err := path.Match(d.Name, ""); err != nil {
		return d, fmt.Errorf("name %q: %w", d.Name, err)
	}
	if !isCode(cells[3]) || d.Field == "" {
		return d, fmt.Errorf("field %q: want a field's path (or %s) in backticks", cells[3], WholeResource)
	}
	var err error
	if d.CAPZ, err = parseValues(cells[4]); err != nil {
		return d, fmt.Errorf("CAPZ's values: %w", err)
	}
	if d.Ours, err = parseValues(cells[5]); err != nil {
		return d, fmt.Errorf("our values: %w", err)
	}
	if d.Flavors, d.MayNotOccur, err = parseFlavors(cells[6]); err != nil {
		return d, err
	}
	if strings.TrimSpace(d.Why) == "" {
		return d, errors.New("no why")
	}
	return d, d.checkSide()
}

// checkSide checks that the side agrees with the values: the side that alone sends a field (or writes a resource)
// is the other's "(absent)".
func (d Deliberate) checkSide() error {
	if d.wholeResource() {
		return d.checkWholeResource()
	}
	capzAbsent, oursAbsent := d.CAPZ.onlyAbsent(), d.Ours.onlyAbsent()
	switch {
	case d.Side == SideCAPZ && !oursAbsent, d.Side == SideOurs && !capzAbsent:
		return fmt.Errorf("side %s: the other side's values must be `%s`", d.Side, Absent)
	case d.Side == SideBoth && (capzAbsent || oursAbsent):
		return fmt.Errorf("side %s: a side whose only value is `%s` is the other side's difference", d.Side, Absent)
	}
	return nil
}

// wholeResource reports whether the row excuses a resource only one side writes: any body of it (WholeResource), or
// only the statuses it names (FieldStatus of one side: both sides' writes of a resource always have a status).
func (d Deliberate) wholeResource() bool {
	return d.Field == WholeResource || (d.Field == FieldStatus && d.Side != SideBoth)
}

// writer is what the row allows the side that alone sends the field or writes the resource.
func (d Deliberate) writer() Values {
	if d.Side == SideCAPZ {
		return d.CAPZ
	}
	return d.Ours
}

// statusPattern is an HTTP status as FieldStatus gives it.
var statusPattern = regexp.MustCompile(`^[1-5][0-9][0-9]$`)

// checkWholeResource checks a row of a resource only one side writes: it names the resources and the side, the other
// side's values are "(absent)", and the writer's are any body (WholeResource) or statuses (FieldStatus). A DELETE has
// no body, so a row of a DELETE names the statuses it excuses: a 404 of a resource already gone is not a deletion.
func (d Deliberate) checkWholeResource() error {
	if strings.Trim(d.Name, "*/") == "" {
		return fmt.Errorf("name %q: a row of a whole resource names the resources, not every one of the type", d.Name)
	}
	if d.Side == SideBoth {
		return fmt.Errorf("a row of a whole resource names the side that alone writes it (%s or %s)", SideCAPZ, SideOurs)
	}
	other := d.Ours
	if d.Side == SideOurs {
		other = d.CAPZ
	}
	if !other.onlyAbsent() {
		return fmt.Errorf("a resource only %s writes: want `%s` for the other side", d.Side, Absent)
	}
	if d.Field == WholeResource {
		if d.Method == "DELETE" {
			return fmt.Errorf("a DELETE only %s sends: want the field %s and the statuses it excuses (`404`), not %s", d.Side, FieldStatus, WholeResource)
		}
		if !d.writer().Any {
			return fmt.Errorf("a resource only %s writes: want any for %s", d.Side, d.Side)
		}
		return nil
	}
	if d.writer().Any {
		return fmt.Errorf("a resource only %s writes, by %s: want the statuses, not any", d.Side, FieldStatus)
	}
	for _, v := range d.writer().Set {
		if !statusPattern.MatchString(v) {
			return fmt.Errorf("a resource only %s writes, by %s: %q is not an HTTP status", d.Side, FieldStatus, v)
		}
	}
	return nil
}

// valuePattern is one value in backticks.
var valuePattern = regexp.MustCompile("`([^`]*)`")

// parseValues reads a values cell: any, or values in backticks (JSON as the report prints them, or (absent)) joined
// by " and " (the side sends exactly these) or " or " (each of its values is one of these).
func parseValues(cell string) (Values, error) {
	cell = strings.TrimSpace(cell)
	if cell == "any" {
		return Values{Any: true}, nil
	}
	var v Values
	rest := valuePattern.ReplaceAllString(cell, "")
	seps := strings.Fields(rest)
	for _, s := range seps {
		switch s {
		case "and":
		case "or":
			v.OneOf = true
		default:
			return v, fmt.Errorf("%q: want any, or values in backticks joined by \"and\" or \"or\"", cell)
		}
	}
	if v.OneOf && slices.Contains(seps, "and") {
		return v, fmt.Errorf("%q: \"and\" and \"or\" in one cell", cell)
	}
	for _, m := range valuePattern.FindAllStringSubmatch(cell, -1) {
		v.Set = append(v.Set, m[1])
	}
	if len(v.Set) == 0 || len(seps) != len(v.Set)-1 {
		return v, fmt.Errorf("%q: want any, or values in backticks joined by \"and\" or \"or\"", cell)
	}
	return v, nil
}

// parseFlavors reads a flavors cell: none, or flavors in backticks separated by commas, then optionally
// mayNotOccur.
func parseFlavors(cell string) ([]string, bool, error) {
	cell = strings.TrimSpace(cell)
	if cell == NoFlavor {
		return nil, false, nil
	}
	random := strings.HasSuffix(cell, mayNotOccur)
	cell = strings.TrimSpace(strings.TrimSuffix(cell, mayNotOccur))
	var out []string
	for _, f := range strings.Split(cell, ",") {
		f = strings.TrimSpace(f)
		if !isCode(f) || unquote(f) == "" {
			return nil, false, fmt.Errorf("flavors %q: want %s, or flavors in backticks separated by commas, then optionally %q", cell, NoFlavor, mayNotOccur)
		}
		out = append(out, unquote(f))
	}
	return out, random, nil
}

// splitRow splits a table row into its trimmed cells; \| is a pipe inside a cell.
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

func isDelimiterRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":- ") != "" || c == "" {
			return false
		}
	}
	return true
}

func equalFold(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// isCode reports whether a cell is one piece of code in backticks.
func isCode(cell string) bool {
	cell = strings.TrimSpace(cell)
	return len(cell) >= 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") && strings.Count(cell, "`") == 2
}

// unquote drops the backticks around a cell's code.
func unquote(cell string) string {
	cell = strings.TrimSpace(cell)
	if len(cell) >= 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") {
		cell = cell[1 : len(cell)-1]
	}
	return strings.TrimSpace(cell)
}

// appliesTo reports whether the row names the flavor, the resource (method, type, name) and the field.
func (d Deliberate) appliesTo(flavor string, r Resource, field string) bool {
	return slices.Contains(d.Flavors, flavor) && d.Method == r.Method && strings.EqualFold(d.Resource, r.Type) &&
		d.Field == field && nameMatches(d.Name, r.Name())
}

// nameMatches matches a name glob in any case.
func nameMatches(pattern, name string) bool {
	ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(name))
	return ok
}

// excuses reports whether the row excuses a field that differs: the side agrees and each side's values (sorted,
// Absent for writes without it) are what the row allows.
func (d Deliberate) excuses(f FieldDiff) bool {
	return !d.wholeResource() && sideOf(f) == d.Side && d.CAPZ.Allows(f.CAPZ) && d.Ours.Allows(f.Ours)
}

// sideOf is the side a field's difference belongs to: the side that alone sends it, else both.
func sideOf(f FieldDiff) string {
	switch {
	case slices.Equal(f.Ours, []string{Absent}):
		return SideCAPZ
	case slices.Equal(f.CAPZ, []string{Absent}):
		return SideOurs
	}
	return SideBoth
}

// Matcher finds the rows that excuse a run's differences and remembers which rows matched in which flavor, to find
// the stale ones.
type Matcher struct {
	rows Deliberates
	// used are the flavors each row (by index) matched in.
	used map[int]map[string]bool
	// methods are the methods of the writes compared in each flavor, when Saw recorded them.
	methods map[string]map[string]bool
}

// Saw records that a flavor's comparison held a write of a method (PUT, DELETE, ...): a row of a method no write
// of the flavor has (a DELETE in a run of creation only) cannot be judged stale in it.
func (m *Matcher) Saw(flavor, method string) {
	if m.methods == nil {
		m.methods = map[string]map[string]bool{}
	}
	if m.methods[flavor] == nil {
		m.methods[flavor] = map[string]bool{}
	}
	m.methods[flavor][method] = true
}

// NewMatcher makes a Matcher of the rows.
func NewMatcher(rows Deliberates) *Matcher {
	return &Matcher{rows: rows, used: map[int]map[string]bool{}}
}

// ExcuseField finds the row that excuses a field of a resource both sides write, whose values differ in a flavor.
func (m *Matcher) ExcuseField(flavor string, r Resource, f FieldDiff) (Deliberate, bool) {
	return m.find(flavor, r, f.Path, func(d Deliberate) bool { return d.excuses(f) })
}

// ExcuseResource finds the row that excuses a resource only one side writes in a flavor (d.Status StatusOnlyCAPZ or
// StatusOnlyOurs): a row of any body of it, or of the statuses Azure answered its writes with.
func (m *Matcher) ExcuseResource(flavor string, d ResourceDiff) (Deliberate, bool) {
	only := SideCAPZ
	if d.Status == StatusOnlyOurs {
		only = SideOurs
	}
	if row, ok := m.find(flavor, d.Resource, WholeResource, func(row Deliberate) bool { return row.Side == only }); ok {
		return row, true
	}
	return m.find(flavor, d.Resource, FieldStatus, func(row Deliberate) bool {
		return row.Side == only && row.writer().Allows(d.OnlyStatuses)
	})
}

// find finds the first row that applies to the flavor, resource and field and excuses what ok checks.
func (m *Matcher) find(flavor string, r Resource, field string, ok func(Deliberate) bool) (Deliberate, bool) {
	for i, d := range m.rows {
		if d.appliesTo(flavor, r, field) && ok(d) {
			if m.used[i] == nil {
				m.used[i] = map[string]bool{}
			}
			m.used[i][flavor] = true
			return d, true
		}
	}
	return Deliberate{}, false
}

// StaleRow is a row that excused nothing in a flavor it names that ran.
type StaleRow struct {
	Row    Deliberate
	Flavor string
}

func (s StaleRow) String() string {
	d := s.Row
	return fmt.Sprintf("docs line %d (%s %s %s %s %s) excused nothing in flavor %s: remove or correct the row",
		d.Line, d.Side, d.Method, d.Resource, d.Name, d.Field, s.Flavor)
}

// Stale lists, for every flavor that ran, the rows naming it that excused nothing in it; rows that may not occur are
// never stale, nor rows of a method the flavor's comparison had no write of (Saw).
func (m *Matcher) Stale(ran []string) []StaleRow {
	var out []StaleRow
	for i, d := range m.rows {
		if d.MayNotOccur {
			continue
		}
		for _, f := range d.Flavors {
			if seen, recorded := m.methods[f]; recorded && !seen[d.Method] {
				continue
			}
			if slices.Contains(ran, f) && !m.used[i][f] {
				out = append(out, StaleRow{Row: d, Flavor: f})
			}
		}
	}
	return out
}
