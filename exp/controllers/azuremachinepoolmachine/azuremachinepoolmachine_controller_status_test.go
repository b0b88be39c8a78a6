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

package azuremachinepoolmachine

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

func TestUpdateStatus_ReadyCondition(t *testing.T) {
	const vmID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/pool-abcde"
	tests := []struct {
		name            string
		scope           scope
		wantStatus      metav1.ConditionStatus
		wantReason      string
		wantNoCondition bool
	}{
		{name: "deleting", scope: scope{State: lifecycle.State{Deleting: "the instance's Azure resources", Result: &aso.Result{}}}, wantStatus: metav1.ConditionFalse, wantReason: infrav1.DeletingReason},
		{name: "waiting", scope: scope{State: lifecycle.State{Waiting: lifecycle.Wait{Reason: WaitingForPoolReason, Message: "waiting for the pool"}}}, wantStatus: metav1.ConditionFalse, wantReason: WaitingForPoolReason},
		{name: "a pass that failed keeps the last condition", scope: scope{}, wantNoCondition: true},
		{name: "no VM ID yet", scope: scope{State: lifecycle.State{Result: &aso.Result{}}}, wantStatus: metav1.ConditionFalse, wantReason: infrav1.ProvisioningReason},
		{name: "the VM is elsewhere", scope: scope{State: lifecycle.State{Result: &aso.Result{}}, vm: compute.VMState{ID: "/subscriptions/s/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/pool-abcde"}}, wantStatus: metav1.ConditionFalse, wantReason: ProviderIDMismatchReason},
		{name: "ready, whatever the case of the resource group", scope: scope{State: lifecycle.State{Result: &aso.Result{}}, vm: compute.VMState{ID: "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/pool-abcde"}}, wantStatus: metav1.ConditionTrue, wantReason: infrav1.ReadyReason},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			m := &infrav1exp.AzureMachinePoolMachine{Spec: infrav1exp.AzureMachinePoolMachineSpec{ProviderID: "azure://" + vmID}}
			s := tc.scope
			s.machine = m
			updateStatus(&s, nil)
			ready := conditions.Get(m, clusterv1.ReadyCondition)
			if tc.wantNoCondition {
				g.Expect(ready).To(BeNil())
				return
			}
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(tc.wantStatus))
			g.Expect(ready.Reason).To(Equal(tc.wantReason))
		})
	}
}

func TestUpdateStatus_ProvisionedStaysAndReadyNeedsTheLatestModel(t *testing.T) {
	g := NewWithT(t)
	pool := &infrav1exp.AzureMachinePool{Spec: infrav1exp.AzureMachinePoolSpec{Template: infrav1exp.AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3"}}}
	mp := &clusterv1.MachinePool{Spec: clusterv1.MachinePoolSpec{Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{Version: "v1.34.1"}}}}
	model := pool.Model("v1.34.1", "1")
	m := &infrav1exp.AzureMachinePoolMachine{ObjectMeta: metav1.ObjectMeta{Name: "pool-abcde"}, Spec: infrav1exp.AzureMachinePoolMachineSpec{ProviderID: "azure:///x", Model: &model}}
	s := &scope{State: lifecycle.State{Result: &aso.Result{}}, machine: m, pool: pool, machinePool: mp, vm: compute.VMState{ID: "/x"}}
	updateStatus(s, nil)
	g.Expect(m.Status.Ready).To(BeTrue())
	g.Expect(m.Status.LatestModelApplied).To(BeTrue())
	g.Expect(m.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
	g.Expect(m.Status.InstanceName).To(Equal("pool-abcde"))
	g.Expect(m.Status.Version).To(Equal("v1.34.1"))

	// The pool's template changed: the instance is outdated, still provisioned.
	pool.Spec.Template.VMSize = "Standard_D4s_v3"
	updateStatus(s, nil)
	g.Expect(m.Status.LatestModelApplied).To(BeFalse())
	g.Expect(m.Status.Ready).To(BeFalse())
	g.Expect(conditions.IsTrue(m, clusterv1.ReadyCondition)).To(BeTrue(), "its resources are ready")
	g.Expect(m.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))

	s.Deleting = "the instance's Azure resources"
	updateStatus(s, nil)
	g.Expect(m.Status.Initialization.Provisioned).To(HaveValue(BeTrue()), "provisioned never goes back")
}
