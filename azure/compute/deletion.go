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

package compute

import (
	"strings"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocomputedisk "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// FamilyDisks are the disks a taken-over VM leaves in Azure when it is deleted (DisksLeftByVM).
var FamilyDisks = azure.NewFamily("Disks")

// AzureCapacity is the capacity Azure reports for a scale set (its ASO object's status); ok is false while ASO has
// not read it.
func AzureCapacity(obj azure.Object) (capacity int32, ok bool) {
	vmss, isScaleSet := obj.(*asocompute.VirtualMachineScaleSet)
	if !isScaleSet || vmss == nil || vmss.Status.Sku == nil || vmss.Status.Sku.Capacity == nil {
		return 0, false
	}
	return int32(*vmss.Status.Sku.Capacity), true
}

// DisksLeftByVM returns, for a VM taken over from CAPZ, the ASO objects of the disks that Azure leaves when it
// deletes the VM and that CAPZ v1.26.0 deleted with the machine (azure/services/disks: the OS disk <vm>_OSDisk and the
// data disks of the AzureMachine's spec, by name): each disk whose delete option in the desired VM (resources, after
// TakenOver.Keep) is not Delete and that the live VM's status names, with its ID. They are applied with
// reconcile-policy skip, so that ASO only reads them, and carry azure.DeleteWithOwnerAnnotation, so that the
// machine's deletion deletes them in Azure after the VM (MachineDeleteOrder). A disk of another name (one the CSI
// driver attached, an OS disk swapped in) is never among them; neither is an ephemeral OS disk, which has no ID.
func DisksLeftByVM(live azure.Object, resources []azure.Resource) []azure.Resource {
	vm, ok := live.(*asocompute.VirtualMachine)
	if !ok || vm == nil || vm.Status.Id == nil || vm.Status.StorageProfile == nil {
		return nil
	}
	var desired *asocompute.VirtualMachine
	for _, r := range resources {
		if v, ok := r.Object.(*asocompute.VirtualMachine); ok {
			desired = v
		}
	}
	if desired == nil || desired.Spec.StorageProfile == nil {
		return nil
	}
	location := ptr.Deref(vm.Status.Location, "")
	status := vm.Status.StorageProfile
	var out []azure.Resource
	if d, s := desired.Spec.StorageProfile.OsDisk, status.OsDisk; d != nil && s != nil && !deletedWithVM(d.DeleteOption) &&
		ptr.Deref(s.Name, "") == infrav1.OSDiskName(desired.Name) && s.ManagedDisk != nil {
		out = appendDisk(out, ptr.Deref(s.ManagedDisk.Id, ""), location, asocomputedisk.DiskCreateOption_FromImage)
	}
	for _, d := range desired.Spec.StorageProfile.DataDisks {
		if deletedWithVM(d.DeleteOption) || !strings.HasPrefix(ptr.Deref(d.Name, ""), desired.Name+"_") {
			continue
		}
		for _, s := range status.DataDisks {
			if ptr.Deref(s.Name, "") == ptr.Deref(d.Name, "") && s.ManagedDisk != nil {
				out = appendDisk(out, ptr.Deref(s.ManagedDisk.Id, ""), location, asocomputedisk.DiskCreateOption_Empty)
			}
		}
	}
	return out
}

func deletedWithVM(option *asocompute.DeleteOption) bool {
	return option != nil && *option == asocompute.DeleteOption_Delete
}

// appendDisk appends the ASO object of the managed disk of this ID (nothing for an ID that does not name a disk in a
// resource group).
func appendDisk(out []azure.Resource, id, location string, create asocomputedisk.DiskCreateOption) []azure.Resource {
	parts := strings.Split(strings.TrimPrefix(id, "/"), "/")
	if len(parts) != 8 || !strings.EqualFold(parts[0], "subscriptions") || !strings.EqualFold(parts[2], "resourceGroups") ||
		!strings.EqualFold(parts[4]+"/"+parts[5]+"/"+parts[6], "providers/"+azure.TypeDisk) {
		return out
	}
	name := parts[7]
	disk := &asocomputedisk.Disk{
		ObjectMeta: metav1.ObjectMeta{
			Name:        azure.ObjectName(name),
			Annotations: map[string]string{azure.DeleteWithOwnerAnnotation: "true"},
		},
		Spec: asocomputedisk.Disk_Spec{
			AzureName:    name,
			Location:     ptr.To(location),
			Owner:        &genruntime.KnownResourceReference{ARMID: azure.ResourceGroupID(parts[1], parts[3])},
			CreationData: &asocomputedisk.CreationData{CreateOption: ptr.To(create)},
		},
	}
	return append(out, azure.Resource{Object: disk, Family: FamilyDisks, Referenced: true})
}
