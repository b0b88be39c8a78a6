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

package chaos

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/faults"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// faultWindow is how long a fault stays after it became visible, so that the provider retries under it.
const faultWindow = 2 * time.Second

// The operations of the fault matrix: every controller's requests fail at least once during each (TestFaultMatrix).
const (
	opCreate = "create"
	opUpdate = "update"
	opScale  = "scale"
	opDelete = "delete"
	opPause  = "pause"
)

// fault fails requests of one controller while the user does one operation of the matrix to its cluster. A rule
// reaches one controller by what it fails: the controller's own status writes, the ASO objects or Secrets only it
// writes during that operation, the reads only it makes, or the watch (and list) of its own kind, which its cache
// depends on; such a watch fault cuts the watches in progress, so it always reaches the cache.
type fault struct {
	// controller is the controller's name (internal/setup); op the operation.
	controller, op string
	// rule fails the requests; its namespace is set to the test's.
	rule faults.Rule
	// shows lists the objects of which one must show the failure in a condition; nil when the failure cannot show
	// (a status write, a watch).
	shows client.ObjectList
	// allNamespaces fails the requests in every namespace: the provider's informers list and watch them all at once.
	allNamespaces bool
	// group names faults that clear together, once each has met a request: a list fault is met only when an
	// informer relists while its watch fails too (client-go relists with a streaming watch first, and lists only
	// when that fails).
	group string
}

// step is one thing a user does to a cluster while some of the provider's requests fail.
type step struct {
	name string
	// faults fail the provider's requests during the step.
	faults []fault
	// act is what the user does.
	act func(ctx context.Context, g *WithT)
	// converged checks the step's outcome once the faults are gone.
	converged func(ctx context.Context, g Gomega)
}

// runSteps runs the steps in order on a cluster. For each, it injects the faults and acts. Each fault stays until
// it has failed a request and, where it can, its failure shows in a condition with the API's message, then a little
// longer (faultWindow) so that the provider retries under it; then it clears, and the next controller in line
// (one that waited for the first) meets its own. Once all have cleared the step waits for its outcome. The
// invariants hold throughout and nothing is duplicated.
func runSteps(t *testing.T, f *plane.Fixture, obs *observer, steps []step) {
	t.Helper()
	for _, s := range steps {
		ok := t.Run(s.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			ids := make([]int, len(s.faults))
			for i, flt := range s.faults {
				rule := flt.rule
				if !flt.allNamespaces {
					rule.Namespace = f.Namespace
				}
				ids[i] = injector.Add(rule)
			}
			defer func() {
				for _, id := range ids {
					injector.Remove(id)
				}
			}()
			s.act(ctx, g)

			seen := make([]time.Time, len(s.faults))
			cleared := make([]bool, len(s.faults))
			g.Eventually(func(g Gomega) {
				var waiting []string
				// done are the faults that met a request, showed, and lasted their window; a fault of a group
				// clears once all of its group are done.
				done := make([]bool, len(s.faults))
				for i, flt := range s.faults {
					if cleared[i] {
						done[i] = true
						continue
					}
					switch {
					case injector.Hits(ids[i]) == 0:
						waiting = append(waiting, describeFault(flt)+": no request met it yet")
						continue
					case flt.shows != nil && !failureShown(ctx, g, f.Namespace, flt.shows):
						waiting = append(waiting, fmt.Sprintf("%s: no %T item shows the failure", describeFault(flt), flt.shows))
						continue
					case seen[i].IsZero():
						seen[i] = time.Now()
					}
					if time.Since(seen[i]) < faultWindow {
						waiting = append(waiting, describeFault(flt)+": the provider retries under it")
						continue
					}
					done[i] = true
				}
				for i, flt := range s.faults {
					if cleared[i] || !done[i] || !groupDone(s.faults, done, flt.group) {
						continue
					}
					injector.Remove(ids[i])
					cleared[i] = true
				}
				g.Expect(waiting).To(BeEmpty())
			}, plane.Timeout, plane.Interval/2).Should(Succeed())
			obs.expectNoViolations(ctx, g, "while the faults lasted")

			g.Eventually(func(g Gomega) { s.converged(ctx, g) }, plane.Timeout, plane.Interval).Should(Succeed())
			obs.expectNoViolations(ctx, g, "once the faults cleared")
		})
		if !ok {
			t.FailNow() // later steps build on this one
		}
	}
}

// groupDone reports whether every fault of a group is done; a fault of no group is alone.
func groupDone(fs []fault, done []bool, group string) bool {
	if group == "" {
		return true
	}
	for i, flt := range fs {
		if flt.group == group && !done[i] {
			return false
		}
	}
	return true
}

// describeFault names a fault in messages.
func describeFault(flt fault) string {
	r := flt.rule
	target := r.Resource.Resource
	if r.Subresource != "" {
		target += "/" + r.Subresource
	}
	if r.Name != "" {
		target += " " + r.Name
	}
	return fmt.Sprintf("%s %s of the %s controller during %s", r.Verb, target, flt.controller, flt.op)
}

// statusWrites fails a controller's writes of its own kind's status: its conditions cannot be written, so nothing
// shows the failure.
func statusWrites(controller, op string, kind schema.GroupResource, f faults.Fault) fault {
	return fault{controller: controller, op: op, rule: faults.Rule{Verb: "patch", Resource: kind, Subresource: "status", Fault: f}}
}

// watches cuts a controller's watch of its own kind and fails its watches (and, with list, its lists) until it
// clears: the controller works from a cache that no longer follows the API server, then relists. The watch and
// list faults clear together, once both have met a request.
func watches(controller, op string, kind schema.GroupResource, list bool) []fault {
	group := ""
	if list {
		group = "watch and list " + kind.String()
	}
	out := []fault{{controller: controller, op: op, rule: faults.Rule{Verb: "watch", Resource: kind, Fault: faults.Unavailable}, allNamespaces: true, group: group}}
	if list {
		out = append(out, fault{controller: controller, op: op, rule: faults.Rule{Verb: "list", Resource: kind, Fault: faults.Unavailable}, allNamespaces: true, group: group})
	}
	return out
}

// failureShown reports whether an object of the list shows an injected failure in one of its conditions: the
// message the API answered with (every injected fault says "injected").
func failureShown(ctx context.Context, g Gomega, namespace string, list client.ObjectList) bool {
	g.Expect(env.Env.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	items, err := meta.ExtractList(list)
	g.Expect(err).NotTo(HaveOccurred())
	for _, item := range items {
		getter, ok := item.(conditions.Getter)
		if !ok {
			continue
		}
		for _, c := range getter.GetConditions() {
			if strings.Contains(c.Message, "injected") {
				return true
			}
		}
	}
	return false
}

// expectNoDuplicates checks that every ASO object of the namespace is desired once: no object is being deleted,
// the number of objects of each per-machine kind is the number of machines that want one, and no two objects are
// one Azure resource or one owner's one VM (expectUnique).
func expectNoDuplicates(ctx context.Context, g Gomega, namespace string, machines int) {
	counts := map[string]int{}
	for _, o := range listOwnedASO(ctx, g, namespace) {
		g.Expect(o.Object.GetDeletionTimestamp().IsZero()).To(BeTrue(), "%s is being deleted", o)
		counts[o.Kind]++
	}
	for _, kind := range []string{"VirtualMachine", "NetworkInterface"} {
		g.Expect(counts[kind]).To(Equal(machines), "%s objects: %s", kind, fmt.Sprint(counts))
	}
	expectUnique(ctx, g, namespace)
}

// expectUnique checks the ASO objects of every kind in a namespace, whatever their labels: no two are one Azure
// resource, and no owner has two of a kind it has one of (a machine's VM, a pool's agent pool; see keys).
func expectUnique(ctx context.Context, g Gomega, namespace string) {
	seen := map[string]string{}
	for _, o := range plane.ListASOObjects(ctx, g, namespace) {
		for _, key := range keys(o.Object) {
			g.Expect(seen).NotTo(HaveKey(key), "%s has %s and %s", key, seen[key], o)
			seen[key] = o.String()
		}
	}
}

// listOwnedASO lists the ASO objects of a namespace, of every kind, but those the test brought.
func listOwnedASO(ctx context.Context, g Gomega, namespace string) []plane.ASOObject {
	var out []plane.ASOObject
	for _, o := range plane.ListASOObjects(ctx, g, namespace) {
		if o.Object.GetLabels()[broughtLabel] != "true" {
			out = append(out, o)
		}
	}
	return out
}

// patchObject changes an object as a user does, with a merge patch from what the API server has.
func patchObject(ctx context.Context, g *WithT, key client.ObjectKey, obj client.Object, change func(client.Object)) {
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, key, obj)).To(Succeed())
		before := obj.DeepCopyObject().(client.Object)
		change(obj)
		g.Expect(env.Env.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))).To(Succeed())
	}, plane.Timeout, plane.Interval).Should(Succeed())
}

// scaleMachineDeployment sets a MachineDeployment's replicas.
func scaleMachineDeployment(ctx context.Context, g *WithT, key client.ObjectKey, replicas int32) {
	patchObject(ctx, g, key, &clusterv1.MachineDeployment{}, func(o client.Object) {
		o.(*clusterv1.MachineDeployment).Spec.Replicas = ptr.To(replicas)
	})
}

// setPaused pauses or unpauses a Cluster, as clusterctl move does.
func setPaused(ctx context.Context, g *WithT, key client.ObjectKey, paused bool) {
	patchObject(ctx, g, key, &clusterv1.Cluster{}, func(o client.Object) {
		o.(*clusterv1.Cluster).Spec.Paused = ptr.To(paused)
	})
}

// metaItems returns the items of a list as objects.
func metaItems(list client.ObjectList) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, item := range items {
		if obj, ok := item.(client.Object); ok {
			out = append(out, obj)
		}
	}
	return out, nil
}
