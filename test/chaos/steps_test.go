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

// step is one thing a user does to a cluster while some of the provider's requests fail.
type step struct {
	name string
	// fault fails the provider's requests during the step; its namespace is set to the test's.
	fault faults.Rule
	// act is what the user does.
	act func(ctx context.Context, g *WithT)
	// shows lists the objects of which one must show the failure in a condition.
	shows client.ObjectList
	// converged checks the step's outcome once the fault is gone.
	converged func(ctx context.Context, g Gomega)
}

// runSteps runs the steps in order on a cluster. For each, it injects the fault, acts, waits until the failure
// shows in a condition with the API's message, keeps the fault a little longer, then clears it and waits for the
// outcome; the invariants hold throughout and nothing is duplicated at the end.
func runSteps(t *testing.T, f *plane.Fixture, obs *observer, steps []step) {
	t.Helper()
	for _, s := range steps {
		ok := t.Run(s.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			rule := s.fault
			rule.Namespace = f.Namespace
			id := injector.Add(rule)
			defer injector.Remove(id)
			s.act(ctx, g)

			g.Eventually(func(g Gomega) {
				g.Expect(injector.Hits(id)).To(BeNumerically(">", 0), "the fault was injected")
				g.Expect(failureShown(ctx, g, f.Namespace, s.shows)).To(BeTrue(), "a %T item shows the failure", s.shows)
			}, plane.Timeout, plane.Interval).Should(Succeed())
			time.Sleep(faultWindow)
			g.Expect(obs.violations(ctx)).To(BeEmpty(), "while the fault lasts")

			injector.Remove(id)
			g.Eventually(func(g Gomega) { s.converged(ctx, g) }, plane.Timeout, plane.Interval).Should(Succeed())
			g.Expect(obs.violations(ctx)).To(BeEmpty(), "once the fault cleared")
		})
		if !ok {
			t.FailNow() // later steps build on this one
		}
	}
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
// and the number of objects of each per-machine kind is the number of machines that want one.
func expectNoDuplicates(ctx context.Context, g Gomega, namespace string, machines int) {
	counts := map[string]int{}
	for _, o := range plane.ListASOObjects(ctx, g, namespace) {
		g.Expect(o.Object.GetDeletionTimestamp().IsZero()).To(BeTrue(), "%s is being deleted", o)
		counts[o.Kind]++
	}
	for _, kind := range []string{"VirtualMachine", "NetworkInterface"} {
		g.Expect(counts[kind]).To(Equal(machines), "%s objects: %s", kind, fmt.Sprint(counts))
	}
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
