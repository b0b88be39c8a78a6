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
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // UUIDv5 is defined with SHA-1; it only derives a stable name.
	"encoding/base64"
	"fmt"

	"golang.org/x/crypto/ssh"
	"k8s.io/utils/ptr"
)

const (
	// ContributorRoleID is the ID of the built-in Contributor role, the default role of a VM's system-assigned
	// identity.
	ContributorRoleID = "b24988ac-6180-42a0-ab88-20f7382dd24c"

	// defaultCachingType is the caching of data disks when none is given.
	defaultCachingType = "ReadWrite"

	// ultraSSD is the storage account type of Ultra disks, which support no caching.
	ultraSSD = "UltraSSD_LRS"
)

// roleAssignmentNamespace is the UUIDv5 namespace of the stable role assignment names the provider derives.
var roleAssignmentNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x14, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// SetDefaults fills in CAPZ's AzureMachine defaults. A missing SSH key is generated, so that the VM always has
// one (Azure requires a key or a password for Linux), and the role assignment of a system-assigned identity gets
// a name derived from the machine, so that a retry never creates a second assignment.
func (m *AzureMachine) SetDefaults() error {
	m.Spec.setDefaults()
	if m.Spec.SSHPublicKey == "" {
		key, err := GenerateSSHPublicKey()
		if err != nil {
			return err
		}
		m.Spec.SSHPublicKey = key
	}
	if m.Spec.Identity == VMIdentitySystemAssigned {
		if m.Spec.SystemAssignedIdentityRole == nil {
			m.Spec.SystemAssignedIdentityRole = &SystemAssignedIdentityRole{}
		}
		role := m.Spec.SystemAssignedIdentityRole
		if role.Name == "" {
			role.Name = m.Spec.RoleAssignmentName
		}
		if role.Name == "" {
			role.Name = StableGUID(m.Namespace + "/" + m.Name)
		}
		m.Spec.RoleAssignmentName = ""
	}
	return nil
}

// setDefaults fills in the defaults that do not depend on the machine's identity; templates share them.
func (s *AzureMachineSpec) setDefaults() {
	if s.Identity == "" {
		s.Identity = VMIdentityNone
	}
	if s.OSDisk.OSType == "" {
		s.OSDisk.OSType = "Linux"
	}
	if s.OSDisk.CachingType == "" {
		s.OSDisk.CachingType = "None"
	}
	if s.Diagnostics == nil {
		s.Diagnostics = &Diagnostics{Boot: &BootDiagnostics{StorageAccountType: ManagedDiagnosticsStorage}}
	}
	if s.SpotVMOptions != nil && s.SpotVMOptions.EvictionPolicy == nil {
		policy := SpotEvictionPolicyDeallocate
		if s.OSDisk.DiffDiskSettings != nil {
			// Ephemeral OS disks cannot be deallocated.
			policy = SpotEvictionPolicyDelete
		}
		s.SpotVMOptions.EvictionPolicy = &policy
	}
	s.setDataDiskDefaults()
	s.setNetworkInterfaceDefaults()
	if s.Image != nil && s.Image.Marketplace != nil && s.Image.Marketplace.Version == "" {
		s.Image.Marketplace.Version = "latest"
	}
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = MergePatchType
		}
	}
}

// setDataDiskDefaults gives every data disk a free LUN and a caching type.
func (s *AzureMachineSpec) setDataDiskDefaults() {
	used := map[int32]bool{}
	for _, d := range s.DataDisks {
		if d.Lun != nil {
			used[*d.Lun] = true
		}
	}
	next := int32(0)
	for i := range s.DataDisks {
		d := &s.DataDisks[i]
		if d.Lun == nil {
			for used[next] {
				next++
			}
			d.Lun = ptr.To(next)
			used[next] = true
		}
		if d.CachingType == "" {
			if d.ManagedDisk != nil && d.ManagedDisk.StorageAccountType == ultraSSD {
				d.CachingType = "None"
			} else {
				d.CachingType = defaultCachingType
			}
		}
	}
}

// setNetworkInterfaceDefaults moves the deprecated subnetName and acceleratedNetworking into networkInterfaces.
func (s *AzureMachineSpec) setNetworkInterfaceDefaults() {
	if len(s.NetworkInterfaces) == 0 {
		s.NetworkInterfaces = []NetworkInterface{{
			SubnetName:            s.SubnetName,
			AcceleratedNetworking: s.AcceleratedNetworking,
		}}
		s.SubnetName = ""
		s.AcceleratedNetworking = nil
	}
	for i := range s.NetworkInterfaces {
		if s.NetworkInterfaces[i].PrivateIPConfigs == 0 {
			s.NetworkInterfaces[i].PrivateIPConfigs = 1
		}
	}
}

// GenerateSSHPublicKey returns a new base64-encoded OpenSSH ed25519 public key; its private key is discarded.
func GenerateSSHPublicKey() (string, error) {
	public, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("failed to generate an SSH key: %w", err)
	}
	key, err := ssh.NewPublicKey(public)
	if err != nil {
		return "", fmt.Errorf("failed to encode an SSH key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(ssh.MarshalAuthorizedKey(key)), nil
}

// StableGUID derives a version 5 UUID from a name, for Azure resources whose name must be a GUID.
func StableGUID(name string) string {
	h := sha1.New() //nolint:gosec // see import
	h.Write(roleAssignmentNamespace[:])
	h.Write([]byte(name))
	sum := h.Sum(nil)
	sum[6] = (sum[6] & 0x0f) | 0x50
	sum[8] = (sum[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}
