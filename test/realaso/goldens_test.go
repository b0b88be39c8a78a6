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

package realaso

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// TestRealASO_V1beta1Flavors creates the clusters of the default and aks-aso flavors from their Cluster API v1beta1
// form (templates/testdata/v1beta1, as CAPZ users write them) on ASO's own controllers, and expects Azure to
// receive exactly the flavors' golden files, as from their v1beta2 form (TestRealASO_DefaultCluster,
// TestRealASO_AKSCluster).
func TestRealASO_V1beta1Flavors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flavor, prefix  string
		machines, pools int // what the flavor makes with FlavorVars
	}{{"default", "dflt1", 2, 0}, {"aks-aso", "aso1", 0, 2}} {
		t.Run(tt.flavor, func(t *testing.T) {
			t.Parallel()
			g := NewWithT(t)
			ctx := t.Context()
			start := time.Now()
			var f *plane.Fixture
			if tt.flavor == "default" {
				kubeadmInit.Lock()
				t.Cleanup(kubeadmInit.Unlock) // after the fixture's cleanup, which ends its kubeadm init
				f = p.NewFixture(t, g, tt.prefix)
			} else {
				f = p.NewAKSFixture(t, g, tt.prefix)
			}
			f.ApplyFlavor(ctx, g, plane.TemplateFile(tt.flavor, true))
			g.Eventually(func(g Gomega) {
				cluster := &clusterv1.Cluster{}
				g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cluster)).To(Succeed())
				g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue())
				g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue())
				machines := &clusterv1.MachineList{}
				g.Expect(env.Env.List(ctx, machines, client.InNamespace(f.Namespace))).To(Succeed())
				g.Expect(machines.Items).To(HaveLen(tt.machines))
				for _, m := range machines.Items {
					g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue(), "Machine %s has a Node", m.Name)
				}
				pools := &clusterv1.MachinePoolList{}
				g.Expect(env.Env.List(ctx, pools, client.InNamespace(f.Namespace))).To(Succeed())
				g.Expect(pools.Items).To(HaveLen(tt.pools))
				for _, mp := range pools.Items {
					g.Expect(mp.Status.NodeRefs).To(HaveLen(int(*mp.Spec.Replicas)), "MachinePool %s", mp.Name)
				}
				objects := plane.ListASOObjects(ctx, g, f.Namespace)
				g.Expect(objects).NotTo(BeEmpty())
				for _, o := range objects {
					g.Expect(readyInAzure(o.Object)).To(BeTrue(), "%s is Ready, and its resource exists in Azure", o)
				}
			}, timeout, plane.Interval).Should(Succeed())
			t.Logf("Cluster %s (%s, v1beta1) provisioned by ASO after %s", f.ClusterName, tt.flavor, time.Since(start).Round(time.Second))
			assertARMGoldens(t, f, tt.flavor)
		})
	}
}
