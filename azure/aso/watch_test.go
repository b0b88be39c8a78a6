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

package aso_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/patch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// watchLabel marks the owners the status mirror controller of this file handles.
const watchLabel = "test.infrastructure.cluster.x-k8s.io/mirror"

// mirrorReconciler is the smallest controller the engine serves: it reconciles an owner's resource group and
// writes the engine's conditions to the owner. It never requeues; only watch events make it run.
type mirrorReconciler struct {
	client client.Client
	engine *aso.Engine
}

func setupMirror(mgr ctrl.Manager) error {
	r := &mirrorReconciler{client: mgr.GetClient(), engine: &aso.Engine{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}}
	b := ctrl.NewControllerManagedBy(mgr).Named("mirror").
		For(&infrav1.AzureCluster{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetLabels()[watchLabel] == "true"
		})))
	return aso.Owns(b, &asoresources.ResourceGroup{}).Complete(r)
}

func (r *mirrorReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	owner := &infrav1.AzureCluster{}
	if err := r.client.Get(ctx, req.NamespacedName, owner); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(owner, r.client)
	if err != nil {
		return ctrl.Result{}, err
	}
	result, err := r.engine.Reconcile(ctx, owner, []aso.Resource{resourceGroup(owner.Name + "-rg")}, aso.Options{ClusterName: owner.Name, Kinds: allKinds})
	if err != nil {
		return ctrl.Result{}, err
	}
	var owned []string
	for _, c := range result.Conditions() {
		conditions.Set(owner, c)
		owned = append(owned, c.Type)
	}
	return ctrl.Result{}, helper.Patch(ctx, owner, patch.WithOwnedConditions{Conditions: owned})
}

// newMirroredOwner creates an owner the mirror controller handles and waits until its resource group is ready.
func newMirroredOwner(ctx context.Context, t testing.TB, g *WithT, name string) *infrav1.AzureCluster {
	ns, err := env.Env.CreateNamespace(ctx, "mirror")
	g.Expect(err).NotTo(HaveOccurred())
	owner := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name, Labels: map[string]string{watchLabel: "true"}},
		Spec:       infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus"}},
	}
	g.Expect(env.Env.Create(ctx, owner)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), owner, ns) })
	waitForResourceGroupReady(ctx, g, owner, metav1.ConditionTrue, "")
	return owner
}

// waitForResourceGroupReady waits until the owner's ResourceGroupReady condition has status and, if message is not
// empty, a message containing it.
func waitForResourceGroupReady(ctx context.Context, g *WithT, owner *infrav1.AzureCluster, status metav1.ConditionStatus, message string) {
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(owner), live)).To(Succeed())
		c := conditions.Get(live, "ResourceGroupReady")
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status))
		if message != "" {
			g.Expect(c.Message).To(ContainSubstring(message))
		}
	}, timeout, 5*time.Millisecond).Should(Succeed())
}

func TestWatch_ASOStatusReachesTheOwner(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	owner := newMirroredOwner(ctx, t, g, "watched")

	sim.Fail("ResourceGroup", owner.Namespace, "watched-rg", "AuthorizationFailed", "the credential may not create resource groups")
	waitForResourceGroupReady(ctx, g, owner, metav1.ConditionFalse, "the credential may not create resource groups")
	g.Expect(sim.Heal(ctx, "ResourceGroup", owner.Namespace, "watched-rg")).To(Succeed())
	waitForResourceGroupReady(ctx, g, owner, metav1.ConditionTrue, "")
}

// BenchmarkWatchLatency measures how long an ASO status change takes to reach the owner's conditions through
// the watch: from the simulator's fault to the owner's updated condition, and back.
func BenchmarkWatchLatency(b *testing.B) {
	g := NewWithT(b)
	ctx := b.Context()
	owner := newMirroredOwner(ctx, b, g, "latency")
	b.ResetTimer()
	for i := range b.N {
		message := fmt.Sprintf("failure %d", i)
		sim.Fail("ResourceGroup", owner.Namespace, "latency-rg", "Throttled", message)
		waitForResourceGroupReady(ctx, g, owner, metav1.ConditionFalse, message)
		g.Expect(sim.Heal(ctx, "ResourceGroup", owner.Namespace, "latency-rg")).To(Succeed())
		waitForResourceGroupReady(ctx, g, owner, metav1.ConditionTrue, "")
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(2*b.N), "ms/status-change")
}

// BenchmarkReconcile_NoOp measures the engine's cost of a pass in which nothing changed, per object.
func BenchmarkReconcile_NoOp(b *testing.B) {
	g := NewWithT(b)
	ctx := b.Context()
	ns, err := env.Env.CreateNamespace(ctx, "bench")
	g.Expect(err).NotTo(HaveOccurred())
	owner := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns.Name},
		Spec:       infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus"}},
	}
	g.Expect(env.Env.Create(ctx, owner)).To(Succeed())
	b.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), owner, ns) })
	desired := func() []aso.Resource {
		out := []aso.Resource{resourceGroup("rg")}
		for i := range 49 {
			out = append(out, securityGroup(fmt.Sprintf("nsg-%d", i)))
		}
		return out
	}
	e := &aso.Engine{Client: env.Env.Client, APIReader: env.Env.GetAPIReader()}
	reconcileUntilReady(ctx, g, e, owner, desired, options("bench"))
	before := writes.Load()
	b.ResetTimer()
	for range b.N {
		result, err := e.Reconcile(ctx, owner, desired(), options("bench"))
		if err != nil || result.Writes != 0 {
			b.Fatalf("a no-op pass wrote %d objects: %v", result.Writes, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(50*b.N), "µs/object")
	g.Expect(writes.Load()).To(Equal(before))
}
