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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// SetDefaults fills in CAPZ's AzureMachinePool defaults, the same as an AzureMachine's for the VMs: a generated
// SSH key when there is none, a role assignment name derived from the pool for a system-assigned identity (so a
// retry never creates a second assignment), network interfaces from the deprecated fields, managed boot
// diagnostics. The rollout strategy defaults to a rolling update of one surge instance at a time.
func (p *AzureMachinePool) SetDefaults() error {
	s := &p.Spec
	if s.Template.SSHPublicKey == "" {
		key, err := infrav1.GenerateSSHPublicKey()
		if err != nil {
			return err
		}
		s.Template.SSHPublicKey = key
	}
	s.Template.setDefaults()
	if s.Identity == "" {
		s.Identity = infrav1.VMIdentityNone
	}
	if s.Identity == infrav1.VMIdentitySystemAssigned {
		if s.SystemAssignedIdentityRole == nil {
			s.SystemAssignedIdentityRole = &infrav1.SystemAssignedIdentityRole{}
		}
		role := s.SystemAssignedIdentityRole
		if role.Name == "" {
			role.Name, s.RoleAssignmentName = s.RoleAssignmentName, ""
		}
		if role.Name == "" {
			// The kind is part of the seed, so that an AzureMachine of the same name gets another GUID.
			role.Name = infrav1.StableGUID("AzureMachinePool/" + p.Namespace + "/" + p.Name)
		}
		if s.RoleAssignmentName == role.Name {
			s.RoleAssignmentName = ""
		}
	}
	if s.OrchestrationMode == "" {
		s.OrchestrationMode = UniformOrchestrationMode
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = RollingUpdateAzureMachinePoolDeploymentStrategyType
	}
	if s.Strategy.Type == RollingUpdateAzureMachinePoolDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &MachineRollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr.To(intstr.FromInt32(1))
		}
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr.To(intstr.FromInt32(0))
		}
		if ru.DeletePolicy == "" {
			ru.DeletePolicy = OldestDeletePolicyType
		}
	}
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = infrav1.MergePatchType
		}
	}
	return nil
}

// setDefaults fills in the VM defaults an AzureMachine gets for the same settings.
func (t *AzureMachinePoolMachineTemplate) setDefaults() {
	if t.OSDisk.OSType == "" {
		t.OSDisk.OSType = "Linux"
	}
	if t.OSDisk.CachingType == "" {
		t.OSDisk.CachingType = "None"
	}
	if t.Diagnostics == nil {
		t.Diagnostics = &infrav1.Diagnostics{}
	}
	if t.Diagnostics.Boot == nil {
		t.Diagnostics.Boot = &infrav1.BootDiagnostics{StorageAccountType: infrav1.ManagedDiagnosticsStorage}
	}
	if t.SpotVMOptions != nil && t.SpotVMOptions.EvictionPolicy == nil {
		policy := infrav1.SpotEvictionPolicyDeallocate
		if t.OSDisk.DiffDiskSettings != nil {
			// Ephemeral OS disks cannot be deallocated.
			policy = infrav1.SpotEvictionPolicyDelete
		}
		t.SpotVMOptions.EvictionPolicy = &policy
	}
	if t.Image != nil && t.Image.Marketplace != nil && t.Image.Marketplace.Version == "" {
		t.Image.Marketplace.Version = "latest"
	}
	infrav1.SetDataDiskDefaults(t.DataDisks)
	infrav1.SetNetworkInterfaceDefaults(&t.NetworkInterfaces, &t.SubnetName, &t.AcceleratedNetworking)
}
