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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// r builds a replica: name, age in minutes before t0 (older is larger), and flags among "current" (of the current
// model), "ready", "deleting", "marked".
func r(name string, age int, flags ...string) replica {
	out := replica{name: name, created: t0.Add(-time.Duration(age) * time.Minute)}
	for _, f := range flags {
		switch f {
		case "current":
			out.upToDate = true
		case "ready":
			out.ready = true
		case "deleting":
			out.deleting = true
		case "marked":
			out.marked = true
		default:
			panic(f)
		}
	}
	return out
}

func strategy(surge, unavailable intstr.IntOrString, policy infrav1exp.AzureMachinePoolDeletePolicyType) infrav1exp.AzureMachinePoolDeploymentStrategy {
	return infrav1exp.AzureMachinePoolDeploymentStrategy{RollingUpdate: &infrav1exp.MachineRollingUpdateDeployment{
		MaxSurge: ptr.To(surge), MaxUnavailable: ptr.To(unavailable), DeletePolicy: policy,
	}}
}

var (
	defaultStrategy = strategy(intstr.FromInt32(1), intstr.FromInt32(0), infrav1exp.OldestDeletePolicyType)
	noSurge         = strategy(intstr.FromInt32(0), intstr.FromInt32(1), infrav1exp.OldestDeletePolicyType)
)

func TestPlanRollout(t *testing.T) {
	tests := []struct {
		name     string
		desired  int
		strategy infrav1exp.AzureMachinePoolDeploymentStrategy
		replicas []replica
		want     plan
	}{
		{name: "empty pool", desired: 0, strategy: defaultStrategy},
		{name: "scale up from zero", desired: 3, strategy: defaultStrategy, want: plan{create: 3}},
		{
			name: "scale up, surge is no limit", desired: 5, strategy: noSurge,
			replicas: []replica{r("a", 3, "current", "ready")}, want: plan{create: 4},
		},
		{
			name: "steady", desired: 2, strategy: defaultStrategy,
			replicas: []replica{r("a", 3, "current", "ready"), r("b", 2, "current", "ready")},
		},
		{
			name: "scale down: marked first, then not ready, then oldest", desired: 1, strategy: defaultStrategy,
			replicas: []replica{
				r("old", 9, "current", "ready"), r("new", 1, "current", "ready", "marked"),
				r("mid", 5, "current", "ready"), r("broken", 2, "current"),
			},
			want: plan{delete: []string{"new", "broken", "old"}},
		},
		{
			name: "scale down, newest first", desired: 1, strategy: strategy(intstr.FromInt32(1), intstr.FromInt32(0), infrav1exp.NewestDeletePolicyType),
			replicas: []replica{r("old", 9, "current", "ready"), r("new", 1, "current", "ready"), r("mid", 5, "current", "ready")},
			want:     plan{delete: []string{"new", "mid"}},
		},
		{
			name: "scale down ignores instances already deleting", desired: 1, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "current", "ready", "deleting"), r("b", 5, "current", "ready"), r("c", 1, "current", "ready")},
			want:     plan{delete: []string{"b"}},
		},
		{
			name: "a deleted instance is replaced within the surge", desired: 2, strategy: noSurge,
			replicas: []replica{r("a", 9, "current", "ready", "deleting"), r("b", 5, "current", "ready")},
		},
		{
			name: "rollout starts with a surge instance", desired: 3, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7, "ready")},
			want:     plan{create: 1},
		},
		{
			name: "rollout waits for the surge instance to be ready", desired: 3, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7, "ready"), r("n1", 1, "current")},
		},
		{
			name: "rollout deletes an outdated instance once the surge one is ready", desired: 3, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7, "ready"), r("n1", 1, "current", "ready")},
			want:     plan{delete: []string{"a"}},
		},
		{
			name: "rollout waits while the deleted instance holds resources", desired: 3, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready", "deleting"), r("b", 8, "ready"), r("c", 7, "ready"), r("n1", 1, "current", "ready")},
		},
		{
			name: "outdated instances that are not ready go first", desired: 3, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7), r("n1", 1, "current", "ready")},
			want:     plan{delete: []string{"c"}},
		},
		{
			name: "without surge an outdated instance goes first", desired: 3, strategy: noSurge,
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7, "ready")},
			want:     plan{delete: []string{"a"}},
		},
		{
			name: "without surge the replacement waits for the deletion", desired: 3, strategy: noSurge,
			replicas: []replica{r("a", 9, "ready", "deleting"), r("b", 8, "ready"), r("c", 7, "ready")},
		},
		{
			name: "the last outdated instance deleting: no instance above the surge", desired: 3, strategy: noSurge,
			replicas: []replica{r("a", 9, "ready", "deleting"), r("n1", 3, "current", "ready"), r("n2", 2, "current", "ready")},
		},
		{
			name: "without surge a replacement comes once the deletion is done", desired: 3, strategy: noSurge,
			replicas: []replica{r("b", 8, "ready"), r("c", 7, "ready")},
			want:     plan{create: 1},
		},
		{
			name: "percentages: 50% of 4 surges 2 and keeps all ready", desired: 4,
			strategy: strategy(intstr.FromString("50%"), intstr.FromString("0%"), infrav1exp.OldestDeletePolicyType),
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready"), r("c", 7, "ready"), r("d", 6, "ready")},
			want:     plan{create: 2},
		},
		{
			name: "both rounding to zero: one unavailable at a time", desired: 2,
			strategy: strategy(intstr.FromString("0%"), intstr.FromString("10%"), infrav1exp.OldestDeletePolicyType),
			replicas: []replica{r("a", 9, "ready"), r("b", 8, "ready")},
			want:     plan{delete: []string{"a"}},
		},
		{
			name: "pool shrunk during a rollout", desired: 1, strategy: defaultStrategy,
			replicas: []replica{r("a", 9, "ready"), r("n1", 2, "current", "ready"), r("n2", 1, "current", "ready")},
			want:     plan{delete: []string{"a", "n1"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got := planRollout(tc.desired, tc.strategy, tc.replicas)
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

func TestPlanRollout_NeverExceedsTheLimits(t *testing.T) {
	// Play a rollout to the end, one pass at a time, with every replica becoming ready and every deletion
	// finishing one pass after it started, and check the bounds at every step.
	for _, st := range []infrav1exp.AzureMachinePoolDeploymentStrategy{
		defaultStrategy, noSurge,
		strategy(intstr.FromInt32(2), intstr.FromInt32(1), infrav1exp.OldestDeletePolicyType),
		strategy(intstr.FromString("25%"), intstr.FromString("25%"), infrav1exp.NewestDeletePolicyType),
	} {
		ru := st.RollingUpdate
		t.Run(fmt.Sprintf("surge %s unavailable %s", ru.MaxSurge.String(), ru.MaxUnavailable.String()), func(t *testing.T) {
			g := NewWithT(t)
			const desired = 5
			maxSurge, maxUnavailable := limits(ru, desired)
			var replicas []replica
			for i := range desired {
				replicas = append(replicas, r(fmt.Sprintf("old-%d", i), 100-i, "ready"))
			}
			created := 0
			for pass := 0; pass < 100; pass++ {
				p := planRollout(desired, st, replicas)
				var next []replica
				for _, rep := range replicas {
					switch {
					case rep.deleting:
						continue // gone
					case contains(p.delete, rep.name):
						rep.deleting = true
					default:
						rep.ready = true
					}
					next = append(next, rep)
				}
				for range p.create {
					created++
					next = append(next, r(fmt.Sprintf("new-%d", created), -pass, "current"))
				}
				replicas = next
				ready := 0
				for _, rep := range replicas {
					if rep.ready && !rep.deleting {
						ready++
					}
				}
				g.Expect(len(replicas)).To(BeNumerically("<=", desired+maxSurge), "pass %d", pass)
				g.Expect(ready).To(BeNumerically(">=", desired-maxUnavailable), "pass %d", pass)
			}
			g.Expect(replicas).To(HaveLen(desired))
			for _, rep := range replicas {
				g.Expect(rep.upToDate && rep.ready).To(BeTrue(), rep.name)
			}
			g.Expect(created).To(Equal(desired))
		})
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func TestDeletionOrder_RandomIsStable(t *testing.T) {
	g := NewWithT(t)
	replicas := []replica{r("a", 1, "ready"), r("b", 2, "ready"), r("c", 3, "ready"), r("d", 4, "ready")}
	first := deletionOrder(replicas, infrav1exp.RandomDeletePolicyType)
	reversed := []replica{replicas[3], replicas[2], replicas[1], replicas[0]}
	g.Expect(deletionOrder(reversed, infrav1exp.RandomDeletePolicyType)).To(Equal(first), "the same order in every pass")
	g.Expect(first).NotTo(Equal(deletionOrder(replicas, infrav1exp.OldestDeletePolicyType)), "not by age")
}

func nodes(ids ...int) []uniformNode {
	var out []uniformNode
	for _, id := range ids {
		out = append(out, uniformNode{instanceID: id, ready: true})
	}
	return out
}

func TestUniformCapacity(t *testing.T) {
	surgeOne := &infrav1exp.MachineRollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
	unavailableTwo := &infrav1exp.MachineRollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(2))}
	notReady := nodes(0, 1, 2)
	notReady[1].ready = false
	tests := []struct {
		name             string
		desired, current int
		ru               *infrav1exp.MachineRollingUpdateDeployment
		nodes            []uniformNode
		watermark, want  int
	}{
		{name: "no rollout: the MachinePool's count", desired: 3, current: 2, ru: surgeOne, nodes: nodes(0, 1), watermark: -1, want: 3},
		{name: "no Nodes known: the MachinePool's count", desired: 3, current: 4, ru: surgeOne, watermark: 5, want: 3},
		{name: "steady with outdated instances: surge", desired: 3, current: 3, ru: surgeOne, nodes: nodes(0, 1, 2), watermark: 2, want: 4},
		{name: "not steady: wait", desired: 3, current: 3, ru: surgeOne, nodes: notReady, watermark: 2, want: 3},
		{name: "surging: wait for the new instance", desired: 3, current: 4, ru: surgeOne, nodes: nodes(0, 1, 2), watermark: 2, want: 4},
		{name: "surge ready: scale in, Azure removes the oldest", desired: 3, current: 4, ru: surgeOne, nodes: nodes(0, 1, 2, 3), watermark: 2, want: 3},
		{name: "next batch", desired: 3, current: 3, ru: surgeOne, nodes: nodes(1, 2, 3), watermark: 2, want: 4},
		{name: "done", desired: 3, current: 3, ru: surgeOne, nodes: nodes(3, 4, 5), watermark: 2, want: 3},
		{name: "without surge: shrink by maxUnavailable", desired: 3, current: 3, ru: unavailableTwo, nodes: nodes(0, 1, 2), watermark: 2, want: 1},
		{name: "without surge: wait for the old instances to go", desired: 3, current: 1, ru: unavailableTwo, nodes: nodes(0, 1, 2), watermark: 2, want: 1},
		{name: "without surge: grow back", desired: 3, current: 1, ru: unavailableTwo, nodes: nodes(2), watermark: 2, want: 3},
		{name: "last outdated instance: a batch of one", desired: 3, current: 3, ru: unavailableTwo, nodes: nodes(2, 3, 4), watermark: 2, want: 2},
		{name: "scaled to zero", desired: 0, current: 3, ru: surgeOne, nodes: nodes(0, 1, 2), watermark: 2, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(uniformCapacity(tc.desired, tc.current, tc.ru, tc.nodes, tc.watermark)).To(Equal(tc.want))
		})
	}
}
