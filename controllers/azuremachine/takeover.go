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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// user opts in with infrav1.ApplyCAPZDifferencesAnnotation. Until then, the disks of a VM taken over from CAPZ keep
// CAPZ's delete option, so Azure leaves them when it deletes the VM: their ASO objects are added, only read while
// the machine lives and deleted in Azure after the VM when it is deleted (compute.DisksLeftByVM), as CAPZ deleted
// them with the machine. A VM of the user's (without the cluster's owned tag) has none: its disks stay the user's.
// It returns the resources with those disks.
func (r *Reconciler) takeOver(ctx context.Context, s *scope, resources []azure.Resource) ([]azure.Resource, error) {
	am := s.azureMachine
	if ptr.Deref(am.Spec.ProviderID, "") == "" {
		return resources, nil
	}
	vm, err := r.Engine.Read(ctx, am.Namespace, compute.VirtualMachineRef(compute.VMName(am)))
	if err != nil || (vm != nil && !aso.AdoptionRecorded(vm)) {
		// The provider made this VM.
		return resources, err
	}
	s.takingOver = true
	var nics []azure.Object
	for _, nic := range compute.AdoptMachine(resources) {
		live, err := r.Engine.Read(ctx, am.Namespace, nic)
		if err != nil {
			return resources, err
		}
		nics = append(nics, live)
	}
	taken := compute.TakenOverFrom(vm, nics)
	taken.ApplyDifferences = takeover.OptedIn(am)
	s.capzDifferences = taken.Keep(resources)
	takeover.Announce(r.Engine.Events, am, s.capzDifferences)
	if aso.TakesOver(vm, s.cluster.Name) {
		resources = append(resources, compute.DisksLeftByVM(vm, resources)...)
	}
	return resources, nil
}

// deletionCheckedAnnotation records on a deleted AzureMachine that its VM has an ASO object the deletion may remove
// (takeOverBeforeDelete): the provider made it, took it over, or found it the user's or gone from Azure.
const deletionCheckedAnnotation = "infrastructure.cluster.x-k8s.io/deletion-takeover-checked"

// takeOverBeforeDelete takes over, before its deletion, a machine whose VM another controller made (CAPZ, before a
// switch): the AzureMachine has its provider ID but no takeover is recorded yet (the machine was deleted by a
// rollout, a remediation or the autoscaler before the provider's first pass). The ASO objects the deletion removes
// are only those the provider made, so without them the VM, its interfaces, public IP and SSH rule would stay in
// Azure. The pass runs as a live one, so that the engine has ASO look the resources up and takes over those with the
// cluster's owned tag, as they are (takeOver); the deletion then deletes them through ASO. What ASO finds without
// the tag is the user's and stays in Azure; a VM Azure no longer has is not made again.
//
// Whether the takeover was needed is decided once, in the deletion's first passes, and recorded on the AzureMachine
// (deletionCheckedAnnotation): once the deletion has removed the VM's ASO object, a missing object means nothing.
func (r *Reconciler) takeOverBeforeDelete(ctx context.Context, s *scope) (bool, error) {
	am := s.azureMachine
	if ptr.Deref(am.Spec.ProviderID, "") == "" || am.Annotations[deletionCheckedAnnotation] == "true" {
		return true, nil
	}
	vm, err := r.Engine.Read(ctx, am.Namespace, compute.VirtualMachineRef(compute.VMName(am)))
	if err != nil {
		return false, err
	}
	if vm != nil {
		if _, known := aso.Adopted(vm); known || !aso.AdoptionRecorded(vm) || aso.MissingInAzure(vm) {
			// Taken over, the user's, made by the provider, or gone from Azure: the deletion does the rest. The
			// pass's patch records it before the deletion of the VM's object can be seen.
			metav1.SetMetaDataAnnotation(&am.ObjectMeta, deletionCheckedAnnotation, "true")
			if !aso.TakenOver(vm) {
				return true, nil
			}
			// A VM taken over (by this deletion, or by an earlier release that gave its disks no objects): one more
			// live pass applies the objects of the disks CAPZ deleted with the machine (takeOver), which the
			// deletion then deletes after the VM; the annotation's patch brings the next pass.
			return false, r.runPhases(ctx, s)
		}
	}
	return false, r.runPhases(ctx, s)
}

// runPhases runs the phases of a live pass that apply the machine's objects, until one fails or waits.
func (r *Reconciler) runPhases(ctx context.Context, s *scope) error {
	for _, phase := range []func(context.Context, *scope) error{r.reconcileClusterInfrastructure, r.reconcileBootstrapData, r.reconcileResources} {
		if err := phase(ctx, s); err != nil || s.Waiting.Reason != "" {
			return err
		}
	}
	return nil
}
