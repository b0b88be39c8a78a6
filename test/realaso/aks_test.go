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
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// upgradeVersion is the Kubernetes version the AKS test upgrades to.
const upgradeVersion = "v1.35.0"

// TestRealASO_AKSCluster creates an AKS cluster of the aks-aso flavor (templates/cluster-template-aks-aso.yaml)
// on ASO's own controllers: ASO creates the managed cluster and its agent pools in Azure and writes the kubeconfig
// it lists from Azure, Cluster API sees the control plane initialized and every pool's nodes, and the ARM requests
// Azure receives equal the flavor's golden files; the pool scales, the cluster upgrades, and deleting it deletes
// its resource group in Azure.
func TestRealASO_AKSCluster(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := t.Context()
	start := time.Now()
	f := p.NewAKSFixture(t, g, "aso")
	f.ApplyFlavor(ctx, g, plane.TemplateFile("aks-aso", false))
	pool := f.ClusterName + "-pool0"

	g.Eventually(func(g Gomega) {
		cluster := &clusterv1.Cluster{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cluster)).To(Succeed())
		g.Expect(cluster.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue())
		g.Expect(cluster.Spec.ControlPlaneEndpoint.Host).To(HaveSuffix(".hcp." + plane.Location + ".azmk8s.io"))
	}, timeout, plane.Interval).Should(Succeed())
	expectPoolNodes(ctx, g, f, pool, 1)
	t.Logf("AKS cluster %s provisioned by ASO after %s", f.ClusterName, time.Since(start).Round(time.Second))
	for _, o := range plane.ListASOObjects(ctx, g, f.Namespace) {
		g.Expect(readyInAzure(o.Object)).To(BeTrue(), "%s is Ready, and its resource exists in Azure", o)
	}
	expectPoolNodes(ctx, g, f, f.ClusterName+"-pool1", 1)
	assertARMGoldens(t, f, "aks-aso")

	// Scale the pool up and down, then upgrade the control plane and the pool: Azure receives each change.
	for _, replicas := range []int{3, 1} {
		mp := &clusterv1.MachinePool{}
		plane.UpdateObject(ctx, g, f.Key(pool), mp, func() { mp.Spec.Replicas = ptr.To(int32(replicas)) })
		expectPoolNodes(ctx, g, f, pool, replicas)
	}
	cp := &infrav1.AzureASOManagedControlPlane{}
	plane.UpdateObject(ctx, g, f.Key(f.ClusterName), cp, func() { cp.Spec.Version = upgradeVersion })
	g.Eventually(func(g Gomega) {
		mc := &asocontainerservice.ManagedCluster{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), mc)).To(Succeed())
		g.Expect(mc.Status.CurrentKubernetesVersion).To(HaveValue(Equal(strings.TrimPrefix(upgradeVersion, "v"))), "Azure reports the new version")
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cp)).To(Succeed())
		g.Expect(cp.Status.Version).To(Equal(upgradeVersion))
	}, timeout, plane.Interval).Should(Succeed())

	rg := strings.ToLower("/subscriptions/" + p.SubscriptionID() + "/resourceGroups/" + f.ClusterName) // the flavor's default resource group
	plane.DeleteCluster(ctx, g, f.Key(f.ClusterName))
	g.Eventually(func(g Gomega) {
		g.Expect(plane.ListASOObjects(ctx, g, f.Namespace)).To(BeEmpty())
	}, timeout, plane.Interval).Should(Succeed())
	for _, id := range p.ARM.Resources() {
		g.Expect(strings.ToLower(id)).NotTo(HavePrefix(rg), "nothing of the deleted cluster stays in Azure")
	}
	// The agent pools went with their managed cluster: AKS refuses to delete its last System pool on its own (as
	// the fake ARM does), and ASO sends no DELETE of a pool already gone.
	pools := strings.ToLower("/managedClusters/" + f.ClusterName + "/agentPools/")
	puts := 0
	for _, r := range p.ARM.Requests() {
		switch {
		case !strings.Contains(strings.ToLower(r.Path), pools):
		case r.Method == http.MethodPut:
			puts++
		case r.Method == http.MethodDelete:
			g.Fail("an agent pool deleted on its own: DELETE " + r.Path)
		}
	}
	g.Expect(puts).To(BeNumerically(">", 0), "the pools' PUTs were seen under %s", pools)
}

// expectPoolNodes waits until a MachinePool has replicas nodes: the infrastructure pool lists their provider IDs
// and Cluster API found each Node.
func expectPoolNodes(ctx context.Context, g *WithT, f *plane.Fixture, name string, replicas int) {
	g.Eventually(func(g Gomega) {
		mp := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(ctx, f.Key(name), mp)).To(Succeed())
		g.Expect(mp.Spec.ProviderIDList).To(HaveLen(replicas), "%s providerIDList", name)
		g.Expect(mp.Status.NodeRefs).To(HaveLen(replicas), "%s nodeRefs", name)
	}, timeout, plane.Interval).Should(Succeed())
}
