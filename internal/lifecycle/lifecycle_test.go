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

package lifecycle_test

import (
	"context"
	"os"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/util/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{Scheme: scheme.New()}))
}

// writes counts the requests that change an object, by kind of request.
type writes struct {
	patches, statusPatches, other int
}

// countingClient is an uncached client (each pass reads what the last one wrote) that counts its writes.
func countingClient(g *WithT) (client.Client, *writes) {
	c, err := client.NewWithWatch(env.Env.Config, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	w := &writes{}
	return interceptor.NewClient(c, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w.patches++
			return c.Patch(ctx, obj, patch, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			w.statusPatches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w.other++
			return c.Update(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			w.other++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}), w
}

// TestReconcile_WritesOnlyWhatChanged checks what each pass writes: the first one holds the finalizer and the
// block on clusterctl move in one patch, then writes the whole status (Paused and the kind's conditions) in one
// status patch; a pass that changes nothing writes nothing; a pass that changes the spec writes it, and the one
// status patch that follows observes the new generation, so that the next pass writes nothing.
func TestReconcile_WritesOnlyWhatChanged(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "lifecycle")
	g.Expect(err).NotTo(HaveOccurred())
	c, w := countingClient(g)

	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "c1"},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: "c1",
		}},
	}
	g.Expect(c.Create(ctx, cluster)).To(Succeed())
	ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns.Name, Name: "c1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: cluster.Name, UID: cluster.UID}},
	}}
	g.Expect(c.Create(ctx, ac)).To(Succeed())

	// tags is what the kind's phase writes into the spec.
	var tags map[string]string
	type scope struct {
		lifecycle.State
		azureCluster *infrav1.AzureCluster
	}
	kind := &lifecycle.Kind[*infrav1.AzureCluster, *scope]{
		Client:    c,
		Engine:    &aso.Engine{},
		New:       func() *infrav1.AzureCluster { return &infrav1.AzureCluster{} },
		Owns:      network.ClusterKinds(),
		Finalizer: infrav1.ClusterFinalizer,
		Owners:    lifecycle.ClusterOwner,
		Scope: func(obj *infrav1.AzureCluster, _ *lifecycle.Owners) *scope {
			return &scope{azureCluster: obj}
		},
		Phases: []lifecycle.Phase[*scope]{func(_ context.Context, s *scope) error {
			if tags != nil {
				s.azureCluster.Spec.AdditionalTags = tags
			}
			return nil
		}},
		Status: func(s *scope, err error) {
			lifecycle.SetConditions(s.azureCluster, lifecycle.Facts{Err: err, Result: &aso.Result{}})
		},
	}
	pass := func() (*infrav1.AzureCluster, writes) {
		*w = writes{}
		_, err := kind.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ac)})
		g.Expect(err).NotTo(HaveOccurred())
		live := &infrav1.AzureCluster{}
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		return live, *w
	}
	observesItsGeneration := func(live *infrav1.AzureCluster) {
		g.Expect(live.Status.ObservedGeneration).To(Equal(live.Generation))
		g.Expect(live.Status.Conditions).NotTo(BeEmpty())
		for _, cond := range live.Status.Conditions {
			g.Expect(cond.ObservedGeneration).To(Equal(live.Generation), cond.Type)
		}
	}

	live, got := pass()
	g.Expect(got).To(Equal(writes{patches: 1, statusPatches: 1}), "the first pass")
	g.Expect(live.Finalizers).To(ContainElement(infrav1.ClusterFinalizer))
	g.Expect(live.Annotations).To(HaveKey(clusterctlv1.BlockMoveAnnotation))
	g.Expect(conditions.IsFalse(live, clusterv1.PausedCondition)).To(BeTrue())
	g.Expect(conditions.IsTrue(live, clusterv1.ReadyCondition)).To(BeTrue())
	observesItsGeneration(live)

	_, got = pass()
	g.Expect(got).To(Equal(writes{}), "a pass that changes nothing")

	tags = map[string]string{"team": "a"}
	live, got = pass()
	g.Expect(got).To(Equal(writes{patches: 1, statusPatches: 1}), "a pass that changes the spec")
	g.Expect(live.Spec.AdditionalTags).To(Equal(infrav1.Tags(tags)))
	observesItsGeneration(live)

	_, got = pass()
	g.Expect(got).To(Equal(writes{}), "the pass after")
}
