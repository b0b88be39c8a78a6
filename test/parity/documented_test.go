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
	"testing"

	. "github.com/onsi/gomega"
)

func readSample(t *testing.T) Deliberates {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "capz-parity-sample.md"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ParseDeliberate(raw)
	if err != nil {
		t.Fatalf("failed to parse the sample: %v", err)
	}
	return ds
}

// TestParseDeliberate: the rows of the section's first table, backticks dropped and escaped pipes kept, with their
// lines; the next section's table is not read.
func TestParseDeliberate(t *testing.T) {
	g := NewWithT(t)
	ds := readSample(t)
	g.Expect(ds).To(Equal(Deliberates{
		{Resource: "Microsoft.Network/loadBalancers", Field: "properties.probes[].properties.intervalInSeconds", CAPZ: "15", Ours: "5", Why: "a faster probe", Line: 11},
		{Resource: "Microsoft.Network/networkSecurityGroups", Field: "tags.Name", CAPZ: "the group's name", Ours: "(none)", Why: "we tag by role", Line: 12},
		{Resource: "microsoft.compute/virtualMachines", Field: "properties.extensionsTimeBudget", CAPZ: "(none)", Ours: "`PT90M`", Why: "a pipe | in a cell", Line: 13},
		{Resource: "Microsoft.Compute/virtualMachineScaleSets", Field: "properties.virtualMachineProfile.*", CAPZ: "a model", Ours: "(none)", Why: "Flexible pools", Line: 14},
		{Resource: "Microsoft.Authorization/roleAssignments", Field: "*", CAPZ: "on the subscription", Ours: "(none)", Why: "least privilege", Line: 15},
	}))
}

func TestParseDeliberate_Errors(t *testing.T) {
	header := "| resource | field | CAPZ v1.26.0 | ours | why |\n|---|---|---|---|---|\n"
	tests := []struct {
		name, markdown, wantErr string
	}{
		{name: "no section", markdown: "# Parity\n\n## Running make parity\n", wantErr: "no section"},
		{name: "no table", markdown: "## Deliberate differences\n\nNothing yet.\n\n## Next\n| a | b |\n", wantErr: "no table"},
		{name: "other columns", markdown: "## Deliberate differences\n| resource | field | CAPZ | ours | why |\n", wantErr: "has the columns"},
		{name: "a short row", markdown: "## Deliberate differences\n" + header + "| `A/b` | `f` | 1 | 2 |\n", wantErr: "line 4: a row of 4 cells"},
		{name: "no field", markdown: "## Deliberate differences\n" + header + "| `A/b` | | 1 | 2 | why |\n", wantErr: "line 4: a row without a resource or a field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := ParseDeliberate([]byte(tt.markdown))
			g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
		})
	}
	t.Run("an empty table", func(t *testing.T) {
		g := NewWithT(t)
		ds, err := ParseDeliberate([]byte("## Deliberate differences\n\n" + header + "\nAfter.\n"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ds).To(BeEmpty())
	})
}

// TestDeliberates_ForField: a row documents the field it names (list items by name or rank) or everything under a
// path ending in ".*"; a "*" row documents no field; types match in any case.
func TestDeliberates_ForField(t *testing.T) {
	ds := readSample(t)
	tests := []struct {
		resourceType, path string
		wantLine           int
	}{
		{"Microsoft.Network/loadBalancers", "properties.probes[HTTPSProbe].properties.intervalInSeconds", 11},
		{"Microsoft.Network/loadBalancers", "properties.probes[].properties.intervalInSeconds", 11},
		{"Microsoft.Network/loadBalancers", "properties.probes[HTTPSProbe].properties.port", 0},
		{"Microsoft.Network/networkSecurityGroups", "tags.Name", 11 + 1},
		{"Microsoft.Network/networkSecurityGroups", "tags.role", 0},
		{"Microsoft.Compute/virtualMachines", "properties.extensionsTimeBudget", 13},
		{"Microsoft.Compute/virtualMachineScaleSets", "properties.virtualMachineProfile.osProfile.computerNamePrefix", 14},
		{"Microsoft.Compute/virtualMachineScaleSets", "properties.virtualMachineProfileX", 0},
		{"Microsoft.Authorization/roleAssignments", "properties.scope", 0},
		{"Microsoft.Network/publicIPAddresses", "sku.name", 0},
	}
	for _, tt := range tests {
		t.Run(tt.resourceType+" "+tt.path, func(t *testing.T) {
			g := NewWithT(t)
			row, ok := ds.ForField(tt.resourceType, tt.path)
			g.Expect(ok).To(Equal(tt.wantLine != 0))
			g.Expect(row.Line).To(Equal(tt.wantLine))
		})
	}
}

func TestDeliberates_ForResource(t *testing.T) {
	g := NewWithT(t)
	ds := readSample(t)
	row, ok := ds.ForResource("microsoft.authorization/roleassignments")
	g.Expect(ok).To(BeTrue())
	g.Expect(row.Line).To(Equal(15))
	_, ok = ds.ForResource("Microsoft.Network/loadBalancers")
	g.Expect(ok).To(BeFalse(), "a row of one field does not document the whole resource")
}

// TestParseDeliberate_TheDocument: docs/capz-parity.md's own table parses, every row names an ARM resource type and
// a field, and says why.
func TestParseDeliberate_TheDocument(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "capz-parity.md"))
	g.Expect(err).NotTo(HaveOccurred())
	ds, err := ParseDeliberate(raw)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ds).NotTo(BeEmpty())
	for _, d := range ds {
		g.Expect(d.Resource).To(MatchRegexp(`^Microsoft\.[A-Za-z]+/[A-Za-z]+(/[A-Za-z]+)*$`), "line %d", d.Line)
		g.Expect(d.Field).NotTo(BeEmpty(), "line %d", d.Line)
		g.Expect(d.Why).NotTo(BeEmpty(), "line %d", d.Line)
	}
}
