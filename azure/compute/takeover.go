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
	"fmt"
	"slices"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// TakenOver is what Azure has of a machine that another controller (CAPZ) made and the provider took over: the
// values of its VM and network interfaces that the provider keeps instead of its own (docs/migrating-from-capz.md).
// The controller reads them from the ASO objects' status once the engine has taken them over.
type TakenOver struct {
	// AcceleratedNetworking is each network interface's accelerated networking as Azure has it, by ASO object
	// name. It is always kept: Azure changes it only on a deallocated VM, and CAPZ chose it from the VM size.
	AcceleratedNetworking map[string]*bool
	// VM is true once the VM's status is known; OSDiskDeleteOption and DataDiskDeleteOptions (by disk name) are
	// then what CAPZ left on it. They are kept until the user opts into the provider's (ApplyDifferences): a
	// deliberate difference from CAPZ (docs/capz-parity.md), shown before it is applied.
	VM                    bool
	OSDiskDeleteOption    *string
	DataDiskDeleteOptions map[string]*string
	// Zones and OSDisk are the VM's zones and OS disk as Azure has them once the VM's status is known. They are
	// always kept: Azure never moves a VM to another zone, and changes its OS disk only by a swap or on a
	// deallocated VM, so the provider sends Azure's own values, whatever its spec would make.
	Zones  []string
	OSDisk *asocompute.OSDisk_STATUS
	// ApplyDifferences is the user's opt-in into the provider's values for the deliberate differences.
	ApplyDifferences bool
}

// AdoptMachine marks the VM and the network interfaces among the resources of a machine that has its provider ID
// adoptable (the engine looks them up in Azure before it writes them) and returns the interfaces, whose live objects
// TakenOverFrom reads. The VM must exist (azure.Resource.MustExist): one Azure does not have was deleted outside
// Cluster API, and is not created again (CAPZ v1.26.0 azure/services/virtualmachines/spec.go, VMSpec.Parameters:
// VMDeletedError).
func AdoptMachine(resources []azure.Resource) (nics []azure.Object) {
	for i := range resources {
		switch resources[i].Object.(type) {
		case *asonetwork.NetworkInterface:
			resources[i].Adoptable = true
			nics = append(nics, resources[i].Object)
		case *asocompute.VirtualMachine:
			resources[i].Adoptable, resources[i].MustExist = true, true
		}
	}
	return nics
}

// TakenOverFrom reads what Azure has from the live ASO objects of a taken-over machine: its VM and its network
// interfaces (nil entries are skipped).
func TakenOverFrom(vm azure.Object, nics []azure.Object) *TakenOver {
	t := &TakenOver{AcceleratedNetworking: map[string]*bool{}, DataDiskDeleteOptions: map[string]*string{}}
	for _, o := range nics {
		if nic, ok := o.(*asonetwork.NetworkInterface); ok && nic != nil && nic.Status.Id != nil {
			t.AcceleratedNetworking[nic.Name] = nic.Status.EnableAcceleratedNetworking
		}
	}
	v, ok := vm.(*asocompute.VirtualMachine)
	if !ok || v == nil || v.Status.Id == nil {
		return t
	}
	t.VM = true
	t.Zones = slices.Clone(v.Status.Zones)
	if p := v.Status.StorageProfile; p != nil {
		t.OSDisk = p.OsDisk
		if p.OsDisk != nil && p.OsDisk.DeleteOption != nil {
			t.OSDiskDeleteOption = ptr.To(string(*p.OsDisk.DeleteOption))
		}
		for _, d := range p.DataDisks {
			if d.Name != nil && d.DeleteOption != nil {
				t.DataDiskDeleteOptions[*d.Name] = ptr.To(string(*d.DeleteOption))
			}
		}
	}
	return t
}

// Keep puts the values Azure has into a machine's desired objects (MachineResources) and returns the deliberate
// differences still waiting for the user's opt-in, one line each. Until the VM's status is known, the VM keeps
// every disk's delete option unset, so that nothing is sent before it is known.
func (t *TakenOver) Keep(resources []azure.Resource) []string {
	var pending []string
	for _, r := range resources {
		switch o := r.Object.(type) {
		case *asonetwork.NetworkInterface:
			if live, ok := t.AcceleratedNetworking[o.Name]; ok {
				o.Spec.EnableAcceleratedNetworking = live
			}
		case *asocompute.VirtualMachine:
			t.keepPlacement(o)
			if t.ApplyDifferences || o.Spec.StorageProfile == nil {
				continue
			}
			if d := o.Spec.StorageProfile.OsDisk; d != nil {
				pending = append(pending, t.keepDeleteOption("the OS disk", &d.DeleteOption, t.OSDiskDeleteOption)...)
			}
			for i := range o.Spec.StorageProfile.DataDisks {
				d := &o.Spec.StorageProfile.DataDisks[i]
				pending = append(pending, t.keepDeleteOption("data disk "+ptr.Deref(d.Name, ""), &d.DeleteOption, t.DataDiskDeleteOptions[ptr.Deref(d.Name, "")])...)
			}
		}
	}
	return pending
}

// keepPlacement puts Azure's zones and OS disk (name, size, caching, create option, storage type) into a taken-over
// VM, once they are known.
func (t *TakenOver) keepPlacement(vm *asocompute.VirtualMachine) {
	if !t.VM {
		return
	}
	vm.Spec.Zones = slices.Clone(t.Zones)
	live := t.OSDisk
	if live == nil || vm.Spec.StorageProfile == nil || vm.Spec.StorageProfile.OsDisk == nil {
		return
	}
	disk := vm.Spec.StorageProfile.OsDisk
	disk.Name, disk.DiskSizeGB = live.Name, live.DiskSizeGB
	disk.Caching = azure.Enum[asocompute.Caching](live.Caching)
	disk.CreateOption = azure.Enum[asocompute.CreateOption](live.CreateOption)
	if live.ManagedDisk != nil && live.ManagedDisk.StorageAccountType != nil {
		if disk.ManagedDisk == nil {
			disk.ManagedDisk = &asocompute.ManagedDiskParameters{}
		}
		disk.ManagedDisk.StorageAccountType = azure.Enum[asocompute.StorageAccountType](live.ManagedDisk.StorageAccountType)
	}
}

// keepDeleteOption sets a disk's delete option to Azure's and describes the difference from the provider's.
func (t *TakenOver) keepDeleteOption(disk string, desired **asocompute.DeleteOption, live *string) []string {
	ours := ptr.Deref(*desired, "")
	if live == nil {
		*desired = nil
	} else {
		*desired = ptr.To(asocompute.DeleteOption(*live))
	}
	if !t.VM || ptr.Deref(live, "") == string(ours) {
		return nil
	}
	return []string{fmt.Sprintf("%s: deleteOption %s, the provider's %s (the disk goes with the VM)", disk, ptr.Deref(live, "unset"), ours)}
}

// TakenOverScaleSet is what Azure has of a scale set that CAPZ made and the provider took over: the values the
// provider keeps instead of its own until the user opts into them (ApplyDifferences), each a deliberate difference
// from CAPZ (docs/capz-parity.md).
type TakenOverScaleSet struct {
	// Known is true once ASO has read the scale set.
	Known bool
	// Profile is true for a scale set with a VM profile, from which Azure makes its instances: CAPZ makes every
	// scale set with one, Flexible ones too (ScaleSetInput.FlexibleWithProfile).
	Profile bool
	// AcceleratedNetworking is each network interface configuration's accelerated networking, by name: CAPZ
	// chose it from the VM size.
	AcceleratedNetworking map[string]*bool
	// ScaleInRules are the scale-in policy's rules: CAPZ sets none.
	ScaleInRules []string
	// ApplyDifferences is the user's opt-in into the provider's values.
	ApplyDifferences bool
	// RollingOut is true while the pool replaces outdated instances. ASO cannot delete a given instance, so a
	// rollout goes by capacity and needs Azure to remove the oldest instances at scale-in: the scale set then takes
	// the provider's scale-in policy (OldestVM) whatever CAPZ set. CAPZ sets none, and Azure's default removes the
	// newest, the rollout's own: the pool would surge and scale in forever.
	RollingOut bool
}

// AdoptScaleSet marks the scale set among a machine pool's resources adoptable: the engine looks it up in Azure
// before it writes it.
func AdoptScaleSet(resources []azure.Resource) {
	for i := range resources {
		if _, ok := resources[i].Object.(*asocompute.VirtualMachineScaleSet); ok {
			resources[i].Adoptable = true
		}
	}
}

// TakenOverScaleSetFrom reads what Azure has from the live ASO object of a taken-over scale set (nil: none yet).
func TakenOverScaleSetFrom(obj azure.Object) *TakenOverScaleSet {
	t := &TakenOverScaleSet{AcceleratedNetworking: map[string]*bool{}}
	v, ok := obj.(*asocompute.VirtualMachineScaleSet)
	if !ok || v == nil || v.Status.Id == nil {
		return t
	}
	t.Known = true
	// Once the provider applied the profile it keeps it, whatever a status read in between says.
	t.Profile = v.Status.VirtualMachineProfile != nil || v.Spec.VirtualMachineProfile != nil
	if p := v.Status.VirtualMachineProfile; p != nil && p.NetworkProfile != nil {
		for _, c := range p.NetworkProfile.NetworkInterfaceConfigurations {
			t.AcceleratedNetworking[ptr.Deref(c.Name, "")] = c.EnableAcceleratedNetworking
		}
	}
	if p := v.Status.ScaleInPolicy; p != nil {
		for _, r := range p.Rules {
			t.ScaleInRules = append(t.ScaleInRules, string(r))
		}
	}
	return t
}

// Keep puts the values Azure has into a machine pool's desired scale set (MachinePoolResources) unless the user
// opted in, and returns the deliberate differences waiting for the opt-in, one line each.
func (t *TakenOverScaleSet) Keep(resources []azure.Resource) []string {
	if t.ApplyDifferences {
		return nil
	}
	var pending []string
	for _, r := range resources {
		vmss, ok := r.Object.(*asocompute.VirtualMachineScaleSet)
		if !ok {
			continue
		}
		if p := vmss.Spec.VirtualMachineProfile; p != nil && p.NetworkProfile != nil {
			for i := range p.NetworkProfile.NetworkInterfaceConfigurations {
				c := &p.NetworkProfile.NetworkInterfaceConfigurations[i]
				live := t.AcceleratedNetworking[ptr.Deref(c.Name, "")]
				if t.Known && ptr.Deref(live, false) != ptr.Deref(c.EnableAcceleratedNetworking, false) {
					pending = append(pending, fmt.Sprintf("network interface configuration %s: accelerated networking %t, the provider's %t",
						ptr.Deref(c.Name, ""), ptr.Deref(live, false), ptr.Deref(c.EnableAcceleratedNetworking, false)))
				}
				c.EnableAcceleratedNetworking = live
			}
		}
		if vmss.Spec.ScaleInPolicy == nil || t.RollingOut {
			continue
		}
		var ours []string
		for _, r := range vmss.Spec.ScaleInPolicy.Rules {
			ours = append(ours, string(r))
		}
		if t.Known && fmt.Sprint(ours) != fmt.Sprint(t.ScaleInRules) {
			pending = append(pending, fmt.Sprintf("scale-in policy rules %v, the provider's %v (the instance a scale-in removes)", t.ScaleInRules, ours))
		}
		if len(t.ScaleInRules) == 0 {
			vmss.Spec.ScaleInPolicy = nil
			continue
		}
		vmss.Spec.ScaleInPolicy.Rules = nil
		for _, r := range t.ScaleInRules {
			vmss.Spec.ScaleInPolicy.Rules = append(vmss.Spec.ScaleInPolicy.Rules, asocompute.ScaleInPolicy_Rules(r))
		}
	}
	return pending
}

// DeletePolicy is the delete policy the scale set's scale-in follows while the provider keeps CAPZ's rules: Azure's
// default (no rule, or Default) chooses like Random, as far as the provider can tell. ours is the policy of the
// provider's rules, which apply once the user opted in, and during a rollout (RollingOut).
func (t *TakenOverScaleSet) DeletePolicy(ours infrav1exp.AzureMachinePoolDeletePolicyType) infrav1exp.AzureMachinePoolDeletePolicyType {
	if t.ApplyDifferences || !t.Known || t.RollingOut {
		return ours
	}
	for _, r := range t.ScaleInRules {
		switch asocompute.ScaleInPolicy_Rules(r) {
		case asocompute.ScaleInPolicy_Rules_OldestVM:
			return infrav1exp.OldestDeletePolicyType
		case asocompute.ScaleInPolicy_Rules_NewestVM:
			return infrav1exp.NewestDeletePolicyType
		}
	}
	return infrav1exp.RandomDeletePolicyType
}
