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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// familyConditions are the per-family conditions the engine reports for a machine's resources.
var familyConditions = []string{"PublicIPsReady", "NetworkInterfacesReady", "VirtualMachineReady", "VMExtensionsReady", "RoleAssignmentsReady"}

// ownedConditions are the conditions this controller writes.
func ownedConditions() []string {
	return append([]string{clusterv1.ReadyCondition, clusterv1.PausedCondition, infrav1.ResourcesReadyCondition,
		infrav1.PatchesAppliedCondition}, familyConditions...)
}

// updateStatus turns what the phases learned into the AzureMachine's status and conditions.
func updateStatus(s *scope) {
	am := s.azureMachine
	if s.result != nil {
		am.Status.Resources = s.result.Statuses()
		seen := map[string]bool{}
		for _, c := range s.result.Conditions() {
			conditions.Set(am, c)
			seen[c.Type] = true
		}
		for _, family := range familyConditions {
			if !seen[family] {
				conditions.Delete(am, family)
			}
		}
	}
	setReadyCondition(am, s)
	if conditions.IsTrue(am, clusterv1.ReadyCondition) {
		am.Status.Initialization.Provisioned = ptr.To(true)
	}
}

// setReadyCondition summarises: deleting, waiting, then resources, then the provider ID.
func setReadyCondition(am *infrav1.AzureMachine, s *scope) {
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	var first *infrav1.ResourceStatus
	if s.result != nil {
		first = s.result.FirstNotReady()
	}
	switch {
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the machine's Azure resources"
		if first != nil {
			ready.Message = fmt.Sprintf("deleting the machine's Azure resources; %s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
		}
	case s.waiting != "":
		ready.Reason, ready.Message = s.waitingReason, s.waiting
	case s.result == nil:
		return // the pass ended early with an error: keep the last condition
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case ptr.Deref(am.Spec.ProviderID, "") == "":
		ready.Reason, ready.Message = infrav1.ProvisioningReason, "waiting for ASO to report the VM's resource ID"
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(am, ready)
}
