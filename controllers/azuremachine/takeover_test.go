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

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_DeletedBeforeTakeover: a machine CAPZ made (VM and interface in Azure, a provider ID, no ASO object),
// deleted before the provider's first pass (a rollout, a remediation or the autoscaler during the switch). Its VM
// and interface go from Azure through ASO when they carry the cluster's owned tag; the user's own stay; a VM Azure
// no longer has is not made again. The AzureMachine is paused while it is deleted, so that the provider's first
// pass is a deletion pass, and carries CAPZ's finalizer (which has the provider's name).
func TestReconcile_DeletedBeforeTakeover(t *testing.T) {
	for _, tc := range []struct {
		// name is also the machine's, so that each case has resources of its own in the simulator's Azure.
		name string
		// tags of the VM and of the interface in Azure; nil: the resource is not in Azure.
		vmTags, nicTags map[string]string
		// deleted says whether the resources must be deleted in Azure.
		deleted bool
	}{
		{name: "capz-owned", vmTags: map[string]string{}, nicTags: map[string]string{}, deleted: true},
		{name: "capz-brought", vmTags: map[string]string{"team": "platform"}, nicTags: map[string]string{"team": "platform"}},
		{name: "capz-vm-gone", nicTags: map[string]string{}, deleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newFixture(t, g, nil)
			rg := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/workload/providers/"
			vmID, nicID := rg+"Microsoft.Compute/virtualMachines/"+tc.name, rg+"Microsoft.Network/networkInterfaces/"+tc.name+"-nic"
			owned := azure.ClusterTagKey(f.cluster.Name)
			if tc.vmTags != nil {
				if tc.deleted {
					tc.vmTags[owned] = string(infrav1.ResourceLifecycleOwned)
				}
				sim.SeedAzure("VirtualMachine", vmID, tc.vmTags)
			}
			if tc.deleted {
				tc.nicTags[owned] = string(infrav1.ResourceLifecycleOwned)
			}
			sim.SeedAzure("NetworkInterface", nicID, tc.nicTags)

			am := f.newMachine(t, g, tc.name, false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", ProviderID: ptr.To("azure://" + vmID)})
			// As CAPZ left it: its finalizer, and paused (the switch), until it is deleted.
			before := am.DeepCopy()
			am.Finalizers = []string{infrav1.MachineFinalizer}
			am.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
			g.Expect(env.Env.Patch(f.ctx, am, client.MergeFrom(before))).To(Succeed())
			g.Expect(env.Env.Delete(f.ctx, am)).To(Succeed())
			before = am.DeepCopy()
			am.Annotations = nil
			g.Expect(env.Env.Patch(f.ctx, am, client.MergeFrom(before))).To(Succeed())

			g.Eventually(func(g Gomega) {
				live := &infrav1.AzureMachine{}
				err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the AzureMachine's deletion finishes: %+v %+v", live.ObjectMeta, live.Status)
			}, timeout).Should(Succeed())
			if tc.deleted {
				g.Expect(sim.Deleted()).To(ContainElement(nicID), "the interface CAPZ made goes from Azure")
			} else {
				g.Expect(sim.Deleted()).NotTo(ContainElement(nicID), "the user's interface stays")
				g.Expect(sim.ExistsInAzure(nicID)).To(BeTrue())
			}
			switch {
			case tc.vmTags == nil:
				g.Expect(sim.ExistsInAzure(vmID)).To(BeFalse(), "a VM Azure no longer has is not made again")
			case tc.deleted:
				g.Expect(sim.Deleted()).To(ContainElement(vmID), "the VM CAPZ made goes from Azure")
			default:
				g.Expect(sim.ExistsInAzure(vmID)).To(BeTrue(), "the user's VM stays")
			}
			for _, e := range sim.Events() {
				if e.ID == vmID || e.ID == nicID {
					g.Expect(e.Op).NotTo(Equal("Create"), "nothing of the machine is created in Azure: %+v", e)
				}
			}
			g.Eventually(func(g Gomega) {
				vms := &asocompute.VirtualMachineList{}
				g.Expect(env.Env.List(f.ctx, vms, client.InNamespace(f.namespace))).To(Succeed())
				g.Expect(vms.Items).To(BeEmpty())
				nics := &asonetwork.NetworkInterfaceList{}
				g.Expect(env.Env.List(f.ctx, nics, client.InNamespace(f.namespace))).To(Succeed())
				g.Expect(nics.Items).To(BeEmpty())
			}, timeout).Should(Succeed())
		})
	}
}
