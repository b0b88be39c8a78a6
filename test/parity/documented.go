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
	"fmt"
	"strings"
)

// DeliberateSection is the heading of docs/capz-parity.md's table of deliberate differences.
const DeliberateSection = "## Deliberate differences"

// deliberateHeader are the table's columns.
var deliberateHeader = []string{"resource", "field", "CAPZ v1.26.0", "ours", "why"}

// Deliberate is a row of the table: a difference from CAPZ made on purpose, and why.
type Deliberate struct {
	// Resource is an ARM resource type (Microsoft.Network/loadBalancers).
	Resource string
	// Field is a JSON path of the request body with [] for list items, tags.<key>, a path ending in ".*" for
	// everything under it, or "*" for a resource only one side writes.
	Field           string
	CAPZ, Ours, Why string
	// Line is the row's line in the file.
	Line int
}

// Deliberates are the table's rows.
type Deliberates []Deliberate

// ParseDeliberate reads the table of the DeliberateSection section of a markdown document: its first table, whose
// header must be deliberateHeader. Backticks around a resource or field are dropped. The section, the table, a row
// without a resource or field, or a row of another width is an error.
func ParseDeliberate(markdown []byte) (Deliberates, error) {
	s := bufio.NewScanner(bytes.NewReader(markdown))
	line, inSection, inTable, sawHeader := 0, false, false, false
	var out Deliberates
	for s.Scan() {
		line++
		text := strings.TrimSpace(s.Text())
		switch {
		case !inSection:
			inSection = text == DeliberateSection
			continue
		case strings.HasPrefix(text, "## ") || strings.HasPrefix(text, "# "):
			return finishTable(out, sawHeader)
		case !strings.HasPrefix(text, "|"):
			if inTable {
				return finishTable(out, sawHeader)
			}
			continue
		}
		inTable = true
		cells := splitRow(text)
		switch {
		case !sawHeader:
			if !equalFold(cells, deliberateHeader) {
				return nil, fmt.Errorf("line %d: the table of %q has the columns %q, want %q", line, DeliberateSection, cells, deliberateHeader)
			}
			sawHeader = true
			continue
		case isDelimiterRow(cells):
			continue
		case len(cells) != len(deliberateHeader):
			return nil, fmt.Errorf("line %d: a row of %d cells, want %d", line, len(cells), len(deliberateHeader))
		}
		d := Deliberate{Resource: unquote(cells[0]), Field: unquote(cells[1]), CAPZ: cells[2], Ours: cells[3], Why: cells[4], Line: line}
		if d.Resource == "" || d.Field == "" {
			return nil, fmt.Errorf("line %d: a row without a resource or a field", line)
		}
		out = append(out, d)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if !inSection {
		return nil, fmt.Errorf("no section %q", DeliberateSection)
	}
	return finishTable(out, sawHeader)
}

func finishTable(rows Deliberates, sawHeader bool) (Deliberates, error) {
	if !sawHeader {
		return nil, fmt.Errorf("no table in the section %q", DeliberateSection)
	}
	return rows, nil
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

// unquote drops the backticks around a cell's code.
func unquote(cell string) string {
	cell = strings.TrimSpace(cell)
	if len(cell) >= 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") {
		cell = cell[1 : len(cell)-1]
	}
	return strings.TrimSpace(cell)
}

// ForField finds the row that documents a field of a resource type: same type (any case), and a field that is the
// path (list items written [] or named) or a prefix of it ending in ".*". A "*" row documents a resource only one
// side writes (ForResource), none of the fields of a resource both sides write.
func (ds Deliberates) ForField(resourceType, docPath string) (Deliberate, bool) {
	docPath = DocPath(docPath)
	for _, d := range ds {
		if !strings.EqualFold(d.Resource, resourceType) {
			continue
		}
		field := DocPath(d.Field)
		switch {
		case field == docPath:
			return d, true
		case strings.HasSuffix(field, ".*") && strings.HasPrefix(docPath, strings.TrimSuffix(field, "*")):
			return d, true
		}
	}
	return Deliberate{}, false
}

// ForResource finds the row that documents a resource only one side writes: its type, and the field "*".
func (ds Deliberates) ForResource(resourceType string) (Deliberate, bool) {
	for _, d := range ds {
		if strings.EqualFold(d.Resource, resourceType) && d.Field == "*" {
			return d, true
		}
	}
	return Deliberate{}, false
}
