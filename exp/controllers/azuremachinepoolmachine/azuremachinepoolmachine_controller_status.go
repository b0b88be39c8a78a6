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

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// ProviderIDMismatchReason means ASO reports a VM ID other than the instance's provider ID.
const ProviderIDMismatchReason = "ProviderIDMismatch"

// updateStatus turns what the phases learned, and the pass's error, into the AzureMachinePoolMachine's status and
// conditions: one condition per family of its objects, and Ready, which Cluster API mirrors into its Machine.
func updateStatus(s *scope, err error) {
	m := s.machine
	if model := m.Spec.Model; model != nil {
		m.Status.InstanceName = compute.ComputerName(m.Name, model.Template.OSDisk.OSType)
		m.Status.Version = model.Version
		if s.pool != nil && s.machinePool != nil {
			m.Status.LatestModelApplied = model.UpToDate(s.pool, s.machinePool.Spec.Template.Spec.Version)
		}
	}
	if s.vm.ProvisioningState != "" {
		m.Status.ProvisioningState = s.vm.ProvisioningState
	}
	facts := s.Facts(err)
	switch {
	case s.Deleting != "":
		// Ready says what is deleted.
	case s.vm.ID == "":
		facts.Pending = lifecycle.Wait{Reason: infrav1.ProvisioningReason, Message: "waiting for ASO to report the VM's resource ID"}
	case !strings.EqualFold(azure.ProviderID(s.vm.ID), m.Spec.ProviderID):
		// The provider ID was set when the instance was created, from the VM's name and the cluster's resource
		// group; ASO disagreeing means the VM is not where the Node will say it is.
		facts.Pending = lifecycle.Wait{Reason: ProviderIDMismatchReason, Message: fmt.Sprintf("the VM's ID is %s, not %s as spec.providerID says", s.vm.ID, m.Spec.ProviderID)}
	case compute.VMCustomDataPending(s.Result, m.Name):
		facts.Pending = lifecycle.Wait{Reason: infrav1.ProvisioningReason, Message: compute.VMCustomDataPendingMessage}
	}
	lifecycle.SetConditions(m, facts)
	if conditions.IsTrue(m, clusterv1.ReadyCondition) {
		m.Status.Initialization.Provisioned = ptr.To(true)
	}
	m.Status.Ready = conditions.IsTrue(m, clusterv1.ReadyCondition) && m.Status.LatestModelApplied
}
