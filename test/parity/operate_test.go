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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// TestLifecycleEdits: scaling and upgrading change a Cluster written whole in its MachineDeployments, MachinePools
// and control plane, and a Cluster of a ClusterClass in its topology, which the topology controller reads.
func TestLifecycleEdits(t *testing.T) {
	g := NewWithT(t)
	obj := func(kind string, content map[string]any) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: content}
		o.SetKind(kind)
		return o
	}
	topologyCluster := func() *unstructured.Unstructured {
		return obj("Cluster", map[string]any{"spec": map[string]any{"topology": map[string]any{
			"version": "v1.34.1",
			"workers": map[string]any{"machineDeployments": []any{
				map[string]any{"class": "worker", "name": "md-0", "replicas": int64(2)},
				map[string]any{"class": "worker", "name": "md-1"},
			}},
		}}})
	}

	c := topologyCluster()
	g.Expect(scaleEdit(1)(c)).To(BeTrue())
	mds, _, _ := unstructured.NestedSlice(c.Object, "spec", "topology", "workers", "machineDeployments")
	g.Expect(mds).To(Equal([]any{
		map[string]any{"class": "worker", "name": "md-0", "replicas": int64(3)},
		map[string]any{"class": "worker", "name": "md-1", "replicas": int64(2)},
	}), "an unset replica count is one")
	c = topologyCluster()
	g.Expect(upgradeEdit("v1.34.2")(c)).To(BeTrue())
	g.Expect(nestedString(c.Object, "spec", "topology", "version")).To(Equal("v1.34.2"))

	plain := obj("Cluster", map[string]any{"spec": map[string]any{"clusterNetwork": map[string]any{}}})
	g.Expect(scaleEdit(1)(plain)).To(BeFalse(), "a Cluster without topology is scaled in its MachineDeployments")
	g.Expect(upgradeEdit("v1.34.2")(plain)).To(BeFalse())

	md := obj("MachineDeployment", map[string]any{"spec": map[string]any{"replicas": int64(1), "template": map[string]any{"spec": map[string]any{"version": "v1.34.1"}}}})
	g.Expect(scaleEdit(-1)(md)).To(BeTrue())
	g.Expect(nestedInt64(md.Object, "spec", "replicas")).To(Equal(int64(0)))
	g.Expect(upgradeEdit("v1.34.2")(md)).To(BeTrue())
	g.Expect(nestedString(md.Object, "spec", "template", "spec", "version")).To(Equal("v1.34.2"))

	kcp := obj("KubeadmControlPlane", map[string]any{"spec": map[string]any{"replicas": int64(1), "version": "v1.34.1"}})
	g.Expect(scaleEdit(1)(kcp)).To(BeFalse(), "the control plane is not scaled")
	g.Expect(upgradeEdit("v1.34.2")(kcp)).To(BeTrue())
	g.Expect(nestedString(kcp.Object, "spec", "version")).To(Equal("v1.34.2"))
}

// TestMachineGroup: machines are grouped by their control plane, deployment or pool; a topology's, named at random,
// by the cluster's control plane and the deployment's name in the topology.
func TestMachineGroup(t *testing.T) {
	g := NewWithT(t)
	for _, tt := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"cluster.x-k8s.io/control-plane": "", "cluster.x-k8s.io/control-plane-name": "c-control-plane"}, "c-control-plane"},
		{map[string]string{"cluster.x-k8s.io/control-plane": "", "cluster.x-k8s.io/control-plane-name": "c-x7k2p", "topology.cluster.x-k8s.io/owned": ""}, "c-control-plane"},
		{map[string]string{"cluster.x-k8s.io/deployment-name": "c-md-0"}, "c-md-0"},
		{map[string]string{"cluster.x-k8s.io/deployment-name": "c-md-0-q9z8w", "topology.cluster.x-k8s.io/deployment-name": "md-0", "topology.cluster.x-k8s.io/owned": ""}, "c-md-0"},
		{map[string]string{"cluster.x-k8s.io/pool-name": "c-mp-0"}, "c-mp-0"},
		{map[string]string{}, "machine"},
	} {
		g.Expect(machineGroup(tt.labels, "c")).To(Equal(tt.want), "%v", tt.labels)
	}
}

func nestedString(obj map[string]any, path ...string) string {
	v, _, _ := unstructured.NestedString(obj, path...)
	return v
}

func nestedInt64(obj map[string]any, path ...string) int64 {
	v, _, _ := unstructured.NestedInt64(obj, path...)
	return v
}

// TestLost: what the user brought (custom-vnet's network, with the user's route and security rule) is lost when a
// resource is gone, or when a field the user set changed or is gone; fields Azure or a provider adds are not.
func TestLost(t *testing.T) {
	g := NewWithT(t)
	arm, err := fakearm.Start(fakearm.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = arm.Close() })
	f, _ := FlavorNamed("custom-vnet")
	f.Subscription = "00000000-0000-0000-0000-00000000beef"
	ids, bodies := f.brought()
	for i, id := range ids {
		g.Expect(arm.Seed(id, bodies[i])).To(Succeed())
	}
	s := &side{arm: arm}
	g.Expect(s.lost(f)).To(BeEmpty())

	group := "/subscriptions/" + f.Subscription + "/resourceGroups/pcvnet-vnetrg/providers/Microsoft.Network/"
	rule := group + "networkSecurityGroups/node-nsg/securityRules/allow_corp_https"
	route := group + "routeTables/node-routetable/routes/to-appliance"
	// A tag a provider adds to the route table is no loss.
	g.Expect(arm.Seed(group+"routeTables/node-routetable", map[string]any{"location": Location, "tags": map[string]any{"added": "x"}})).To(Succeed())
	g.Expect(s.lost(f)).To(BeEmpty())
	// Another priority of the user's rule is.
	changed, _ := arm.Resource(rule)
	changed["properties"].(map[string]any)["priority"] = 3001
	g.Expect(arm.Seed(rule, changed)).To(Succeed())
	g.Expect(s.lost(f)).To(ConsistOf(rule + " (changed)"))
	// So is the user's route gone.
	g.Expect(arm.Remove(route)).To(BeTrue())
	g.Expect(s.lost(f)).To(ConsistOf(rule+" (changed)", route))
}
