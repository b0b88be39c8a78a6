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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestSideProcesses: ours runs every flavor in one process; CAPZ runs once per set of feature gates, so that a gate
// one flavor needs does not change CAPZ's defaults for the others.
func TestSideProcesses(t *testing.T) {
	g := NewWithT(t)
	def, _ := FlavorNamed("default")
	ilb, _ := FlavorNamed("apiserver-ilb")
	win, _ := FlavorNamed("windows")
	ps := sideProcesses([]Flavor{def, ilb, win})
	g.Expect(ps).To(HaveLen(3))
	g.Expect(ps[0]).To(Equal(SideProcess{Side: SideOurs, Name: SideOurs, Flavors: []Flavor{def, ilb, win}}))
	g.Expect(ps[1]).To(Equal(SideProcess{Side: SideCAPZ, Name: SideCAPZ, Flavors: []Flavor{def, win}}))
	g.Expect(ps[2]).To(Equal(SideProcess{Side: SideCAPZ, Name: "CAPZ+APIServerILB", Flavors: []Flavor{ilb}, CAPZFeatureGates: "APIServerILB=true"}))
}

// TestFlavors: every flavor has its own cluster name and subscription, and renders from a template of CAPZ's shape
// with every variable set.
func TestFlavors(t *testing.T) {
	g := NewWithT(t)
	clusters, subscriptions := map[string]bool{}, map[string]bool{}
	for _, f := range Flavors {
		g.Expect(clusters).NotTo(HaveKey(f.Cluster))
		g.Expect(subscriptions).NotTo(HaveKey(f.Subscription))
		clusters[f.Cluster], subscriptions[f.Subscription] = true, true
		g.Expect(f.Subscription).To(MatchRegexp(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`))
	}
	def, _ := FlavorNamed("default")
	objs, err := def.Render("testdata")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kinds(objs)).To(Equal("AzureClusterIdentity×1, AzureCluster×1"))
	for _, o := range objs {
		g.Expect(o.GetNamespace()).To(Equal("parity-default"))
	}
	g.Expect(objs[0].Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("subscriptionID", def.Subscription)))
	g.Expect(objs[1].Object["spec"]).To(Equal(map[string]any{
		"type": "ServicePrincipal", "clientID": ClientID, "tenantID": TenantID,
		"clientSecret": map[string]any{"name": identitySecretName, "namespace": "parity-default"},
	}))
	_, err = Flavor{Name: "missing"}.Render("testdata")
	g.Expect(err).To(MatchError(ContainSubstring("failed to read flavor missing")))
}

// TestMachineNames: the machines of a group share its placeholder; a VM CAPZ named after a Machine's suffix (a
// shortened Windows name) gets the Machine's, a VM of a Machine that is gone its group's; other VMs keep their names.
func TestMachineNames(t *testing.T) {
	g := NewWithT(t)
	vm := func(name string) Request {
		return Request{Method: "PUT", Path: rgPath + "/providers/Microsoft.Compute/virtualMachines/" + name}
	}
	groups := map[string]string{
		"pdef-control-plane-aaaaa":  "pdef-control-plane",
		"pdef-md-0-bbbbb-zzzzz":     "pdef-md-0",
		"pdef-md-0-bbbbb-yyyyy":     "pdef-md-0",
		"pdef-md-0-win-ccccc-xxxxx": "pdef-md-0-win",
	}
	got := machineNames(groups, []Request{
		vm("pdef-control-plane-qqqqq"), // replaced, its Machine gone
		vm("pdef-md-0-bbbbb-zzzzz"),
		vm("pdef-md-0-win-ccccc-wwwww"), // gone, of the longer group
		vm("pdef-md-0-w-xxxxx"),
		{Method: "GET", Path: rgPath + "/providers/Microsoft.Compute/virtualMachines/pdef-md-0-bbbbb-ggggg"},
		{Method: "PUT", Path: rgPath + "/providers/Microsoft.Network/networkInterfaces/pdef-md-0-bbbbb-nnnnn-nic"},
		vm("unrelated"),
	}, "pdef")
	g.Expect(got).To(Equal(map[string]string{
		"pdef-control-plane-aaaaa":  "${CLUSTER_NAME}-control-plane-*",
		"pdef-control-plane-qqqqq":  "${CLUSTER_NAME}-control-plane-*",
		"pdef-md-0-bbbbb-zzzzz":     "${CLUSTER_NAME}-md-0-*",
		"pdef-md-0-bbbbb-yyyyy":     "${CLUSTER_NAME}-md-0-*",
		"pdef-md-0-win-ccccc-xxxxx": "${CLUSTER_NAME}-md-0-win-*",
		"pdef-md-0-win-ccccc-wwwww": "${CLUSTER_NAME}-md-0-win-*",
		"pdef-md-0-w-xxxxx":         "${CLUSTER_NAME}-md-0-win-*",
	}))
}

// TestFlavors_CustomVNet: the custom-vnet switch flavor renders the default template into the brought resource
// group and network, and makes what the user brought parents first, in its own subscription.
func TestFlavors_CustomVNet(t *testing.T) {
	g := NewWithT(t)
	f, ok := FlavorNamed("custom-vnet")
	g.Expect(ok).To(BeTrue())
	objs, err := f.Render("testdata")
	g.Expect(err).NotTo(HaveOccurred())
	spec, _ := objs[0].Object["spec"].(map[string]any)
	g.Expect(spec).To(HaveKeyWithValue("resourceGroup", "pcvnet-rg"))
	g.Expect(spec).To(HaveKeyWithValue("networkSpec", HaveKeyWithValue("vnet", map[string]any{"name": "custom-vnet", "resourceGroup": "pcvnet-vnetrg"})))

	ids, bodies := f.brought()
	prefix := "/subscriptions/" + f.Subscription + "/resourceGroups/"
	g.Expect(ids).To(HaveEach(HavePrefix(prefix)))
	g.Expect(ids[:2]).To(Equal([]string{prefix + "pcvnet-rg", prefix + "pcvnet-vnetrg"}))
	for i, id := range ids {
		for _, parent := range ids[i+1:] {
			g.Expect(id).NotTo(HavePrefix(parent+"/"), "a parent comes first")
		}
	}
	g.Expect(fmt.Sprint(bodies)).NotTo(ContainSubstring("{subscription}"))
	g.Expect(fmt.Sprint(bodies)).To(ContainSubstring(prefix + "pcvnet-vnetrg/providers/Microsoft.Network/networkSecurityGroups/node-nsg"))
}

// TestFlavors_DefaultExtras: the variant's edits reach the AzureCluster, {subscription} replaced by the flavor's.
func TestFlavors_DefaultExtras(t *testing.T) {
	g := NewWithT(t)
	f, ok := FlavorNamed("default-extras")
	g.Expect(ok).To(BeTrue())
	objs, err := f.Render("testdata")
	g.Expect(err).NotTo(HaveOccurred())
	network, _, _ := unstructured.NestedMap(objs[0].Object, "spec", "networkSpec")
	g.Expect(network).To(HaveKeyWithValue("vnet", HaveKeyWithValue("peerings", ConsistOf(HaveKeyWithValue("remoteVnetName", "pext-peer-vnet")))))
	raw := fmt.Sprint(network)
	g.Expect(raw).NotTo(ContainSubstring("{subscription}"))
	g.Expect(raw).To(ContainSubstring("/subscriptions/" + f.Subscription + "/resourceGroups/pext-peer/providers/Microsoft.Storage/storageAccounts/pextstorage"))
	g.Expect(raw).To(ContainSubstring("allow_https"))
}

// TestCompareFlavor: each phase of the lifecycle is compared on its own, in the order the sides ran them, after
// creation; a machine a later phase made compares by its group; a write only one side made in a phase is reported
// in that phase; a phase one side did not run or did not settle in is a problem of that phase.
func TestCompareFlavor(t *testing.T) {
	g := NewWithT(t)
	def, _ := FlavorNamed("default")
	vm := func(name string) string {
		return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachines/%s", def.Subscription, def.Cluster, name)
	}
	put := func(name string) Request {
		return Request{Method: "PUT", Path: vm(name), APIVersion: "2024-07-01", Status: 201, Body: []byte(`{"location":"eastus"}`)}
	}
	del := func(name string) Request {
		return Request{Method: "DELETE", Path: vm(name), APIVersion: "2024-07-01", Status: 202}
	}
	md := def.Cluster + "-md-0"
	capz := SideFlavor{
		Requests: []Request{put(md + "-aaaaa")}, Settled: true,
		Names: map[string]string{md + "-aaaaa": ClusterPlaceholder + "-md-0-*", md + "-bbbbb": ClusterPlaceholder + "-md-0-*"},
		Lifecycle: []SidePhase{
			{Name: PhaseDelete, Requests: []Request{del(md + "-aaaaa"), del(md + "-bbbbb")}, Settled: true},
			{Name: PhaseScaleOut, Requests: []Request{put(md + "-bbbbb")}, Settled: true},
		},
	}
	ours := SideFlavor{
		Requests: []Request{put(md + "-ccccc")}, Settled: true,
		Names: map[string]string{md + "-ccccc": ClusterPlaceholder + "-md-0-*", md + "-ddddd": ClusterPlaceholder + "-md-0-*"},
		Lifecycle: []SidePhase{
			{Name: PhaseScaleOut, Requests: []Request{put(md + "-ddddd")}, Settled: true},
			{Name: PhaseUpgrade, Settled: false, State: "rolling out"},
			{Name: PhaseDelete, Requests: []Request{del(md + "-ccccc")}, Settled: true},
		},
	}
	results := compareFlavor(def, map[string]SideFlavor{def.Name: capz}, map[string]SideFlavor{def.Name: ours}, time.Minute)
	phases := make([]string, len(results))
	for i, r := range results {
		phases[i] = r.Phase
	}
	g.Expect(phases).To(Equal([]string{PhaseCreate, PhaseScaleOut, PhaseUpgrade, PhaseDelete}))
	statuses := func(r FlavorResult) []string {
		var out []string
		for _, d := range r.Diffs {
			out = append(out, fmt.Sprintf("%s %s %s", d.Status, d.Resource.Method, d.Resource.Name()))
		}
		return out
	}
	g.Expect(statuses(results[0])).To(ConsistOf(fmt.Sprintf("%s PUT %s", StatusEqual, ClusterPlaceholder+"-md-0-*")), "creation: the machines compare by group")
	g.Expect(results[0].Problems).To(BeEmpty())
	g.Expect(statuses(results[1])).To(ConsistOf(fmt.Sprintf("%s PUT %s", StatusEqual, ClusterPlaceholder+"-md-0-*")), "scale out: the new machine by its group")
	g.Expect(results[2].Problems).To(ConsistOf(
		ContainSubstring("the CAPZ side did not run the phase"),
		ContainSubstring("the ours side did not settle in 1m0s: rolling out"),
	))
	g.Expect(results[3].Problems).To(BeEmpty())
	g.Expect(statuses(results[3])).To(ConsistOf(fmt.Sprintf("%s DELETE %s", StatusEqual, ClusterPlaceholder+"-md-0-*")), "deletion: both sides delete the group's VMs")

	// Without the flavor on a side, every phase of the other side is a problem.
	results = compareFlavor(def, map[string]SideFlavor{}, map[string]SideFlavor{def.Name: ours}, time.Minute)
	g.Expect(results).To(HaveLen(4))
	for _, r := range results {
		g.Expect(r.Problems).To(ContainElement(ContainSubstring("the CAPZ side has no result for the flavor")))
	}
}
