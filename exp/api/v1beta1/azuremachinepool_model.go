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

package v1beta1

import (
	"k8s.io/apimachinery/pkg/api/equality"
)

// Model is the model of a new instance of the pool (of a Flexible scale set): the settings of its spec the
// instance's VM is made of, the MachinePool's Kubernetes version (which selects the default image) and the
// instance's zone. The AzureMachinePool controller stores it in the instance's AzureMachinePoolMachine.
func (p *AzureMachinePool) Model(kubernetesVersion, zone string) AzureMachinePoolMachineModel {
	s := p.Spec.DeepCopy()
	return AzureMachinePoolMachineModel{
		Template:                   s.Template,
		AdditionalTags:             s.AdditionalTags,
		Identity:                   s.Identity,
		SystemAssignedIdentityRole: s.SystemAssignedIdentityRole,
		UserAssignedIdentities:     s.UserAssignedIdentities,
		Version:                    kubernetesVersion,
		FailureDomain:              zone,
	}
}

// UpToDate reports whether an instance's model is the pool's current one: everything but the zone, which is the
// instance's own, is what a new instance would get.
func (m *AzureMachinePoolMachineModel) UpToDate(p *AzureMachinePool, kubernetesVersion string) bool {
	want := p.Model(kubernetesVersion, m.FailureDomain)
	return equality.Semantic.DeepEqual(&want, m)
}
