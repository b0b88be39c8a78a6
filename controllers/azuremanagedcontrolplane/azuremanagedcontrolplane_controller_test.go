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

package azuremanagedcontrolplane_test

import (
	"context"
	"testing"
	"time"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremanagedcontrolplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const timeout = 60 * time.Second

// aksCluster is a Cluster with an AzureManagedCluster and an AzureManagedControlPlane, as Cluster API and a
// template create them.
type aksCluster struct {
	cluster      *clusterv1.Cluster
	azureCluster *infrav1.AzureManagedCluster
	controlPlane *infrav1.AzureManagedControlPlane
}

// ownerRef is the owner reference Cluster API sets on the objects of a Cluster or MachinePool.
func ownerRef(kind string, owner client.Object) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: kind, Name: owner.GetName(), UID: owner.GetUID()}}
}

// newAKSCluster creates a namespace and an AKS cluster in it; change adjusts the control plane's spec.
func newAKSCluster(t *testing.T, g *WithT, name string, change func(*infrav1.AzureManagedControlPlaneSpec)) (context.Context, *aksCluster) {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "aks")
	g.Expect(err).NotTo(HaveOccurred())
	c := &aksCluster{cluster: &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:     clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}},
				Services: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}},
			},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedCluster", Name: name},
			ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedControlPlane", Name: name + "-cp"},
		},
	}}
	g.Expect(env.Env.Create(ctx, c.cluster)).To(Succeed())
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: ns.Name},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: "11111111-2222-3333-4444-555555555555",
			ClientID: "66666666-7777-8888-9999-000000000000", AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	labels := map[string]string{clusterv1.ClusterNameLabel: name}
	c.azureCluster = &infrav1.AzureManagedCluster{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns.Name, Labels: labels, OwnerReferences: ownerRef("Cluster", c.cluster),
	}}
	g.Expect(env.Env.Create(ctx, c.azureCluster)).To(Succeed())
	c.controlPlane = &infrav1.AzureManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-cp", Namespace: ns.Name, Labels: labels, OwnerReferences: ownerRef("Cluster", c.cluster)},
		Spec: infrav1.AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
			ResourceGroupName: name + "-rg", Location: "westeurope", Version: "v1.33.2", SubscriptionID: sim.SubscriptionID(),
			IdentityRef: &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: identity.Name},
		}},
	}
	if change != nil {
		change(&c.controlPlane.Spec)
	}
	g.Expect(env.Env.Create(ctx, c.controlPlane)).To(Succeed())
	t.Cleanup(func() {
		ctx := context.Background()
		_ = env.Env.Delete(ctx, c.controlPlane)
		_ = env.Env.Cleanup(ctx, c.azureCluster, c.cluster, identity, ns)
	})
	return ctx, c
}

// newPool creates a MachinePool of the cluster with its AzureManagedMachinePool; change adjusts the pool's spec.
func newPool(t *testing.T, g *WithT, c *aksCluster, name string, mode infrav1.NodePoolMode, change func(*infrav1.AzureManagedMachinePoolSpec)) (*clusterv1.MachinePool, *infrav1.AzureManagedMachinePool) {
	t.Helper()
	ctx := t.Context()
	ns, clusterName := c.cluster.Namespace, c.cluster.Name
	labels := map[string]string{clusterv1.ClusterNameLabel: clusterName}
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To[int32](2),
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName:       clusterName,
				Version:           "v1.33.2",
				Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedMachinePool", Name: name},
			}},
		},
	}
	g.Expect(env.Env.Create(ctx, mp)).To(Succeed())
	pool := &infrav1.AzureManagedMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, OwnerReferences: ownerRef("MachinePool", mp)},
		Spec: infrav1.AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
			Mode: mode, SKU: "Standard_D2s_v3",
		}},
	}
	if change != nil {
		change(&pool.Spec)
	}
	g.Expect(env.Env.Create(ctx, pool)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), pool, mp) })
	return mp, pool
}

// get reads an object into obj and fails the Gomega assertion when it cannot.
func get(ctx context.Context, g Gomega, namespace, name string, obj client.Object) {
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
}

// readyCondition is the Ready condition of obj, for failure messages.
func readyCondition(obj conditions.Getter) *metav1.Condition {
	return conditions.Get(obj, clusterv1.ReadyCondition)
}

func TestReconcile_AKSCluster(t *testing.T) {
	g := NewWithT(t)
	ctx, c := newAKSCluster(t, g, "aks", func(s *infrav1.AzureManagedControlPlaneSpec) {
		s.OIDCIssuerProfile = &infrav1.OIDCIssuerProfile{Enabled: ptr.To(true)}
		s.ASOManagedClusterPatches = []string{`{"spec": {"tags": {"patched": "by-user"}}}`}
	})
	ns := c.cluster.Namespace
	cp := &infrav1.AzureManagedControlPlane{}

	// AKS creates a cluster with its system pool: without one, only the network is created.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "aks-cp", cp)
		g.Expect(readyCondition(cp)).To(HaveField("Reason", azuremanagedcontrolplane.WaitingForMachinePoolsReason))
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: infrav1.AKSVirtualNetworkName("aks-cp")}, &asonetwork.VirtualNetwork{})).To(Succeed())
	}, timeout).Should(Succeed())
	g.Expect(apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aks-cp"}, &asocontainerservice.ManagedCluster{}))).To(BeTrue())

	// A User pool alone is not enough.
	newPool(t, g, c, "pool1", infrav1.NodePoolModeUser, nil)
	g.Consistently(func(g Gomega) {
		get(ctx, g, ns, "aks-cp", cp)
		g.Expect(readyCondition(cp)).To(And(HaveField("Reason", azuremanagedcontrolplane.WaitingForMachinePoolsReason), HaveField("Message", ContainSubstring("mode System"))))
		g.Expect(apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aks-cp"}, &asocontainerservice.ManagedCluster{}))).To(BeTrue())
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	// While AKS creates the cluster, every pool is inline, as CAPZ sends them.
	sim.StayReconciling("ManagedCluster", ns, "aks-cp")
	_, pool := newPool(t, g, c, "pool0", infrav1.NodePoolModeSystem, nil)
	mc := &asocontainerservice.ManagedCluster{}
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "aks-cp", mc)
		g.Expect(mc.Spec.AgentPoolProfiles).To(HaveExactElements(
			And(HaveField("Name", HaveValue(Equal("pool0"))), HaveField("Mode", HaveValue(Equal(asocontainerservice.AgentPoolMode_System))), HaveField("Count", HaveValue(Equal(2)))),
			And(HaveField("Name", HaveValue(Equal("pool1"))), HaveField("Mode", HaveValue(Equal(asocontainerservice.AgentPoolMode_User))))))
	}, timeout).Should(Succeed())
	g.Expect(sim.Heal(ctx, "ManagedCluster", ns, "aks-cp")).To(Succeed())

	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "aks-cp", cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", readyCondition(cp))
		g.Expect(cp.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
	}, timeout).Should(Succeed())
	// Once AKS created the cluster, its agent pools are their own objects.
	get(ctx, g, ns, "aks-cp", mc)
	g.Expect(mc.Spec.AgentPoolProfiles).To(BeEmpty())
	g.Expect(mc.Spec.Tags).To(HaveKeyWithValue("patched", "by-user"))
	g.Expect(mc.Spec.NetworkProfile.PodCidr).To(HaveValue(Equal("192.168.0.0/16")))
	g.Expect(conditions.IsTrue(cp, infrav1.PatchesAppliedCondition)).To(BeTrue())
	for _, cond := range []string{"ResourceGroupReady", "VNetReady", "SubnetsReady", "ManagedClusterReady", azuremanagedcontrolplane.KubeconfigReadyCondition} {
		g.Expect(conditions.IsTrue(cp, cond)).To(BeTrue(), cond)
	}
	g.Expect(cp.Spec.ControlPlaneEndpoint).To(Equal(clusterv1.APIEndpoint{Host: "aks-cp.hcp.westeurope.azmk8s.io", Port: 443}))
	g.Expect(cp.Status.Version).To(Equal("v1.33.2"))
	g.Expect(cp.Status.ExternalManagedControlPlane).To(HaveValue(BeTrue()))
	g.Expect(cp.Status.OIDCIssuerProfile).NotTo(BeNil())
	g.Expect(cp.Status.OIDCIssuerProfile.IssuerURL).To(HaveValue(HavePrefix("https://westeurope.oic.prod-aks.azure.com/")))

	// Cluster API's kubeconfig is the one ASO wrote.
	kubeconfig := &corev1.Secret{}
	get(ctx, g, ns, secret.Name("aks", secret.Kubeconfig), kubeconfig)
	g.Expect(kubeconfig.Data[secret.KubeconfigDataName]).To(Equal(env.Env.ControlPlane.KubeConfig))
	g.Expect(kubeconfig.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabel, "aks"))

	// The infrastructure cluster reports the control plane's endpoint.
	g.Eventually(func(g Gomega) {
		amc := &infrav1.AzureManagedCluster{}
		get(ctx, g, ns, "aks", amc)
		g.Expect(amc.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
		g.Expect(amc.Spec.ControlPlaneEndpoint).To(Equal(cp.Spec.ControlPlaneEndpoint))
	}, timeout).Should(Succeed())

	// The system pool is also its own agent pool object, created with the cluster.
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureManagedMachinePool{}
		get(ctx, g, ns, pool.Name, live)
		g.Expect(live.Status.Ready).To(BeTrue(), "Ready: %+v", readyCondition(live))
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
		g.Expect(live.Status.Replicas).To(BeEquivalentTo(2))
	}, timeout).Should(Succeed())
	ap := &asocontainerservice.ManagedClustersAgentPool{}
	get(ctx, g, ns, "pool0", ap)
	g.Expect(ap.Spec.Owner.Name).To(Equal("aks-cp"))
	g.Expect(ap.Spec.OrchestratorVersion).To(HaveValue(Equal("1.33.2")))
	// ASO reads the cluster's identity for both.
	g.Expect(mc.Annotations).To(HaveKeyWithValue(asoannotations.PerResourceSecret, "aks-aso-secret"))
	g.Expect(ap.Annotations).To(HaveKeyWithValue(asoannotations.PerResourceSecret, "aks-aso-secret"))

	// Once the workload cluster is reachable, the pool lists the provider IDs of its nodes.
	provisioned := c.cluster.DeepCopy()
	get(ctx, g, ns, "aks", provisioned)
	provisioned.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	provisioned.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	g.Expect(env.Env.Status().Update(ctx, provisioned)).To(Succeed())
	nodeRG := cp.Spec.NodeResourceGroupName
	g.Expect(nodeRG).To(Equal("MC_aks-rg_aks-cp_westeurope"), "defaulted as in CAPZ")
	var ids []string
	for i := range 2 {
		id := "azure:///subscriptions/" + sim.SubscriptionID() + "/resourceGroups/" + nodeRG +
			"/providers/Microsoft.Compute/virtualMachineScaleSets/aks-pool0-vmss/virtualMachines/" + string(rune('0'+i))
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-pool0-" + string(rune('0'+i)), Labels: map[string]string{
				"kubernetes.azure.com/agentpool": "pool0", "kubernetes.azure.com/cluster": nodeRG,
			}},
			Spec: corev1.NodeSpec{ProviderID: id},
		}
		g.Expect(env.Env.Create(ctx, node)).To(Succeed())
		t.Cleanup(func() { _ = env.Env.Delete(context.Background(), node) })
		ids = append(ids, id)
	}
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureManagedMachinePool{}
		get(ctx, g, ns, pool.Name, live)
		g.Expect(live.Spec.ProviderIDList).To(Equal(ids))
	}, timeout).Should(Succeed())

	// Deleting the control plane deletes the AKS cluster, then the resource group the cluster owns.
	g.Expect(env.Env.Delete(ctx, c.controlPlane)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aks-cp"}, &infrav1.AzureManagedControlPlane{}))).To(BeTrue())
	}, timeout).Should(Succeed())
	g.Expect(apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aks-cp"}, &asocontainerservice.ManagedCluster{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aks-rg"}, &asoresources.ResourceGroup{}))).To(BeTrue())
	g.Expect(mc.Status.Id).NotTo(BeNil())
	g.Expect(sim.ExistsInAzure(*mc.Status.Id)).To(BeFalse(), "the AKS cluster is gone from Azure")
}

func TestReconcile_AutoscalingUserPoolAndPause(t *testing.T) {
	g := NewWithT(t)
	ctx, c := newAKSCluster(t, g, "scaling", nil)
	ns := c.cluster.Namespace
	newPool(t, g, c, "system", infrav1.NodePoolModeSystem, nil)
	mp, _ := newPool(t, g, c, "user", infrav1.NodePoolModeUser, func(s *infrav1.AzureManagedMachinePoolSpec) {
		s.Name = ptr.To("apps")
		s.Scaling = &infrav1.ManagedMachinePoolScaling{MinSize: ptr.To[int32](1), MaxSize: ptr.To[int32](5)}
		s.ASOManagedClustersAgentPoolPatches = []string{`{"spec": {"nodeLabels": {"patched": "yes"}}}`}
	})

	g.Eventually(func(g Gomega) {
		pool := &infrav1.AzureManagedMachinePool{}
		get(ctx, g, ns, "user", pool)
		g.Expect(pool.Status.Ready).To(BeTrue(), "Ready: %+v", readyCondition(pool))
		g.Expect(conditions.IsTrue(pool, infrav1.PatchesAppliedCondition)).To(BeTrue())
	}, timeout).Should(Succeed())
	ap := &asocontainerservice.ManagedClustersAgentPool{}
	get(ctx, g, ns, "user", ap)
	g.Expect(ap.Spec.AzureName).To(Equal("apps"))
	g.Expect(ap.Spec.EnableAutoScaling).To(HaveValue(BeTrue()))
	g.Expect(ap.Spec.MinCount).To(HaveValue(Equal(1)))
	g.Expect(ap.Spec.MaxCount).To(HaveValue(Equal(5)))
	g.Expect(ap.Spec.Count).To(HaveValue(Equal(2)), "created with the MachinePool's replicas")
	g.Expect(ap.Spec.NodeLabels).To(HaveKeyWithValue("patched", "yes"))

	// The AKS autoscaler owns the replica count: Cluster API is told so.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, mp.Name, mp)
		g.Expect(mp.Annotations).To(HaveKeyWithValue(clusterv1.ReplicasManagedByAnnotation, "aks"))
	}, timeout).Should(Succeed())

	// Pausing the Cluster hands the objects back to nobody: ASO stops reconciling them, and clusterctl may move them.
	g.Eventually(func(g Gomega) {
		cp := &infrav1.AzureManagedControlPlane{}
		get(ctx, g, ns, "scaling-cp", cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", readyCondition(cp))
	}, timeout).Should(Succeed())
	paused := &clusterv1.Cluster{}
	get(ctx, g, ns, "scaling", paused)
	paused.Spec.Paused = ptr.To(true)
	g.Expect(env.Env.Update(ctx, paused)).To(Succeed())
	g.Eventually(func(g Gomega) {
		mc := &asocontainerservice.ManagedCluster{}
		get(ctx, g, ns, "scaling-cp", mc)
		g.Expect(mc.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)))
		get(ctx, g, ns, "user", ap)
		g.Expect(ap.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)))
		cp := &infrav1.AzureManagedControlPlane{}
		get(ctx, g, ns, "scaling-cp", cp)
		g.Expect(cp.Annotations).NotTo(HaveKey(clusterctlv1.BlockMoveAnnotation))
		g.Expect(conditions.IsTrue(cp, clusterv1.PausedCondition)).To(BeTrue())
	}, timeout).Should(Succeed())
}

func TestReconcile_LocalAccountsDisabled(t *testing.T) {
	g := NewWithT(t)
	ctx, c := newAKSCluster(t, g, "entra", func(s *infrav1.AzureManagedControlPlaneSpec) {
		s.AADProfile = &infrav1.AADProfile{Managed: true, AdminGroupObjectIDs: []string{"00000000-0000-0000-0000-00000000000a"}}
		s.DisableLocalAccounts = ptr.To(true)
	})
	ns := c.cluster.Namespace
	newPool(t, g, c, "system", infrav1.NodePoolModeSystem, nil)

	// AKS is ready, but has no admin kubeconfig: Cluster API's holds the Entra ID one, and the condition says so.
	cp := &infrav1.AzureManagedControlPlane{}
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "entra-cp", cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", readyCondition(cp))
		g.Expect(cp.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
	}, timeout).Should(Succeed())
	kubeconfigReady := conditions.Get(cp, azuremanagedcontrolplane.KubeconfigReadyCondition)
	g.Expect(kubeconfigReady).NotTo(BeNil())
	g.Expect(kubeconfigReady.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(kubeconfigReady.Reason).To(Equal(azuremanagedcontrolplane.LocalAccountsDisabledReason))
	g.Expect(kubeconfigReady.Message).To(ContainSubstring("kubelogin"))

	mc := &asocontainerservice.ManagedCluster{}
	get(ctx, g, ns, "entra-cp", mc)
	g.Expect(mc.Spec.OperatorSpec.Secrets.AdminCredentials).To(BeNil(), "AKS has no admin credentials to give")
	g.Expect(mc.Spec.OperatorSpec.Secrets.UserCredentials).NotTo(BeNil())
	kubeconfig := &corev1.Secret{}
	get(ctx, g, ns, secret.Name("entra", secret.Kubeconfig), kubeconfig)
	g.Expect(kubeconfig.Data[secret.KubeconfigDataName]).NotTo(BeEmpty())
}
