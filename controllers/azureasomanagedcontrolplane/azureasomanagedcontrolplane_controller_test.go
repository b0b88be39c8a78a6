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

package azureasomanagedcontrolplane_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azureasomanagedcontrolplane"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const timeout = 60 * time.Second

func raw(format string, args ...any) runtime.RawExtension {
	return runtime.RawExtension{Raw: []byte(fmt.Sprintf(format, args...))}
}

func ownerRef(kind string, owner client.Object) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: kind, Name: owner.GetName(), UID: owner.GetUID()}}
}

func get(ctx context.Context, g Gomega, namespace, name string, obj client.Object) {
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
}

// listMetadata lists the metadata of the objects of obj's kind in a namespace, from the API server.
func listMetadata(ctx context.Context, g Gomega, namespace string, obj client.Object) []metav1.PartialObjectMetadata {
	list := &metav1.PartialObjectMetadataList{}
	gvk, err := env.Env.GroupVersionKindFor(obj)
	g.Expect(err).NotTo(HaveOccurred())
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	g.Expect(env.Env.GetAPIReader().List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	return list.Items
}

// TestReconcile_ASOManagedCluster creates an AKS cluster from raw ASO objects: a resource group (the
// AzureASOManagedCluster's), a managed cluster and its maintenance configuration (the control plane's) and a system
// agent pool (the machine pool's); then deletes the Cluster, whose agent pool and maintenance configuration go with
// the managed cluster, without a DELETE of their own.
func TestReconcile_ASOManagedCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	namespace, err := env.Env.CreateNamespace(ctx, "asomanaged")
	g.Expect(err).NotTo(HaveOccurred())
	ns := namespace.Name
	labels := map[string]string{clusterv1.ClusterNameLabel: "raw"}
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "raw", Namespace: ns},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork:    clusterv1.ClusterNetwork{Pods: clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedCluster", Name: "raw"},
			ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedControlPlane", Name: "raw"},
		},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	amc := &infrav1.AzureASOManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "raw", Namespace: ns, Labels: labels, OwnerReferences: ownerRef("Cluster", cluster)},
		Spec: infrav1.AzureASOManagedClusterSpec{AzureASOManagedClusterTemplateResourceSpec: infrav1.AzureASOManagedClusterTemplateResourceSpec{
			Resources: []runtime.RawExtension{raw(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
				"metadata": {"name": "raw-rg"}, "spec": {"location": "eastus"}}`)},
		}},
	}
	cp := &infrav1.AzureASOManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "raw", Namespace: ns, Labels: labels, OwnerReferences: ownerRef("Cluster", cluster)},
		Spec: infrav1.AzureASOManagedControlPlaneSpec{AzureASOManagedControlPlaneTemplateResourceSpec: infrav1.AzureASOManagedControlPlaneTemplateResourceSpec{
			Version: "v1.33.2",
			Resources: []runtime.RawExtension{raw(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ManagedCluster",
				"metadata": {"name": "raw-aks"}, "spec": {"owner": {"name": "raw-rg"}, "location": "eastus", "dnsPrefix": "raw",
				"identity": {"type": "SystemAssigned"}}}`),
				raw(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "MaintenanceConfiguration",
				"metadata": {"name": "raw-default"}, "spec": {"owner": {"name": "raw-aks"}, "azureName": "default",
				"timeInWeek": [{"day": "Sunday", "hourSlots": [1]}]}}`)},
		}},
	}
	g.Expect(env.Env.Create(ctx, amc)).To(Succeed())
	g.Expect(env.Env.Create(ctx, cp)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), cp, amc, cluster, namespace) })

	// AKS needs a system pool to create the cluster.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "raw", cp)
		g.Expect(conditions.Get(cp, clusterv1.ReadyCondition)).To(HaveField("Reason", azureasomanagedcontrolplane.WaitingForMachinePoolsReason))
	}, timeout).Should(Succeed())

	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool0", Namespace: ns, Labels: labels},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: "raw",
			Replicas:    ptr.To[int32](3),
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName: "raw", Version: "v1.33.2", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedMachinePool", Name: "pool0"},
			}},
		},
	}
	g.Expect(env.Env.Create(ctx, mp)).To(Succeed())
	pool := &infrav1.AzureASOManagedMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool0", Namespace: ns, Labels: labels, OwnerReferences: ownerRef("MachinePool", mp)},
		Spec: infrav1.AzureASOManagedMachinePoolSpec{
			Resources: []runtime.RawExtension{raw(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ManagedClustersAgentPool",
				"metadata": {"name": "raw-pool0"}, "spec": {"owner": {"name": "raw-aks"}, "azureName": "pool0", "mode": "System",
				"vmSize": "Standard_D2s_v3"}}`)},
		},
	}
	g.Expect(env.Env.Create(ctx, pool)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), pool, mp) })

	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "raw", cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(cp, clusterv1.ReadyCondition))
		g.Expect(cp.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
		g.Expect(cp.Status.ControlPlaneEndpoint.Host).To(Equal("raw.hcp.eastus.azmk8s.io"))
	}, timeout).Should(Succeed())
	g.Expect(cp.Status.Version).To(Equal("v1.33.2"))
	g.Expect(cp.Status.ExternalManagedControlPlane).To(HaveValue(BeTrue()))
	mc := &asocontainerservice.ManagedCluster{}
	get(ctx, g, ns, "raw-aks", mc)
	g.Expect(mc.Spec.KubernetesVersion).To(HaveValue(Equal("1.33.2")), "Cluster API owns the version")
	g.Expect(mc.Spec.NetworkProfile.PodCidr).To(HaveValue(Equal("192.168.0.0/16")), "and the pod CIDR")
	kubeconfig := &corev1.Secret{}
	get(ctx, g, ns, secret.Name("raw", secret.Kubeconfig), kubeconfig)
	g.Expect(kubeconfig.Data[secret.KubeconfigDataName]).To(Equal(env.Env.ControlPlane.KubeConfig))

	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureASOManagedCluster{}
		get(ctx, g, ns, "raw", live)
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
		g.Expect(live.Spec.ControlPlaneEndpoint).To(Equal(cp.Status.ControlPlaneEndpoint))
	}, timeout).Should(Succeed())
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureASOManagedMachinePool{}
		get(ctx, g, ns, "pool0", live)
		g.Expect(live.Status.Ready).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
		g.Expect(live.Status.Replicas).To(BeEquivalentTo(3))
	}, timeout).Should(Succeed())
	ap := &asocontainerservice.ManagedClustersAgentPool{}
	get(ctx, g, ns, "raw-pool0", ap)
	g.Expect(ap.Spec.Count).To(HaveValue(Equal(3)), "the MachinePool owns the count")
	g.Expect(ap.Spec.OrchestratorVersion).To(HaveValue(Equal("1.33.2")))

	// The pool's nodes, once the workload cluster is reachable.
	provisioned := &clusterv1.Cluster{}
	get(ctx, g, ns, "raw", provisioned)
	provisioned.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	g.Expect(env.Env.Status().Update(ctx, provisioned)).To(Succeed())
	id := "azure:///subscriptions/" + sim.SubscriptionID() + "/resourceGroups/" + ptr.Deref(mc.Status.NodeResourceGroup, "") +
		"/providers/Microsoft.Compute/virtualMachineScaleSets/aks-pool0-vmss/virtualMachines/0"
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-pool0-0", Labels: map[string]string{
			"kubernetes.azure.com/agentpool": "pool0", "kubernetes.azure.com/cluster": ptr.Deref(mc.Status.NodeResourceGroup, ""),
		}},
		Spec: corev1.NodeSpec{ProviderID: id},
	}
	g.Expect(env.Env.Create(ctx, node)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Delete(context.Background(), node) })
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureASOManagedMachinePool{}
		get(ctx, g, ns, "pool0", live)
		g.Expect(live.Spec.ProviderIDList).To(Equal([]string{id}))
	}, timeout).Should(Succeed())

	// Deleting the Cluster releases everything: the managed cluster, then the resource group. Its agent pool and
	// maintenance configuration go with the managed cluster in Azure: no DELETE of their own.
	maintenance := ptr.Deref(mc.Status.Id, "") + "/maintenanceConfigurations/default"
	g.Eventually(func(g Gomega) {
		g.Expect(sim.ExistsInAzure(maintenance)).To(BeTrue())
		// ASO references the owner's object once it has reconciled the child: the way to the ancestor it goes with.
		mcfg := &asocontainerservice.MaintenanceConfiguration{}
		get(ctx, g, ns, "raw-default", mcfg)
		g.Expect(mcfg.OwnerReferences).To(ContainElement(HaveField("Kind", "ManagedCluster")))
	}, timeout).Should(Succeed())
	release, err := env.Env.HoldDeletion(ctx, cluster)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = release(context.Background()) })
	g.Expect(env.Env.Delete(ctx, cluster)).To(Succeed())
	// As Cluster API does: the machine pool and the control plane, then the infrastructure.
	for _, obj := range []client.Object{pool, cp} {
		g.Expect(env.Env.Delete(ctx, obj)).To(Succeed())
	}
	g.Eventually(func(g Gomega) {
		for _, obj := range []client.Object{pool, cp} {
			g.Expect(apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(obj), obj))).To(BeTrue())
		}
	}, timeout).Should(Succeed())
	g.Expect(env.Env.Delete(ctx, amc)).To(Succeed())
	g.Eventually(func(g Gomega) {
		// The objects left to go with the managed cluster are Kubernetes' garbage collector's to delete, which this
		// environment does not run: they stay, with no DELETE of their own (reconcile-policy detach-on-delete).
		for _, obj := range []client.Object{&asocontainerservice.ManagedClustersAgentPool{}, &asocontainerservice.MaintenanceConfiguration{}} {
			for _, item := range listMetadata(ctx, g, ns, obj) {
				g.Expect(item.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "detach-on-delete"), item.Name)
			}
		}
		for _, obj := range []client.Object{&asocontainerservice.ManagedCluster{}, &asoresources.ResourceGroup{}} {
			g.Expect(listMetadata(ctx, g, ns, obj)).To(BeEmpty(), "%T", obj)
		}
		for _, obj := range []client.Object{&infrav1.AzureASOManagedMachinePool{}, &infrav1.AzureASOManagedControlPlane{}, &infrav1.AzureASOManagedCluster{}} {
			name := "raw"
			if _, ok := obj.(*infrav1.AzureASOManagedMachinePool); ok {
				name = "pool0"
			}
			g.Expect(apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj))).To(BeTrue())
		}
	}, timeout).Should(Succeed())
	// Every DELETE sent to Azure, including those that find nothing left.
	var deletes []string
	for _, use := range sim.CredentialUses() {
		if use.Namespace == ns && use.Op == asosim.OpDelete {
			deletes = append(deletes, use.Kind+"/"+use.Name)
		}
	}
	g.Expect(deletes).To(ContainElements("ManagedCluster/raw-aks", "ResourceGroup/raw-rg"))
	g.Expect(deletes).NotTo(ContainElement("MaintenanceConfiguration/raw-default"), "the maintenance configuration went with its cluster")
	g.Expect(deletes).NotTo(ContainElement("ManagedClustersAgentPool/raw-pool0"), "the agent pool went with its cluster")
	g.Expect(sim.ExistsInAzure(maintenance)).To(BeFalse())
}

// TestReconcile_Adoption hands an existing AKS cluster (its ASO resource group, managed cluster and agent pool) to
// the provider with CAPZ's adopt annotation: the Cluster API objects are created around it, and the ASO objects
// are taken over without being recreated in Azure.
func TestReconcile_Adoption(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	namespace, err := env.Env.CreateNamespace(ctx, "adoption")
	g.Expect(err).NotTo(HaveOccurred())
	ns := namespace.Name
	handOver := map[string]string{aso.HandOverAnnotation: "true"}
	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "brown-rg", Namespace: ns, Annotations: handOver},
		Spec:       asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")},
	}
	mc := &asocontainerservice.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "brown", Namespace: ns, Annotations: handOver},
		Spec: asocontainerservice.ManagedCluster_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "brown-rg"}, Location: ptr.To("eastus"), DnsPrefix: ptr.To("brown"),
			KubernetesVersion: ptr.To("1.32.4"),
			AgentPoolProfiles: []asocontainerservice.ManagedClusterAgentPoolProfile{{Name: ptr.To("sys"), Count: ptr.To(2), Mode: ptr.To(asocontainerservice.AgentPoolMode_System)}},
		},
	}
	ap := &asocontainerservice.ManagedClustersAgentPool{
		ObjectMeta: metav1.ObjectMeta{Name: "brown-sys", Namespace: ns, Annotations: handOver},
		Spec: asocontainerservice.ManagedClustersAgentPool_Spec{
			AzureName: "sys", Owner: &genruntime.KnownResourceReference{Name: "brown"}, Count: ptr.To(2),
			Mode: ptr.To(asocontainerservice.AgentPoolMode_System), OrchestratorVersion: ptr.To("1.32.4"),
		},
	}
	for _, obj := range []client.Object{rg, mc, ap} {
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
	}
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), namespace) })
	g.Eventually(func(g Gomega) {
		// The manager's cache holds only the provider's ASO objects.
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
		g.Expect(mc.Status.Id).NotTo(BeNil(), "the cluster exists in Azure")
	}, timeout).Should(Succeed())
	mcID := *mc.Status.Id

	// Cluster API's objects appear; the test plays Cluster API's controllers and sets their owner references.
	cluster := &clusterv1.Cluster{}
	cp := &infrav1.AzureASOManagedControlPlane{}
	amc := &infrav1.AzureASOManagedCluster{}
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "brown", cluster)
		get(ctx, g, ns, "brown", cp)
		get(ctx, g, ns, "brown", amc)
	}, timeout).Should(Succeed())
	g.Expect(cluster.Spec.ControlPlaneRef.Kind).To(Equal("AzureASOManagedControlPlane"))
	g.Expect(cp.Spec.Version).To(Equal("v1.32.4"))
	g.Expect(cp.Spec.Resources).To(HaveLen(1))
	g.Expect(string(cp.Spec.Resources[0].Raw)).NotTo(ContainSubstring("agentPoolProfiles"), "the pools are the machine pools'")
	g.Expect(amc.Spec.Resources).To(HaveLen(1), "the handed-over resource group")
	for _, obj := range []client.Object{cp, amc} {
		obj.SetOwnerReferences(ownerRef("Cluster", cluster))
		g.Expect(env.Env.Update(ctx, obj)).To(Succeed())
	}

	mp := &clusterv1.MachinePool{}
	pool := &infrav1.AzureASOManagedMachinePool{}
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "brown-sys", mp)
		get(ctx, g, ns, "brown-sys", pool)
	}, timeout).Should(Succeed())
	g.Expect(mp.Spec.ClusterName).To(Equal("brown"))
	g.Expect(mp.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
	g.Expect(mp.Spec.Template.Spec.Version).To(Equal("v1.32.4"))
	pool.SetOwnerReferences(ownerRef("MachinePool", mp))
	g.Expect(env.Env.Update(ctx, pool)).To(Succeed())

	// The provider now controls the ASO objects, and the cluster is ready, with nothing recreated in Azure.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "brown", cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(cp, clusterv1.ReadyCondition))
		for _, obj := range []client.Object{&asoresources.ResourceGroup{}, &asocontainerservice.ManagedCluster{}, &asocontainerservice.ManagedClustersAgentPool{}} {
			name := map[string]string{"ResourceGroup": "brown-rg", "ManagedCluster": "brown", "ManagedClustersAgentPool": "brown-sys"}
			gvk, err := env.Env.GroupVersionKindFor(obj)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name[gvk.Kind]}, obj)).To(Succeed())
			g.Expect(metav1.GetControllerOf(obj)).NotTo(BeNil(), gvk.Kind)
		}
		live := &infrav1.AzureASOManagedMachinePool{}
		get(ctx, g, ns, "brown-sys", live)
		g.Expect(live.Status.Ready).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
	}, timeout).Should(Succeed())
	for _, e := range sim.Events() {
		if strings.EqualFold(e.ID, mcID) {
			g.Expect(e.Op).NotTo(Equal("Delete"), "%v", sim.Events())
		}
	}
	creates := 0
	for _, e := range sim.Events() {
		if strings.EqualFold(e.ID, mcID) && e.Op == "Create" {
			creates++
		}
	}
	g.Expect(creates).To(Equal(1), "created once, by the user's object; never again: %v", sim.Events())
}

// TestReconcile_FirstPutHasEveryPool: as CAPZ does, the managed cluster is created only once every MachinePool of
// the cluster has its AzureASOManagedMachinePool, so that AKS receives all the pools, the system pool among them,
// whichever arrived first.
func TestReconcile_FirstPutHasEveryPool(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	namespace, err := env.Env.CreateNamespace(ctx, "asomanaged")
	g.Expect(err).NotTo(HaveOccurred())
	ns := namespace.Name
	labels := map[string]string{clusterv1.ClusterNameLabel: "pools"}
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "pools", Namespace: ns},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedCluster", Name: "pools"},
			ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedControlPlane", Name: "pools"},
		},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	cp := &infrav1.AzureASOManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "pools", Namespace: ns, Labels: labels, OwnerReferences: ownerRef("Cluster", cluster)},
		Spec: infrav1.AzureASOManagedControlPlaneSpec{AzureASOManagedControlPlaneTemplateResourceSpec: infrav1.AzureASOManagedControlPlaneTemplateResourceSpec{
			Version: "v1.33.2",
			Resources: []runtime.RawExtension{raw(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ManagedCluster",
				"metadata": {"name": "pools-aks"}, "spec": {"owner": {"name": "pools-rg"}, "location": "eastus", "dnsPrefix": "pools",
				"identity": {"type": "SystemAssigned"}}}`)},
		}},
	}
	g.Expect(env.Env.Create(ctx, cp)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), cp, cluster, namespace) })

	newPool := func(name, mode string, withInfra bool) {
		mp := &clusterv1.MachinePool{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
			Spec: clusterv1.MachinePoolSpec{
				ClusterName: "pools", Replicas: ptr.To[int32](1),
				Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
					ClusterName: "pools", Version: "v1.33.2", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("")},
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedMachinePool", Name: name},
				}},
			},
		}
		if err := env.Env.Get(ctx, client.ObjectKeyFromObject(mp), mp); apierrors.IsNotFound(err) {
			g.Expect(env.Env.Create(ctx, mp)).To(Succeed())
		}
		if !withInfra {
			return
		}
		pool := &infrav1.AzureASOManagedMachinePool{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, OwnerReferences: ownerRef("MachinePool", mp)},
			Spec: infrav1.AzureASOManagedMachinePoolSpec{
				Resources: []runtime.RawExtension{raw(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ManagedClustersAgentPool",
					"metadata": {"name": "pools-%s"}, "spec": {"owner": {"name": "pools-aks"}, "azureName": "%s", "mode": "%s",
					"vmSize": "Standard_D2s_v3"}}`, name, name, mode)},
			},
		}
		g.Expect(env.Env.Create(ctx, pool)).To(Succeed())
		t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), pool, mp) })
	}
	// The user pool comes first; the system pool's MachinePool exists, its AzureASOManagedMachinePool not yet.
	newPool("pool0", "System", false)
	newPool("pool1", "User", true)
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns, "pools", cp)
		g.Expect(conditions.Get(cp, clusterv1.ReadyCondition)).To(HaveField("Reason", azureasomanagedcontrolplane.WaitingForMachinePoolsReason))
	}, timeout).Should(Succeed())
	g.Consistently(func() bool {
		return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: "pools-aks"}, &asocontainerservice.ManagedCluster{}))
	}, 3*time.Second).Should(BeTrue(), "no managed cluster without its system pool")

	newPool("pool0", "System", true)
	g.Eventually(func(g Gomega) {
		mc := &asocontainerservice.ManagedCluster{}
		get(ctx, g, ns, "pools-aks", mc)
		var names []string
		for _, p := range mc.Spec.AgentPoolProfiles {
			names = append(names, ptr.Deref(p.Name, ""))
		}
		g.Expect(names).To(Equal([]string{"pool0", "pool1"}))
	}, timeout).Should(Succeed())
}
