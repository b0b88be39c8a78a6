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

package azuremachine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/takeover"
)

// updateStatus turns what the phases learned, and the pass's error, into the AzureMachine's conditions and
// status.initialization.
func updateStatus(s *scope, err error) {
	am := s.azureMachine
	facts := s.Facts(err)
	switch {
	case ptr.Deref(am.Spec.ProviderID, "") == "":
		facts.Pending = lifecycle.Wait{Reason: infrav1.ProvisioningReason, Message: "waiting for ASO to report the VM's resource ID"}
	case compute.VMCustomDataPending(s.Result, compute.VMName(am)):
		facts.Pending = lifecycle.Wait{Reason: infrav1.ProvisioningReason, Message: compute.VMCustomDataPendingMessage}
	}
	lifecycle.SetConditions(am, facts)
	setVMDeletedConditions(am, s.vmDeleted, s.Deleting != "")
	if s.takingOver {
		conditions.Set(am, takeover.Condition(s.capzDifferences))
	}
	if conditions.IsTrue(am, clusterv1.ReadyCondition) {
		am.Status.Initialization.Provisioned = ptr.To(true)
	}
}

// setVMDeletedConditions marks a machine whose VM was deleted outside Cluster API failed (message: why; empty when
// it is not): Ready and VirtualMachineReady False with infrav1.VMDeletedReason, which Cluster API mirrors into the
// Machine's InfrastructureReady condition, where a MachineHealthCheck's unhealthyMachineConditions finds it. Under
// the v1beta2 contract a terminal failure is reported through conditions only (Cluster API v1.14
// docs/book/src/developer/providers/contracts/infra-machine.md, "InfraMachine: terminal failures"). A machine being
// deleted reports its deletion instead.
func setVMDeletedConditions(am *infrav1.AzureMachine, message string, deleting bool) {
	if message == "" || deleting {
		return
	}
	for _, t := range []string{azure.FamilyCondition(compute.FamilyVirtualMachine), clusterv1.ReadyCondition} {
		conditions.Set(am, metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: infrav1.VMDeletedReason, Message: message})
	}
}
