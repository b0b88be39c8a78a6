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

package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// deliberateHeader is the header of the table of deliberate differences, which make parity parses to tell a
// documented difference from a bug.
const deliberateHeader = "| resource | field | CAPZ v1.26.0 | ours | why |"

var (
	// armResourceType is an ARM resource type in backticks: Microsoft.Network/loadBalancers,
	// Microsoft.Network/networkSecurityGroups/securityRules.
	armResourceType = regexp.MustCompile("^`Microsoft\\.[A-Za-z]+(/[A-Za-z]+)+`$")
	// requestBodyField is a JSON path of an ARM request body in backticks, with [] for list items and an optional
	// ".*" for everything under it, or a tag, or "*" for a resource only one side writes (test/parity's notation).
	requestBodyField = regexp.MustCompile("^`(\\*|tags\\.[^`]+|[A-Za-z$][A-Za-z0-9]*(\\[\\])?(\\.[A-Za-z][A-Za-z0-9]*(\\[\\])?)*(\\.\\*)?)`$")
)

// TestCAPZParity_DeliberateDifferences checks the section "## Deliberate differences" of capz-parity.md, which
// make parity parses: exactly one table with the expected header, every row five cells, the resource an ARM type and
// the field a JSON path of the request body (or a tag), in backticks, and no cell empty.
func TestCAPZParity_DeliberateDifferences(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile("capz-parity.md")
	g.Expect(err).NotTo(HaveOccurred())
	_, section, found := strings.Cut(string(data), "\n## Deliberate differences\n")
	g.Expect(found).To(BeTrue(), "capz-parity.md has no section \"## Deliberate differences\"")
	section, _, _ = strings.Cut(section, "\n## ")

	var tables [][]string
	var current []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "|") {
			current = append(current, line)
			continue
		}
		if current != nil {
			tables = append(tables, current)
			current = nil
		}
	}
	if current != nil {
		tables = append(tables, current)
	}
	g.Expect(tables).To(HaveLen(1), "the section holds exactly one table")
	table := tables[0]
	g.Expect(len(table)).To(BeNumerically(">", 2), "the table has rows")
	g.Expect(table[0]).To(Equal(deliberateHeader))
	g.Expect(table[1]).To(MatchRegexp(`^\|(\s*-{3,}\s*\|){5}$`))
	seen := map[string]bool{}
	for _, row := range table[2:] {
		g.Expect(row).To(HaveSuffix("|"), row)
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|"), "|")
		g.Expect(cells).To(HaveLen(5), "a row has five cells: %s", row)
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
			g.Expect(cells[i]).NotTo(BeEmpty(), "cell %d of %s", i+1, row)
		}
		g.Expect(cells[0]).To(MatchRegexp(armResourceType.String()), "the resource is an ARM type in backticks: %s", row)
		g.Expect(cells[1]).To(MatchRegexp(requestBodyField.String()), "the field is a JSON path in backticks: %s", row)
		key := cells[0] + " " + cells[1] + " " + cells[2]
		g.Expect(seen).NotTo(HaveKey(key), "a difference is one row: %s", row)
		seen[key] = true
	}
}
