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
	"slices"
	"testing"

	. "github.com/onsi/gomega"
)

// writesOf normalizes requests given as path → JSON body, in order.
func writesOf(t *testing.T, reqs ...string) []Write {
	t.Helper()
	var in []Request
	for i := 0; i < len(reqs); i += 2 {
		in = append(in, Request{Method: "PUT", Path: reqs[i], Body: []byte(reqs[i+1]), Status: 201})
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

// TestCompare_Order: the order of requests does not matter, nor that of security rules, which are resources of their
// own; the same body sent twice counts once; a security rule written inline in its group compares with one written on
// its own. Lists keep their order: scalars, objects by index, and the names of named objects.
func TestCompare_Order(t *testing.T) {
	g := NewWithT(t)
	capz := writesOf(t,
		nsg, `{"location":"eastus","properties":{"securityRules":[{"name":"ssh","properties":{"priority":100}},{"name":"api","properties":{"priority":101}}]}}`,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]}}}`,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]}}}`,
	)
	ours := writesOf(t,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]}}}`,
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

	capz = writesOf(t,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/8","fd00::/48"]},"ipTags":[{"t":"a"},{"t":"b"}]}}`,
		lb, `{"properties":{"probes":[{"name":"a","port":1},{"name":"b","port":2}]}}`,
	)
	ours = writesOf(t,
		vn, `{"properties":{"addressSpace":{"addressPrefixes":["fd00::/48","10.0.0.0/8"]},"ipTags":[{"t":"b"},{"t":"a"}]}}`,
		lb, `{"properties":{"probes":[{"name":"b","port":2},{"name":"a","port":1}]}}`,
	)
	diffs = Compare(capz, ours)
	g.Expect(diffs).To(HaveLen(2))
	g.Expect(diffs[0].Fields).To(Equal([]FieldDiff{{Path: "properties.probes.(order)", CAPZ: []string{`["a","b"]`}, Ours: []string{`["b","a"]`}}}))
	g.Expect(diffs[1].Fields).To(Equal([]FieldDiff{
		{Path: "properties.addressSpace.addressPrefixes", CAPZ: []string{`["10.0.0.0/8","fd00::/48"]`}, Ours: []string{`["fd00::/48","10.0.0.0/8"]`}},
		{Path: "properties.ipTags[0].t", CAPZ: []string{`"a"`}, Ours: []string{`"b"`}},
		{Path: "properties.ipTags[1].t", CAPZ: []string{`"b"`}, Ours: []string{`"a"`}},
	}))
}

// TestCompare_APIVersionsStatusesDeletes: the api-versions of a resource's writes, the status of the first and the
// errors of the others compare; a repeated write's 200 does not; DELETEs and POSTs compare as resources, and the
// order of the deletes both sides made; no delete on either side is equal.
func TestCompare_APIVersionsStatusesDeletes(t *testing.T) {
	g := NewWithT(t)
	write := func(method, id, apiVersion string, status int) Write {
		ws, err := Normalizer{}.Writes([]Request{{Method: method, Path: id, APIVersion: apiVersion, Status: status, Body: []byte(`{"location":"eastus"}`)}})
		g.Expect(err).NotTo(HaveOccurred())
		return ws[0]
	}
	capz := []Write{
		write("PUT", vn, "2022-07-01", 201), write("PUT", vn, "2022-07-01", 200),
		write("PUT", nsg, "2022-07-01", 201), write("PUT", nsg, "2022-07-01", 200),
		write("PUT", lb, "2022-07-01", 201),
	}
	ours := []Write{
		write("PUT", vn, "2024-03-01", 201),
		write("PUT", nsg, "2022-07-01", 201), write("PUT", nsg, "2022-07-01", 409),
		write("PUT", lb, "2022-07-01", 201),
	}
	g.Expect(Compare(capz, capz)).To(HaveEach(HaveField("Status", StatusEqual)), "creation only: no deletes is equal")
	diffs := Compare(capz, ours)
	g.Expect(diffs).To(HaveLen(3))
	g.Expect(diffs[0].Status).To(Equal(StatusEqual), "a repeated write's 200 is no difference")
	g.Expect(diffs[1].Fields).To(Equal([]FieldDiff{{Path: FieldStatus, CAPZ: []string{"201"}, Ours: []string{"201", "409"}}}))
	g.Expect(diffs[2].Fields).To(Equal([]FieldDiff{{Path: FieldAPIVersion, CAPZ: []string{`"2022-07-01"`}, Ours: []string{`"2024-03-01"`}}}))

	capz = append(capz, write("DELETE", lb, "2022-07-01", 202), write("DELETE", nsg, "2022-07-01", 202), write("DELETE", lb, "2022-07-01", 202))
	ours = append(ours, write("DELETE", nsg, "2022-07-01", 202), write("DELETE", lb, "2022-07-01", 202), write("DELETE", vn, "2022-07-01", 202))
	byResource := map[string]ResourceDiff{}
	for _, d := range Compare(capz, ours) {
		byResource[d.Resource.String()] = d
	}
	g.Expect(byResource).To(HaveKeyWithValue("DELETE Microsoft.Network/loadBalancers lb", HaveField("Status", StatusEqual)))
	g.Expect(byResource).To(HaveKeyWithValue("DELETE Microsoft.Network/virtualNetworks vnet", HaveField("Status", StatusOnlyOurs)))
	g.Expect(byResource).To(HaveKeyWithValue("DELETE (order of deletes) ", HaveField("Fields", Equal([]FieldDiff{{Path: FieldOrder,
		CAPZ: []string{"1. DELETE Microsoft.Network/loadBalancers lb", "2. DELETE Microsoft.Network/networkSecurityGroups nsg"},
		Ours: []string{"1. DELETE Microsoft.Network/networkSecurityGroups nsg", "2. DELETE Microsoft.Network/loadBalancers lb"}}}))))
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
		{Path: "properties.probes[HTTPSProbe].properties.intervalInSeconds", CAPZ: []string{"15"}, Ours: []string{"5"}},
		{Path: "properties.probes[HTTPSProbe].properties.numberOfProbes", CAPZ: []string{Absent}, Ours: []string{"4"}},
		{Path: "properties.probes[HTTPSProbe].properties.probeThreshold", CAPZ: []string{"1"}, Ours: []string{Absent}},
		{Path: "tags.Name", CAPZ: []string{`"lb"`}, Ours: []string{Absent}},
		{Path: "tags.x", CAPZ: []string{`"1"`, Absent}, Ours: []string{Absent}},
	}))
	g.Expect(byType["Microsoft.Network/virtualNetworks"].Fields).To(Equal([]FieldDiff{
		{Path: "properties.ipTags[0].tag", CAPZ: []string{`"1"`}, Ours: []string{`"2"`}},
	}))
}

// TestReport: every resource of every flavor with its status, each differing field with both values and the row that
// excuses it, a summary per flavor, the undocumented differences, and the problems with the stale rows at the end.
func TestReport(t *testing.T) {
	g := NewWithT(t)
	ds := readSample(t)
	lbID := rgPath + "/providers/Microsoft.Network/loadBalancers/pdef-public-lb"
	n := Normalizer{Names: map[string]string{"pdef": ClusterPlaceholder}, KeepGUIDs: []string{sub}}
	writes := func(reqs ...string) []Write {
		var in []Request
		for i := 0; i < len(reqs); i += 2 {
			in = append(in, Request{Method: "PUT", Path: reqs[i], Body: []byte(reqs[i+1]), Status: 201})
		}
		w, err := n.Writes(in)
		g.Expect(err).NotTo(HaveOccurred())
		return w
	}
	capz := writes(
		lbID, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":15,"port":6443}}]}}`,
		vn, `{"location":"eastus"}`,
		rgPath+"/providers/Microsoft.Authorization/roleAssignments/0b4f0a8e-0000-4000-8000-000000000001", `{}`,
		nsg, `{}`,
	)
	ours := writes(
		lbID, `{"properties":{"probes":[{"name":"HTTPSProbe","properties":{"intervalInSeconds":5,"port":443}}]}}`,
		vn, `{"location":"eastus"}`,
	)
	var out bytes.Buffer
	undocumented, problems := Report(&out, []FlavorResult{
		{Flavor: "default", Cluster: "pdef", Diffs: Compare(capz, ours), Problems: []string{"CAPZ did not settle"}},
		{Flavor: "machinepool-flex", Cluster: "pdef", Diffs: Compare(capz, ours)},
	}, ds)
	g.Expect(undocumented).To(HaveLen(6))
	g.Expect(undocumented[0].String()).To(Equal("default: Microsoft.Authorization/roleAssignments <guid-1> *"), "the row names another flavor")
	g.Expect(undocumented[1].String()).To(Equal("default: Microsoft.Network/loadBalancers ${CLUSTER_NAME}-public-lb properties.probes[HTTPSProbe].properties.port"))
	g.Expect(undocumented[2].String()).To(Equal("default: Microsoft.Network/networkSecurityGroups nsg *"))
	g.Expect(problems).To(HaveLen(5))
	g.Expect(problems[0]).To(Equal("default: CAPZ did not settle"))
	g.Expect(problems[1:]).To(HaveEach(HavePrefix("stale row: docs line 1")))
	g.Expect(problems[1:]).To(ContainElement(ContainSubstring("docs line 12 ")))
	report := out.String()
	for _, want := range []string{
		"== flavor default (cluster pdef)",
		"  only CAPZ  Microsoft.Authorization/roleAssignments <guid-1>\n      (status) 201  [UNDOCUMENTED]",
		"  differs    Microsoft.Network/loadBalancers ${CLUSTER_NAME}-public-lb",
		"      properties.probes[HTTPSProbe].properties.intervalInSeconds: CAPZ 15; ours 5  [documented (docs line 11)]",
		"      properties.probes[HTTPSProbe].properties.port: CAPZ 6443; ours 443  [UNDOCUMENTED]",
		"  only CAPZ  Microsoft.Network/networkSecurityGroups nsg\n      (status) 201  [UNDOCUMENTED]",
		"  equal      Microsoft.Network/virtualNetworks vnet",
		"  PROBLEM: CAPZ did not settle",
		"  summary: 4 resources: 1 equal, 1 differ, 2 only CAPZ, 0 only ours; 3 undocumented differences",
		"== flavor machinepool-flex (cluster pdef)",
		"  only CAPZ  Microsoft.Authorization/roleAssignments <guid-1>\n      (status) 201  [documented (docs line 16)]",
		"6 undocumented differences",
		"4 stale rows",
		"5 problems made the comparison incomplete or the table wrong",
	} {
		g.Expect(report).To(ContainSubstring(want))
	}
	g.Expect(json.Valid([]byte(values([]string{`"a"`})))).To(BeTrue())
}

// TestCompare_OrderOfDeletesByMachine: two machines' resources deleted in another interleaving is no difference
// (Cluster API deletes machines concurrently); a machine's own resources, or a machine's and the cluster's, in
// another order are.
func TestCompare_OrderOfDeletesByMachine(t *testing.T) {
	g := NewWithT(t)
	deletes := deleteWrites(g, Normalizer{Names: map[string]string{"pdef": ClusterPlaceholder,
		"pdef-md-0-abcde": ClusterPlaceholder + "-md-0-*", "pdef-control-plane-fghij": ClusterPlaceholder + "-control-plane-*"}})
	var (
		workerVM  = "/providers/Microsoft.Compute/virtualMachines/pdef-md-0-abcde"
		workerNIC = "/providers/Microsoft.Network/networkInterfaces/pdef-md-0-abcde-nic"
		cpVM      = "/providers/Microsoft.Compute/virtualMachines/pdef-control-plane-fghij"
		cpNIC     = "/providers/Microsoft.Network/networkInterfaces/pdef-control-plane-fghij-nic"
		natRule   = "/providers/Microsoft.Network/loadBalancers/pdef-public-lb/inboundNatRules/pdef-control-plane-fghij"
		lbID      = "/providers/Microsoft.Network/loadBalancers/pdef-public-lb"
	)
	capz := deletes(workerVM, workerNIC, cpVM, cpNIC, natRule, lbID)
	orderDiff := func(ours []Write) bool { return orderOfDeletesDiffers(capz, ours) }
	g.Expect(orderDiff(deletes(cpVM, workerVM, cpNIC, workerNIC, natRule, lbID))).To(BeFalse(), "two machines interleaved")
	g.Expect(orderDiff(deletes(workerNIC, workerVM, cpVM, cpNIC, natRule, lbID))).To(BeTrue(), "a machine's interface before its VM")
	g.Expect(orderDiff(deletes(workerVM, workerNIC, cpVM, natRule, cpNIC, lbID))).To(BeTrue(), "a machine's SSH rule before its interface")
	g.Expect(orderDiff(deletes(workerVM, lbID, workerNIC, cpVM, cpNIC, natRule))).To(BeTrue(), "the cluster's load balancer before a machine's resources")
}

// TestCompare_OrderOfDeletesOfSiblings: a managed cluster's maintenance configurations (siblings: one type, one
// parent) deleted in another order is no difference; two top-level resources of one type, or a child and its
// parent, in another order are.
func TestCompare_OrderOfDeletesOfSiblings(t *testing.T) {
	g := NewWithT(t)
	deletes := deleteWrites(g, Normalizer{Names: map[string]string{"paks": ClusterPlaceholder}})
	var (
		cluster   = "/providers/Microsoft.ContainerService/managedClusters/paks"
		upgrade   = cluster + "/maintenanceConfigurations/aksManagedAutoUpgradeSchedule"
		nodeOS    = cluster + "/maintenanceConfigurations/aksManagedNodeOSUpgradeSchedule"
		otherPool = "/providers/Microsoft.ContainerService/managedClusters/other/maintenanceConfigurations/default"
		ip1       = "/providers/Microsoft.Network/publicIPAddresses/paks-1"
		ip2       = "/providers/Microsoft.Network/publicIPAddresses/paks-2"
	)
	capz := deletes(cluster, upgrade, nodeOS, otherPool, ip1, ip2)
	orderDiff := func(ours []Write) bool { return orderOfDeletesDiffers(capz, ours) }
	g.Expect(orderDiff(deletes(cluster, nodeOS, upgrade, otherPool, ip1, ip2))).To(BeFalse(), "siblings swapped")
	g.Expect(orderDiff(deletes(cluster, upgrade, otherPool, nodeOS, ip1, ip2))).To(BeTrue(), "another cluster's configuration is no sibling")
	g.Expect(orderDiff(deletes(upgrade, cluster, nodeOS, otherPool, ip1, ip2))).To(BeTrue(), "a child before its parent")
	g.Expect(orderDiff(deletes(cluster, upgrade, nodeOS, otherPool, ip2, ip1))).To(BeTrue(), "two top-level resources of one type")
}

// deleteWrites returns a function that normalizes a side's DELETEs (202) of resources of the resource group, by
// their IDs in the group, in order.
func deleteWrites(g *WithT, n Normalizer) func(ids ...string) []Write {
	return func(ids ...string) []Write {
		var reqs []Request
		for _, id := range ids {
			reqs = append(reqs, Request{Method: "DELETE", Path: rgPath + id, Status: 202})
		}
		ws, err := n.Writes(reqs)
		g.Expect(err).NotTo(HaveOccurred())
		return ws
	}
}

// orderOfDeletesDiffers says whether the comparison reports another order of deletes.
func orderOfDeletesDiffers(capz, ours []Write) bool {
	return slices.ContainsFunc(Compare(capz, ours), func(d ResourceDiff) bool { return d.Resource.Type == OrderOfDeletes })
}
