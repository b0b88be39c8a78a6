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
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

var (
	restarts = flag.Int("chaos.restarts", 2, "how often the crash suite kills (or stops) the provider in each scenario")
	seed     = flag.Uint64("chaos.seed", 1, "the seed of the crash suite's kill moments")
	scale    = flag.Int("chaos.scale", 5, "how many workers the crash suite's scale scenario scales up to")
	logDir   = flag.String("chaos.logs", "", "where the provider replicas' logs go; empty: a temporary directory, removed when the crash suite passes")
)

const (
	// maxPause is the longest a kill at a random moment waits, once a replica leads.
	maxPause = 3 * time.Second
	// maxWrites bounds the writes a kill in the middle of a pass waits for; maxIdle is how long it waits for them
	// before it kills an idle provider.
	maxWrites = 20
	maxIdle   = 5 * time.Second
	// gracefulOneIn: one stop in this many is a SIGTERM (a rolling update) instead of a kill.
	gracefulOneIn = 8
	// crashTimeout bounds a scenario's convergence after its last kill; leaderTimeout the wait for a replica to
	// take the lease (a killed leader's lease expires first).
	crashTimeout  = 5 * time.Minute
	leaderTimeout = 2 * time.Minute
)

// crashCluster is a cluster the crash suite takes through its life: what each scenario does to it, and how it
// looks once converged.
type crashCluster struct {
	name string
	f    *plane.Fixture
	// create, scaleUp, scaleDown, upgrade do what a user does; converged checks the wanted state.
	create, scaleUp, scaleDown, upgrade func(ctx context.Context, g *WithT)
	converged                           func(ctx context.Context, g Gomega)
	// resourceGroup is the cluster's resource group, gone from Azure after the delete.
	resourceGroup string
}

// crashScenario is work the crash suite kills the provider during, on every cluster at once.
type crashScenario struct {
	name string
	// standby runs a second replica that waits for the lease, and takes over when the leader dies.
	standby bool
	start   func(ctx context.Context, g *WithT, c *crashCluster)
	done    func(ctx context.Context, g Gomega, c *crashCluster)
}

// stops counts the provider's stops in a scenario.
type stops struct {
	// killed are SIGKILLs: midPass right after the Nth write of the provider the API server completed, the others
	// at a random moment or, when no write came, after maxIdle.
	killed, midPass int
	// graceful are SIGTERMs that ended within the grace period.
	graceful int
}

// TestCrash kills the provider, running as its own processes with leader election (test/plane's Replicas), at
// seeded random moments while a self-managed cluster (with a MachineDeployment and a machine pool), an AKS cluster
// (AzureManagedControlPlane) and an ASO-managed AKS cluster (AzureASOManaged*, with machine pools) are created,
// scaled up and down, upgraded, paused for a move, unpaused and deleted. A kill is a SIGKILL: half of them come
// right after the Nth write the API server completed for the provider (its audit webhook holds the answer until the
// kill), in the middle of a pass; one stop in gracefulOneIn is a SIGTERM, which must end within the grace period.
// Some scenarios run a second replica that waits for the lease. After every scenario each cluster converges;
// throughout, no ASO object is deleted (or deleted and recreated) while its owner lives, none loses its
// reconcile-policy skip, nothing the user brought is written, nothing is duplicated, and a deleted cluster leaves
// nothing behind. It prints one line per scenario: kills, violations, duplicates, and the time to converge after
// the last kill.
func TestCrash(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(*seed, 0))

	// The replicas take over from the provider in the test's process, which the fault tests use.
	g.Expect(p.Provider.Hold()).To(Succeed())
	t.Cleanup(func() {
		if err := p.Provider.Release(context.Background()); err != nil {
			t.Errorf("failed to start the provider again: %v", err)
		}
	})
	dir := *logDir
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp("", "capzaso-chaos-")
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(func() {
			if !t.Failed() {
				_ = os.RemoveAll(dir)
			}
		})
	}
	t.Logf("The provider replicas' logs are in %s", dir)
	reps, err := p.Replicas(ctx, dir)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if err := reps.StopAll(); err != nil {
			t.Errorf("the provider's replicas did not stop: %v", err)
		}
		problems, lost := reps.Problems()
		if len(problems) > 0 {
			t.Errorf("the provider's replicas: %v", problems)
		}
		fmt.Printf("crash: %d replicas lost their lease and exited\n", lost)
	})

	clusters := []*crashCluster{
		selfManagedCrashCluster(t, g), aksCrashCluster(t, g), asoManagedCrashCluster(t, g),
	}
	namespaces := make([]string, 0, len(clusters))
	for _, c := range clusters {
		namespaces = append(namespaces, c.f.Namespace)
	}
	obs := observe(t, namespaces...)
	for _, c := range clusters {
		obs.bring(ctx, g, c.f)
	}

	converged := func(ctx context.Context, g Gomega, c *crashCluster) { c.converged(ctx, g) }
	scenarios := []crashScenario{
		{name: "create", standby: true, done: converged, start: func(ctx context.Context, g *WithT, c *crashCluster) { c.create(ctx, g) }},
		{name: "scale up", done: converged, start: func(ctx context.Context, g *WithT, c *crashCluster) { c.scaleUp(ctx, g) }},
		{name: "scale down", standby: true, done: converged, start: func(ctx context.Context, g *WithT, c *crashCluster) { c.scaleDown(ctx, g) }},
		{name: "upgrade", done: converged, start: func(ctx context.Context, g *WithT, c *crashCluster) { c.upgrade(ctx, g) }},
		{
			name: "pause for a move", standby: true,
			start: func(ctx context.Context, g *WithT, c *crashCluster) {
				setPaused(ctx, g, c.f.Key(c.f.ClusterName), true)
			},
			done: func(ctx context.Context, g Gomega, c *crashCluster) { expectPausedForMove(ctx, g, c.f.Namespace) },
		},
		{
			name: "unpause",
			start: func(ctx context.Context, g *WithT, c *crashCluster) {
				setPaused(ctx, g, c.f.Key(c.f.ClusterName), false)
			},
			done: func(ctx context.Context, g Gomega, c *crashCluster) {
				c.converged(ctx, g)
				expectResumed(ctx, g, c.f.Namespace)
			},
		},
		{
			name: "delete", standby: true,
			start: func(ctx context.Context, g *WithT, c *crashCluster) {
				key := c.f.Key(c.f.ClusterName)
				g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
			},
			done: func(ctx context.Context, g Gomega, c *crashCluster) {
				expectDeleted(ctx, g, c.f, c.f.Key(c.f.ClusterName), p.ResourceGroupID(c.resourceGroup))
			},
		},
	}
	for _, s := range scenarios {
		ok := t.Run(s.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			want := 1
			if s.standby {
				want = 2
			}
			// Replicas replace the killed ones, as a Deployment's do, and those that lost their lease.
			keeping := reps.Keep(ctx, want)
			for _, c := range clusters {
				s.start(ctx, g, c)
			}
			var n stops
			for range *restarts {
				crashOnce(ctx, g, rng, reps, &n)
			}
			last := time.Now()
			g.Eventually(func(g Gomega) {
				for _, c := range clusters {
					s.done(ctx, g, c)
				}
			}, crashTimeout, plane.Interval).Should(Succeed())
			took := time.Since(last)
			g.Expect(keeping()).To(Succeed(), "the replicas started and stopped")
			violations, duplicates := obs.violations(ctx), obs.duplicates()
			problems, _ := reps.Problems()
			fmt.Printf("crash: scenario %q (%s): %d kills (%d in the middle of a pass), %d graceful stops, %d invariant violations, %d duplicates, converged %s after the last stop\n",
				s.name, replicasName(want), n.killed, n.midPass, n.graceful, len(violations), len(duplicates), took.Round(100*time.Millisecond))
			g.Expect(violations).To(BeEmpty())
			g.Expect(duplicates).To(BeEmpty())
			g.Expect(problems).To(BeEmpty(), "what the provider's replicas logged")
		})
		if !ok {
			t.FailNow() // later scenarios build on this one
		}
	}
}

func replicasName(n int) string {
	if n == 1 {
		return "one replica"
	}
	return "a leader and a standby replica"
}

// crashOnce waits until a replica leads, then kills it (or stops it with SIGTERM) at a seeded moment: right after
// the Nth write of the provider, or after a random pause.
func crashOnce(ctx context.Context, g *WithT, rng *rand.Rand, reps *plane.Replicas, n *stops) {
	var leader *plane.Replica
	g.Eventually(func() *plane.Replica {
		leader = reps.Leader()
		return leader
	}, leaderTimeout, 50*time.Millisecond).ShouldNot(BeNil(), "a replica takes the lease")
	graceful := rng.IntN(gracefulOneIn) == 0
	midPass, writes, pause := rng.IntN(2) == 0, 1+rng.IntN(maxWrites), time.Duration(rng.Int64N(int64(maxPause)))

	if midPass {
		fired := make(chan struct{})
		disarm := p.Writes.AfterWrites(writes, func() {
			// In the audit webhook: the API server holds the answer to the provider's write until this returns.
			if !graceful {
				_ = reps.Kill(leader)
			}
			close(fired)
		})
		select {
		case <-fired:
			if !graceful {
				n.killed++
				n.midPass++
				return
			}
		case <-time.After(maxIdle):
			if !disarm() {
				<-fired // it fired meanwhile
				if !graceful {
					n.killed++
					n.midPass++
					return
				}
			}
		case <-ctx.Done():
			disarm()
			return
		}
	} else {
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return
		}
	}
	if graceful {
		g.Expect(reps.Stop(leader)).To(Succeed(), "a SIGTERM stops the provider within %s", plane.ReplicaStopGrace)
		n.graceful++
		return
	}
	g.Expect(reps.Kill(leader)).To(Succeed())
	n.killed++
}

// selfManagedCrashCluster is a cluster of CAPZ's default flavor with a Flexible machine pool.
func selfManagedCrashCluster(t *testing.T, g *WithT) *crashCluster {
	f := p.NewFixture(t, g, "crash")
	want := selfManaged{workers: 2, instances: 1, version: plane.KubernetesVersion}
	md := f.Key(f.ClusterName + "-md-0")
	return &crashCluster{
		name: "self-managed", f: f, resourceGroup: f.ClusterName,
		create: func(ctx context.Context, g *WithT) {
			f.Apply(ctx, g, "default-cluster.yaml")
			f.Apply(ctx, g, "machinepool.yaml")
		},
		scaleUp: func(ctx context.Context, g *WithT) {
			want.workers = *scale
			scaleMachineDeployment(ctx, g, md, int32(*scale))
		},
		scaleDown: func(ctx context.Context, g *WithT) {
			want.workers = 0
			scaleMachineDeployment(ctx, g, md, 0)
		},
		upgrade: func(ctx context.Context, g *WithT) {
			want.workers, want.version = 1, upgradeVersion
			patchObject(ctx, g, md, &clusterv1.MachineDeployment{}, func(o client.Object) {
				d := o.(*clusterv1.MachineDeployment)
				d.Spec.Replicas, d.Spec.Template.Spec.Version = ptr.To[int32](1), upgradeVersion
			})
			patchObject(ctx, g, f.Key(f.ClusterName+"-mp-0"), &clusterv1.MachinePool{}, func(o client.Object) {
				o.(*clusterv1.MachinePool).Spec.Template.Spec.Version = upgradeVersion
			})
		},
		converged: func(ctx context.Context, g Gomega) { expectSelfManaged(ctx, g, f, want) },
	}
}

// aksCrashCluster is an AKS cluster of the typed API (AzureManagedControlPlane) with two pools.
func aksCrashCluster(t *testing.T, g *WithT) *crashCluster {
	f := p.NewAKSFixture(t, g, "crash-aks")
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 2}, version: plane.KubernetesVersion}
	return managedCrashCluster(f, "AKS", "aks-cluster.yaml", &want, &infrav1.AzureManagedControlPlane{}, func(o client.Object) {
		o.(*infrav1.AzureManagedControlPlane).Spec.Version = upgradeVersion
	})
}

// asoManagedCrashCluster is an AKS cluster of raw ASO objects (AzureASOManaged*) with two machine pools.
func asoManagedCrashCluster(t *testing.T, g *WithT) *crashCluster {
	f := p.NewAKSFixture(t, g, "crash-aso")
	// The autoscaling pool starts at its minimum.
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 1}, version: plane.KubernetesVersion}
	return managedCrashCluster(f, "ASO-managed", "aks-aso-cluster.yaml", &want, &infrav1.AzureASOManagedControlPlane{}, func(o client.Object) {
		o.(*infrav1.AzureASOManagedControlPlane).Spec.Version = upgradeVersion
	})
}

// managedCrashCluster is an AKS cluster whose system pool (pool0) scales, of a manifest and control plane kind.
func managedCrashCluster(f *plane.Fixture, name, manifest string, want *aks, cp controlPlane, upgrade func(client.Object)) *crashCluster {
	pool0 := f.Key(f.ClusterName + "-pool0")
	return &crashCluster{
		name: name, f: f, resourceGroup: f.Vars["RESOURCE_GROUP"],
		create: func(ctx context.Context, g *WithT) { f.Apply(ctx, g, manifest) },
		scaleUp: func(ctx context.Context, g *WithT) {
			want.pools["-pool0"] = 3
			scaleMachinePool(ctx, g, pool0, 3)
		},
		scaleDown: func(ctx context.Context, g *WithT) {
			want.pools["-pool0"] = 1
			scaleMachinePool(ctx, g, pool0, 1)
		},
		upgrade: func(ctx context.Context, g *WithT) {
			want.version = upgradeVersion
			patchObject(ctx, g, f.Key(f.ClusterName), cp.DeepCopyObject().(client.Object), upgrade)
		},
		converged: func(ctx context.Context, g Gomega) {
			expectAKS(ctx, g, f, cp.DeepCopyObject().(controlPlane), *want)
		},
	}
}
