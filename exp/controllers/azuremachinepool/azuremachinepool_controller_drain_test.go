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

package azuremachinepool

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

func TestScaleInVictims(t *testing.T) {
	// node builds a Node "<zone>/<instance>"; the zone is empty for a scale set without zones.
	node := func(zone string, id int) nodeInfo {
		return nodeInfo{name: zone + "/" + string(rune('a'+id)), instanceID: id, zone: zone}
	}
	flat := []nodeInfo{node("", 4), node("", 1), node("", 7), node("", 2)}
	zonal := []nodeInfo{node("1", 0), node("2", 1), node("3", 2), node("1", 3), node("2", 4), node("1", 5)}
	// Without zones, cloud-provider-azure labels a Node with its fault domain.
	faultDomains := []nodeInfo{node("0", 0), node("1", 1), node("0", 2), node("1", 3), node("0", 4)}
	ids := func(nodes []nodeInfo) []int {
		var out []int
		for _, n := range nodes {
			out = append(out, n.instanceID)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		nodes  []nodeInfo
		n      int
		policy infrav1exp.AzureMachinePoolDeletePolicyType
		zonal  bool
		want   []int
	}{
		{name: "oldest", nodes: flat, n: 2, policy: infrav1exp.OldestDeletePolicyType, want: []int{1, 2}},
		{name: "newest", nodes: flat, n: 1, policy: infrav1exp.NewestDeletePolicyType, want: []int{7}},
		{name: "more than there are", nodes: flat, n: 9, policy: infrav1exp.OldestDeletePolicyType, want: []int{1, 2, 4, 7}},
		{name: "zones balanced first, then the oldest", nodes: zonal, n: 3, policy: infrav1exp.OldestDeletePolicyType, zonal: true, want: []int{0, 1, 3}},
		{name: "zones balanced first, then the newest", nodes: zonal, n: 2, policy: infrav1exp.NewestDeletePolicyType, zonal: true, want: []int{5, 4}},
		{name: "labels ignored without zones", nodes: faultDomains, n: 2, policy: infrav1exp.OldestDeletePolicyType, want: []int{0, 1}},
		{name: "Default balances fault domains, then the newest", nodes: faultDomains, n: 2, policy: infrav1exp.RandomDeletePolicyType, want: []int{4, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(ids(scaleInVictims(tc.nodes, tc.n, tc.policy, tc.zonal))).To(Equal(tc.want))
		})
	}
}

func TestMustEvict(t *testing.T) {
	g := NewWithT(t)
	pod := func(mutate func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		mutate(p)
		return p
	}
	owned := func(apiVersion, kind string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "o", Controller: ptr.To(true)}}
		}
	}
	g.Expect(mustEvict(pod(func(*corev1.Pod) {}))).To(BeTrue(), "a pod of no controller")
	g.Expect(mustEvict(pod(owned("apps/v1", "ReplicaSet")))).To(BeTrue())
	g.Expect(mustEvict(pod(owned("apps/v1", "DaemonSet")))).To(BeFalse(), "its DaemonSet would put it back")
	g.Expect(mustEvict(pod(func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} }))).To(BeFalse(), "a static pod")
	g.Expect(mustEvict(pod(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }))).To(BeFalse(), "a finished pod")
}
