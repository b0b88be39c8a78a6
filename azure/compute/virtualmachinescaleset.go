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

package compute

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/core"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/azure/skus"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

const (
	// maxWindowsComputerNamePrefix is the longest computer name prefix of a Windows scale set: Azure appends six
	// characters to make a 15-character NetBIOS name.
	maxWindowsComputerNamePrefix = 9
	// flexibleFaultDomainCount is the fault domain count of a Flexible scale set that names none: Azure spreads
	// its VMs as it can (max spreading).
	flexibleFaultDomainCount = 1
)

// VirtualMachineScaleSet returns the machine pool's scale set in the cluster's resource group.
//
// A Flexible scale set holds no VM model: it groups the VMs that ReplicaResources makes, one per instance, and
// sets their fault domains and zones. One taken over from CAPZ keeps CAPZ's VM model (FlexibleWithProfile) and is
// made as a Uniform one, without the upgrade policy and overprovisioning CAPZ sets on Uniform ones only.
//
// A Uniform scale set makes its instances itself: sku.capacity is the MachinePool's replica count and the VM
// profile holds everything an AzureMachine's VM would (size, image, disks, OS profile with the bootstrap data as
// custom data, network interfaces, identity, extensions, spot, security and diagnostics profiles, terminate
// notifications). Its upgrade policy is Manual: the provider, not Azure, rolls
// the instances (by capacity, see the AzureMachinePool controller), so Azure never reimages a running instance,
// and scale-in removes the instances strategy.rollingUpdate.deletePolicy chooses (the oldest while rolling out).
func VirtualMachineScaleSet(in ScaleSetInput) *asocompute.VirtualMachineScaleSet {
	c, spec := in.cluster(), in.Spec
	vmss := &asocompute.VirtualMachineScaleSet{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec: asocompute.VirtualMachineScaleSet_Spec{
			AzureName:            in.Name,
			Owner:                c.ResourceGroupOwner(),
			Location:             ptr.To(c.Location),
			ExtendedLocation:     vmExtendedLocation(c),
			SinglePlacementGroup: ptr.To(false),
			Zones:                in.Zones,
			Tags:                 c.NamedTags(in.Name, azure.RoleNode, c.MachineTags(spec.AdditionalTags)),
		},
	}
	if n := spec.PlatformFaultDomainCount; n != nil {
		vmss.Spec.PlatformFaultDomainCount = ptr.To(int(*n))
	}
	if spec.ZoneBalance != nil && len(in.Zones) > 1 {
		// Azure refuses zoneBalance on a scale set of fewer than two zones, where there is nothing to balance.
		vmss.Spec.ZoneBalance = ptr.To(*spec.ZoneBalance)
	}
	flexible := spec.OrchestrationMode == infrav1exp.FlexibleOrchestrationMode
	if flexible {
		vmss.Spec.OrchestrationMode = ptr.To(asocompute.OrchestrationMode_Flexible)
		if vmss.Spec.PlatformFaultDomainCount == nil {
			vmss.Spec.PlatformFaultDomainCount = ptr.To(flexibleFaultDomainCount)
		}
		if !in.FlexibleWithProfile {
			return vmss
		}
	} else {
		vmss.Spec.OrchestrationMode = ptr.To(asocompute.OrchestrationMode_Uniform)
		// CAPZ sets them only on a Uniform scale set (azure/services/scalesets/spec.go).
		vmss.Spec.Overprovision = ptr.To(false)
		vmss.Spec.UpgradePolicy = &asocompute.UpgradePolicy{Mode: ptr.To(asocompute.UpgradePolicy_Mode_Manual)}
	}
	t := spec.Template
	machine := in.machineSpec()
	vmss.Spec.Sku = &asocompute.Sku{Name: ptr.To(t.VMSize), Tier: ptr.To("Standard"), Capacity: ptr.To(int(in.Capacity))}
	vmss.Spec.ScaleInPolicy = &asocompute.ScaleInPolicy{Rules: []asocompute.ScaleInPolicy_Rules{scaleInRule(spec.Strategy, in.RollingOut)}}
	vmss.Spec.Plan = imagePlan(t.Image)
	vmss.Spec.AdditionalCapabilities = additionalCapabilities(machine)
	vmss.Spec.Identity = scaleSetIdentity(spec)
	vmss.Spec.VirtualMachineProfile = &asocompute.VirtualMachineScaleSetVMProfile{
		OsProfile:              scaleSetOSProfile(in),
		StorageProfile:         scaleSetStorageProfile(in),
		NetworkProfile:         scaleSetNetworkProfile(in),
		SecurityProfile:        securityProfile(t.SecurityProfile),
		DiagnosticsProfile:     diagnosticsProfile(t.Diagnostics),
		ScheduledEventsProfile: scheduledEventsProfile(t.TerminateNotificationTimeout),
		ExtensionProfile:       scaleSetExtensionProfile(in),
	}
	if flexible {
		// The API version of the network interfaces Azure makes for a Flexible scale set's VMs, as CAPZ v1.26.0 sets it
		// (azure/services/scalesets/spec.go).
		vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkApiVersion = ptr.To(asocompute.VirtualMachineScaleSetNetworkProfile_NetworkApiVersion_20201101)
	}
	if in.BootstrapData != nil {
		vmss.Spec.Tags[CustomDataHashTagKey] = customDataHash(*vmss.Spec.VirtualMachineProfile.OsProfile.CustomData)
	}
	if o := t.SpotVMOptions; o != nil {
		profile := vmss.Spec.VirtualMachineProfile
		profile.Priority = ptr.To(asocompute.Priority_Spot)
		if o.EvictionPolicy != nil {
			profile.EvictionPolicy = ptr.To(asocompute.EvictionPolicy(*o.EvictionPolicy))
		}
		profile.BillingProfile = &asocompute.BillingProfile{MaxPrice: ptr.To(maxPrice(o))}
	}
	if spec.Identity == infrav1.VMIdentitySystemAssigned {
		vmss.Spec.OperatorSpec = &asocompute.VirtualMachineScaleSetOperatorSpec{
			ConfigMapExpressions: []*core.DestinationExpression{{
				Name:  PrincipalIDConfigMapName(in.Name),
				Key:   PrincipalIDKey,
				Value: "self.status.identity.principalId",
			}},
		}
	}
	return vmss
}

// CustomDataHashTagKey is the tag CAPZ puts on a Uniform scale set: the SHA-256 of its custom data (Azure never
// returns custom data). The provider keeps it for parity; it does not read it.
const CustomDataHashTagKey = "capz-custom-data-hash"

// customDataHash is the hex SHA-256 of a scale set's (base64) custom data, as CAPZ computes it.
func customDataHash(customData string) string {
	sum := sha256.Sum256([]byte(customData))
	return hex.EncodeToString(sum[:])
}

// scaleInRule is the scale-in policy for the delete policy of a rolling update: Azure removes the oldest or the
// newest instances, or, for Random, those its default policy picks (balancing zones and fault domains, then the
// newest). While the pool rolls out, the rollout's scale-in must remove the outdated instances, which are the
// oldest, so the policy is OldestVM until it is over.
func scaleInRule(st infrav1exp.AzureMachinePoolDeploymentStrategy, rollingOut bool) asocompute.ScaleInPolicy_Rules {
	switch ScaleInPolicy(st, rollingOut) {
	case infrav1exp.NewestDeletePolicyType:
		return asocompute.ScaleInPolicy_Rules_NewestVM
	case infrav1exp.RandomDeletePolicyType:
		return asocompute.ScaleInPolicy_Rules_Default
	}
	return asocompute.ScaleInPolicy_Rules_OldestVM
}

// ScaleInPolicy is the delete policy a Uniform scale set's scale-in follows: the rolling update's (Oldest when it
// names none), or Oldest while the pool rolls out.
func ScaleInPolicy(st infrav1exp.AzureMachinePoolDeploymentStrategy, rollingOut bool) infrav1exp.AzureMachinePoolDeletePolicyType {
	if rollingOut || st.RollingUpdate == nil || st.RollingUpdate.DeletePolicy == "" {
		return infrav1exp.OldestDeletePolicyType
	}
	return st.RollingUpdate.DeletePolicy
}

// scaleSetIdentity returns the scale set's managed identity, shared by its instances.
func scaleSetIdentity(spec infrav1exp.AzureMachinePoolSpec) *asocompute.VirtualMachineScaleSetIdentity {
	switch spec.Identity {
	case infrav1.VMIdentitySystemAssigned:
		return &asocompute.VirtualMachineScaleSetIdentity{Type: ptr.To(asocompute.VirtualMachineScaleSetIdentity_Type_SystemAssigned)}
	case infrav1.VMIdentityUserAssigned:
		id := &asocompute.VirtualMachineScaleSetIdentity{Type: ptr.To(asocompute.VirtualMachineScaleSetIdentity_Type_UserAssigned)}
		for _, uai := range spec.UserAssignedIdentities {
			id.UserAssignedIdentities = append(id.UserAssignedIdentities, asocompute.UserAssignedIdentityDetails{
				Reference: genruntime.ResourceReference{ARMID: strings.TrimPrefix(uai.ProviderID, azure.ProviderIDScheme)},
			})
		}
		return id
	}
	return nil
}

// scaleSetOSProfile returns the computer name prefix, admin user, credentials and custom data of the instances.
// The custom data stays in the model: every instance Azure adds later boots from it.
func scaleSetOSProfile(in ScaleSetInput) *asocompute.VirtualMachineScaleSetOSProfile {
	t := in.Spec.Template
	profile := &asocompute.VirtualMachineScaleSetOSProfile{
		ComputerNamePrefix: ptr.To(computerNamePrefix(in.Name, t.OSDisk.OSType)),
		AdminUsername:      ptr.To(AdminUsername),
	}
	if in.BootstrapData != nil {
		profile.CustomData = ptr.To(base64.StdEncoding.EncodeToString(in.BootstrapData))
	}
	if t.OSDisk.OSType == azure.WindowsOS {
		profile.AdminPassword = &genruntime.SecretReference{Name: WindowsPasswordSecretName(in.Name), Key: WindowsPasswordKey}
		profile.WindowsConfiguration = &asocompute.WindowsConfiguration{EnableAutomaticUpdates: ptr.To(false)}
		return profile
	}
	profile.LinuxConfiguration = &asocompute.LinuxConfiguration{
		DisablePasswordAuthentication: ptr.To(true),
		Ssh: &asocompute.SshConfiguration{PublicKeys: []asocompute.SshPublicKeySpec{{
			Path:    ptr.To("/home/" + AdminUsername + "/.ssh/authorized_keys"),
			KeyData: ptr.To(sshPublicKey(t.SSHPublicKey)),
		}}},
	}
	return profile
}

// computerNamePrefix is the host name prefix of the instances: the scale set's name, as CAPZ has it. Only the scale
// set of a Windows pool named by an earlier release (ScaleSetName) has a longer name; its prefix, cut to what Windows
// allows, stays as it was made.
func computerNamePrefix(name, osType string) string {
	if osType != azure.WindowsOS || len(name) <= maxWindowsComputerNamePrefix {
		return name
	}
	return strings.TrimRight(name[:maxWindowsComputerNamePrefix], "-")
}

// scaleSetStorageProfile returns the image and the disks of the instances, the data disks named like an
// AzureMachine's after the scale set.
func scaleSetStorageProfile(in ScaleSetInput) *asocompute.VirtualMachineScaleSetStorageProfile {
	t := in.Spec.Template
	image := t.Image
	if image == nil {
		image = DefaultImage(t.OSDisk.OSType, in.KubernetesVersion)
	}
	osType := asocompute.VirtualMachineScaleSetOSDisk_OsType_Linux
	if t.OSDisk.OSType == azure.WindowsOS {
		osType = asocompute.VirtualMachineScaleSetOSDisk_OsType_Windows
	}
	osDisk := &asocompute.VirtualMachineScaleSetOSDisk{
		OsType:           ptr.To(osType),
		CreateOption:     ptr.To(asocompute.CreateOption_FromImage),
		Caching:          caching(t.OSDisk.CachingType),
		ManagedDisk:      scaleSetManagedDisk(t.OSDisk.ManagedDisk),
		DiffDiskSettings: diffDiskSettings(t.OSDisk.DiffDiskSettings),
	}
	if size := t.OSDisk.DiskSizeGB; size != nil {
		osDisk.DiskSizeGB = ptr.To(int(*size))
	}
	profile := &asocompute.VirtualMachineScaleSetStorageProfile{ImageReference: imageReference(image), OsDisk: osDisk}
	for _, d := range t.DataDisks {
		disk := asocompute.VirtualMachineScaleSetDataDisk{
			Name:         ptr.To(infrav1.DataDiskName(in.Name, d.NameSuffix)),
			DiskSizeGB:   ptr.To(int(d.DiskSizeGB)),
			CreateOption: ptr.To(asocompute.CreateOption_Empty),
			Caching:      caching(d.CachingType),
			ManagedDisk:  scaleSetManagedDisk(d.ManagedDisk),
		}
		if d.Lun != nil {
			disk.Lun = ptr.To(int(*d.Lun))
		}
		profile.DataDisks = append(profile.DataDisks, disk)
	}
	return profile
}

// scaleSetManagedDisk returns the managed disk parameters of a disk of the instances.
func scaleSetManagedDisk(p *infrav1.ManagedDiskParameters) *asocompute.VirtualMachineScaleSetManagedDiskParameters {
	vm := managedDisk(p)
	if vm == nil {
		return nil
	}
	return &asocompute.VirtualMachineScaleSetManagedDiskParameters{
		StorageAccountType: vm.StorageAccountType, DiskEncryptionSet: vm.DiskEncryptionSet, SecurityProfile: vm.SecurityProfile,
	}
}

// scaleSetNetworkProfile returns one network interface configuration per spec.template.networkInterfaces entry,
// each with privateIPConfigs IPv4 configurations in its subnet, named as CAPZ names them: <scale set>-nic-<i> and
// ipConfig<n>, the first of each primary. Only the primary configuration of the primary interface joins the load
// balancer pools, as in CAPZ.
func scaleSetNetworkProfile(in ScaleSetInput) *asocompute.VirtualMachineScaleSetNetworkProfile {
	c, t := in.cluster(), in.Spec.Template
	vnetGroup := in.VNet.ResourceGroup
	if vnetGroup == "" {
		vnetGroup = c.ResourceGroup
	}
	vnetID := azure.ResourceID(c.SubscriptionID, vnetGroup, azure.TypeVirtualNetwork, in.VNet.Name)
	interfaces := t.NetworkInterfaces
	if len(interfaces) == 0 {
		// Defaulting always leaves one interface; keep a pool that skipped it reachable all the same.
		interfaces = []infrav1.NetworkInterface{{SubnetName: t.SubnetName, AcceleratedNetworking: t.AcceleratedNetworking}}
	}
	// As CAPZ: a configuration that leaves accelerated networking unset takes the first interface's, else what the
	// VM size supports (nil: not sent).
	accelerated := interfaces[0].AcceleratedNetworking
	if accelerated == nil {
		accelerated = skus.AcceleratedNetworking(t.VMSize)
	}
	profile := &asocompute.VirtualMachineScaleSetNetworkProfile{}
	for i, nic := range interfaces {
		subnet := nic.SubnetName
		if subnet == "" {
			subnet = in.DefaultSubnet
		}
		// IP forwarding is on, as CAPZ has it for scale sets: CNIs that route pod traffic through the node need it.
		config := asocompute.VirtualMachineScaleSetNetworkConfiguration{
			Name:                        ptr.To(fmt.Sprintf("%s-nic-%d", in.Name, i)),
			EnableAcceleratedNetworking: nic.AcceleratedNetworking,
			EnableIPForwarding:          ptr.To(true),
		}
		if config.EnableAcceleratedNetworking == nil && accelerated != nil {
			config.EnableAcceleratedNetworking = ptr.To(*accelerated)
		}
		if i == 0 {
			config.Primary = ptr.To(true)
		}
		subnetRef := &asocompute.ApiEntityReference{Reference: &genruntime.ResourceReference{ARMID: azure.ChildID(vnetID, "subnets", subnet)}}
		for n := range max(nic.PrivateIPConfigs, 1) {
			ipConfig := asocompute.VirtualMachineScaleSetIPConfiguration{
				Name:                    ptr.To(fmt.Sprintf("ipConfig%d", n)),
				PrivateIPAddressVersion: ptr.To(asocompute.VirtualMachineScaleSetIPConfigurationProperties_PrivateIPAddressVersion_IPv4),
				Subnet:                  subnetRef,
			}
			if n == 0 {
				ipConfig.Primary = ptr.To(true)
			}
			if i == 0 && n == 0 {
				for _, pool := range in.BackendPools {
					lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, pool.LoadBalancer)
					ipConfig.LoadBalancerBackendAddressPools = append(ipConfig.LoadBalancerBackendAddressPools,
						asocompute.SubResource{Reference: &genruntime.ResourceReference{ARMID: azure.ChildID(lbID, "backendAddressPools", pool.Pool)}})
				}
			}
			config.IpConfigurations = append(config.IpConfigurations, ipConfig)
		}
		if slices.Contains(in.VNet.IPv6Subnets, subnet) {
			// Azure gives an instance its IPv6 address through a secondary configuration in the same subnet, named
			// as an AzureMachine's.
			config.IpConfigurations = append(config.IpConfigurations, asocompute.VirtualMachineScaleSetIPConfiguration{
				Name:                    ptr.To(network.IPv6ConfigName),
				Primary:                 ptr.To(false),
				PrivateIPAddressVersion: ptr.To(asocompute.VirtualMachineScaleSetIPConfigurationProperties_PrivateIPAddressVersion_IPv6),
				Subnet:                  subnetRef,
			})
		}
		profile.NetworkInterfaceConfigurations = append(profile.NetworkInterfaceConfigurations, config)
	}
	return profile
}

// scheduledEventsProfile turns on terminate notifications: Azure waits this many minutes before deleting an
// instance, so that the node can be drained.
func scheduledEventsProfile(minutes *int32) *asocompute.ScheduledEventsProfile {
	if minutes == nil {
		return nil
	}
	return &asocompute.ScheduledEventsProfile{TerminateNotificationProfile: &asocompute.TerminateNotificationProfile{
		Enable: ptr.To(true), NotBeforeTimeout: ptr.To(fmt.Sprintf("PT%dM", *minutes)),
	}}
}

// scaleSetExtensionProfile returns the extensions of the instances, like an AzureMachine's VM extensions: each of
// spec.template.vmExtensions, then the bootstrap extension (see bootstrapExtensionOf). Protected
// settings stay in Secrets (see ScaleSetSecrets).
func scaleSetExtensionProfile(in ScaleSetInput) *asocompute.VirtualMachineScaleSetExtensionProfile {
	t := in.Spec.Template
	profile := &asocompute.VirtualMachineScaleSetExtensionProfile{}
	for _, e := range t.VMExtensions {
		ext := scaleSetExtension(e.Name, e.Publisher, e.Version, e.Settings)
		if len(e.ProtectedSettings) > 0 {
			ext.ProtectedSettings = &genruntime.SecretMapReference{Name: ProtectedSettingsSecretName(in.Name, e.Name)}
		}
		profile.Extensions = append(profile.Extensions, ext)
	}
	if b, ok := bootstrapExtensionOf(in.Cluster, t.OSDisk.OSType, t.VMSize, t.DisableVMBootstrapExtension); ok {
		// CAPZ sends the command as a protected setting.
		ext := scaleSetExtension(b.name, BootstrapExtensionPublisher, b.version, nil)
		ext.ProtectedSettings = &genruntime.SecretMapReference{Name: ProtectedSettingsSecretName(in.Name, b.name)}
		profile.Extensions = append(profile.Extensions, ext)
	}
	// An empty profile, as CAPZ sends one.
	return profile
}

// scaleSetExtension returns an extension of the instances.
func scaleSetExtension(name, publisher, version string, settings map[string]string) asocompute.VirtualMachineScaleSetExtension {
	return asocompute.VirtualMachineScaleSetExtension{
		Name:               ptr.To(name),
		Publisher:          ptr.To(publisher),
		Type:               ptr.To(name),
		TypeHandlerVersion: ptr.To(version),
		Settings:           extensionSettings(settings),
	}
}
