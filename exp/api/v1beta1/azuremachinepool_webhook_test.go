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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// causePaths lists the field paths a webhook's API error names, or nil for no error.
func causePaths(err error) []string {
	if err == nil {
		return nil
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil {
		return []string{"not a field error: " + err.Error()}
	}
	var paths []string
	for _, c := range status.Status().Details.Causes {
		paths = append(paths, c.Field)
	}
	return paths
}

// newMachinePool returns a defaulted, valid AzureMachinePool, changed by the given functions before defaulting.
func newMachinePool(t *testing.T, changes ...func(*AzureMachinePool)) *AzureMachinePool {
	p := &AzureMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: "ns"},
		Spec: AzureMachinePoolSpec{
			Location: "eastus",
			Template: AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3"},
		},
	}
	for _, change := range changes {
		change(p)
	}
	if err := p.SetDefaults(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAzureMachinePool_SetDefaults(t *testing.T) {
	g := NewWithT(t)
	p := newMachinePool(t, func(p *AzureMachinePool) {
		p.Spec.Identity = infrav1.VMIdentitySystemAssigned
		p.Spec.Template.SubnetName = "nodes"
		p.Spec.Template.AcceleratedNetworking = ptr.To(true)
		p.Spec.Template.DataDisks = []infrav1.DataDisk{{NameSuffix: "etcd", DiskSizeGB: 64, Lun: ptr.To[int32](0)}, {NameSuffix: "data", DiskSizeGB: 64}}
		p.Spec.Template.Image = &infrav1.Image{Marketplace: &infrav1.AzureMarketplaceImage{}}
		p.Spec.Template.SpotVMOptions = &infrav1.SpotVMOptions{}
		p.Spec.ASOPatches = []infrav1.ASOPatch{{Target: infrav1.ASOPatchTarget{Kind: "VirtualMachineScaleSet"}, Patch: "{}"}}
	})
	s := p.Spec
	g.Expect(infrav1.ValidateSSHPublicKey(nil, s.Template.SSHPublicKey)).To(BeEmpty(), "a key is generated")
	g.Expect(s.Template.SSHPublicKey).NotTo(BeEmpty())
	g.Expect(s.Template.OSDisk.OSType).To(Equal("Linux"))
	g.Expect(s.Template.OSDisk.CachingType).To(Equal("None"))
	g.Expect(s.Template.Diagnostics.Boot.StorageAccountType).To(Equal(infrav1.ManagedDiagnosticsStorage))
	g.Expect(s.Template.SpotVMOptions.EvictionPolicy).To(HaveValue(Equal(infrav1.SpotEvictionPolicyDeallocate)))
	g.Expect(s.Template.Image.Marketplace.Version).To(Equal("latest"))
	g.Expect(s.Template.DataDisks[1].Lun).To(HaveValue(BeEquivalentTo(1)), "the next free LUN")
	g.Expect(s.Template.DataDisks[1].CachingType).To(Equal("ReadWrite"))
	g.Expect(s.Template.NetworkInterfaces).To(Equal([]infrav1.NetworkInterface{{SubnetName: "nodes", AcceleratedNetworking: ptr.To(true), PrivateIPConfigs: 1}}))
	g.Expect(s.Template.SubnetName).To(BeEmpty())
	g.Expect(s.Template.AcceleratedNetworking).To(BeNil())
	g.Expect(s.SystemAssignedIdentityRole.Name).To(Equal(infrav1.StableGUID("AzureMachinePool/ns/pool")))
	g.Expect(s.SystemAssignedIdentityRole.Name).NotTo(Equal(infrav1.StableGUID("ns/pool")), "not the GUID of an AzureMachine of the same name")
	g.Expect(s.OrchestrationMode).To(Equal(UniformOrchestrationMode))
	g.Expect(s.Strategy).To(Equal(AzureMachinePoolDeploymentStrategy{
		Type: RollingUpdateAzureMachinePoolDeploymentStrategyType,
		RollingUpdate: &MachineRollingUpdateDeployment{
			MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0)), DeletePolicy: OldestDeletePolicyType,
		},
	}))
	g.Expect(s.ASOPatches[0].Type).To(Equal(infrav1.MergePatchType))

	again := p.DeepCopy()
	g.Expect(again.SetDefaults()).To(Succeed())
	g.Expect(again).To(Equal(p), "defaulting is idempotent")

	moved := newMachinePool(t, func(p *AzureMachinePool) {
		p.Spec.Identity, p.Spec.RoleAssignmentName = infrav1.VMIdentitySystemAssigned, "00000000-0000-0000-0000-000000000001"
	})
	g.Expect(moved.Spec.SystemAssignedIdentityRole.Name).To(Equal("00000000-0000-0000-0000-000000000001"))
	g.Expect(moved.Spec.RoleAssignmentName).To(BeEmpty(), "the deprecated field moves to systemAssignedIdentityRole.name")
}

func TestAzureMachinePool_ValidateCreate(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*AzureMachinePool)
		wantPaths []string
	}{
		{name: "defaulted pool is valid", change: func(*AzureMachinePool) {}},
		{name: "no location", change: func(p *AzureMachinePool) { p.Spec.Location = "" }, wantPaths: []string{"spec.location"}},
		{name: "no VM size", change: func(p *AzureMachinePool) { p.Spec.Template.VMSize = "" }, wantPaths: []string{"spec.template.vmSize"}},
		{name: "image with two sources", change: func(p *AzureMachinePool) {
			p.Spec.Template.Image = &infrav1.Image{ID: ptr.To("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/images/i"),
				Marketplace: &infrav1.AzureMarketplaceImage{}}
		}, wantPaths: []string{"spec.template.image"}},
		{name: "bad SSH key", change: func(p *AzureMachinePool) { p.Spec.Template.SSHPublicKey = "ssh-rsa AAAA" }, wantPaths: []string{"spec.template.sshPublicKey"}},
		{name: "OS disk too large", change: func(p *AzureMachinePool) { p.Spec.Template.OSDisk.DiskSizeGB = ptr.To[int32](5000) }, wantPaths: []string{"spec.template.osDisk.diskSizeGB"}},
		{name: "confidential VM disk encryption with encryption at host", change: func(p *AzureMachinePool) {
			p.Spec.Template.SecurityProfile = &infrav1.SecurityProfile{
				SecurityType: infrav1.SecurityTypesConfidentialVM, EncryptionAtHost: ptr.To(true),
				UefiSettings: &infrav1.UefiSettings{VTpmEnabled: ptr.To(true)},
			}
			p.Spec.Template.OSDisk.ManagedDisk = &infrav1.ManagedDiskParameters{SecurityProfile: &infrav1.VMDiskSecurityProfile{
				SecurityEncryptionType: infrav1.SecurityEncryptionTypeDiskWithVMGuestState,
			}}
		}, wantPaths: []string{"spec.template.securityProfile.encryptionAtHost"}},
		{name: "data disks with the same LUN", change: func(p *AzureMachinePool) {
			p.Spec.Template.DataDisks = []infrav1.DataDisk{
				{NameSuffix: "a", DiskSizeGB: 10, Lun: ptr.To[int32](1)}, {NameSuffix: "b", DiskSizeGB: 10, Lun: ptr.To[int32](1)},
			}
		}, wantPaths: []string{"spec.template.dataDisks[1].lun"}},
		{name: "user-managed diagnostics without a storage account", change: func(p *AzureMachinePool) {
			p.Spec.Template.Diagnostics = &infrav1.Diagnostics{Boot: &infrav1.BootDiagnostics{StorageAccountType: infrav1.UserManagedDiagnosticsStorage}}
		}, wantPaths: []string{"spec.template.diagnostics.boot.userManaged"}},
		{name: "extension names not unique", change: func(p *AzureMachinePool) {
			p.Spec.Template.VMExtensions = []infrav1.VMExtension{{Name: "ext", Publisher: "p", Version: "1"}, {Name: "ext", Publisher: "p", Version: "1"}}
		}, wantPaths: []string{"spec.template.vmExtensions[1].name"}},
		{name: "terminate notification too short", change: func(p *AzureMachinePool) {
			p.Spec.Template.TerminateNotificationTimeout = ptr.To[int32](4)
		}, wantPaths: []string{"spec.template.terminateNotificationTimeout"}},
		{name: "terminate notification too long", change: func(p *AzureMachinePool) {
			p.Spec.Template.TerminateNotificationTimeout = ptr.To[int32](16)
		}, wantPaths: []string{"spec.template.terminateNotificationTimeout"}},
		{name: "network interfaces and the deprecated subnet", change: func(p *AzureMachinePool) {
			p.Spec.Template.NetworkInterfaces = []infrav1.NetworkInterface{{SubnetName: "nodes"}}
			p.Spec.Template.SubnetName = "nodes"
		}, wantPaths: []string{"spec.template.subnetName"}},
		{name: "network interface with a bad subnet name", change: func(p *AzureMachinePool) {
			p.Spec.Template.NetworkInterfaces = []infrav1.NetworkInterface{{SubnetName: "nodes-"}}
		}, wantPaths: []string{"spec.template.networkInterfaces[0].subnetName"}},
		{name: "user-assigned identity without identities", change: func(p *AzureMachinePool) {
			p.Spec.Identity = infrav1.VMIdentityUserAssigned
		}, wantPaths: []string{"spec.userAssignedIdentities"}},
		{name: "identity role without a system-assigned identity", change: func(p *AzureMachinePool) {
			p.Spec.SystemAssignedIdentityRole = &infrav1.SystemAssignedIdentityRole{Name: "00000000-0000-0000-0000-000000000001"}
		}, wantPaths: []string{"spec.systemAssignedIdentityRole"}},
		{name: "bad tag", change: func(p *AzureMachinePool) { p.Spec.AdditionalTags = infrav1.Tags{"a?": "b"} }, wantPaths: []string{"spec.additionalTags[a?]"}},
		{name: "bad ASO patch", change: func(p *AzureMachinePool) {
			p.Spec.ASOPatches = []infrav1.ASOPatch{{Target: infrav1.ASOPatchTarget{Kind: "VirtualMachineScaleSet"}, Patch: "kind: Other"}}
		}, wantPaths: []string{"spec.asoPatches[0].patch"}},
		{name: "provider ID without scheme", change: func(p *AzureMachinePool) { p.Spec.ProviderID = "/subscriptions/s" }, wantPaths: []string{"spec.providerID"}},
		{name: "no fault domain", change: func(p *AzureMachinePool) { p.Spec.PlatformFaultDomainCount = ptr.To[int32](0) }, wantPaths: []string{"spec.platformFaultDomainCount"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := newMachinePool(t, tc.change)
			_, err := azureMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureMachinePool_OSDiskNamesTheTemplateSecurityProfile(t *testing.T) {
	g := NewWithT(t)
	p := newMachinePool(t, func(p *AzureMachinePool) {
		p.Spec.Template.OSDisk.ManagedDisk = &infrav1.ManagedDiskParameters{SecurityProfile: &infrav1.VMDiskSecurityProfile{
			SecurityEncryptionType: infrav1.SecurityEncryptionTypeVMGuestStateOnly,
		}}
	})
	_, err := azureMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
	g.Expect(causePaths(err)).To(ConsistOf("spec.template.osDisk.managedDisk.securityProfile"))
	g.Expect(err.Error()).To(ContainSubstring("spec.template.securityProfile.securityType"))
	g.Expect(err.Error()).NotTo(ContainSubstring(" spec.securityProfile"))
}

func TestAzureMachinePool_RollingUpdate(t *testing.T) {
	tests := []struct {
		name           string
		maxSurge       intstr.IntOrString
		maxUnavailable intstr.IntOrString
		wantPaths      []string
	}{
		{name: "one surge", maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)},
		{name: "percentages", maxSurge: intstr.FromString("25%"), maxUnavailable: intstr.FromString("10%")},
		{name: "only unavailability", maxSurge: intstr.FromInt32(0), maxUnavailable: intstr.FromString("100%")},
		{name: "both zero", maxSurge: intstr.FromInt32(0), maxUnavailable: intstr.FromInt32(0), wantPaths: []string{"spec.strategy.rollingUpdate.maxUnavailable"}},
		{name: "both zero percent", maxSurge: intstr.FromString("0%"), maxUnavailable: intstr.FromInt32(0), wantPaths: []string{"spec.strategy.rollingUpdate.maxUnavailable"}},
		{name: "negative surge", maxSurge: intstr.FromInt32(-1), maxUnavailable: intstr.FromInt32(1), wantPaths: []string{"spec.strategy.rollingUpdate.maxSurge"}},
		{name: "percentage above 100", maxSurge: intstr.FromString("150%"), maxUnavailable: intstr.FromInt32(0), wantPaths: []string{"spec.strategy.rollingUpdate.maxSurge"}},
		{name: "number as a string", maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromString("2"), wantPaths: []string{"spec.strategy.rollingUpdate.maxUnavailable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := newMachinePool(t, func(p *AzureMachinePool) {
				p.Spec.Strategy.RollingUpdate = &MachineRollingUpdateDeployment{MaxSurge: &tc.maxSurge, MaxUnavailable: &tc.maxUnavailable}
			})
			_, err := azureMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureMachinePool_ValidateUpdate(t *testing.T) {
	tests := []struct {
		name      string
		old       func(*AzureMachinePool)
		change    func(*AzureMachinePool)
		wantPaths []string
	}{
		{name: "VM size, image and tags change", change: func(p *AzureMachinePool) {
			p.Spec.Template.VMSize = "Standard_D4s_v3"
			p.Spec.Template.Image = &infrav1.Image{Marketplace: &infrav1.AzureMarketplaceImage{}}
			p.Spec.AdditionalTags = infrav1.Tags{"team": "a"}
		}},
		{name: "location", change: func(p *AzureMachinePool) { p.Spec.Location = "westus" }, wantPaths: []string{"spec.location"}},
		{name: "orchestration mode", change: func(p *AzureMachinePool) {
			p.Spec.OrchestrationMode = FlexibleOrchestrationMode
		}, wantPaths: []string{"spec.orchestrationMode"}},
		{name: "orchestration mode defaulted on an old object", old: func(p *AzureMachinePool) { p.Spec.OrchestrationMode = "" }, change: func(*AzureMachinePool) {}},
		{name: "provider ID set", change: func(p *AzureMachinePool) {
			p.Spec.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool"
		}},
		{name: "provider ID changed", old: func(p *AzureMachinePool) {
			p.Spec.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool"
		}, change: func(p *AzureMachinePool) {
			p.Spec.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/other"
		}, wantPaths: []string{"spec.providerID"}},
		{name: "role assignment name changed", old: func(p *AzureMachinePool) {
			p.Spec.Identity = infrav1.VMIdentitySystemAssigned
			p.Spec.SystemAssignedIdentityRole = &infrav1.SystemAssignedIdentityRole{Name: "00000000-0000-0000-0000-000000000001"}
		}, change: func(p *AzureMachinePool) {
			p.Spec.SystemAssignedIdentityRole.Name = "00000000-0000-0000-0000-000000000002"
		}, wantPaths: []string{"spec.systemAssignedIdentityRole.name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newMachinePool(t)
			if tc.old != nil {
				tc.old(old)
			}
			p := old.DeepCopy()
			tc.change(p)
			g.Expect(p.SetDefaults()).To(Succeed())
			_, err := azureMachinePoolWebhook{}.ValidateUpdate(context.Background(), old, p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureMachinePoolMachine_Validate(t *testing.T) {
	const providerID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/pool-x7k2p"
	const uniformID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3"
	model := &AzureMachinePoolMachineModel{Template: AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3"}, Version: "v1.34.1", FailureDomain: "1"}
	newMachine := func(providerID string, change func(*AzureMachinePoolMachineSpec)) *AzureMachinePoolMachine {
		m := &AzureMachinePoolMachine{
			ObjectMeta: metav1.ObjectMeta{Name: "pool-x7k2p", Namespace: "ns"},
			Spec:       AzureMachinePoolMachineSpec{ProviderID: providerID, Model: model.DeepCopy()},
		}
		if change != nil {
			change(&m.Spec)
		}
		return m
	}
	tests := []struct {
		name      string
		old       *AzureMachinePoolMachine
		machine   *AzureMachinePoolMachine
		wantPaths []string
	}{
		{name: "valid", machine: newMachine(providerID, nil)},
		{name: "no model", machine: newMachine(providerID, func(s *AzureMachinePoolMachineSpec) { s.Model = nil })},
		{name: "no provider ID", machine: newMachine("", nil), wantPaths: []string{"spec.providerID"}},
		{name: "provider ID without scheme", machine: newMachine("/subscriptions/s", nil), wantPaths: []string{"spec.providerID"}},
		{
			name:      "instance ID of a VM that is no scale set instance",
			machine:   newMachine(providerID, func(s *AzureMachinePoolMachineSpec) { s.InstanceID = "0" }),
			wantPaths: []string{"spec.instanceID"},
		},
		{
			name: "CAPZ's instance of a Uniform scale set: its instance ID, no model",
			machine: newMachine(uniformID, func(s *AzureMachinePoolMachineSpec) {
				s.InstanceID, s.Model = "3", nil
			}),
		},
		{
			name:      "instance ID of another instance",
			machine:   newMachine(uniformID, func(s *AzureMachinePoolMachineSpec) { s.InstanceID, s.Model = "4", nil }),
			wantPaths: []string{"spec.instanceID"},
		},
		{
			name:      "instance ID changed",
			old:       newMachine(uniformID, func(s *AzureMachinePoolMachineSpec) { s.InstanceID, s.Model = "3", nil }),
			machine:   newMachine(uniformID, func(s *AzureMachinePoolMachineSpec) { s.InstanceID, s.Model = "4", nil }),
			wantPaths: []string{"spec.instanceID", "spec.instanceID"},
		},
		{name: "provider ID changed", old: newMachine(providerID, nil), machine: newMachine(providerID+"1", nil), wantPaths: []string{"spec.providerID"}},
		{
			name: "model changed", old: newMachine(providerID, nil),
			machine:   newMachine(providerID, func(s *AzureMachinePoolMachineSpec) { s.Model.Version = "v1.35.0" }),
			wantPaths: []string{"spec.model"},
		},
		{name: "model removed", old: newMachine(providerID, nil), machine: newMachine(providerID, func(s *AzureMachinePoolMachineSpec) { s.Model = nil }), wantPaths: []string{"spec.model"}},
		{name: "model set later", old: newMachine(providerID, func(s *AzureMachinePoolMachineSpec) { s.Model = nil }), machine: newMachine(providerID, nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			var err error
			if tc.old == nil {
				_, err = azureMachinePoolMachineWebhook{}.ValidateCreate(context.Background(), tc.machine)
			} else {
				_, err = azureMachinePoolMachineWebhook{}.ValidateUpdate(context.Background(), tc.old, tc.machine)
			}
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

// TestAzureMachinePool_EveryDeletePolicy admits every delete policy in both modes: a Uniform scale set maps each
// to a scale-in policy of Azure's.
func TestAzureMachinePool_EveryDeletePolicy(t *testing.T) {
	for _, tc := range []struct {
		mode      OrchestrationModeType
		policy    AzureMachinePoolDeletePolicyType
		wantPaths []string
	}{
		{mode: UniformOrchestrationMode, policy: OldestDeletePolicyType},
		{mode: UniformOrchestrationMode, policy: NewestDeletePolicyType},
		{mode: UniformOrchestrationMode, policy: RandomDeletePolicyType},
		{mode: FlexibleOrchestrationMode, policy: NewestDeletePolicyType},
		{mode: FlexibleOrchestrationMode, policy: RandomDeletePolicyType},
	} {
		t.Run(string(tc.mode)+"-"+string(tc.policy), func(t *testing.T) {
			g := NewWithT(t)
			p := newMachinePool(t, func(p *AzureMachinePool) {
				p.Spec.OrchestrationMode = tc.mode
				p.Spec.Strategy.RollingUpdate = &MachineRollingUpdateDeployment{DeletePolicy: tc.policy}
			})
			_, err := azureMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureMachinePool_EveryFieldImplemented(t *testing.T) {
	g := NewWithT(t)
	// Every field of the pool is implemented, even the ones its controller sets: a pool that sets all of them is
	// valid.
	p := newMachinePool(t, func(p *AzureMachinePool) {
		p.Spec.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool"
		p.Spec.ProviderIDList = []string{"azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/pool-1"}
		p.Spec.AdditionalTags = infrav1.Tags{"team": "a"}
		p.Spec.PlatformFaultDomainCount = ptr.To[int32](2)
		p.Spec.ZoneBalance = ptr.To(true)
		p.Spec.OrchestrationMode = FlexibleOrchestrationMode
		p.Spec.Template.TerminateNotificationTimeout = ptr.To[int32](5)
		p.Spec.Template.DisableVMBootstrapExtension = ptr.To(true)
	})
	_, err := azureMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
	g.Expect(err).NotTo(HaveOccurred())
}
