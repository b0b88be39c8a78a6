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

package azuremachine_test

import (
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// expectVMDeleted waits for a machine to report its VM deleted outside Cluster API: failed (Ready and
// VirtualMachineReady False, reason VMDeleted), its vmState Deleted.
func expectVMDeleted(f *fixture, g *WithT, am *infrav1.AzureMachine, message string) *infrav1.AzureMachine {
	live := &infrav1.AzureMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		for _, t := range []string{clusterv1.ReadyCondition, "VirtualMachineReady"} {
			c := conditions.Get(live, t)
			g.Expect(c).NotTo(BeNil(), t)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse), t)
			g.Expect(c.Reason).To(Equal(infrav1.VMDeletedReason), t)
			g.Expect(c.Message).To(ContainSubstring(message), t)
		}
		g.Expect(live.Status.VMState).To(Equal(infrav1.VMStateDeleted))
	}, timeout).Should(Succeed())
	return live
}

// TestReconcile_VMDeletedInAzureIsReportedFailed: a VM deleted in Azure after the machine was provisioned is created
// again by ASO's next PUT (after its sync period; ASO does not read before it writes), without the bootstrap data,
// under the same resource ID but with another vmId. The machine reports itself failed, as CAPZ's VMDeletedError does,
// so that a MachineHealthCheck replaces it.
func TestReconcile_VMDeletedInAzureIsReportedFailed(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	am := f.newMachine(t, g, "worker-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	live := waitProvisioned(f.ctx, g, am)
	vm := &asocompute.VirtualMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "worker-0"}, vm)).To(Succeed())
		g.Expect(vm.Status.VmId).NotTo(BeNil())
		g.Expect(live.Annotations).To(HaveKeyWithValue(infrav1.VMIDAnnotation, *vm.Status.VmId), "the provider records the VM's vmId")
		g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil())
	}, timeout).Should(Succeed())
	firstVMID := *vm.Status.VmId
	vmID := *vm.Status.Id

	// Someone deletes the VM in the portal; ASO's next sync sends the PUT again and creates it, empty. (The package's
	// tests share one simulated Azure, where other tests make VMs of this ID too: only events from here on count.)
	mark := len(sim.Events())
	g.Expect(sim.DeleteInAzure(vmID)).To(BeTrue())
	g.Expect(sim.Resync(f.ctx, "VirtualMachine", f.namespace, "worker-0")).To(Succeed())
	live = expectVMDeleted(f, g, am, "was deleted outside Cluster API after the machine was provisioned, and ASO created it again")
	g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()), "provisioned never goes back")
	g.Expect(live.Annotations).To(HaveKeyWithValue(infrav1.VMIDAnnotation, firstVMID), "the first vmId stays recorded")
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "worker-0"}, vm)).To(Succeed())
	g.Expect(vm.Status.VmId).To(HaveValue(Not(Equal(firstVMID))), "Azure gave the VM created again another vmId")
	creates := 0
	for _, e := range sim.Events()[mark:] {
		if e.Op == "Create" && e.ID == vmID {
			creates++
		}
	}
	g.Expect(creates).To(Equal(1), "ASO created the VM again: that is ASO v2.18's behaviour, which the provider cannot prevent")

	// The failure stays: another pass (a change of the AzureMachine) does not make the machine Ready again.
	before := live.DeepCopy()
	live.Labels["touched"] = "true"
	g.Expect(env.Env.Patch(f.ctx, live, client.MergeFrom(before))).To(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		g.Expect(conditions.GetReason(live, clusterv1.ReadyCondition)).To(Equal(infrav1.VMDeletedReason))
	}, 3*time.Second).Should(Succeed())
}

// TestReconcile_MissingVMOfProvisionedMachineIsNotCreated: a machine that has its provider ID and no VM object (CAPZ
// made its VM, or the VM object was deleted) has the engine look the VM up in Azure first. When Azure does not have
// it, it was deleted outside Cluster API: the provider does not create it (CAPZ's VMSpec.Parameters returns
// VMDeletedError) and reports the machine failed.
func TestReconcile_MissingVMOfProvisionedMachineIsNotCreated(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	rg := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/workload/providers/"
	vmID := rg + "Microsoft.Compute/virtualMachines/gone-0"
	am := f.newMachine(t, g, "gone-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", ProviderID: ptr.To("azure://" + vmID)})

	expectVMDeleted(f, g, am, "the VM azure://"+vmID+" was deleted outside Cluster API after the machine was provisioned; it is not created again")
	vm := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "gone-0"}, vm)).To(Succeed())
	g.Expect(vm.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)), "ASO only looks")
	g.Expect(vm.Annotations).To(HaveKeyWithValue(aso.AdoptionAnnotation, "probing"))
	g.Consistently(func(g Gomega) {
		g.Expect(sim.ExistsInAzure(vmID)).To(BeFalse())
	}, 3*time.Second).Should(Succeed())
	g.Expect(sim.Events()).NotTo(ContainElement(And(HaveField("Op", "Create"), HaveField("ID", vmID))), "the VM is never created")
}
