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

	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/internal/takeover"
)

// takeOver handles a machine whose VM exists in Azure (the AzureMachine has its provider ID) without an ASO object
// the provider made: one CAPZ made, before a switch from CAPZ (docs/migrating-from-capz.md). Its VM and network
// interfaces become adoptable, so that the engine has ASO read them before anything is written; once it has, the
// values Azure changes only on a deallocated VM are kept, and so are the deliberate differences from CAPZ until the
// user opts in with infrav1.ApplyCAPZDifferencesAnnotation.
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
	taken.ApplyDifferences = takeover.OptedIn(am)
	s.capzDifferences = taken.Keep(resources)
	takeover.Announce(r.Engine.Events, am, s.capzDifferences)
	return nil
}
