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
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
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
	if s.takingOver {
		conditions.Set(am, takeover.Condition(s.capzDifferences))
	}
	if conditions.IsTrue(am, clusterv1.ReadyCondition) {
		am.Status.Initialization.Provisioned = ptr.To(true)
	}
}
