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
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// timeout bounds each wait: ASO backs off while it waits for an owner (up to 30 s between tries), and a VM is
// four owners deep (resource group, virtual network, subnet, network interface).
const timeout = 5 * time.Minute

// TestRealASO_DefaultCluster creates a cluster of the default flavor (templates/cluster-template.yaml: a
// KubeadmControlPlane of one machine and a MachineDeployment of one worker) on ASO's own controllers: every ASO
// object Ready, Cluster API Ready, the ARM requests Azure receives equal to the flavor's golden files; then an
// Azure error reaches the AzureCluster's conditions with ASO's reason, pausing the cluster stops every write to
// Azure, and deleting it leaves nothing of it in Azure.
func TestRealASO_DefaultCluster(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	ctx := t.Context()
	start := time.Now()
	kubeadmInit.Lock()
	t.Cleanup(kubeadmInit.Unlock) // after the fixture's cleanup, which ends its kubeadm init
	f := p.NewFixture(t, g, "dflt")
	clusterKey := f.Key(f.ClusterName)
	f.ApplyFlavor(ctx, g, plane.TemplateFile("default", false))

	g.Eventually(func(g Gomega) {
		cluster := &clusterv1.Cluster{}
		g.Expect(env.Env.Get(ctx, clusterKey, cluster)).To(Succeed())
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue(),
			"InfrastructureReady: %+v", conditions.Get(cluster, clusterv1.ClusterInfrastructureReadyCondition))
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue())
		// One control plane machine and one worker.
		machines := plane.MachinesOf(ctx, g, f.Namespace, f.ClusterName)
		g.Expect(machines).To(HaveLen(2))
		for _, m := range machines {
			g.Expect(m.Spec.ProviderID).To(HavePrefix("azure:///subscriptions/"+p.SubscriptionID()+"/resourceGroups/"+f.ClusterName+"/providers/Microsoft.Compute/virtualMachines/"), "Machine %s", m.Name)
			g.Expect(conditions.IsTrue(&m, clusterv1.MachineInfrastructureReadyCondition)).To(BeTrue(), "Machine %s", m.Name)
			g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue(), "Machine %s has a Node", m.Name)
		}
	}, timeout, plane.Interval).Should(Succeed())
	t.Logf("Cluster %s provisioned by ASO after %s", f.ClusterName, time.Since(start).Round(time.Second))

	objects := plane.ListASOObjects(ctx, g, f.Namespace)
	t.Logf("ASO objects of cluster %s: %s", f.ClusterName, plane.CountByKind(objects))
	for _, o := range objects {
		g.Expect(readyInAzure(o.Object)).To(BeTrue(), "%s is Ready, and its resource exists in Azure", o)
	}
	assertARMGoldens(t, f, "default")

	// An Azure error on a write reaches the AzureCluster's conditions with ASO's reason and Azure's message, and
	// clears once Azure accepts the write.
	nsg := "/subscriptions/" + p.SubscriptionID() + "/resourcegroups/" + strings.ToLower(f.ClusterName) + "/providers/microsoft.network/networksecuritygroups/" + strings.ToLower(f.ClusterName) + "-node-nsg"
	fault := p.ARM.Inject(fakearm.Fault{Method: "PUT", ID: regexp.MustCompile("^" + regexp.QuoteMeta(nsg) + "$"), Status: 400,
		Code: "InvalidResourceReference", Message: "injected: the referenced resource was not found"})
	azureCluster := &infrav1.AzureCluster{}
	plane.UpdateObject(ctx, g, clusterKey, azureCluster, func() { azureCluster.Spec.AdditionalTags = infrav1.Tags{"pass": "fault"} })
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, clusterKey, azureCluster)).To(Succeed())
		g.Expect(azureCluster.Status.Resources).To(ContainElement(And(
			HaveField("Resource.Kind", "NetworkSecurityGroup"), HaveField("Resource.Name", f.ClusterName+"-node-nsg"), HaveField("Ready", false),
			HaveField("Reason", "InvalidResourceReference"), HaveField("Message", ContainSubstring("injected")))))
		ready := conditions.Get(azureCluster, clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).NotTo(BeEquivalentTo("True"))
	}, timeout, plane.Interval).Should(Succeed())
	g.Expect(p.ARM.Hits(fault)).To(BeNumerically(">", 0))
	p.ARM.Clear(fault)
	expectClusterReady(ctx, g, clusterKey)

	// While the cluster is paused, ASO writes nothing to Azure; once it is resumed, everything is Ready again.
	cluster := &clusterv1.Cluster{}
	plane.UpdateObject(ctx, g, clusterKey, cluster, func() { cluster.Spec.Paused = ptr.To(true) })
	g.Eventually(func(g Gomega) {
		for _, o := range plane.ListASOObjects(ctx, g, f.Namespace) {
			g.Expect(o.Object.GetAnnotations()).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "skip"), "%s", o)
		}
	}, timeout, plane.Interval).Should(Succeed())
	paused := len(p.ARM.Requests())
	plane.UpdateObject(ctx, g, clusterKey, azureCluster, func() { azureCluster.Spec.AdditionalTags = infrav1.Tags{"pass": "paused"} })
	g.Consistently(func() []string { return writesTo(p.ARM.Requests()[paused:], f.ClusterName) }, 10*time.Second, plane.Interval).Should(BeEmpty())
	plane.UpdateObject(ctx, g, clusterKey, cluster, func() { cluster.Spec.Paused = nil })
	expectClusterReady(ctx, g, clusterKey)

	expectVMDeletedOutsideFails(ctx, t, g, f, clusterKey)

	// Deleting the Cluster deletes everything of it in Azure: the resource group, and so everything in it. As CAPZ
	// does, the machines' resources and the cluster's go with the group: its DELETE is the only one ASO sends, and
	// the garbage collector deletes their objects after the group's.
	beforeDelete := len(p.ARM.Requests())
	plane.DeleteCluster(ctx, g, clusterKey)
	g.Eventually(func() []plane.ASOObject { return plane.ListASOObjects(ctx, g, f.Namespace) }, timeout, plane.Interval).Should(BeEmpty())
	rg := strings.ToLower("/subscriptions/" + p.SubscriptionID() + "/resourceGroups/" + f.ClusterName)
	for _, id := range p.ARM.Resources() {
		g.Expect(strings.ToLower(id)).NotTo(HavePrefix(rg), "nothing of the deleted cluster stays in Azure")
	}
	var deletes []string
	for _, r := range p.ARM.Requests()[beforeDelete:] {
		if r.Method == "DELETE" && strings.HasPrefix(strings.ToLower(r.Path), rg) {
			deletes = append(deletes, strings.ToLower(r.Path))
		}
	}
	g.Expect(deletes).To(And(ContainElement(rg), HaveEach(rg)), "the resource group's DELETE only")
}

// expectVMDeletedOutsideFails deletes the worker's VM in Azure, outside Cluster API, and checks what ASO v2.18 and
// the provider do next. ASO PUTs a VM's spec on its next reconcile without reading Azure first, so the next change
// of the VM's spec (here a tag of the cluster) makes the VM again, with a new vmId and without custom data: an
// empty VM that never joins. The provider sees the vmId change and marks the machine failed (Ready and
// VirtualMachineReady False, reason VMDeleted), as CAPZ fails a machine whose VM is gone, so that remediation
// replaces it.
func expectVMDeletedOutsideFails(ctx context.Context, t *testing.T, g *WithT, f *plane.Fixture, clusterKey client.ObjectKey) {
	t.Helper()
	var worker clusterv1.Machine
	for _, m := range plane.MachinesOf(ctx, g, f.Namespace, f.ClusterName) {
		if _, cp := m.Labels[clusterv1.MachineControlPlaneLabel]; !cp {
			worker = m
		}
	}
	g.Expect(worker.Spec.ProviderID).To(HavePrefix("azure://"))
	vm := strings.TrimPrefix(worker.Spec.ProviderID, "azure://")
	before, ok := p.ARM.Resource(vm)
	g.Expect(ok).To(BeTrue(), "the worker's VM %s is in Azure", vm)
	mark := len(p.ARM.Requests())
	g.Expect(p.ARM.Remove(vm)).To(BeTrue())
	t.Logf("Deleted the worker's VM %s in Azure", vm)

	azureCluster := &infrav1.AzureCluster{}
	plane.UpdateObject(ctx, g, clusterKey, azureCluster, func() { azureCluster.Spec.AdditionalTags = infrav1.Tags{"pass": "vm-deleted"} })
	machineKey := client.ObjectKey{Namespace: f.Namespace, Name: worker.Spec.InfrastructureRef.Name}
	g.Eventually(func(g Gomega) {
		am := &infrav1.AzureMachine{}
		g.Expect(env.Env.Get(ctx, machineKey, am)).To(Succeed())
		for _, t := range []string{clusterv1.ReadyCondition, azure.FamilyCondition(compute.FamilyVirtualMachine)} {
			c := conditions.Get(am, t)
			g.Expect(c).NotTo(BeNil(), t)
			g.Expect(c.Status).To(BeEquivalentTo("False"), t)
			g.Expect(c.Reason).To(Equal(infrav1.VMDeletedReason), t)
		}
	}, timeout, plane.Interval).Should(Succeed())

	// ASO made the VM again, empty: a new vmId, and its PUT carried no custom data.
	after, ok := p.ARM.Resource(vm)
	g.Expect(ok).To(BeTrue(), "ASO's next PUT made the VM again")
	g.Expect(after["properties"].(map[string]any)["vmId"]).NotTo(Equal(before["properties"].(map[string]any)["vmId"]))
	var puts int
	for _, r := range p.ARM.Requests()[mark:] {
		if r.Method == "PUT" && strings.EqualFold(r.Path, vm) {
			puts++
			g.Expect(string(r.Body)).NotTo(ContainSubstring("customData"))
		}
	}
	g.Expect(puts).To(BeNumerically(">", 0))
}

// expectClusterReady waits until the AzureCluster and every ASO object it reports are Ready.
func expectClusterReady(ctx context.Context, g *WithT, key client.ObjectKey) {
	g.Eventually(func(g Gomega) {
		azureCluster := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, key, azureCluster)).To(Succeed())
		g.Expect(conditions.IsTrue(azureCluster, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(azureCluster, clusterv1.ReadyCondition))
		for _, r := range azureCluster.Status.Resources {
			g.Expect(r.Ready).To(BeTrue(), "%s %s: %s", r.Resource.Kind, r.Resource.Name, r.Message)
		}
	}, timeout, plane.Interval).Should(Succeed())
}

// writesTo lists the PUT, PATCH and DELETE requests of the log that touch the resource group of a cluster.
func writesTo(requests []fakearm.Request, clusterName string) []string {
	var out []string
	for _, r := range requests {
		if r.Method != "GET" && r.Method != "HEAD" && strings.Contains(strings.ToLower(r.Path), "/resourcegroups/"+strings.ToLower(clusterName)) {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}
