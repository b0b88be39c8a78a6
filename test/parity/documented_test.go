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

// TestParseDeliberate: the rows of the section's first table, each cell read (sides in any case, PUT unless a method
// is named, backticks dropped, values as sets or alternatives, flavors, escaped pipes kept), with their lines; the
// next section's table is not read.
func TestParseDeliberate(t *testing.T) {
	g := NewWithT(t)
	ds := readSample(t)
	cpZones := Values{OneOf: true, Set: []string{`["1"]`, `["2"]`, `["3"]`}}
	g.Expect(ds).To(Equal(Deliberates{
		{Side: SideBoth, Method: "PUT", Resource: "Microsoft.Network/loadBalancers", Name: "${CLUSTER_NAME}-public-lb",
			Field: "properties.probes[HTTPSProbe].properties.intervalInSeconds", CAPZ: Values{Set: []string{"15"}}, Ours: Values{Set: []string{"5"}},
			Flavors: []string{"default"}, Why: "a faster probe", Line: 11},
		{Side: SideCAPZ, Method: "PUT", Resource: "Microsoft.Network/networkSecurityGroups", Name: "*-nsg", Field: "tags.Name",
			CAPZ: Values{Set: []string{`"${CLUSTER_NAME}-nsg"`}}, Ours: Values{Set: []string{Absent}}, Flavors: []string{"default", "windows"}, Why: "we tag by role", Line: 12},
		{Side: SideOurs, Method: "PUT", Resource: "Microsoft.Compute/virtualMachines", Name: "${CLUSTER_NAME}-control-plane-*", Field: "properties.extensionsTimeBudget",
			CAPZ: Values{Set: []string{Absent}}, Ours: Values{Set: []string{`"PT90M"`}}, Flavors: []string{"default"}, Why: "a pipe | in a cell", Line: 13},
		{Side: SideBoth, Method: "PUT", Resource: "Microsoft.Compute/virtualMachines", Name: "${CLUSTER_NAME}-md-0-*", Field: "properties.osProfile.customData",
			CAPZ: Values{Set: []string{`"<redacted>"`}}, Ours: Values{Set: []string{`"<redacted>"`, Absent}}, Flavors: []string{"default"},
			Why: "ours only until the VM is created", Line: 14},
		{Side: SideBoth, Method: "PUT", Resource: "Microsoft.Compute/virtualMachines", Name: "${CLUSTER_NAME}-control-plane-*", Field: "zones",
			CAPZ: cpZones, Ours: cpZones, Flavors: []string{"default", "windows"}, MayNotOccur: true, Why: "Cluster API picks the zone at random", Line: 15},
		{Side: SideCAPZ, Method: "PUT", Resource: "Microsoft.Authorization/roleAssignments", Name: "<guid-*>", Field: WholeResource,
			CAPZ: Values{Any: true}, Ours: Values{Set: []string{Absent}}, Flavors: []string{"machinepool-flex"}, Why: "least privilege", Line: 16},
		{Side: SideOurs, Method: "PATCH", Resource: "Microsoft.Resources/resourceGroups", Name: "${CLUSTER_NAME}", Field: "tags.owner",
			CAPZ: Values{Set: []string{Absent}}, Ours: Values{Set: []string{`"the user"`}}, Why: "no flavor tags its group", Line: 17},
		{Side: SideBoth, Method: "PUT", Resource: "Microsoft.Network/virtualNetworks", Name: "${CLUSTER_NAME}-vnet", Field: FieldAPIVersion,
			CAPZ: Values{Set: []string{`"2022-07-01"`}}, Ours: Values{Set: []string{`"2024-03-01"`}}, Flavors: []string{"default"}, Why: "ASO's version of the API", Line: 18},
		{Side: SideCAPZ, Method: "DELETE", Resource: "Microsoft.Network/natGateways", Name: "${CLUSTER_NAME}-node-natgw", Field: FieldStatus,
			CAPZ: Values{Set: []string{"404"}}, Ours: Values{Set: []string{Absent}}, Flavors: []string{"default"}, Why: "CAPZ deletes what the group took", Line: 19},
	}))
}

func TestParseDeliberate_Errors(t *testing.T) {
	header := "| side | resource | name | field | CAPZ v1.26.0 | ours | flavors | why |\n|---|---|---|---|---|---|---|---|\n"
	row := func(cells string) string { return "## Deliberate differences\n" + header + cells + "\n" }
	tests := []struct {
		name, markdown, wantErr string
	}{
		{name: "no section", markdown: "# Parity\n\n## Running make parity\n", wantErr: "no section"},
		{name: "no table", markdown: "## Deliberate differences\n\nNothing yet.\n\n## Next\n| a | b |\n", wantErr: "no table"},
		{name: "the old columns", markdown: "## Deliberate differences\n| resource | field | CAPZ v1.26.0 | ours | why |\n", wantErr: "has the columns"},
		{name: "a short row", markdown: row("| both | `A/b` | `n` | `f` | `1` | `2` | `default` |"), wantErr: "line 4: a row of 7 cells"},
		{name: "another side", markdown: row("| user | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `line 4: side "user"`},
		{name: "not a resource type", markdown: row("| both | `A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `resource "`},
		{name: "a method not written", markdown: row("| both | `GET Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: `resource "`},
		{name: "a whole resource of every name", markdown: row("| ours | `Microsoft.A/b` | `*/*` | `*` | `(absent)` | any | `default` | why |"), wantErr: "not every one of the type"},
		{name: "no name", markdown: row("| both | `Microsoft.A/b` | | `f` | `1` | `2` | `default` | why |"), wantErr: "name"},
		{name: "a bad glob", markdown: row("| both | `Microsoft.A/b` | `a[` | `f` | `1` | `2` | `default` | why |"), wantErr: "syntax error in pattern"},
		{name: "no field", markdown: row("| both | `Microsoft.A/b` | `n` | | `1` | `2` | `default` | why |"), wantErr: "field"},
		{name: "a value in words", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | the size's | `2` | `default` | why |"), wantErr: "CAPZ's values"},
		{name: "and and or", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | `1` | `2` and `3` or `4` | `default` | why |"), wantErr: "our values"},
		{name: "values without a join", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | `1` `2` | `2` | `default` | why |"), wantErr: "CAPZ's values"},
		{name: "flavors in words", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | `1` | `2` | every one | why |"), wantErr: "flavors"},
		{name: "no why", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | |"), wantErr: "no why"},
		{name: "ours alone, CAPZ sends it", markdown: row("| ours | `Microsoft.A/b` | `n` | `f` | `1` | `2` | `default` | why |"), wantErr: "side ours: the other side's values must be `(absent)`"},
		{name: "both, one absent", markdown: row("| both | `Microsoft.A/b` | `n` | `f` | `(absent)` | `2` | `default` | why |"), wantErr: "side both"},
		{name: "a whole resource of both", markdown: row("| both | `Microsoft.A/b` | `n` | `*` | any | any | `default` | why |"), wantErr: "names the side that alone writes it"},
		{name: "a whole resource with values", markdown: row("| ours | `Microsoft.A/b` | `n` | `*` | `(absent)` | `{}` | `default` | why |"), wantErr: "want any for ours"},
		{name: "a whole resource, the other side not absent", markdown: row("| ours | `Microsoft.A/b` | `n` | `*` | any | any | `default` | why |"), wantErr: "want `(absent)` for the other side"},
		{name: "a DELETE of any status", markdown: row("| capz | `DELETE Microsoft.A/b` | `n` | `*` | any | `(absent)` | `default` | why |"), wantErr: "want the field (status) and the statuses it excuses"},
		{name: "the statuses of a whole resource, any", markdown: row("| capz | `DELETE Microsoft.A/b` | `n` | `(status)` | any | `(absent)` | `default` | why |"), wantErr: "want the statuses, not any"},
		{name: "the statuses of a whole resource, not a status", markdown: row("| capz | `DELETE Microsoft.A/b` | `n` | `(status)` | `\"gone\"` | `(absent)` | `default` | why |"), wantErr: "is not an HTTP status"},
		{name: "the statuses of every resource of a type", markdown: row("| capz | `DELETE Microsoft.A/b` | `*` | `(status)` | `404` | `(absent)` | `default` | why |"), wantErr: "not every one of the type"},
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

// TestMatcher_ExcuseField: a row excuses only the flavor, method, type, name, field, side and values it names; a tag
// row (tags.<key>) matches its tag's path.
func TestMatcher_ExcuseField(t *testing.T) {
	ds := readSample(t)
	const (
		cp    = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.compute/virtualmachines/${CLUSTER_NAME}-control-plane-*"
		md    = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.compute/virtualmachines/${CLUSTER_NAME}-md-0-*"
		lbID  = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/loadbalancers/${CLUSTER_NAME}-public-lb"
		nsgID = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/networksecuritygroups/${CLUSTER_NAME}-node-nsg"
		vnet  = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/virtualnetworks/${CLUSTER_NAME}-vnet"
		rg    = "/subscriptions/s/resourcegroups/${CLUSTER_NAME}"
	)
	put := func(typ, id string) Resource { return Resource{Method: "PUT", Type: typ, ID: id} }
	vm := func(id string) Resource { return put("Microsoft.Compute/virtualMachines", id) }
	lbR := put("Microsoft.Network/loadBalancers", lbID)
	nsgR := put("Microsoft.Network/networkSecurityGroups", nsgID)
	probe := "properties.probes[HTTPSProbe].properties.intervalInSeconds"
	tests := []struct {
		name, flavor string
		resource     Resource
		field        string
		capz, ours   []string
		wantLine     int
	}{
		{"the values named", "default", lbR, probe, []string{"15"}, []string{"5"}, 11},
		{"another flavor", "windows", lbR, probe, []string{"15"}, []string{"5"}, 0},
		{"another value of ours", "default", lbR, probe, []string{"15"}, []string{"6"}, 0},
		{"another value of CAPZ", "default", lbR, probe, []string{"10"}, []string{"5"}, 0},
		{"another probe", "default", lbR, "properties.probes[HTTPProbe].properties.intervalInSeconds", []string{"15"}, []string{"5"}, 0},
		{"another load balancer", "default", put("Microsoft.Network/loadBalancers", lbID+"-internal"), probe, []string{"15"}, []string{"5"}, 0},
		{"a PATCH", "default", Resource{Method: "PATCH", Type: lbR.Type, ID: lbID}, probe, []string{"15"}, []string{"5"}, 0},
		{"a field below", "default", lbR, probe + ".x", []string{"15"}, []string{"5"}, 0},
		{"a tag of CAPZ's, by glob and in any case", "windows", put("microsoft.network/networksecuritygroups", nsgID), "tags.Name", []string{`"${CLUSTER_NAME}-nsg"`}, []string{Absent}, 12},
		{"another tag", "default", nsgR, "tags.Role", []string{`"${CLUSTER_NAME}-nsg"`}, []string{Absent}, 0},
		{"the tag sent by ours too", "default", nsgR, "tags.Name", []string{`"${CLUSTER_NAME}-nsg"`}, []string{`"x"`}, 0},
		{"a field only ours sends", "default", vm(cp), "properties.extensionsTimeBudget", []string{Absent}, []string{`"PT90M"`}, 13},
		{"custom data until the VM is created", "default", vm(md), "properties.osProfile.customData", []string{`"<redacted>"`}, []string{`"<redacted>"`, Absent}, 14},
		{"custom data never sent", "default", vm(md), "properties.osProfile.customData", []string{`"<redacted>"`}, []string{Absent}, 0},
		{"custom data of the control plane", "default", vm(cp), "properties.osProfile.customData", []string{`"<redacted>"`}, []string{`"<redacted>"`, Absent}, 0},
		{"a zone of the region", "default", vm(cp), "zones", []string{`["1"]`}, []string{`["2"]`}, 15},
		{"another zone", "default", vm(cp), "zones", []string{`["1"]`}, []string{`["4"]`}, 0},
		{"two zones", "default", vm(cp), "zones", []string{`["1"]`}, []string{`["1","2"]`}, 0},
		{"a worker's zone", "default", vm(md), "zones", []string{`["1"]`}, []string{`["2"]`}, 0},
		{"no flavor", "default", Resource{Method: "PATCH", Type: "Microsoft.Resources/resourceGroups", ID: rg}, "tags.owner", []string{Absent}, []string{`"the user"`}, 0},
		{"an api-version", "default", put("Microsoft.Network/virtualNetworks", vnet), FieldAPIVersion, []string{`"2022-07-01"`}, []string{`"2024-03-01"`}, 18},
		{"another api-version", "default", put("Microsoft.Network/virtualNetworks", vnet), FieldAPIVersion, []string{`"2022-07-01"`}, []string{`"2024-05-01"`}, 0},
		{"a whole resource's row excuses no field", "machinepool-flex", put("Microsoft.Authorization/roleAssignments", rg+"/providers/microsoft.authorization/roleassignments/<guid-1>"), "properties.principalId", []string{`"a"`}, []string{`"b"`}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			row, ok := NewMatcher(ds).ExcuseField(tt.flavor, tt.resource, FieldDiff{Path: tt.field, CAPZ: tt.capz, Ours: tt.ours})
			g.Expect(ok).To(Equal(tt.wantLine != 0))
			g.Expect(row.Line).To(Equal(tt.wantLine))
		})
	}
}

// TestMatcher_ExcuseResource: a resource only one side writes is excused by a row of the whole resource naming that
// side, its name and the flavor, and for a row of its statuses, only when Azure answered its writes with them; nothing
// else.
func TestMatcher_ExcuseResource(t *testing.T) {
	g := NewWithT(t)
	m := NewMatcher(readSample(t))
	only := func(side string, r Resource, statuses ...string) ResourceDiff {
		status := StatusOnlyCAPZ
		if side == SideOurs {
			status = StatusOnlyOurs
		}
		return ResourceDiff{Resource: r, Status: status, OnlyStatuses: statuses}
	}
	ra := Resource{Method: "PUT", Type: "Microsoft.Authorization/roleAssignments", ID: "/subscriptions/s/providers/microsoft.authorization/roleassignments/<guid-3>"}
	row, ok := m.ExcuseResource("machinepool-flex", only(SideCAPZ, ra, "201"))
	g.Expect(ok).To(BeTrue())
	g.Expect(row.Line).To(Equal(16))
	_, ok = m.ExcuseResource("machinepool-flex", only(SideOurs, ra, "201"))
	g.Expect(ok).To(BeFalse(), "a role assignment only ours writes")
	_, ok = m.ExcuseResource("default", only(SideCAPZ, ra, "201"))
	g.Expect(ok).To(BeFalse(), "another flavor")
	_, ok = m.ExcuseResource("machinepool-flex", only(SideCAPZ, Resource{Method: "PUT", Type: ra.Type, ID: "/subscriptions/s/providers/microsoft.authorization/roleassignments/named"}, "201"))
	g.Expect(ok).To(BeFalse(), "a name the row does not name")
	_, ok = m.ExcuseResource("machinepool-flex", only(SideCAPZ, Resource{Method: "DELETE", Type: ra.Type, ID: ra.ID}, "200"))
	g.Expect(ok).To(BeFalse(), "a DELETE")
	_, ok = m.ExcuseResource("default", only(SideCAPZ, Resource{Method: "PUT", Type: "Microsoft.Network/loadBalancers",
		ID: "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/loadbalancers/${CLUSTER_NAME}-public-lb"}, "201"))
	g.Expect(ok).To(BeFalse(), "a row of one field does not excuse the whole resource")

	natgw := Resource{Method: "DELETE", Type: "Microsoft.Network/natGateways", ID: "/subscriptions/s/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/natgateways/${CLUSTER_NAME}-node-natgw"}
	row, ok = m.ExcuseResource("default", only(SideCAPZ, natgw, "404"))
	g.Expect(ok).To(BeTrue(), "a DELETE that found nothing")
	g.Expect(row.Line).To(Equal(19))
	for _, statuses := range [][]string{{"202"}, {"200"}, {"202", "404"}, nil} {
		_, ok = m.ExcuseResource("default", only(SideCAPZ, natgw, statuses...))
		g.Expect(ok).To(BeFalse(), "a DELETE answered %v: Azure deleted something", statuses)
	}
	_, ok = m.ExcuseResource("default", only(SideOurs, natgw, "404"))
	g.Expect(ok).To(BeFalse(), "a DELETE only ours sends")
	_, ok = NewMatcher(readSample(t)).ExcuseField("default", natgw, FieldDiff{Path: FieldStatus, CAPZ: []string{"404"}, Ours: []string{"202"}})
	g.Expect(ok).To(BeFalse(), "a row of a resource only CAPZ deletes does not excuse one both delete")
}

// TestMatcher_Stale: a row that excused nothing in a flavor it names that ran is stale; flavors that did not run, rows
// of no flavor and rows that may not occur are not.
func TestMatcher_Stale(t *testing.T) {
	g := NewWithT(t)
	m := NewMatcher(readSample(t))
	lbR := Resource{Method: "PUT", Type: "Microsoft.Network/loadBalancers", ID: "/subscriptions/s/resourcegroups/x/providers/microsoft.network/loadbalancers/${CLUSTER_NAME}-public-lb"}
	_, ok := m.ExcuseField("default", lbR, FieldDiff{Path: "properties.probes[HTTPSProbe].properties.intervalInSeconds", CAPZ: []string{"15"}, Ours: []string{"5"}})
	g.Expect(ok).To(BeTrue())
	var lines []string
	for _, s := range m.Stale([]string{"default", "aks-aso"}) {
		lines = append(lines, s.String())
	}
	g.Expect(lines).To(ConsistOf(
		"docs line 12 (CAPZ PUT Microsoft.Network/networkSecurityGroups *-nsg tags.Name) excused nothing in flavor default: remove or correct the row",
		"docs line 13 (ours PUT Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-control-plane-* properties.extensionsTimeBudget) excused nothing in flavor default: remove or correct the row",
		"docs line 14 (both PUT Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-md-0-* properties.osProfile.customData) excused nothing in flavor default: remove or correct the row",
		"docs line 18 (both PUT Microsoft.Network/virtualNetworks ${CLUSTER_NAME}-vnet (api-version)) excused nothing in flavor default: remove or correct the row",
		"docs line 19 (CAPZ DELETE Microsoft.Network/natGateways ${CLUSTER_NAME}-node-natgw (status)) excused nothing in flavor default: remove or correct the row",
	))
	g.Expect(m.Stale([]string{"aks-aso"})).To(BeEmpty(), "no row names aks-aso")

	// A comparison that had DELETEs only judges no row of PUTs; one that had PUTs judges them again.
	m.Saw("default", "DELETE")
	g.Expect(m.Stale([]string{"default"})).To(HaveLen(1), "no PUT of default was compared: its DELETE row alone is judged")
	m.Saw("default", "PUT")
	g.Expect(m.Stale([]string{"default"})).To(HaveLen(5))
}

// TestParseDeliberate_TheDocument: docs/capz-parity.md's own table parses, and every flavor a row names is one make
// parity or make parity-switch runs.
func TestParseDeliberate_TheDocument(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "capz-parity.md"))
	g.Expect(err).NotTo(HaveOccurred())
	ds, err := ParseDeliberate(raw)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ds).NotTo(BeEmpty())
	for _, d := range ds {
		for _, f := range d.Flavors {
			_, ok := FlavorNamed(f)
			g.Expect(ok).To(BeTrue(), "line %d: no flavor %q", d.Line, f)
		}
	}
}
