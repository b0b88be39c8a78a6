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

package e2e

import (
	"context"
	"strings"
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// upgradeVersion is the version the AKS tests upgrade to.
const upgradeVersion = "v1.35.0"

// TestE2E_AKSCluster creates a typed AKS cluster in the user's own resource group, with a system pool and an
// autoscaling user pool, patches two AKS features the typed API lacks, scales, upgrades and deletes it, with
// Cluster API's reconcilers driving the provider.
func TestE2E_AKSCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	f := p.NewAKSFixture(t, g, "aks")
	rgID := p.ResourceGroupID(f.Vars["RESOURCE_GROUP"])
	// The resource group exists in Azure without the cluster's owned tag: it is the user's.
	p.Sim.SeedAzure("ResourceGroup", rgID, map[string]string{"team": "platform"})
	f.Apply(ctx, g, "aks-cluster.yaml")
	pools := map[string]int{f.ClusterName + "-pool0": 1, f.ClusterName + "-pool1": 2}

	cp := &infrav1.AzureManagedControlPlane{}
	expectAKSClusterUp(ctx, g, f, cp, "AzureManagedControlPlane", pools)
	g.Expect(cp.Spec.ControlPlaneEndpoint.Host).To(Equal(f.ClusterName + ".hcp." + plane.Location + ".azmk8s.io"))
	g.Expect(cp.Status.Version).To(Equal(plane.KubernetesVersion))
	g.Expect(cp.Status.OIDCIssuerProfile).NotTo(BeNil())

	// The merge patch and the JSON patch each turned on a feature of the applied ManagedCluster.
	mc := &asocontainerservice.ManagedCluster{}
	g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), mc)).To(Succeed())
	g.Expect(mc.Spec.StorageProfile).NotTo(BeNil())
	g.Expect(mc.Spec.StorageProfile.BlobCSIDriver.Enabled).To(HaveValue(BeTrue()))
	g.Expect(mc.Spec.WorkloadAutoScalerProfile).NotTo(BeNil())
	g.Expect(mc.Spec.WorkloadAutoScalerProfile.Keda.Enabled).To(HaveValue(BeTrue()))
	g.Expect(conditions.IsTrue(cp, infrav1.PatchesAppliedCondition)).To(BeTrue())
	// A patch of what the provider owns is refused at admission.
	forbidden := &infrav1.AzureManagedControlPlane{}
	expectUpdateRefused(ctx, g, f.Key(f.ClusterName), forbidden, func() {
		forbidden.Spec.ASOPatches = append(forbidden.Spec.ASOPatches, infrav1.ASOPatch{Target: infrav1.ASOPatchTarget{Kind: "ManagedCluster"},
			Type: infrav1.JSONPatchType, Patch: `[{"op": "replace", "path": "/metadata/name", "value": "other"}]`})
	}, "spec.asoPatches[1]")

	// The AKS autoscaler owns the user pool's size.
	g.Eventually(func(g Gomega) {
		mp := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName+"-pool1"), mp)).To(Succeed())
		g.Expect(mp.Annotations).To(HaveKeyWithValue(clusterv1.ReplicasManagedByAnnotation, "aks"))
	}, plane.Timeout, plane.Interval).Should(Succeed())

	scaleAndUpgrade(ctx, g, f, f.ClusterName+"-pool0", func(version string) {
		live := &infrav1.AzureManagedControlPlane{}
		plane.UpdateObject(ctx, g, f.Key(f.ClusterName), live, func() { live.Spec.Version = version })
	})
	// AKS never downgrades: neither does the webhook let the version go back.
	live := &infrav1.AzureManagedControlPlane{}
	expectUpdateRefused(ctx, g, f.Key(f.ClusterName), live, func() { live.Spec.Version = plane.KubernetesVersion }, "spec.version")

	mcID := ptr.Deref(mc.Status.Id, "")
	plane.DeleteCluster(ctx, g, f.Key(f.ClusterName))
	g.Eventually(func(g Gomega) {
		g.Expect(plane.ListASOObjects(ctx, g, f.Namespace)).To(BeEmpty())
	}, plane.Timeout, plane.Interval).Should(Succeed())
	g.Expect(p.Sim.Deleted()).To(ContainElement(mcID), "the AKS cluster is deleted")
	expectPoolsWentWithTheirCluster(g, f.ClusterName)
	g.Expect(p.Sim.Deleted()).NotTo(ContainElement(rgID), "the user's resource group is not")
	g.Expect(p.Sim.ExistsInAzure(rgID)).To(BeTrue())
}

// TestE2E_ASOManagedCluster creates an AKS cluster from raw ASO objects (the AzureASOManaged kinds), with an
// autoscaling pool, scales, upgrades and deletes it, resource group included.
func TestE2E_ASOManagedCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	f := p.NewAKSFixture(t, g, "aso")
	f.Apply(ctx, g, "aks-aso-cluster.yaml")
	// The autoscaling pool starts at its minimum: the autoscaler, not the MachinePool, owns its size.
	pools := map[string]int{f.ClusterName + "-pool0": 1, f.ClusterName + "-pool1": 1}

	cp := &infrav1.AzureASOManagedControlPlane{}
	expectAKSClusterUp(ctx, g, f, cp, "AzureASOManagedControlPlane", pools)
	g.Expect(cp.Status.ControlPlaneEndpoint.Host).To(Equal(f.ClusterName + ".hcp." + plane.Location + ".azmk8s.io"))
	g.Eventually(func(g Gomega) {
		mp := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName+"-pool1"), mp)).To(Succeed())
		g.Expect(mp.Annotations).To(HaveKeyWithValue(clusterv1.ReplicasManagedByAnnotation, "aks"))
		g.Expect(mp.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)), "the MachinePool follows the autoscaler")
	}, plane.Timeout, plane.Interval).Should(Succeed())

	scaleAndUpgrade(ctx, g, f, f.ClusterName+"-pool0", func(version string) {
		live := &infrav1.AzureASOManagedControlPlane{}
		plane.UpdateObject(ctx, g, f.Key(f.ClusterName), live, func() { live.Spec.Version = version })
	})

	rgID := p.ResourceGroupID(f.Vars["RESOURCE_GROUP"])
	plane.DeleteCluster(ctx, g, f.Key(f.ClusterName))
	g.Eventually(func(g Gomega) {
		g.Expect(plane.ListASOObjects(ctx, g, f.Namespace)).To(BeEmpty())
	}, plane.Timeout, plane.Interval).Should(Succeed())
	g.Expect(p.Sim.Deleted()).To(ContainElement(rgID), "the cluster's own resource group is deleted")
	expectPoolsWentWithTheirCluster(g, f.ClusterName)
}

// expectPoolsWentWithTheirCluster: deleting a Cluster, no agent pool is deleted on its own (AKS refuses to delete a
// cluster's last System pool): the pools go with their managed cluster, as with CAPZ.
func expectPoolsWentWithTheirCluster(g *WithT, managedCluster string) {
	pools := strings.ToLower("/managedClusters/" + managedCluster + "/agentPools/")
	for _, id := range p.Sim.Deleted() {
		g.Expect(strings.ToLower(id)).NotTo(ContainSubstring(pools), "an agent pool deleted on its own")
	}
}

// expectUpdateRefused reads obj fresh from the API server, changes it and expects admission to refuse the update
// with a message containing want; a conflict with the controllers' own writes is retried.
func expectUpdateRefused(ctx context.Context, g *WithT, key client.ObjectKey, obj client.Object, change func(), want string) {
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, key, obj)).To(Succeed())
		change()
		err := env.Env.Update(ctx, obj)
		g.Expect(apierrors.IsConflict(err)).To(BeFalse(), "retry after a conflict: %v", err)
		g.Expect(err).To(MatchError(ContainSubstring(want)))
	}, plane.Timeout, plane.Interval).Should(Succeed())
}

// expectAKSClusterUp waits until Cluster API sees the control plane initialized and every pool's nodes, and checks
// the kubeconfig Secret against Cluster API's contract. pools are the MachinePools and their replicas.
func expectAKSClusterUp(ctx context.Context, g *WithT, f *plane.Fixture, cp client.Object, kind string, pools map[string]int) {
	cluster := &clusterv1.Cluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cluster)).To(Succeed())
		g.Expect(cluster.Status.Initialization.InfrastructureProvisioned).To(HaveValue(BeTrue()))
		g.Expect(cluster.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue(),
			"ControlPlaneInitialized: %+v", conditions.Get(cluster, clusterv1.ClusterControlPlaneInitializedCondition))
		g.Expect(cluster.Spec.ControlPlaneEndpoint.Port).To(BeEquivalentTo(443))
	}, plane.Timeout, plane.Interval).Should(Succeed())
	g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cp)).To(Succeed())

	// Cluster API's kubeconfig: its name, type, label and key, owned by the control plane, reaching the cluster.
	kubeconfig := &corev1.Secret{}
	g.Expect(env.Env.Get(ctx, f.Key(secret.Name(f.ClusterName, secret.Kubeconfig)), kubeconfig)).To(Succeed())
	g.Expect(kubeconfig.Type).To(Equal(clusterv1.ClusterSecretType))
	g.Expect(kubeconfig.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabel, f.ClusterName))
	g.Expect(metav1.GetControllerOf(kubeconfig)).To(And(HaveField("Kind", kind), HaveField("Name", f.ClusterName)))
	workloadKubeconfig, err := p.Workload.Kubeconfig()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kubeconfig.Data[secret.KubeconfigDataName]).To(Equal(workloadKubeconfig))

	for name, replicas := range pools {
		expectPoolNodes(ctx, g, f, name, replicas)
	}
}

// expectPoolNodes waits until a MachinePool has replicas nodes: the infrastructure pool lists their provider IDs
// and Cluster API found each Node.
func expectPoolNodes(ctx context.Context, g *WithT, f *plane.Fixture, name string, replicas int) {
	g.Eventually(func(g Gomega) {
		mp := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(ctx, f.Key(name), mp)).To(Succeed())
		g.Expect(mp.Spec.ProviderIDList).To(HaveLen(replicas), "%s providerIDList", name)
		g.Expect(mp.Status.NodeRefs).To(HaveLen(replicas), "%s nodeRefs", name)
		g.Expect(mp.Status.Replicas).To(HaveValue(BeEquivalentTo(replicas)), "%s status.replicas", name)
	}, plane.Timeout, plane.Interval).Should(Succeed())
}

// scaleAndUpgrade scales a non-autoscaling pool up and down, then upgrades the control plane (with setVersion)
// and the pool.
func scaleAndUpgrade(ctx context.Context, g *WithT, f *plane.Fixture, pool string, setVersion func(string)) {
	for _, replicas := range []int{3, 1} {
		mp := &clusterv1.MachinePool{}
		plane.UpdateObject(ctx, g, f.Key(pool), mp, func() { mp.Spec.Replicas = ptr.To(int32(replicas)) })
		expectPoolNodes(ctx, g, f, pool, replicas)
	}

	setVersion(upgradeVersion)
	g.Eventually(func(g Gomega) {
		mc := &asocontainerservice.ManagedCluster{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), mc)).To(Succeed())
		g.Expect(mc.Spec.KubernetesVersion).To(HaveValue(Equal(strings.TrimPrefix(upgradeVersion, "v"))))
		g.Expect(mc.Status.CurrentKubernetesVersion).To(HaveValue(Equal(strings.TrimPrefix(upgradeVersion, "v"))))
	}, plane.Timeout, plane.Interval).Should(Succeed())
	mp := &clusterv1.MachinePool{}
	plane.UpdateObject(ctx, g, f.Key(pool), mp, func() { mp.Spec.Template.Spec.Version = upgradeVersion })
	g.Eventually(func(g Gomega) {
		ap := &asocontainerservice.ManagedClustersAgentPool{}
		g.Expect(env.Env.Get(ctx, f.Key(pool), ap)).To(Succeed())
		g.Expect(ap.Spec.OrchestratorVersion).To(HaveValue(Equal(strings.TrimPrefix(upgradeVersion, "v"))))
	}, plane.Timeout, plane.Interval).Should(Succeed())
}
