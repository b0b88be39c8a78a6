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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// oneVM is what the engine read: one VM, or nothing.
type oneVM struct{ vm *asocompute.VirtualMachine }

func (l oneVM) Live(kind, name string) azure.Object {
	if l.vm == nil || kind != "VirtualMachine" || name != l.vm.Name {
		return nil
	}
	return l.vm
}

func TestVMCustomDataPending(t *testing.T) {
	vm := func(ready metav1.ConditionStatus, customData *string) *asocompute.VirtualMachine {
		v := &asocompute.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: "m-0"}}
		v.Spec.OsProfile = &asocompute.OSProfile{CustomData: customData}
		v.Status.Conditions = []conditions.Condition{{Type: conditions.ConditionTypeReady, Status: ready}}
		return v
	}
	for _, tt := range []struct {
		name string
		vm   *asocompute.VirtualMachine
		want bool
	}{
		{"no VM yet", nil, false},
		{"created, custom data still in the spec: the next pass drops it", vm(metav1.ConditionTrue, ptr.To("Y2xvdWQ=")), true},
		{"being created with its custom data", vm(metav1.ConditionFalse, ptr.To("Y2xvdWQ=")), false},
		{"created, custom data dropped", vm(metav1.ConditionTrue, nil), false},
		{"ASO processing the drop", vm(metav1.ConditionFalse, nil), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(VMCustomDataPending(oneVM{tt.vm}, "m-0")).To(Equal(tt.want))
		})
	}
}

// An existing network interface keeps the accelerated networking its ASO object has; a new one gets the size's.
func TestKeepAcceleratedNetworking(t *testing.T) {
	tests := []struct {
		name string
		live *bool
		new  bool
		want *bool
	}{
		{name: "a new interface gets the size's", new: true, want: ptr.To(true)},
		{name: "one made by an earlier release keeps none", want: nil},
		{name: "one made off keeps off", live: ptr.To(false), want: ptr.To(false)},
		{name: "one made on keeps on", live: ptr.To(true), want: ptr.To(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resources := MachineResources(workerInput(t, "my-cluster-md-0-keep", nil))
			read := func(o azure.Object) (azure.Object, error) {
				nic, ok := o.(*asonetwork.NetworkInterface)
				if !ok || tt.new {
					return nil, nil
				}
				live := nic.DeepCopy()
				live.Spec.EnableAcceleratedNetworking = tt.live
				return live, nil
			}
			g.Expect(KeepAcceleratedNetworking(resources, read)).To(Succeed())
			var got []*bool
			for _, r := range resources {
				if nic, ok := r.Object.(*asonetwork.NetworkInterface); ok {
					got = append(got, nic.Spec.EnableAcceleratedNetworking)
				}
			}
			g.Expect(got).To(Equal([]*bool{tt.want}))
		})
	}
}

// An existing scale set keeps the accelerated networking the size gave it; the user's value is applied.
func TestKeepScaleSetAcceleratedNetworking(t *testing.T) {
	tests := []struct {
		name   string
		nics   []infrav1.NetworkInterface
		exists bool
		live   *bool
		want   *bool
	}{
		{name: "a new scale set gets the size's", want: ptr.To(true)},
		{name: "one made by an earlier release keeps none", exists: true, want: nil},
		{name: "one made off keeps off", exists: true, live: ptr.To(false), want: ptr.To(false)},
		{name: "the user's value is applied", nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(false)}},
			exists: true, live: ptr.To(true), want: ptr.To(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := poolInput(t, "my-cluster-mp-keep", func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.NetworkInterfaces = tt.nics })
			resources := MachinePoolResources(in)
			var live azure.Object
			if tt.exists {
				vmss := VirtualMachineScaleSet(in)
				vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations[0].EnableAcceleratedNetworking = tt.live
				live = vmss
			}
			KeepScaleSetAcceleratedNetworking(resources, live, in.Spec)
			vmss := resources[len(resources)-1].Object.(*asocompute.VirtualMachineScaleSet)
			g.Expect(vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations[0].EnableAcceleratedNetworking).To(Equal(tt.want))
		})
	}
}
