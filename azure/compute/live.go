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
	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocomputedisk "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// MachineKinds are the ASO kinds an AzureMachine may own, at the versions MachineResources produces.
func MachineKinds() []azure.Object {
	return []azure.Object{
		&asonetwork.PublicIPAddress{}, &asonetwork.LoadBalancersInboundNatRule{}, &asonetwork.NetworkInterface{},
		&asocompute.VirtualMachine{}, &asocompute.VirtualMachinesExtension{},
		&asoauthorization.RoleAssignment{}, &asocomputedisk.Disk{},
	}
}

// ReplicaKinds are the ASO kinds an instance of a Flexible scale set (AzureMachinePoolMachine) may own.
func ReplicaKinds() []azure.Object {
	return []azure.Object{
		&asonetwork.NetworkInterface{}, &asocompute.VirtualMachine{}, &asocompute.VirtualMachinesExtension{},
		&asoauthorization.RoleAssignment{},
	}
}

// ScaleSetKinds are the ASO kinds an AzureMachinePool may own; the objects of a Flexible scale set's instances
// belong to their AzureMachinePoolMachines (ReplicaKinds).
func ScaleSetKinds() []azure.Object {
	return []azure.Object{&asocompute.VirtualMachineScaleSet{}, &asoauthorization.RoleAssignment{}}
}

// MachineDeleteOrder deletes a machine's resources: the VM's dependents, the VM (its disks go with it, unless it keeps
// CAPZ's delete option: then their objects, DisksLeftByVM, go once Azure detached them), then its network interfaces,
// and then what they use: the public IP and the SSH rule. An instance of a Flexible scale set has neither of the last
// two.
var MachineDeleteOrder = [][]schema.GroupKind{
	{gk(asoauthorization.GroupVersion, "RoleAssignment"), gk(asocompute.GroupVersion, "VirtualMachinesExtension")},
	{gk(asocompute.GroupVersion, "VirtualMachine")},
	{gk(asonetwork.GroupVersion, "NetworkInterface"), gk(asocomputedisk.GroupVersion, "Disk")},
	{gk(asonetwork.GroupVersion, "PublicIPAddress"), gk(asonetwork.GroupVersion, "LoadBalancersInboundNatRule")},
}

// MachineGoesWithVM says what Azure deletes with a machine's VM: its extensions. A deleted machine leaves their
// objects to go with the VM (lifecycle.Kind.GoWithOwner): ASO sends no DELETE of an extension, as CAPZ sends none.
func MachineGoesWithVM(kind schema.GroupKind) (ancestor schema.GroupKind, ok bool) {
	if kind == gk(asocompute.GroupVersion, "VirtualMachinesExtension") {
		return gk(asocompute.GroupVersion, "VirtualMachine"), true
	}
	return schema.GroupKind{}, false
}

// ScaleSetDeleteOrder deletes a machine pool's role assignment before its scale set.
var ScaleSetDeleteOrder = [][]schema.GroupKind{
	{gk(asoauthorization.GroupVersion, "RoleAssignment")},
	{gk(asocompute.GroupVersion, "VirtualMachineScaleSet")},
}

func gk(gv schema.GroupVersion, kind string) schema.GroupKind { return gv.WithKind(kind).GroupKind() }

// VirtualMachineRef names the VM of a machine, for the engine to read (aso.Engine.Read).
func VirtualMachineRef(machine string) azure.Object {
	return &asocompute.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(machine)}}
}

// ScaleSetRef names the ASO object of a machine pool's scale set (by the scale set's name, ScaleSetName), for the
// engine to read.
func ScaleSetRef(scaleSet string) azure.Object {
	return &asocompute.VirtualMachineScaleSet{ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(scaleSet)}}
}

// ScaleSets is an object of the kind of scale sets, to list them (aso.Engine.List) for ScaleSetName.
func ScaleSets() azure.Object { return &asocompute.VirtualMachineScaleSet{} }

// VMCreated reports whether ASO reports the VM created (its Ready condition); false for no VM.
func VMCreated(vm azure.Object) bool {
	v, ok := vm.(*asocompute.VirtualMachine)
	if !ok {
		return false
	}
	ready := genruntime.GetReadyCondition(v)
	return ready != nil && ready.Status == metav1.ConditionTrue
}

// VMCustomDataPendingMessage says why a machine whose VM is created is not Ready yet (VMCustomDataPending).
const VMCustomDataPendingMessage = "the VM is created; waiting for ASO to apply it without its custom data"

// VMCustomDataPending reports whether ASO has created a machine's (or instance's) VM, among the objects the engine
// read, while its spec still carries the custom data the next pass drops: dropping it is a new generation for ASO,
// whose VM is not Ready again until ASO has processed it, so until then the machine is not settled either (reported
// Ready, it would turn unready for that pass, which a rollout counts as an unavailable machine).
func VMCustomDataPending(live azure.Live, machine string) bool {
	vm, ok := live.Live("VirtualMachine", azure.ObjectName(machine)).(*asocompute.VirtualMachine)
	return ok && VMCreated(vm) && vm.Spec.OsProfile != nil && vm.Spec.OsProfile.CustomData != nil
}

// VMCustomDataDropped reports whether the VM's spec lost its custom data, which happens once ASO has created it;
// unlike ASO's status, that survives clusterctl move.
func VMCustomDataDropped(vm azure.Object) bool {
	v, ok := vm.(*asocompute.VirtualMachine)
	return ok && v.Spec.OsProfile != nil && v.Spec.OsProfile.CustomData == nil
}

// VMInNoAvailabilitySet reports whether an existing VM is in no availability set.
func VMInNoAvailabilitySet(vm azure.Object) bool {
	v, ok := vm.(*asocompute.VirtualMachine)
	return ok && v.Spec.AvailabilitySet == nil
}

// VMState is what ASO reports of a VM.
type VMState struct {
	// ID is the VM's resource ID; ProvisioningState its state in Azure.
	ID, ProvisioningState string
	// VMID is the unique ID Azure gave the VM (properties.vmId): a VM created again under the same resource ID,
	// after a deletion, has another.
	VMID string
}

// ReadVM reads the state of the VM of a machine (or instance) from the objects the engine read; false while the VM
// is not there.
func ReadVM(live azure.Live, machine string) (VMState, bool) {
	vm, ok := live.Live("VirtualMachine", azure.ObjectName(machine)).(*asocompute.VirtualMachine)
	if !ok {
		return VMState{}, false
	}
	return VMState{ID: ptr.Deref(vm.Status.Id, ""), ProvisioningState: ptr.Deref(vm.Status.ProvisioningState, ""), VMID: ptr.Deref(vm.Status.VmId, "")}, true
}

// MachineAddresses are the addresses of a machine's VM (by its name, VMName): its host name, the private IPs ASO
// reports for its network interfaces, and the address of its public IP. false while one of its network interfaces
// is not there.
func MachineAddresses(live azure.Live, vmName string, spec infrav1.AzureMachineSpec) ([]clusterv1.MachineAddress, bool) {
	addresses := []clusterv1.MachineAddress{{Type: clusterv1.MachineHostName, Address: vmName}}
	for i := range spec.NetworkInterfaces {
		nic, ok := live.Live("NetworkInterface", azure.ObjectName(infrav1.NetworkInterfaceName(vmName, i, len(spec.NetworkInterfaces)))).(*asonetwork.NetworkInterface)
		if !ok {
			return nil, false
		}
		for _, ipc := range nic.Status.IpConfigurations {
			if ip := ptr.Deref(ipc.PrivateIPAddress, ""); ip != "" {
				addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: ip})
			}
		}
	}
	if spec.AllocatePublicIP {
		if pip, ok := live.Live("PublicIPAddress", azure.ObjectName(infrav1.MachinePublicIPName(vmName))).(*asonetwork.PublicIPAddress); ok {
			if ip := ptr.Deref(pip.Status.IpAddress, ""); ip != "" {
				addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineExternalIP, Address: ip})
			}
		}
	}
	return addresses, true
}

// ScaleSetState is what ASO reports of a scale set.
type ScaleSetState struct {
	// Capacity is the capacity the scale set's spec asks for (nil when it names none); ReportedCapacity the one
	// Azure reports.
	Capacity         *int
	ReportedCapacity int32
	// ID is the scale set's resource ID; ProvisioningState its state in Azure.
	ID, ProvisioningState string
}

// ReadScaleSet reads the state of a live scale set; false for none.
func ReadScaleSet(obj azure.Object) (ScaleSetState, bool) {
	vmss, ok := obj.(*asocompute.VirtualMachineScaleSet)
	if !ok {
		return ScaleSetState{}, false
	}
	st := ScaleSetState{ID: ptr.Deref(vmss.Status.Id, ""), ProvisioningState: ptr.Deref(vmss.Status.ProvisioningState, "")}
	if vmss.Spec.Sku != nil {
		st.Capacity = vmss.Spec.Sku.Capacity
	}
	if vmss.Status.Sku != nil {
		st.ReportedCapacity = int32(ptr.Deref(vmss.Status.Sku.Capacity, 0))
	}
	return st, true
}

// KeepAcceleratedNetworking gives each network interface among a machine's resources whose ASO object exists (read
// returns it, or nil for none) the accelerated networking that object has. CAPZ never changes an existing interface,
// and Azure changes accelerated networking only on a deallocated VM: an interface made by an earlier release (which
// sent none) or before a change of VM size keeps what it has; only a new interface gets what the size supports.
func KeepAcceleratedNetworking(resources []azure.Resource, read func(azure.Object) (azure.Object, error)) error {
	for _, r := range resources {
		nic, ok := r.Object.(*asonetwork.NetworkInterface)
		if !ok {
			continue
		}
		obj, err := read(nic)
		if err != nil {
			return err
		}
		if live, ok := obj.(*asonetwork.NetworkInterface); ok && live != nil {
			nic.Spec.EnableAcceleratedNetworking = cloneBool(live.Spec.EnableAcceleratedNetworking)
		}
	}
	return nil
}

// KeepScaleSetAcceleratedNetworking gives the interface configurations of a machine pool's existing scale set (live,
// its ASO object; nil for none) whose accelerated networking comes from the VM size (the pool's spec sets none for
// the interface, nor for the first one) the value the scale set has: CAPZ never changes an existing scale set's
// network profile, and a change of the model would replace every instance. A value the user sets is applied.
func KeepScaleSetAcceleratedNetworking(resources []azure.Resource, live azure.Object, spec infrav1exp.AzureMachinePoolSpec) {
	existing, ok := live.(*asocompute.VirtualMachineScaleSet)
	if !ok || existing == nil || existing.Spec.VirtualMachineProfile == nil || existing.Spec.VirtualMachineProfile.NetworkProfile == nil {
		return
	}
	has := map[string]*bool{}
	for _, c := range existing.Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations {
		has[ptr.Deref(c.Name, "")] = c.EnableAcceleratedNetworking
	}
	nics := spec.Template.NetworkInterfaces
	fromSize := func(i int) bool {
		return (i >= len(nics) || nics[i].AcceleratedNetworking == nil) && (len(nics) == 0 || nics[0].AcceleratedNetworking == nil)
	}
	for _, r := range resources {
		vmss, ok := r.Object.(*asocompute.VirtualMachineScaleSet)
		if !ok || vmss.Spec.VirtualMachineProfile == nil || vmss.Spec.VirtualMachineProfile.NetworkProfile == nil {
			continue
		}
		configs := vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations
		for i := range configs {
			if v, found := has[ptr.Deref(configs[i].Name, "")]; found && fromSize(i) {
				configs[i].EnableAcceleratedNetworking = cloneBool(v)
			}
		}
	}
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	return ptr.To(*b)
}
