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
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// writesOf normalizes requests given as path → JSON body, in order.
func writesOf(t *testing.T, reqs ...string) []Write {
	t.Helper()
	var in []Request
	for i := 0; i < len(reqs); i += 2 {
		in = append(in, Request{Method: "PUT", Path: reqs[i], Body: []byte(reqs[i+1])})
	}
	w, err := Normalizer{}.Writes(in)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const (
	lb  = rgPath + "/providers/Microsoft.Network/loadBalancers/lb"
	nsg = rgPath + "/providers/Microsoft.Network/networkSecurityGroups/nsg"
	vn  = rgPath + "/providers/Microsoft.Network/virtualNetworks/vnet"
)

// TestCompare_Order: the order of requests, of named list items and of scalar lists does not matter; the same body
// sent twice counts once; a security rule written inline in its group compares with one written on its own.
func TestCompare_Order(t *testing.T) {
	g := NewWithT(t)
	capz := writesOf(t,
		nsg, `{"location":"eastus","properties":{"securityRules":[{"name":"ssh","properties":{"priority":100}},{"name":"api","properties":{"priority":101}}]}}`,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]}}}`,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]}}}`,
	)
	ours := writesOf(t,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["fd00::/48","10.0.0.0/8"]}}}`,
		nsg+"/securityRules/api", `{"properties":{"priority":101}}`,
		nsg, `{"location":"eastus"}`,
		nsg+"/securityRules/ssh", `{"name":"ssh","properties":{"priority":100}}`,
	)
	diffs := Compare(capz, ours)
	g.Expect(diffs).To(HaveLen(4))
	for _, d := range diffs {
		g.Expect(d.Status).To(Equal(StatusEqual), "%s", d.Resource)
	}
	g.Expect(diffs[0].Resource.Type).To(Equal("Microsoft.Network/networkSecurityGroups"), "sorted by type")
	g.Expect(diffs[1].Resource.String()).To(Equal("Microsoft.Network/networkSecurityGroups/securityRules nsg/api"))
	g.Expect(diffs[3].CAPZWrites).To(Equal(1), "a repeated body counts once")
}

// TestCompare_Fields: a differing field is reported with both sides' values as sets, a named list item by name,
// an unnamed one by its rank in the sorted list; a field one side does not send is absent there, and an empty list
// or object in a PUT is as absent; resources only one side writes are reported as such.
func TestCompare_Fields(t *testing.T) {
	g := NewWithT(t)
	capz := writesOf(t,
		lb, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":15,"probeThreshold":1}}]},"tags":{"Name":"lb"}}`,
		lb, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":15,"probeThreshold":1}}]},"tags":{"Name":"lb","x":"1"}}`,
		vn, `{"properties":{"dhcpOptions":{"dnsServers":[]},"ipTags":[{"ipTagType":"a","tag":"1"}]}}`,
		nsg, `{"properties":{"securityRules":[]}}`,
	)
	ours := writesOf(t,
		lb, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":5,"numberOfProbes":4}}]}}`,
		vn, `{"properties":{"ipTags":[{"ipTagType":"a","tag":"2"}]}}`,
		rgPath, `{"location":"eastus"}`,
	)
	diffs := Compare(capz, ours)
	byType := map[string]ResourceDiff{}
	for _, d := range diffs {
		byType[d.Resource.Type] = d
	}
	g.Expect(byType).To(HaveLen(4))
	g.Expect(byType["Microsoft.Network/networkSecurityGroups"].Status).To(Equal(StatusOnlyCAPZ))
	g.Expect(byType["Microsoft.Resources/resourceGroups"].Status).To(Equal(StatusOnlyOurs))

	d := byType["Microsoft.Network/loadBalancers"]
	g.Expect(d.Status).To(Equal(StatusDiffers))
	g.Expect(d.CAPZWrites).To(Equal(2))
	g.Expect(d.Fields).To(Equal([]FieldDiff{
		{Path: "properties.probes[HTTPSProbe].properties.intervalInSeconds", DocPath: "properties.probes[].properties.intervalInSeconds", CAPZ: []string{"15"}, Ours: []string{"5"}},
		{Path: "properties.probes[HTTPSProbe].properties.numberOfProbes", DocPath: "properties.probes[].properties.numberOfProbes", CAPZ: []string{Absent}, Ours: []string{"4"}},
		{Path: "properties.probes[HTTPSProbe].properties.probeThreshold", DocPath: "properties.probes[].properties.probeThreshold", CAPZ: []string{"1"}, Ours: []string{Absent}},
		{Path: "tags.Name", DocPath: "tags.Name", CAPZ: []string{`"lb"`}, Ours: []string{Absent}},
		{Path: "tags.x", DocPath: "tags.x", CAPZ: []string{`"1"`, Absent}, Ours: []string{Absent}},
	}))
	g.Expect(byType["Microsoft.Network/virtualNetworks"].Fields).To(Equal([]FieldDiff{
		{Path: "properties.ipTags[0].tag", DocPath: "properties.ipTags[].tag", CAPZ: []string{`"1"`}, Ours: []string{`"2"`}},
	}))
	g.Expect(DocPath("a[x].b[0].c")).To(Equal("a[].b[].c"))
}

// TestReport: every resource of every flavor with its status, each differing field with both values and whether the
// table documents it, a summary per flavor, and the undocumented differences and problems at the end.
func TestReport(t *testing.T) {
	g := NewWithT(t)
	ds := readSample(t)
	capz := writesOf(t,
		lb, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":15,"port":6443}}]}}`,
		vn, `{"location":"eastus"}`,
		rgPath+"/providers/Microsoft.Authorization/roleAssignments/r", `{}`,
		nsg, `{}`,
	)
	ours := writesOf(t,
		lb, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":5,"port":443}}]}}`,
		vn, `{"location":"eastus"}`,
	)
	var out bytes.Buffer
	undocumented, problems := Report(&out, []FlavorResult{{Flavor: "default", Cluster: "pdef", Diffs: Compare(capz, ours), Problems: []string{"CAPZ did not settle"}}}, ds)
	g.Expect(problems).To(Equal([]string{"default: CAPZ did not settle"}))
	g.Expect(undocumented).To(HaveLen(2))
	g.Expect(undocumented[0].String()).To(Equal("default: Microsoft.Network/loadBalancers lb properties.probes[HTTPSProbe].properties.port"))
	g.Expect(undocumented[1].String()).To(Equal("default: Microsoft.Network/networkSecurityGroups nsg *"))
	report := out.String()
	for _, want := range []string{
		"== flavor default (cluster pdef)",
		"  only CAPZ  Microsoft.Authorization/roleAssignments r\n      documented (docs line 15)",
		"  differs    Microsoft.Network/loadBalancers lb",
		"      properties.probes[HTTPSProbe].properties.intervalInSeconds: CAPZ 15; ours 5  [documented (docs line 11)]",
		"      properties.probes[HTTPSProbe].properties.port: CAPZ 6443; ours 443  [UNDOCUMENTED]",
		"  only CAPZ  Microsoft.Network/networkSecurityGroups nsg\n      UNDOCUMENTED",
		"  equal      Microsoft.Network/virtualNetworks vnet",
		"  PROBLEM: CAPZ did not settle",
		"  summary: 4 resources: 1 equal, 1 differ, 2 only CAPZ, 0 only ours; 2 undocumented differences",
		"2 undocumented differences",
		"1 problems made the comparison incomplete",
	} {
		g.Expect(report).To(ContainSubstring(want))
	}
	g.Expect(strings.Count(report, "UNDOCUMENTED")).To(Equal(2))
	g.Expect(json.Valid([]byte(values([]string{`"a"`})))).To(BeTrue())
}
