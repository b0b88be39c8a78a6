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
	"os"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
)

func readSwitchSample(t *testing.T) SwitchRows {
	t.Helper()
	rows, err := readSwitchTable(filepath.Join("testdata", "switch-sample.md"))
	if err != nil {
		t.Fatalf("failed to parse the sample: %v", err)
	}
	return rows
}

// TestParseSwitchTable: the rows of the section's first table, each cell read (directions in any case, backticks
// dropped, alternatives of a value, flavors, escaped pipes kept), with their lines; the next section's table is not
// read.
func TestParseSwitchTable(t *testing.T) {
	g := NewWithT(t)
	g.Expect(readSwitchSample(t)).To(Equal(SwitchRows{
		{Direction: DirectionToOurs, Resource: "Microsoft.Network/loadBalancers", Name: "${CLUSTER_NAME}-public-lb",
			Field: "properties.probes[HTTPSProbe].properties.intervalInSeconds", Before: []string{"15"}, After: []string{"5"},
			Flavors: []string{"default"}, Why: "a faster probe", Line: 9},
		{Direction: DirectionBackToCAPZ, Resource: "Microsoft.Network/networkSecurityGroups", Name: "*-nsg", Field: "tags.Name",
			Before: []string{Absent}, After: []string{`"${CLUSTER_NAME}-nsg"`}, Flavors: []string{"default", "private"}, Why: "CAPZ tags | by name", Line: 10},
		{Direction: DirectionToOurs, Resource: "Microsoft.Compute/virtualMachines", Name: "${CLUSTER_NAME}-control-plane-*",
			Field: "properties.storageProfile.osDisk.deleteOption", Before: []string{Absent}, After: []string{`"Detach"`, `"Delete"`},
			Flavors: []string{"machinepool"}, Why: "a sample of alternatives", Line: 11},
	}))
}

// TestParseSwitchTable_Errors: every cell is checked; what the side-by-side table allows and a switch's table must
// not (a whole resource, any value, a set of values, no flavor, a random difference) is refused.
func TestParseSwitchTable_Errors(t *testing.T) {
	header := "| direction | resource | name | field | before | after | flavors | why |\n|---|---|---|---|---|---|---|---|\n"
	row := func(cells string) string { return SwitchSection + "\n" + header + cells + "\n" }
	const good = "| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"
	tests := []struct {
		name, markdown, wantErr string
	}{
		{name: "no section", markdown: "# Migrating\n\n## The switch\n", wantErr: "no section"},
		{name: "no table", markdown: SwitchSection + "\n\nNothing yet.\n\n## Next\n| a | b |\n", wantErr: "no table"},
		{name: "the deliberate table's columns", markdown: SwitchSection + "\n| side | resource | name | field | CAPZ v1.26.0 | ours | flavors | why |\n", wantErr: "has the columns"},
		{name: "a short row", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` |"), wantErr: "line 4: a row of 7 cells"},
		{name: "a side, not a direction", markdown: row("| ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `line 4: direction "ours"`},
		{name: "not a resource type", markdown: row("| to ours | `A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `resource "`},
		{name: "a method", markdown: row("| to ours | `PATCH Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `resource "`},
		{name: "no name", markdown: row("| to ours | `Microsoft.A/b` | | `f` | `1` | `2` | `default` | why |"), wantErr: "name"},
		{name: "a bad glob", markdown: row("| to ours | `Microsoft.A/b` | `a[` | `f` | `1` | `2` | `default` | why |"), wantErr: "syntax error in pattern"},
		{name: "no field", markdown: row("| to ours | `Microsoft.A/b` | `n` | | `1` | `2` | `default` | why |"), wantErr: "field"},
		{name: "a whole resource", markdown: row("| to ours | `Microsoft.A/b` | `n` | `*` | `(absent)` | `{}` | `default` | why |"), wantErr: "never excused"},
		{name: "any before", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | any | `2` | `default` | why |"), wantErr: "before: \"any\": want exact values"},
		{name: "any after", markdown: row("| back to CAPZ | `Microsoft.A/b` | `n` | `f` | `1` | any | `default` | why |"), wantErr: "after: \"any\": want exact values"},
		{name: "a set of values", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` and `3` | `default` | why |"), wantErr: "join alternatives with \"or\""},
		{name: "a value in words", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | the size's | `2` | `default` | why |"), wantErr: "before"},
		{name: "no change", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` or `2` | `2` or `3` | `default` | why |"), wantErr: "`2` is a value before and after"},
		{name: "no flavor", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | none | why |"), wantErr: "names the flavors"},
		{name: "at random", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` (may not occur) | why |"), wantErr: "nothing at random"},
		{name: "flavors in words", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | every one | why |"), wantErr: "flavors"},
		{name: "no why", markdown: row("| to ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | |"), wantErr: "no why"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := ParseSwitchTable([]byte(tt.markdown))
			g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
		})
	}
	t.Run("a good row", func(t *testing.T) {
		g := NewWithT(t)
		rows, err := ParseSwitchTable([]byte(row(good)))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rows).To(HaveLen(1))
	})
	t.Run("an empty table", func(t *testing.T) {
		g := NewWithT(t)
		rows, err := ParseSwitchTable([]byte(SwitchSection + "\n\n" + header + "\nAfter.\n"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rows).To(BeEmpty())
	})
}

// TestParseSwitchTable_TheDocument: docs/migrating-from-capz.md's own table parses, and every flavor a row names is
// one make parity-switch runs by default.
func TestParseSwitchTable_TheDocument(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "migrating-from-capz.md"))
	g.Expect(err).NotTo(HaveOccurred())
	rows, err := ParseSwitchTable(raw)
	g.Expect(err).NotTo(HaveOccurred())
	for _, r := range rows {
		for _, f := range r.Flavors {
			g.Expect(slices.Contains(SwitchDefaults, f)).To(BeTrue(), "line %d: %q is not a flavor of make parity-switch", r.Line, f)
		}
	}
}

// TestSwitchMatcher_Excuse: a row excuses a change only with its direction, flavor, resource type and name, field,
// and one of its values before and after, exactly.
func TestSwitchMatcher_Excuse(t *testing.T) {
	rows := readSwitchSample(t)
	const (
		lbID  = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/loadbalancers/${CLUSTER_NAME}-public-lb"
		nsgID = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/networksecuritygroups/${CLUSTER_NAME}-node-nsg"
		cpID  = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.compute/virtualmachines/${CLUSTER_NAME}-control-plane-abc"
	)
	lbR := Resource{Method: "PUT", Type: "Microsoft.Network/loadBalancers", ID: lbID}
	nsgR := Resource{Method: "PUT", Type: "microsoft.network/networksecuritygroups", ID: nsgID}
	cpR := Resource{Method: "PUT", Type: "Microsoft.Compute/virtualMachines", ID: cpID}
	probe := "properties.probes[HTTPSProbe].properties.intervalInSeconds"
	osDisk := "properties.storageProfile.osDisk.deleteOption"
	tests := []struct {
		name, direction, flavor string
		resource                Resource
		field, before, after    string
		wantLine                int
	}{
		{"exactly the row", DirectionToOurs, "default", lbR, probe, "15", "5", 9},
		{"another flavor", DirectionToOurs, "private", lbR, probe, "15", "5", 0},
		{"the way back", DirectionBackToCAPZ, "default", lbR, probe, "15", "5", 0},
		{"the change undone", DirectionToOurs, "default", lbR, probe, "5", "15", 0},
		{"another value after", DirectionToOurs, "default", lbR, probe, "15", "6", 0},
		{"another value before", DirectionToOurs, "default", lbR, probe, "10", "5", 0},
		{"another field", DirectionToOurs, "default", lbR, probe + ".x", "15", "5", 0},
		{"another load balancer", DirectionToOurs, "default", Resource{Method: "PUT", Type: lbR.Type, ID: lbID + "-internal"}, probe, "15", "5", 0},
		{"another type of that name", DirectionToOurs, "default", Resource{Method: "PUT", Type: "Microsoft.Network/publicIPAddresses", ID: lbID}, probe, "15", "5", 0},
		{"a glob of names, any case, the way back", DirectionBackToCAPZ, "private", nsgR, "tags.Name", Absent, `"${CLUSTER_NAME}-nsg"`, 10},
		{"the way back's row to ours", DirectionToOurs, "private", nsgR, "tags.Name", Absent, `"${CLUSTER_NAME}-nsg"`, 0},
		{"one alternative", DirectionToOurs, "machinepool", cpR, osDisk, Absent, `"Delete"`, 11},
		{"the other", DirectionToOurs, "machinepool", cpR, osDisk, Absent, `"Detach"`, 11},
		{"none of them", DirectionToOurs, "machinepool", cpR, osDisk, Absent, `"Keep"`, 0},
		{"the opt-in's value in a flavor the row does not name", DirectionToOurs, "default", cpR, osDisk, Absent, `"Delete"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			row, ok := NewSwitchMatcher(rows).Excuse(tt.direction, tt.flavor, tt.resource, tt.field, tt.before, tt.after)
			g.Expect(ok).To(Equal(tt.wantLine != 0))
			g.Expect(row.Line).To(Equal(tt.wantLine))
		})
	}
}

// TestSwitchMatcher_Stale: a row that excused nothing in a flavor it names is stale in that flavor, whichever
// direction it names; flavors it does not name see none of it.
func TestSwitchMatcher_Stale(t *testing.T) {
	g := NewWithT(t)
	m := NewSwitchMatcher(readSwitchSample(t))
	nsgR := Resource{Method: "PUT", Type: "Microsoft.Network/networkSecurityGroups", ID: "/subscriptions/s/resourcegroups/x/providers/microsoft.network/networksecuritygroups/x-nsg"}
	_, ok := m.Excuse(DirectionBackToCAPZ, "default", nsgR, "tags.Name", Absent, `"${CLUSTER_NAME}-nsg"`)
	g.Expect(ok).To(BeTrue())
	g.Expect(m.Stale("default")).To(ConsistOf(
		`stale row: the row of line 9 (to ours Microsoft.Network/loadBalancers ${CLUSTER_NAME}-public-lb properties.probes[HTTPSProbe].properties.intervalInSeconds) of "## What a switch changes in Azure" excused nothing in flavor default: remove or correct it`))
	g.Expect(m.Stale("private")).To(ConsistOf(ContainSubstring("line 10 (back to CAPZ")))
	g.Expect(m.Stale("machinepool")).To(ConsistOf(ContainSubstring("line 11 (to ours")))
	g.Expect(m.Stale("aks")).To(BeEmpty(), "no row names aks")
}
