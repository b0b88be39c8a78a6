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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// ProviderIDMismatchReason means ASO reports a VM ID other than the instance's provider ID.
const ProviderIDMismatchReason = "ProviderIDMismatch"

// familyConditions are the per-family conditions the engine reports for an instance's resources.
var familyConditions = []string{
	compute.FamilyNetworkInterfaces + "Ready", compute.FamilyVirtualMachine + "Ready",
	compute.FamilyVMExtensions + "Ready", compute.FamilyRoleAssignments + "Ready",
}

// ownedConditions are the conditions this controller writes.
func ownedConditions() []string {
	return append([]string{clusterv1.ReadyCondition, clusterv1.PausedCondition, infrav1.ResourcesReadyCondition,
		infrav1.PatchesAppliedCondition}, familyConditions...)
}

// updateStatus turns what the phases learned into the AzureMachinePoolMachine's status and conditions: one
// condition per family of its objects, and Ready, which Cluster API mirrors into its Machine.
func updateStatus(s *scope) {
	m := s.machine
	if s.result != nil {
		m.Status.Resources = s.result.Statuses()
		seen := map[string]bool{}
		for _, c := range s.result.Conditions() {
			conditions.Set(m, c)
			seen[c.Type] = true
		}
		for _, family := range familyConditions {
			if !seen[family] {
				conditions.Delete(m, family)
			}
		}
	}
	if model := m.Spec.Model; model != nil {
		m.Status.InstanceName = compute.ComputerName(m.Name, model.Template.OSDisk.OSType)
		m.Status.Version = model.Version
		if s.pool != nil && s.machinePool != nil {
			m.Status.LatestModelApplied = model.UpToDate(s.pool, s.machinePool.Spec.Template.Spec.Version)
		}
	}
	if s.provisioningState != "" {
		m.Status.ProvisioningState = s.provisioningState
	}
	setReadyCondition(m, s)
	if conditions.IsTrue(m, clusterv1.ReadyCondition) {
		m.Status.Initialization.Provisioned = ptr.To(true)
	}
	m.Status.Ready = conditions.IsTrue(m, clusterv1.ReadyCondition) && m.Status.LatestModelApplied
}

// setReadyCondition summarises: deleting, waiting, then resources, then the VM's ID.
func setReadyCondition(m *infrav1exp.AzureMachinePoolMachine, s *scope) {
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	var first *infrav1.ResourceStatus
	if s.result != nil {
		first = s.result.FirstNotReady()
	}
	switch {
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the instance's Azure resources"
		if first != nil {
			ready.Message = fmt.Sprintf("deleting the instance's Azure resources; %s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
		}
	case s.waiting != "":
		ready.Reason, ready.Message = s.waitingReason, s.waiting
	case s.result == nil:
		return // the pass ended early with an error: keep the last condition
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case s.vmID == "":
		ready.Reason, ready.Message = infrav1.ProvisioningReason, "waiting for ASO to report the VM's resource ID"
	case !strings.EqualFold("azure://"+s.vmID, m.Spec.ProviderID):
		// The provider ID was set when the instance was created, from the VM's name and the cluster's resource
		// group; ASO disagreeing means the VM is not where the Node will say it is.
		ready.Reason, ready.Message = ProviderIDMismatchReason, fmt.Sprintf("the VM's ID is %s, not %s as spec.providerID says", s.vmID, m.Spec.ProviderID)
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(m, ready)
}
