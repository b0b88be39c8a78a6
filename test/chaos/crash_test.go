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
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

var (
	restarts = flag.Int("chaos.restarts", 3, "how often the crash suite restarts the provider in each scenario")
	seed     = flag.Uint64("chaos.seed", 1, "the seed of the crash suite's restart moments")
	scale    = flag.Int("chaos.scale", 5, "how many workers the crash suite's scale scenario scales up to")
	// maxPause is the longest the provider runs between two restarts.
	maxPause = 3 * time.Second
)

// crashTimeout bounds a scenario's convergence after its last restart.
const crashTimeout = 5 * time.Minute

// scenario is work the crash suite restarts the provider during.
type scenario struct {
	name string
	// start begins the work; done reports (with g) whether it has converged.
	start func(ctx context.Context, g *WithT)
	done  func(ctx context.Context, g Gomega)
}

// TestCrash stops and restarts the provider (a fresh manager: new caches, nothing remembered) at seeded random
// moments while a cluster is created, scaled up and down, upgraded, paused for a move and deleted. After every
// scenario the cluster converges; throughout, no ASO object is deleted while its owner lives, none loses its
// reconcile-policy skip, nothing is duplicated, and a deleted cluster leaves nothing behind. It prints one line per
// scenario: restarts, invariant violations, and the time to converge after the last restart.
func TestCrash(t *testing.T) {
	g := NewWithT(t)
	f := p.NewFixture(t, g, "crash")
	obs := observe(t, f.Namespace)
	key := f.Key(f.ClusterName)
	md := f.Key(f.ClusterName + "-md-0")
	want := selfManaged{workers: 2, instances: 1, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) { expectSelfManaged(ctx, g, f, want) }
	rng := rand.New(rand.NewPCG(*seed, 0))

	scenarios := []scenario{
		{name: "create", done: converged, start: func(ctx context.Context, g *WithT) {
			f.Apply(ctx, g, "default-cluster.yaml")
			f.Apply(ctx, g, "machinepool.yaml")
		}},
		{name: "scale down to 0", done: converged, start: func(ctx context.Context, g *WithT) {
			want.workers = 0
			scaleMachineDeployment(ctx, g, md, 0)
		}},
		{name: fmt.Sprintf("scale up to %d", *scale), done: converged, start: func(ctx context.Context, g *WithT) {
			want.workers = *scale
			scaleMachineDeployment(ctx, g, md, int32(*scale))
		}},
		{name: "scale down to 0 again", done: converged, start: func(ctx context.Context, g *WithT) {
			want.workers = 0
			scaleMachineDeployment(ctx, g, md, 0)
		}},
		{name: "upgrade", done: converged, start: func(ctx context.Context, g *WithT) {
			want.workers, want.version = 1, upgradeVersion
			patchObject(ctx, g, md, &clusterv1.MachineDeployment{}, func(o client.Object) {
				d := o.(*clusterv1.MachineDeployment)
				d.Spec.Replicas, d.Spec.Template.Spec.Version = ptr.To[int32](1), upgradeVersion
			})
			patchObject(ctx, g, f.Key(f.ClusterName+"-mp-0"), &clusterv1.MachinePool{}, func(o client.Object) {
				o.(*clusterv1.MachinePool).Spec.Template.Spec.Version = upgradeVersion
			})
		}},
		{name: "pause for a move", start: func(ctx context.Context, g *WithT) {
			setPaused(ctx, g, key, true)
		}, done: func(ctx context.Context, g Gomega) { expectPausedForMove(ctx, g, f.Namespace) }},
		{name: "unpause", done: converged, start: func(ctx context.Context, g *WithT) {
			setPaused(ctx, g, key, false)
		}},
		{name: "delete", start: func(ctx context.Context, g *WithT) {
			g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
		}, done: func(ctx context.Context, g Gomega) { expectDeleted(ctx, g, f, key, p.ResourceGroupID(f.ClusterName)) }},
	}
	for _, s := range scenarios {
		ok := t.Run(s.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			s.start(ctx, g)
			for range *restarts {
				time.Sleep(time.Duration(rng.Int64N(int64(maxPause))))
				g.Expect(p.Provider.Restart(ctx)).To(Succeed())
			}
			last := time.Now()
			g.Eventually(func(g Gomega) { s.done(ctx, g) }, crashTimeout, plane.Interval).Should(Succeed())
			took := time.Since(last)
			violations := obs.violations(ctx)
			fmt.Printf("crash: scenario %q: %d restarts, %d invariant violations, converged %s after the last restart\n",
				s.name, *restarts, len(violations), took.Round(100*time.Millisecond))
			g.Expect(violations).To(BeEmpty())
		})
		if !ok {
			t.FailNow() // later scenarios build on this one
		}
	}
}
