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
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
)

// takeOver handles a machine whose VM exists in Azure (the AzureMachine has its provider ID) without an ASO object
// the provider made: one CAPZ made, before a switch from CAPZ (docs/migrating-from-capz.md). Its VM and network
// interfaces become adoptable, so that the engine has ASO read them before anything is written; once it has, the
// values Azure changes only on a deallocated VM are kept, and so are the deliberate differences from CAPZ until the
// user opts in with ApplyCAPZDifferencesAnnotation.
func (r *Reconciler) takeOver(ctx context.Context, s *scope, resources []azure.Resource) error {
	am := s.azureMachine
	if ptr.Deref(am.Spec.ProviderID, "") == "" {
		return nil
	}
	vm, err := r.Engine.Read(ctx, am.Namespace, compute.VirtualMachineRef(compute.VMName(am)))
	if err != nil || (vm != nil && !aso.AdoptionRecorded(vm)) {
		// The provider made this VM.
		return err
	}
	s.takingOver = true
	var nics []azure.Object
	for _, nic := range compute.AdoptMachine(resources) {
		live, err := r.Engine.Read(ctx, am.Namespace, nic)
		if err != nil {
			return err
		}
		nics = append(nics, live)
	}
	taken := compute.TakenOverFrom(vm, nics)
	taken.ApplyDifferences = am.Annotations[infrav1.ApplyCAPZDifferencesAnnotation] == "true"
	s.capzDifferences = taken.Keep(resources)
	if len(s.capzDifferences) > 0 && r.Engine.Events != nil {
		r.Engine.Events.Eventf(am, nil, corev1.EventTypeNormal, infrav1.AwaitingOptInReason, "TakeOver", "%s", capzDifferencesMessage(s.capzDifferences))
	}
	return nil
}

// capzDifferencesMessage tells the deliberate differences that wait for the user's opt-in, and how to opt in.
func capzDifferencesMessage(differences []string) string {
	return fmt.Sprintf("kept as CAPZ made them until the annotation %s: \"true\" opts into the provider's values: %s",
		infrav1.ApplyCAPZDifferencesAnnotation, strings.Join(differences, "; "))
}

// capzDifferencesCondition is the CAPZDifferencesApplied condition of a machine taken over from CAPZ.
func capzDifferencesCondition(s *scope) metav1.Condition {
	if len(s.capzDifferences) > 0 {
		return metav1.Condition{Type: infrav1.CAPZDifferencesAppliedCondition, Status: metav1.ConditionFalse,
			Reason: infrav1.AwaitingOptInReason, Message: capzDifferencesMessage(s.capzDifferences)}
	}
	return metav1.Condition{Type: infrav1.CAPZDifferencesAppliedCondition, Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason}
}
