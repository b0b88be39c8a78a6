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
	"slices"
	"testing"

	asocomputedisk "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestDelete_TakenOverVMDisks: the disks of a VM taken over from CAPZ keep CAPZ's delete option (unset), so Azure
// leaves them when it deletes the VM; CAPZ v1.26.0 deleted the OS disk <vm>_OSDisk and the spec's data disks
// <vm>_<suffix> with the machine. Deleting the machine deletes them through ASO after the VM, whether it was taken
// over while it lived or as it was deleted (before the provider's first pass); a disk of another name attached to the
// VM (the CSI driver's) is never deleted, nor are the disks of a VM of the user's. With the opt-in, the disks go with
// the VM (deleteOption Delete) and have no object of their own.
func TestDelete_TakenOverVMDisks(t *testing.T) {
	for _, tc := range []struct {
		name string
		// owned: the VM carries the cluster's owned tag; beforeTakeover: the machine is deleted before the
		// provider's first pass; optIn: the user opted into the provider's delete options.
		owned, beforeTakeover, optIn bool
		// deleted says whether the OS and data disks must be deleted through ASO.
		deleted bool
	}{
		{name: "disks-live", owned: true, deleted: true},
		{name: "disks-before-takeover", owned: true, beforeTakeover: true, deleted: true},
		{name: "disks-brought", beforeTakeover: true},
		{name: "disks-opted-in", owned: true, optIn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newFixture(t, g, nil)
			group := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/workload/providers/"
			vmID, nicID := group+azure.TypeVirtualMachine+"/"+tc.name, group+azure.TypeNetworkInterface+"/"+tc.name+"-nic"
			osDisk := group + azure.TypeDisk + "/" + infrav1.OSDiskName(tc.name)
			dataDisk := group + azure.TypeDisk + "/" + infrav1.DataDiskName(tc.name, "etcddisk")
			csiDisk := group + azure.TypeDisk + "/pvc-" + tc.name
			tags := map[string]string{"team": "platform"}
			if tc.owned {
				tags = map[string]string{azure.ClusterTagKey(f.cluster.Name): string(infrav1.ResourceLifecycleOwned)}
			}
			sim.SeedAzure("VirtualMachine", vmID, tags)
			sim.SeedAzureProperties(vmID, map[string]any{
				"location": "eastus",
				"storageProfile": map[string]any{
					"osDisk": map[string]any{"name": infrav1.OSDiskName(tc.name), "osType": "Linux", "createOption": "FromImage",
						"managedDisk": map[string]any{"id": osDisk, "storageAccountType": "Premium_LRS"}},
					"dataDisks": []any{
						map[string]any{"name": infrav1.DataDiskName(tc.name, "etcddisk"), "lun": int64(0), "createOption": "Empty", "managedDisk": map[string]any{"id": dataDisk}},
						map[string]any{"name": "pvc-" + tc.name, "lun": int64(1), "createOption": "Attach", "managedDisk": map[string]any{"id": csiDisk}},
					},
				},
			})
			sim.SeedAzure("NetworkInterface", nicID, tags)
			// Azure's managed disks carry no tag of the VM's.
			for _, id := range []string{osDisk, dataDisk, csiDisk} {
				sim.SeedAzure("Disk", id, map[string]string{})
			}

			am := f.newMachine(t, g, tc.name, false, infrav1.AzureMachineSpec{
				VMSize: "Standard_D2s_v3", ProviderID: ptr.To(azure.ProviderID(vmID)),
				DataDisks: []infrav1.DataDisk{{NameSuffix: "etcddisk", DiskSizeGB: 256, Lun: ptr.To[int32](0)}},
			})
			before := am.DeepCopy()
			am.Finalizers = []string{infrav1.MachineFinalizer}
			am.Annotations = map[string]string{}
			if tc.beforeTakeover {
				am.Annotations[clusterv1.PausedAnnotation] = ""
			}
			if tc.optIn {
				am.Annotations[infrav1.ApplyCAPZDifferencesAnnotation] = "true"
			}
			g.Expect(env.Env.Patch(f.ctx, am, client.MergeFrom(before))).To(Succeed())

			if !tc.beforeTakeover {
				waitProvisioned(f.ctx, g, am)
				disks := func(g Gomega) []string {
					list := &asocomputedisk.DiskList{}
					g.Expect(env.Env.List(f.ctx, list, client.InNamespace(f.namespace))).To(Succeed())
					var names []string
					for _, d := range list.Items {
						g.Expect(d.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "skip"), "ASO only reads the disk while the machine lives")
						g.Expect(d.Annotations).To(HaveKeyWithValue(azure.DeleteWithOwnerAnnotation, "true"))
						names = append(names, d.Spec.AzureName)
					}
					slices.Sort(names)
					return names
				}
				if tc.optIn {
					g.Eventually(disks, timeout).Should(BeEmpty())
					g.Consistently(disks, "2s").Should(BeEmpty(), "with the opt-in the disks go with the VM")
				} else {
					g.Eventually(disks, timeout).Should(Equal([]string{infrav1.OSDiskName(tc.name), infrav1.DataDiskName(tc.name, "etcddisk")}),
						"the disks CAPZ deleted with the machine, not the CSI driver's")
				}
			}

			g.Expect(env.Env.Delete(f.ctx, am)).To(Succeed())
			if tc.beforeTakeover {
				before = am.DeepCopy()
				delete(am.Annotations, clusterv1.PausedAnnotation)
				g.Expect(env.Env.Patch(f.ctx, am, client.MergeFrom(before))).To(Succeed())
			}
			g.Eventually(func(g Gomega) {
				err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), &infrav1.AzureMachine{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the AzureMachine's deletion finishes")
			}, timeout).Should(Succeed())

			events := sim.Events()
			deletedAt := func(id string) int {
				return slices.IndexFunc(events, func(e asosim.Event) bool { return e.Op == "Delete" && e.ID == id })
			}
			g.Expect(deletedAt(csiDisk)).To(Equal(-1), "a disk the CSI driver attached is never deleted")
			g.Expect(sim.ExistsInAzure(csiDisk)).To(BeTrue())
			switch {
			case tc.optIn:
				// Azure deletes them with the VM (deleteOption Delete), which the simulator does not play.
				return
			case !tc.deleted:
				g.Expect(deletedAt(osDisk)).To(Equal(-1), "the disks of the user's VM stay")
				g.Expect(deletedAt(dataDisk)).To(Equal(-1))
				return
			}
			g.Expect(deletedAt(vmID)).NotTo(Equal(-1), "the VM goes")
			g.Expect(deletedAt(osDisk)).To(BeNumerically(">", deletedAt(vmID)), "the OS disk goes from Azure, after the VM")
			g.Expect(deletedAt(dataDisk)).To(BeNumerically(">", deletedAt(vmID)), "the data disk goes from Azure, after the VM")
			g.Expect(sim.ExistsInAzure(osDisk)).To(BeFalse())
			g.Expect(sim.ExistsInAzure(dataDisk)).To(BeFalse())
		})
	}
}
