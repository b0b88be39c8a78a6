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

package kubeletsim

import (
	"context"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	asoconditions "github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

const subscription = "00000000-0000-0000-0000-000000000001"

// TestSimulator registers the Nodes of machines with provider IDs (control plane ones with kubeadm's label and
// taint, and kubeadm's ConfigMap) and of agent pools (running the pool's version), follows a pool's count down and
// its upgrade, and deletes its Nodes.
func TestSimulator(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	management := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		azureMachine("cp-0", "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/cp-0", true),
		azureMachine("md-0", "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/md-0", false),
		azureMachine("md-1", "", false), // its VM is not created yet
		managedCluster("aks", "MC_rg_aks_eastus"),
		agentPool("aks-pool0", "aks", "pool0", 2),
	).WithStatusSubresource(&asocontainerservice.ManagedClustersAgentPool{}).Build()
	workload := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithStatusSubresource(&corev1.Node{}, &corev1.Pod{}).Build()

	sim := Start(Options{Management: management, Workload: workload, SubscriptionID: subscription, Interval: 10 * time.Millisecond, Logf: t.Logf})
	defer sim.Stop()
	nodes := func(g Gomega) map[string]corev1.Node { return nodesByName(ctx, g, workload) }
	g.Eventually(func(g Gomega) {
		got := nodes(g)
		g.Expect(got).To(HaveLen(4))
		g.Expect(got).To(HaveKey("md-0"))
		g.Expect(got["md-0"].Spec.ProviderID).To(HaveSuffix("/virtualMachines/md-0"))
		g.Expect(got["md-0"].Spec.Taints).To(BeEmpty())
		g.Expect(got["cp-0"].Labels).To(HaveKey("node-role.kubernetes.io/control-plane"))
		g.Expect(got["cp-0"].Spec.Taints).To(ConsistOf(corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}))
		for _, n := range got {
			g.Expect(n.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.NodeReady), HaveField("Status", corev1.ConditionTrue))), n.Name)
			g.Expect(n.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.NodeMemoryPressure), HaveField("Status", corev1.ConditionFalse))), n.Name)
		}
	}).WithTimeout(10 * time.Second).Should(Succeed())
	g.Expect(workload.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "kubeadm-config"}, &corev1.ConfigMap{})).To(Succeed())

	kubelets := func(g Gomega) []string {
		var out []string
		for _, n := range nodes(g) {
			if n.Labels["kubernetes.azure.com/agentpool"] == "pool0" {
				out = append(out, n.Status.NodeInfo.KubeletVersion)
			}
		}
		return out
	}
	g.Expect(kubelets(g)).To(HaveExactElements("v1.33.1", "v1.33.1"))

	// AKS scales the pool down: its last Node goes. Then it upgrades the pool: its Node runs the new version.
	pool := &asocontainerservice.ManagedClustersAgentPool{}
	g.Expect(management.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "aks-pool0"}, pool)).To(Succeed())
	pool.Status.Count = ptr.To(1)
	g.Expect(management.Status().Update(ctx, pool)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(nodes(g)).To(HaveLen(3))
	}).WithTimeout(10 * time.Second).Should(Succeed())
	pool.Status.CurrentOrchestratorVersion = ptr.To("1.34.2")
	g.Expect(management.Status().Update(ctx, pool)).To(Succeed())
	g.Eventually(kubelets).WithTimeout(10 * time.Second).Should(HaveExactElements("v1.34.2"))

	g.Expect(sim.DeleteNodes(context.Background())).To(Succeed())
	g.Expect(nodes(g)).To(BeEmpty())
}

// TestSimulator_PoolMachines registers the Node of a Flexible pool's instance once ASO reports its VM created.
func TestSimulator_PoolMachines(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	const providerID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/mp-0-abcde"
	management := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		&infrav1exp.AzureMachinePoolMachine{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mp-0-abcde"},
			Spec:       infrav1exp.AzureMachinePoolMachineSpec{ProviderID: providerID},
		},
		&asocompute.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mp-0-abcde"}},
	).WithStatusSubresource(&asocompute.VirtualMachine{}).Build()
	workload := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithStatusSubresource(&corev1.Node{}, &corev1.Pod{}).Build()

	sim := Start(Options{Management: management, Workload: workload, SubscriptionID: subscription, Interval: 10 * time.Millisecond, Logf: t.Logf})
	defer sim.Stop()
	nodes := func(g Gomega) []corev1.Node {
		list := &corev1.NodeList{}
		g.Expect(workload.List(ctx, list)).To(Succeed())
		return list.Items
	}
	g.Consistently(nodes).WithTimeout(200*time.Millisecond).Should(BeEmpty(), "no Node while the VM is not created")

	vm := &asocompute.VirtualMachine{}
	g.Expect(management.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "mp-0-abcde"}, vm)).To(Succeed())
	vm.Status.Conditions = []asoconditions.Condition{{Type: asoconditions.ConditionTypeReady, Status: metav1.ConditionTrue}}
	g.Expect(management.Status().Update(ctx, vm)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := nodes(g)
		g.Expect(got).To(HaveLen(1))
		g.Expect(got[0].Name).To(Equal("mp-0-abcde"))
		g.Expect(got[0].Spec.ProviderID).To(Equal(providerID))
	}).WithTimeout(10 * time.Second).Should(Succeed())
	g.Expect(sim.DeleteNodes(context.Background())).To(Succeed())
	g.Expect(nodes(g)).To(BeEmpty())
}

func TestAgentPoolNodes(t *testing.T) {
	g := NewWithT(t)
	management := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		managedCluster("one", "MC_one_one_eastus"), agentPool("one-pool0", "one", "pool0", 2),
		managedCluster("two", "MC_two_two_eastus"), agentPool("two-pool0", "two", "pool0", 1),
		agentPool("unknown-count", "two", "pool1", -1),
	).Build()
	nodes := AgentPoolNodes(t.Context(), management, "", subscription)
	g.Expect(nodes).To(HaveLen(3), "no Node for a pool without a count; names unique across clusters: %v", nodes)
	var one []*corev1.Node
	for _, n := range nodes {
		g.Expect(n.Labels).To(HaveKeyWithValue("kubernetes.azure.com/agentpool", "pool0"))
		if n.Labels["kubernetes.azure.com/cluster"] == "MC_one_one_eastus" {
			one = append(one, n)
		}
	}
	g.Expect(one).To(HaveLen(2))
	for _, n := range one {
		g.Expect(n.Spec.ProviderID).To(MatchRegexp(
			`^azure:///subscriptions/` + subscription + `/resourceGroups/mc_one_one_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-pool0-\d{8}-vmss/virtualMachines/[01]$`))
		g.Expect(n.Name).To(MatchRegexp(`^aks-pool0-\d{8}-vmss00000[01]$`))
		g.Expect(n.Status.NodeInfo.KubeletVersion).To(Equal("v1.33.1"))
	}
}

func azureMachine(name, providerID string, controlPlane bool) *infrav1.AzureMachine {
	am := &infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{}}}
	if providerID != "" {
		am.Spec.ProviderID = ptr.To(providerID)
	}
	if controlPlane {
		am.Labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	return am
}

// managedCluster is a managed cluster in the namespace ns, as ASO reports it.
func managedCluster(name, nodeResourceGroup string) *asocontainerservice.ManagedCluster {
	return &asocontainerservice.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Status: asocontainerservice.ManagedCluster_STATUS{
			Id:                ptr.To("/subscriptions/" + subscription + "/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/" + name),
			NodeResourceGroup: ptr.To(nodeResourceGroup),
		},
	}
}

// agentPool is an agent pool in the namespace ns of a managed cluster with ASO's count; a negative count is none reported yet.
func agentPool(name, cluster, azureName string, count int) *asocontainerservice.ManagedClustersAgentPool {
	pool := &asocontainerservice.ManagedClustersAgentPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: asocontainerservice.ManagedClustersAgentPool_Spec{
			AzureName: azureName, Owner: &genruntime.KnownResourceReference{Name: cluster},
		},
	}
	if count >= 0 {
		pool.Status.Count = ptr.To(count)
		pool.Status.CurrentOrchestratorVersion = ptr.To("1.33.1")
	}
	return pool
}

// TestSimulator_ScaleSetInstances: the instances of the fake ARM's Uniform scale sets in the subscription get Ready
// Nodes named after their computer names, with their provider IDs; an instance gone takes its Node with it.
func TestSimulator_ScaleSetInstances(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	arm, err := fakearm.Start(fakearm.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = arm.Close() })
	group := "/subscriptions/" + subscription + "/resourceGroups/rg"
	vmss := group + "/providers/Microsoft.Compute/virtualMachineScaleSets/mp-0"
	scaleSet := func(capacity int) map[string]any {
		return map[string]any{"location": "eastus", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": capacity},
			"properties": map[string]any{"virtualMachineProfile": map[string]any{"osProfile": map[string]any{"computerNamePrefix": "mp-0"}}}}
	}
	g.Expect(arm.Seed(group, map[string]any{"location": "eastus"})).To(Succeed())
	g.Expect(arm.Seed(vmss, scaleSet(2))).To(Succeed())
	// A scale set of another subscription is another simulator's.
	other := "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg"
	g.Expect(arm.Seed(other, map[string]any{"location": "eastus"})).To(Succeed())
	g.Expect(arm.Seed(other+"/providers/Microsoft.Compute/virtualMachineScaleSets/mp-1", scaleSet(1))).To(Succeed())

	management := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	workload := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithStatusSubresource(&corev1.Node{}, &corev1.Pod{}).Build()
	sim := Start(Options{Management: management, Workload: workload, SubscriptionID: subscription, ARM: arm, Interval: 10 * time.Millisecond, Logf: t.Logf})
	defer sim.Stop()
	nodes := func(g Gomega) map[string]corev1.Node { return nodesByName(ctx, g, workload) }
	g.Eventually(func(g Gomega) {
		got := nodes(g)
		g.Expect(got).To(HaveLen(2))
		g.Expect(got).To(HaveKey("mp-0000001"))
		g.Expect(got["mp-0000001"].Spec.ProviderID).To(Equal("azure://" + vmss + "/virtualMachines/1"))
		g.Expect(got["mp-0000001"].Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.NodeReady), HaveField("Status", corev1.ConditionTrue))))
	}).WithTimeout(10 * time.Second).Should(Succeed())

	g.Expect(arm.Seed(vmss, scaleSet(1))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(nodes(g)).To(HaveLen(1))
		g.Expect(nodes(g)).To(HaveKey("mp-0000000"), "Azure's default scale-in removes the highest instance")
	}).WithTimeout(10 * time.Second).Should(Succeed())
	g.Expect(sim.DeleteNodes(context.Background())).To(Succeed())
	g.Expect(nodes(g)).To(BeEmpty())
}

// nodesByName lists the workload cluster's Nodes by name.
func nodesByName(ctx context.Context, g Gomega, workload client.Client) map[string]corev1.Node {
	list := &corev1.NodeList{}
	g.Expect(workload.List(ctx, list)).To(Succeed())
	out := map[string]corev1.Node{}
	for _, n := range list.Items {
		out[n.Name] = n
	}
	return out
}
