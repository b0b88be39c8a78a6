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
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/core"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

const (
	// AdminUsername is the admin user of every VM, as in CAPZ.
	AdminUsername = "capi"

	// DefaultImageGallery is the community gallery of CAPZ's reference images; its images are named below and
	// versioned by Kubernetes version.
	DefaultImageGallery = "ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019"
	// DefaultLinuxImage is the reference image of Linux machines.
	DefaultLinuxImage = "capi-ubun2-2404"
	// DefaultWindowsImage is the reference image of Windows machines.
	DefaultWindowsImage = "capi-win-2022-containerd"

	// PrincipalIDKey is the key of the ConfigMap into which ASO exports the principal ID of a VM's
	// system-assigned identity (see PrincipalIDConfigMapName).
	PrincipalIDKey = "principalId"

	// ultraSSD is the storage account type of Ultra disks.
	ultraSSD = "UltraSSD_LRS"
	// maxWindowsComputerName is the longest Windows computer name (a NetBIOS name).
	maxWindowsComputerName = 15
	// onDemandPrice is the maximum price of a spot VM that pays up to the on-demand price.
	onDemandPrice = -1
)

// VirtualMachine returns the machine's VM in the cluster's resource group: its size, image, disks, OS profile,
// network interfaces (by Kubernetes reference), identity, spot options, security and diagnostics profiles, zone,
// capacity reservation group, scale set or availability set, and terminate notifications. The bootstrap data is the VM's custom data,
// and nothing else, while in.BootstrapData is set; a Windows VM reads its admin password from
// WindowsPasswordSecret. A VM with a system-assigned identity exports the identity's principal ID into
// PrincipalIDConfigMapName for its role assignment.
func VirtualMachine(in MachineInput) *asocompute.VirtualMachine {
	c, spec := in.Cluster, in.Spec
	vm := &asocompute.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec: asocompute.VirtualMachine_Spec{
			AzureName:              in.Name,
			Owner:                  c.ResourceGroupOwner(),
			Location:               ptr.To(c.Location),
			ExtendedLocation:       vmExtendedLocation(c),
			HardwareProfile:        &asocompute.HardwareProfile{VmSize: ptr.To(spec.VMSize)},
			Plan:                   imagePlan(spec.Image),
			StorageProfile:         storageProfile(in),
			AdditionalCapabilities: additionalCapabilities(spec),
			OsProfile:              osProfile(in),
			NetworkProfile:         networkProfile(in),
			Identity:               identity(spec),
			SecurityProfile:        securityProfile(spec.SecurityProfile),
			DiagnosticsProfile:     diagnosticsProfile(spec.Diagnostics),
			Zones:                  zones(in.Zone),
			Tags:                   c.NamedTags(in.Name, in.Role, c.MachineTags(spec.AdditionalTags)),
		},
	}
	if o := spec.SpotVMOptions; o != nil {
		vm.Spec.Priority = ptr.To(asocompute.Priority_Spot)
		if o.EvictionPolicy != nil {
			vm.Spec.EvictionPolicy = ptr.To(asocompute.EvictionPolicy(*o.EvictionPolicy))
		}
		vm.Spec.BillingProfile = &asocompute.BillingProfile{MaxPrice: ptr.To(maxPrice(o))}
	}
	if id := ptr.Deref(spec.CapacityReservationGroupID, ""); id != "" {
		vm.Spec.CapacityReservation = &asocompute.CapacityReservationProfile{CapacityReservationGroup: armSubResource(id)}
	}
	if spec.VirtualMachineScaleSetID != "" {
		vm.Spec.VirtualMachineScaleSet = armSubResource(spec.VirtualMachineScaleSetID)
	}
	if in.ScaleSet != "" {
		// A Kubernetes reference: ASO waits for the scale set before it creates the VM.
		vm.Spec.VirtualMachineScaleSet = &asocompute.SubResource{Reference: &genruntime.ResourceReference{
			Group: asocompute.GroupVersion.Group, Kind: "VirtualMachineScaleSet", Name: azure.ObjectName(in.ScaleSet),
		}}
	}
	if in.AvailabilitySet != "" {
		// A Kubernetes reference: ASO waits for the availability set before it creates the VM.
		vm.Spec.AvailabilitySet = &asocompute.SubResource{Reference: availabilitySetReference(in.AvailabilitySet)}
	}
	vm.Spec.ScheduledEventsProfile = scheduledEventsProfile(in.TerminateNotificationTimeout)
	if spec.Identity == infrav1.VMIdentitySystemAssigned {
		vm.Spec.OperatorSpec = &asocompute.VirtualMachineOperatorSpec{
			ConfigMapExpressions: []*core.DestinationExpression{{
				Name:  PrincipalIDConfigMapName(in.Name),
				Key:   PrincipalIDKey,
				Value: "self.status.identity.principalId",
			}},
		}
	}
	return vm
}

// PrincipalIDConfigMapName is the ConfigMap into which ASO exports the principal ID of a VM's system-assigned
// identity; ASO creates it, owned by the VM.
func PrincipalIDConfigMapName(vm string) string { return azure.ObjectName(vm, "identity") }

// principalIDConfigMap references the exported principal ID of a VM's system-assigned identity.
func principalIDConfigMap(vm string) genruntime.ConfigMapReference {
	return genruntime.ConfigMapReference{Name: PrincipalIDConfigMapName(vm), Key: PrincipalIDKey}
}

// DefaultImage is CAPZ's reference image for a Kubernetes version: an image of the community gallery
// DefaultImageGallery whose version is the Kubernetes version without its leading "v".
func DefaultImage(osType, kubernetesVersion string) *infrav1.Image {
	name := DefaultLinuxImage
	if osType == azure.WindowsOS {
		name = DefaultWindowsImage
	}
	return &infrav1.Image{ComputeGallery: &infrav1.AzureComputeGalleryImage{
		Gallery: DefaultImageGallery,
		Name:    name,
		Version: strings.TrimPrefix(strings.TrimSpace(kubernetesVersion), "v"),
	}}
}

// storageProfile returns the image and the disks of a VM.
func storageProfile(in MachineInput) *asocompute.StorageProfile {
	spec := in.Spec
	image := spec.Image
	if image == nil {
		image = DefaultImage(spec.OSDisk.OSType, in.KubernetesVersion)
	}
	osType := asocompute.OSDisk_OsType_Linux
	if spec.OSDisk.OSType == azure.WindowsOS {
		osType = asocompute.OSDisk_OsType_Windows
	}
	osDisk := &asocompute.OSDisk{
		Name:             ptr.To(infrav1.OSDiskName(in.Name)),
		OsType:           ptr.To(osType),
		CreateOption:     ptr.To(asocompute.CreateOption_FromImage),
		DeleteOption:     ptr.To(asocompute.DeleteOption_Delete),
		Caching:          caching(spec.OSDisk.CachingType),
		ManagedDisk:      managedDisk(spec.OSDisk.ManagedDisk),
		DiffDiskSettings: diffDiskSettings(spec.OSDisk.DiffDiskSettings),
	}
	if size := spec.OSDisk.DiskSizeGB; size != nil {
		osDisk.DiskSizeGB = ptr.To(int(*size))
	}
	profile := &asocompute.StorageProfile{ImageReference: imageReference(image), OsDisk: osDisk}
	for _, d := range spec.DataDisks {
		disk := asocompute.DataDisk{
			Name:         ptr.To(infrav1.DataDiskName(in.Name, d.NameSuffix)),
			DiskSizeGB:   ptr.To(int(d.DiskSizeGB)),
			CreateOption: ptr.To(asocompute.CreateOption_Empty),
			DeleteOption: ptr.To(asocompute.DeleteOption_Delete),
			Caching:      caching(d.CachingType),
			ManagedDisk:  managedDisk(d.ManagedDisk),
		}
		if d.Lun != nil {
			disk.Lun = ptr.To(int(*d.Lun))
		}
		profile.DataDisks = append(profile.DataDisks, disk)
	}
	return profile
}

// diffDiskSettings returns the ephemeral OS disk settings of a VM or of a scale set's instances, nil for a managed OS
// disk.
func diffDiskSettings(d *infrav1.DiffDiskSettings) *asocompute.DiffDiskSettings {
	if d == nil {
		return nil
	}
	out := &asocompute.DiffDiskSettings{Option: ptr.To(asocompute.DiffDiskOption(d.Option))}
	if d.Placement != nil {
		out.Placement = ptr.To(asocompute.DiffDiskPlacement(*d.Placement))
	}
	return out
}

// imageReference points at an image: a Marketplace image by publisher, offer, SKU and version; a community
// gallery image by its public ID; any other image (private gallery, shared gallery, image ID) by ARM ID.
func imageReference(image *infrav1.Image) *asocompute.ImageReference {
	switch {
	case image.ID != nil:
		return &asocompute.ImageReference{Reference: &genruntime.ResourceReference{ARMID: *image.ID}}
	case image.Marketplace != nil:
		m := image.Marketplace
		return &asocompute.ImageReference{Publisher: ptr.To(m.Publisher), Offer: ptr.To(m.Offer), Sku: ptr.To(m.SKU), Version: ptr.To(m.Version)}
	case image.ComputeGallery != nil:
		g := image.ComputeGallery
		if g.SubscriptionID != nil && g.ResourceGroup != nil {
			return &asocompute.ImageReference{Reference: &genruntime.ResourceReference{
				ARMID: galleryImageVersionID(*g.SubscriptionID, *g.ResourceGroup, g.Gallery, g.Name, g.Version),
			}}
		}
		return &asocompute.ImageReference{
			CommunityGalleryImageId: ptr.To(fmt.Sprintf("/CommunityGalleries/%s/Images/%s/Versions/%s", g.Gallery, g.Name, g.Version)),
		}
	case image.SharedGallery != nil:
		g := image.SharedGallery
		return &asocompute.ImageReference{Reference: &genruntime.ResourceReference{
			ARMID: galleryImageVersionID(g.SubscriptionID, g.ResourceGroup, g.Gallery, g.Name, g.Version),
		}}
	}
	return nil
}

// galleryImageVersionID is the ARM ID of an image version in a compute gallery.
func galleryImageVersionID(subscription, group, gallery, image, version string) string {
	galleryID := azure.ResourceID(subscription, group, "Microsoft.Compute/galleries", gallery)
	return azure.ChildID(azure.ChildID(galleryID, "images", image), "versions", version)
}

// imagePlan is the purchase plan of a third-party image: a Marketplace image marked thirdPartyImage, or a gallery
// image with plan details. Azure names the SKU "name" and the offer "product" in a plan.
func imagePlan(image *infrav1.Image) *asocompute.Plan {
	if image == nil {
		return nil
	}
	switch {
	case image.Marketplace != nil && image.Marketplace.ThirdPartyImage:
		m := image.Marketplace
		return &asocompute.Plan{Publisher: ptr.To(m.Publisher), Product: ptr.To(m.Offer), Name: ptr.To(m.SKU)}
	case image.ComputeGallery != nil && image.ComputeGallery.Plan != nil:
		p := image.ComputeGallery.Plan
		return &asocompute.Plan{Publisher: ptr.To(p.Publisher), Product: ptr.To(p.Offer), Name: ptr.To(p.SKU)}
	case image.SharedGallery != nil && image.SharedGallery.Publisher != nil && image.SharedGallery.Offer != nil && image.SharedGallery.SKU != nil:
		g := image.SharedGallery
		return &asocompute.Plan{Publisher: g.Publisher, Product: g.Offer, Name: g.SKU}
	}
	return nil
}

// managedDisk returns the managed disk parameters of a disk.
func managedDisk(p *infrav1.ManagedDiskParameters) *asocompute.ManagedDiskParameters {
	if p == nil {
		return nil
	}
	out := &asocompute.ManagedDiskParameters{DiskEncryptionSet: diskEncryptionSet(p.DiskEncryptionSet)}
	if p.StorageAccountType != "" {
		out.StorageAccountType = ptr.To(asocompute.StorageAccountType(p.StorageAccountType))
	}
	if sp := p.SecurityProfile; sp != nil {
		out.SecurityProfile = &asocompute.VMDiskSecurityProfile{DiskEncryptionSet: diskEncryptionSet(sp.DiskEncryptionSet)}
		if sp.SecurityEncryptionType != "" {
			out.SecurityProfile.SecurityEncryptionType = ptr.To(asocompute.VMDiskSecurityProfile_SecurityEncryptionType(sp.SecurityEncryptionType))
		}
	}
	return out
}

// diskEncryptionSet references a disk encryption set by ARM ID.
func diskEncryptionSet(des *infrav1.DiskEncryptionSetParameters) *asocompute.SubResource {
	if des == nil || des.ID == "" {
		return nil
	}
	return armSubResource(des.ID)
}

// caching is a disk's caching type; empty leaves Azure's default.
func caching(t string) *asocompute.Caching {
	if t == "" {
		return nil
	}
	return ptr.To(asocompute.Caching(t))
}

// additionalCapabilities enables Ultra disks when a data disk is one, unless the spec says otherwise, as in CAPZ.
func additionalCapabilities(spec infrav1.AzureMachineSpec) *asocompute.AdditionalCapabilities {
	var caps *asocompute.AdditionalCapabilities
	for _, d := range spec.DataDisks {
		if d.ManagedDisk != nil && d.ManagedDisk.StorageAccountType == ultraSSD {
			caps = &asocompute.AdditionalCapabilities{UltraSSDEnabled: ptr.To(true)}
			break
		}
	}
	if spec.AdditionalCapabilities != nil && spec.AdditionalCapabilities.UltraSSDEnabled != nil {
		caps = &asocompute.AdditionalCapabilities{UltraSSDEnabled: ptr.To(*spec.AdditionalCapabilities.UltraSSDEnabled)}
	}
	return caps
}

// osProfile returns the VM's computer name, admin user, credentials and custom data.
func osProfile(in MachineInput) *asocompute.OSProfile {
	profile := &asocompute.OSProfile{
		ComputerName:             ptr.To(ComputerName(in.Name, in.Spec.OSDisk.OSType)),
		AdminUsername:            ptr.To(AdminUsername),
		AllowExtensionOperations: ptr.To(!ptr.Deref(in.Spec.DisableExtensionOperations, false)),
	}
	if in.BootstrapData != nil {
		profile.CustomData = ptr.To(base64.StdEncoding.EncodeToString(in.BootstrapData))
	}
	if in.Spec.OSDisk.OSType == azure.WindowsOS {
		profile.AdminPassword = &genruntime.SecretReference{Name: WindowsPasswordSecretName(in.Name), Key: WindowsPasswordKey}
		profile.WindowsConfiguration = &asocompute.WindowsConfiguration{EnableAutomaticUpdates: ptr.To(false)}
		return profile
	}
	profile.LinuxConfiguration = &asocompute.LinuxConfiguration{
		DisablePasswordAuthentication: ptr.To(true),
		Ssh: &asocompute.SshConfiguration{PublicKeys: []asocompute.SshPublicKeySpec{{
			Path:    ptr.To("/home/" + AdminUsername + "/.ssh/authorized_keys"),
			KeyData: ptr.To(sshPublicKey(in.Spec.SSHPublicKey)),
		}}},
	}
	return profile
}

// sshPublicKey decodes the spec's base64-encoded OpenSSH key. The webhook has checked the encoding; a value that
// is not base64 is taken as the key itself.
func sshPublicKey(encoded string) string {
	decoded, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return encoded
	}
	return string(decoded)
}

// VMName is the Azure name of an AzureMachine's VM, as CAPZ names it: the one in its provider ID once it has one;
// otherwise the AzureMachine's name, shortened for Windows (see ComputerName), whose VM names Azure limits to 15
// characters. Its network interfaces, disks, public IP and SSH rule are named after it.
func VMName(am *infrav1.AzureMachine) string {
	if id := ptr.Deref(am.Spec.ProviderID, ""); id != "" {
		return id[strings.LastIndex(id, "/")+1:]
	}
	return ComputerName(am.Name, am.Spec.OSDisk.OSType)
}

// ComputerName is the VM's host name: its name, or for a Windows VM with a longer name than Windows allows, its
// first 9 characters (without a trailing dash), a dash and its last 5 characters, as CAPZ shortens it.
func ComputerName(name, osType string) string {
	if osType != azure.WindowsOS || len(name) <= maxWindowsComputerName {
		return name
	}
	return strings.TrimSuffix(name[:9], "-") + "-" + name[len(name)-5:]
}

// networkProfile references the machine's network interfaces, the first one primary. Unlike its disks, they are
// not deleted with the VM (as in CAPZ): they are the machine's own ASO objects, deleted after the VM.
func networkProfile(in MachineInput) *asocompute.NetworkProfile {
	count := max(len(in.Spec.NetworkInterfaces), 1)
	profile := &asocompute.NetworkProfile{}
	for i := range count {
		profile.NetworkInterfaces = append(profile.NetworkInterfaces, asocompute.NetworkInterfaceReference{
			Reference: &genruntime.ResourceReference{
				Group: asonetwork.GroupVersion.Group, Kind: "NetworkInterface",
				Name: azure.ObjectName(infrav1.NetworkInterfaceName(in.Name, i, count)),
			},
			Primary: ptr.To(i == 0),
		})
	}
	return profile
}

// identity returns the VM's managed identity: none, system-assigned, or user-assigned identities by ARM ID.
func identity(spec infrav1.AzureMachineSpec) *asocompute.VirtualMachineIdentity {
	switch spec.Identity {
	case infrav1.VMIdentitySystemAssigned:
		return &asocompute.VirtualMachineIdentity{Type: ptr.To(asocompute.VirtualMachineIdentity_Type_SystemAssigned)}
	case infrav1.VMIdentityUserAssigned:
		id := &asocompute.VirtualMachineIdentity{Type: ptr.To(asocompute.VirtualMachineIdentity_Type_UserAssigned)}
		for _, uai := range spec.UserAssignedIdentities {
			id.UserAssignedIdentities = append(id.UserAssignedIdentities, asocompute.UserAssignedIdentityDetails{
				Reference: genruntime.ResourceReference{ARMID: strings.TrimPrefix(uai.ProviderID, azure.ProviderIDScheme)},
			})
		}
		return id
	}
	return nil
}

// securityProfile returns encryption at host, the security type and the UEFI settings of the VM.
func securityProfile(sp *infrav1.SecurityProfile) *asocompute.SecurityProfile {
	if sp == nil {
		return nil
	}
	out := &asocompute.SecurityProfile{EncryptionAtHost: sp.EncryptionAtHost}
	if sp.SecurityType != "" {
		out.SecurityType = ptr.To(asocompute.SecurityProfile_SecurityType(sp.SecurityType))
	}
	if u := sp.UefiSettings; u != nil {
		out.UefiSettings = &asocompute.UefiSettings{SecureBootEnabled: u.SecureBootEnabled, VTpmEnabled: u.VTpmEnabled}
	}
	return out
}

// diagnosticsProfile returns the boot diagnostics: in a managed storage account, in the user's, or off.
func diagnosticsProfile(d *infrav1.Diagnostics) *asocompute.DiagnosticsProfile {
	if d == nil || d.Boot == nil {
		return nil
	}
	boot := &asocompute.BootDiagnostics{}
	switch d.Boot.StorageAccountType {
	case infrav1.ManagedDiagnosticsStorage:
		boot.Enabled = ptr.To(true)
	case infrav1.UserManagedDiagnosticsStorage:
		boot.Enabled = ptr.To(true)
		if d.Boot.UserManaged != nil {
			boot.StorageUri = ptr.To(d.Boot.UserManaged.StorageAccountURI)
		}
	case infrav1.DisabledDiagnosticsStorage:
		boot.Enabled = ptr.To(false)
	default:
		return nil
	}
	return &asocompute.DiagnosticsProfile{BootDiagnostics: boot}
}

// maxPrice is the highest hourly price of a spot VM, -1 for the on-demand price.
func maxPrice(o *infrav1.SpotVMOptions) float64 {
	if o.MaxPrice == nil {
		return onDemandPrice
	}
	price, err := strconv.ParseFloat(o.MaxPrice.AsDec().String(), 64)
	if err != nil {
		return o.MaxPrice.AsApproximateFloat64()
	}
	return price
}

// armSubResource references a resource that is not one of ours by ARM ID.
func armSubResource(id string) *asocompute.SubResource {
	return &asocompute.SubResource{Reference: &genruntime.ResourceReference{ARMID: id}}
}

// vmExtendedLocation returns the cluster's Edge Zone for compute resources.
func vmExtendedLocation(c azure.Cluster) *asocompute.ExtendedLocation {
	if c.ExtendedLocation == nil {
		return nil
	}
	return &asocompute.ExtendedLocation{Name: ptr.To(c.ExtendedLocation.Name), Type: ptr.To(asocompute.ExtendedLocationType(c.ExtendedLocation.Type))}
}
