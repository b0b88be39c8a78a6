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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
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
