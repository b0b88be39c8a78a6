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
	"testing"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// liveVM is a VM's ASO object as ASO reports one CAPZ made: its OS disk and one data disk with the given delete
// options (nil: Azure reports none).
func liveVM(osDisk, dataDisk *asocompute.DeleteOption_STATUS) *asocompute.VirtualMachine {
	return &asocompute.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Status: asocompute.VirtualMachine_STATUS{Id: ptr.To("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/m"),
			StorageProfile: &asocompute.StorageProfile_STATUS{
				OsDisk:    &asocompute.OSDisk_STATUS{DeleteOption: osDisk},
				DataDisks: []asocompute.DataDisk_STATUS{{Name: ptr.To("m_etcddisk"), DeleteOption: dataDisk}},
			}},
	}
}

func liveNIC(name string, accelerated *bool) *asonetwork.NetworkInterface {
	return &asonetwork.NetworkInterface{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status:     asonetwork.NetworkInterface_STATUS{Id: ptr.To("/subscriptions/s/nic"), EnableAcceleratedNetworking: accelerated},
	}
}

// desiredMachine is a machine's desired VM (disks deleted with it) and interface (accelerated networking unset).
func desiredMachine() []azure.Resource {
	return []azure.Resource{
		{Object: &asonetwork.NetworkInterface{ObjectMeta: metav1.ObjectMeta{Name: "m-nic"}}},
		{Object: &asocompute.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: asocompute.VirtualMachine_Spec{
			StorageProfile: &asocompute.StorageProfile{
				OsDisk:    &asocompute.OSDisk{DeleteOption: ptr.To(asocompute.DeleteOption_Delete)},
				DataDisks: []asocompute.DataDisk{{Name: ptr.To("m_etcddisk"), DeleteOption: ptr.To(asocompute.DeleteOption_Delete)}},
			},
		}}},
	}
}

func TestTakenOver_Keep(t *testing.T) {
	detach := ptr.To(asocompute.DeleteOption_STATUS_Detach)
	deleteOpt := ptr.To(asocompute.DeleteOption_STATUS_Delete)
	tests := []struct {
		name             string
		vm               *asocompute.VirtualMachine
		nic              *asonetwork.NetworkInterface
		apply            bool
		wantAccelerated  *bool
		wantOSDisk       *asocompute.DeleteOption
		wantDataDisk     *asocompute.DeleteOption
		wantDifferences  int
		wantDifferenceIn string
	}{
		{name: "before ASO read the VM, nothing of ours is sent and nothing is pending", wantOSDisk: nil, wantDataDisk: nil},
		{name: "CAPZ's VM without delete options: kept, both differences pending", vm: liveVM(nil, nil), nic: liveNIC("m-nic", ptr.To(true)),
			wantAccelerated: ptr.To(true), wantDifferences: 2, wantDifferenceIn: "the OS disk: deleteOption unset, the provider's Delete"},
		{name: "a data disk already deleted with the VM is no difference", vm: liveVM(detach, deleteOpt), nic: liveNIC("m-nic", ptr.To(false)),
			wantAccelerated: ptr.To(false), wantOSDisk: ptr.To(asocompute.DeleteOption_Detach), wantDataDisk: ptr.To(asocompute.DeleteOption_Delete),
			wantDifferences: 1, wantDifferenceIn: "the OS disk: deleteOption Detach"},
		{name: "opted in: the provider's delete options, accelerated networking still Azure's", vm: liveVM(nil, nil), nic: liveNIC("m-nic", ptr.To(true)), apply: true,
			wantAccelerated: ptr.To(true), wantOSDisk: ptr.To(asocompute.DeleteOption_Delete), wantDataDisk: ptr.To(asocompute.DeleteOption_Delete)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resources := desiredMachine()
			nics := AdoptMachine(resources)
			g.Expect(nics).To(HaveLen(1))
			g.Expect(resources).To(HaveEach(HaveField("Adoptable", true)))
			var vm azure.Object
			if tt.vm != nil {
				vm = tt.vm
			}
			var live []azure.Object
			if tt.nic != nil {
				live = append(live, tt.nic)
			}
			taken := TakenOverFrom(vm, live)
			taken.ApplyDifferences = tt.apply
			differences := taken.Keep(resources)
			g.Expect(differences).To(HaveLen(tt.wantDifferences))
			if tt.wantDifferenceIn != "" {
				g.Expect(differences).To(ContainElement(ContainSubstring(tt.wantDifferenceIn)))
			}
			nic := resources[0].Object.(*asonetwork.NetworkInterface)
			g.Expect(nic.Spec.EnableAcceleratedNetworking).To(Equal(tt.wantAccelerated))
			desired := resources[1].Object.(*asocompute.VirtualMachine)
			g.Expect(desired.Spec.StorageProfile.OsDisk.DeleteOption).To(Equal(tt.wantOSDisk))
			g.Expect(desired.Spec.StorageProfile.DataDisks[0].DeleteOption).To(Equal(tt.wantDataDisk))
		})
	}
}

// TestTakenOver_KeepsZonesAndOSDisk sends Azure's zones and OS disk for a taken-over VM, whatever the provider's
// spec would make, opted in or not, once ASO has read the VM; before, the provider's are applied only as a probe.
func TestTakenOver_KeepsZonesAndOSDisk(t *testing.T) {
	for _, apply := range []bool{false, true} {
		g := NewWithT(t)
		resources := desiredMachine()
		desired := resources[1].Object.(*asocompute.VirtualMachine)
		desired.Spec.Zones = []string{"2"}
		disk := desired.Spec.StorageProfile.OsDisk
		disk.Name, disk.DiskSizeGB = ptr.To("m_OSDisk"), ptr.To(128)
		disk.Caching, disk.CreateOption = ptr.To(asocompute.Caching_ReadWrite), ptr.To(asocompute.CreateOption_FromImage)
		disk.ManagedDisk = &asocompute.ManagedDiskParameters{StorageAccountType: ptr.To(asocompute.StorageAccountType_Premium_LRS)}

		TakenOverFrom(nil, nil).Keep(resources)
		g.Expect(desired.Spec.Zones).To(Equal([]string{"2"}), "nothing is known of the VM yet")

		vm := liveVM(nil, nil)
		vm.Status.Zones = []string{"1"}
		vm.Status.StorageProfile.OsDisk = &asocompute.OSDisk_STATUS{
			Name: ptr.To("m_osdisk-capz"), DiskSizeGB: ptr.To(30), Caching: ptr.To(asocompute.Caching_STATUS_None),
			CreateOption: ptr.To(asocompute.CreateOption_STATUS_FromImage),
			ManagedDisk:  &asocompute.ManagedDiskParameters_STATUS{StorageAccountType: ptr.To(asocompute.StorageAccountType_STATUS_StandardSSD_LRS)},
		}
		taken := TakenOverFrom(vm, nil)
		taken.ApplyDifferences = apply
		taken.Keep(resources)
		g.Expect(desired.Spec.Zones).To(Equal([]string{"1"}))
		g.Expect(disk.Name).To(HaveValue(Equal("m_osdisk-capz")))
		g.Expect(disk.DiskSizeGB).To(HaveValue(Equal(30)))
		g.Expect(disk.Caching).To(HaveValue(Equal(asocompute.Caching_None)))
		g.Expect(disk.CreateOption).To(HaveValue(Equal(asocompute.CreateOption_FromImage)))
		g.Expect(disk.ManagedDisk.StorageAccountType).To(HaveValue(Equal(asocompute.StorageAccountType_StandardSSD_LRS)))
	}
}

// liveScaleSet is a scale set's ASO object as ASO reports one CAPZ made: accelerated networking on, the given
// scale-in rules.
func liveScaleSet(rules ...asocompute.ScaleInPolicy_Rules_STATUS) *asocompute.VirtualMachineScaleSet {
	vmss := &asocompute.VirtualMachineScaleSet{Status: asocompute.VirtualMachineScaleSet_STATUS{
		Id: ptr.To("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/mp"),
		VirtualMachineProfile: &asocompute.VirtualMachineScaleSetVMProfile_STATUS{NetworkProfile: &asocompute.VirtualMachineScaleSetNetworkProfile_STATUS{
			NetworkInterfaceConfigurations: []asocompute.VirtualMachineScaleSetNetworkConfiguration_STATUS{{Name: ptr.To("mp-nic-0"), EnableAcceleratedNetworking: ptr.To(true)}},
		}},
	}}
	if len(rules) > 0 {
		vmss.Status.ScaleInPolicy = &asocompute.ScaleInPolicy_STATUS{Rules: rules}
	}
	return vmss
}

// desiredScaleSet is a pool's desired scale set: accelerated networking unset, scale-in OldestVM.
func desiredScaleSet() []azure.Resource {
	return []azure.Resource{{Object: &asocompute.VirtualMachineScaleSet{Spec: asocompute.VirtualMachineScaleSet_Spec{
		ScaleInPolicy: &asocompute.ScaleInPolicy{Rules: []asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}},
		VirtualMachineProfile: &asocompute.VirtualMachineScaleSetVMProfile{NetworkProfile: &asocompute.VirtualMachineScaleSetNetworkProfile{
			NetworkInterfaceConfigurations: []asocompute.VirtualMachineScaleSetNetworkConfiguration{{Name: ptr.To("mp-nic-0")}},
		}},
	}}}}
}

func TestTakenOverScaleSet_Keep(t *testing.T) {
	tests := []struct {
		name            string
		live            *asocompute.VirtualMachineScaleSet
		apply           bool
		rollingOut      bool
		wantAccelerated *bool
		wantRules       *asocompute.ScaleInPolicy
		wantDifferences int
		wantPolicy      infrav1exp.AzureMachinePoolDeletePolicyType
	}{
		{name: "CAPZ's scale set: no scale-in rule and accelerated networking kept, both pending", live: liveScaleSet(),
			wantAccelerated: ptr.To(true), wantDifferences: 2, wantPolicy: infrav1exp.RandomDeletePolicyType},
		{name: "the same rule is no difference", live: liveScaleSet(asocompute.ScaleInPolicy_Rules_STATUS_OldestVM),
			wantAccelerated: ptr.To(true), wantRules: &asocompute.ScaleInPolicy{Rules: []asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}},
			wantDifferences: 1, wantPolicy: infrav1exp.OldestDeletePolicyType},
		{name: "opted in: the provider's values", live: liveScaleSet(), apply: true,
			wantRules: &asocompute.ScaleInPolicy{Rules: []asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}}, wantPolicy: infrav1exp.NewestDeletePolicyType},
		{name: "rolling out: the provider's scale-in rule, which the rollout needs, no difference pending for it", live: liveScaleSet(), rollingOut: true,
			wantAccelerated: ptr.To(true), wantRules: &asocompute.ScaleInPolicy{Rules: []asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}},
			wantDifferences: 1, wantPolicy: infrav1exp.NewestDeletePolicyType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resources := desiredScaleSet()
			AdoptScaleSet(resources)
			g.Expect(resources[0].Adoptable).To(BeTrue())
			taken := TakenOverScaleSetFrom(tt.live)
			taken.ApplyDifferences, taken.RollingOut = tt.apply, tt.rollingOut
			g.Expect(taken.Keep(resources)).To(HaveLen(tt.wantDifferences))
			vmss := resources[0].Object.(*asocompute.VirtualMachineScaleSet)
			g.Expect(vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations[0].EnableAcceleratedNetworking).To(Equal(tt.wantAccelerated))
			g.Expect(vmss.Spec.ScaleInPolicy).To(Equal(tt.wantRules))
			g.Expect(taken.DeletePolicy(infrav1exp.NewestDeletePolicyType)).To(Equal(tt.wantPolicy))
		})
	}
}
