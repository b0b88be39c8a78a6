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
	"k8s.io/apimachinery/pkg/api/resource"
)

// Image is the operating system image of a virtual machine. Exactly one of its fields is set; when none is,
// the provider picks a default image for the Kubernetes version.
type Image struct {
	// id is the Azure resource ID of an image.
	// +optional
	ID *string `json:"id,omitempty"`

	// sharedGallery is an image in a shared image gallery.
	//
	// Deprecated: use computeGallery.
	// +optional
	SharedGallery *AzureSharedGalleryImage `json:"sharedGallery,omitempty"`

	// marketplace is an Azure Marketplace image.
	// +optional
	Marketplace *AzureMarketplaceImage `json:"marketplace,omitempty"`

	// computeGallery is an image in an Azure Compute Gallery (shared or community).
	// +optional
	ComputeGallery *AzureComputeGalleryImage `json:"computeGallery,omitempty"`
}

// AzureComputeGalleryImage is an image in an Azure Compute Gallery. Without subscriptionID and resourceGroup it is
// a community gallery image.
type AzureComputeGalleryImage struct {
	// gallery is the name of the gallery (for a community gallery, its public name).
	// +kubebuilder:validation:MinLength=1
	// +required
	Gallery string `json:"gallery"`

	// name of the image definition.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// version of the image.
	// +kubebuilder:validation:MinLength=1
	// +required
	Version string `json:"version"`

	// subscriptionID of a private gallery.
	// +optional
	SubscriptionID *string `json:"subscriptionID,omitempty"`

	// resourceGroup of a private gallery.
	// +optional
	ResourceGroup *string `json:"resourceGroup,omitempty"`

	// plan is the purchase plan of a third-party image.
	// +optional
	Plan *ImagePlan `json:"plan,omitempty"`
}

// AzureSharedGalleryImage is an image in a shared image gallery.
type AzureSharedGalleryImage struct {
	// subscriptionID of the gallery.
	// +kubebuilder:validation:MinLength=1
	// +required
	SubscriptionID string `json:"subscriptionID"`

	// resourceGroup of the gallery.
	// +kubebuilder:validation:MinLength=1
	// +required
	ResourceGroup string `json:"resourceGroup"`

	// gallery name.
	// +kubebuilder:validation:MinLength=1
	// +required
	Gallery string `json:"gallery"`

	// name of the image definition.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// version of the image.
	// +kubebuilder:validation:MinLength=1
	// +required
	Version string `json:"version"`

	// publisher of a third-party image's purchase plan.
	// +optional
	Publisher *string `json:"publisher,omitempty"`

	// offer of a third-party image's purchase plan.
	// +optional
	Offer *string `json:"offer,omitempty"`

	// sku of a third-party image's purchase plan.
	// +optional
	SKU *string `json:"sku,omitempty"`
}

// ImagePlan identifies a Marketplace image or its purchase plan.
type ImagePlan struct {
	// publisher of the image.
	// +kubebuilder:validation:MinLength=1
	// +required
	Publisher string `json:"publisher"`

	// offer of the image.
	// +kubebuilder:validation:MinLength=1
	// +required
	Offer string `json:"offer"`

	// sku of the image.
	// +kubebuilder:validation:MinLength=1
	// +required
	SKU string `json:"sku"`
}

// AzureMarketplaceImage is an Azure Marketplace image.
type AzureMarketplaceImage struct {
	ImagePlan `json:",inline"`

	// version of the image, or "latest".
	// +kubebuilder:validation:MinLength=1
	// +required
	Version string `json:"version"`

	// thirdPartyImage adds a purchase plan for a third-party image.
	// +kubebuilder:default=false
	// +optional
	ThirdPartyImage bool `json:"thirdPartyImage"`
}

// OSDisk is the operating system disk of a virtual machine.
type OSDisk struct {
	// osType is Linux or Windows.
	// +kubebuilder:default=Linux
	// +required
	OSType string `json:"osType"`

	// diskSizeGB is the size of the disk in GB. Defaults to the image's size.
	// +optional
	DiskSizeGB *int32 `json:"diskSizeGB,omitempty"`

	// managedDisk configures the managed disk.
	// +optional
	ManagedDisk *ManagedDiskParameters `json:"managedDisk,omitempty"`

	// diffDiskSettings makes the disk ephemeral.
	// +optional
	DiffDiskSettings *DiffDiskSettings `json:"diffDiskSettings,omitempty"`

	// cachingType is the disk caching: None, ReadOnly or ReadWrite.
	// +kubebuilder:validation:Enum=None;ReadOnly;ReadWrite
	// +kubebuilder:default=None
	// +optional
	CachingType string `json:"cachingType,omitempty"`
}

// DataDisk is a data disk of a virtual machine.
type DataDisk struct {
	// nameSuffix is appended to the machine name to name the disk: <machine>_<nameSuffix>.
	// +required
	NameSuffix string `json:"nameSuffix"`

	// diskSizeGB is the size of the disk in GB.
	// +required
	DiskSizeGB int32 `json:"diskSizeGB"`

	// managedDisk configures the managed disk.
	// +optional
	ManagedDisk *ManagedDiskParameters `json:"managedDisk,omitempty"`

	// lun is the logical unit number of the disk; unique per machine.
	// +optional
	Lun *int32 `json:"lun,omitempty"`

	// cachingType is the disk caching: None, ReadOnly or ReadWrite.
	// +kubebuilder:validation:Enum=None;ReadOnly;ReadWrite
	// +optional
	CachingType string `json:"cachingType,omitempty"`
}

// ManagedDiskParameters configures a managed disk.
type ManagedDiskParameters struct {
	// storageAccountType is the disk SKU, for example Premium_LRS or UltraSSD_LRS.
	// +optional
	StorageAccountType string `json:"storageAccountType,omitempty"`

	// diskEncryptionSet encrypts the disk with customer-managed keys.
	// +optional
	DiskEncryptionSet *DiskEncryptionSetParameters `json:"diskEncryptionSet,omitempty"`

	// securityProfile is the security profile of a confidential VM's disk.
	// +optional
	SecurityProfile *VMDiskSecurityProfile `json:"securityProfile,omitempty"`
}

// DiskEncryptionSetParameters references a disk encryption set.
type DiskEncryptionSetParameters struct {
	// id is the resource ID of the disk encryption set.
	// +optional
	ID string `json:"id,omitempty"`
}

// SecurityEncryptionType is the encryption type of a confidential VM's managed disk.
// +kubebuilder:validation:Enum=VMGuestStateOnly;DiskWithVMGuestState
type SecurityEncryptionType string

const (
	// SecurityEncryptionTypeVMGuestStateOnly encrypts only the VM guest state.
	SecurityEncryptionTypeVMGuestStateOnly SecurityEncryptionType = "VMGuestStateOnly"
	// SecurityEncryptionTypeDiskWithVMGuestState encrypts the disk and the VM guest state.
	SecurityEncryptionTypeDiskWithVMGuestState SecurityEncryptionType = "DiskWithVMGuestState"
)

// VMDiskSecurityProfile is the security profile of a managed disk.
type VMDiskSecurityProfile struct {
	// diskEncryptionSet encrypts the disk and guest state with customer-managed keys.
	// +optional
	DiskEncryptionSet *DiskEncryptionSetParameters `json:"diskEncryptionSet,omitempty"`

	// securityEncryptionType is the encryption type of the disk.
	// +optional
	SecurityEncryptionType SecurityEncryptionType `json:"securityEncryptionType,omitempty"`
}

// DiffDiskOption is the kind of ephemeral disk.
// +kubebuilder:validation:Enum=Local
type DiffDiskOption string

// DiffDiskPlacement is where an ephemeral disk lives.
// +kubebuilder:validation:Enum=CacheDisk;NvmeDisk;ResourceDisk
type DiffDiskPlacement string

// DiffDiskSettings makes an OS disk ephemeral.
type DiffDiskSettings struct {
	// option is the kind of ephemeral disk; only Local.
	// +required
	Option DiffDiskOption `json:"option"`

	// placement is where the ephemeral disk lives.
	// +optional
	Placement *DiffDiskPlacement `json:"placement,omitempty"`
}

// VMIdentity is the kind of managed identity of a virtual machine.
// +kubebuilder:validation:Enum=None;SystemAssigned;UserAssigned
type VMIdentity string

const (
	// VMIdentityNone gives the VM no managed identity.
	VMIdentityNone VMIdentity = "None"
	// VMIdentitySystemAssigned gives the VM a system-assigned identity.
	VMIdentitySystemAssigned VMIdentity = "SystemAssigned"
	// VMIdentityUserAssigned gives the VM user-assigned identities.
	VMIdentityUserAssigned VMIdentity = "UserAssigned"
)

// UserAssignedIdentity is a user-assigned identity of a virtual machine.
type UserAssignedIdentity struct {
	// providerID is the identity's resource ID, optionally prefixed with azure://.
	// +required
	ProviderID string `json:"providerID"`
}

// SystemAssignedIdentityRole is the role assigned to a virtual machine's system-assigned identity.
type SystemAssignedIdentityRole struct {
	// name of the role assignment, a GUID. Defaults to a stable GUID derived from the machine.
	// +optional
	Name string `json:"name,omitempty"`

	// scope of the role assignment. Defaults to the cluster's subscription, as in CAPZ (cloud-provider-azure then
	// works on resources of other resource groups too); the cluster's resource group grants less.
	// +optional
	Scope string `json:"scope,omitempty"`

	// definitionID is the role definition ID. Defaults to Contributor.
	// +optional
	DefinitionID string `json:"definitionID,omitempty"`
}

// AdditionalCapabilities are optional capabilities of a virtual machine.
type AdditionalCapabilities struct {
	// ultraSSDEnabled allows UltraSSD_LRS data disks.
	// +optional
	UltraSSDEnabled *bool `json:"ultraSSDEnabled,omitempty"`
}

// BootDiagnosticsStorageAccountType says where boot diagnostics are stored.
// +kubebuilder:validation:Enum=Managed;UserManaged;Disabled
type BootDiagnosticsStorageAccountType string

const (
	// ManagedDiagnosticsStorage stores boot diagnostics in a managed storage account.
	ManagedDiagnosticsStorage BootDiagnosticsStorageAccountType = "Managed"
	// UserManagedDiagnosticsStorage stores boot diagnostics in the user's storage account.
	UserManagedDiagnosticsStorage BootDiagnosticsStorageAccountType = "UserManaged"
	// DisabledDiagnosticsStorage turns boot diagnostics off.
	DisabledDiagnosticsStorage BootDiagnosticsStorageAccountType = "Disabled"
)

// Diagnostics configures the diagnostics of a virtual machine.
type Diagnostics struct {
	// boot configures boot diagnostics.
	// +optional
	Boot *BootDiagnostics `json:"boot,omitempty"`
}

// BootDiagnostics configures boot diagnostics.
type BootDiagnostics struct {
	// storageAccountType says where boot diagnostics are stored.
	// +required
	StorageAccountType BootDiagnosticsStorageAccountType `json:"storageAccountType"`

	// userManaged is the user's storage account, for storageAccountType UserManaged.
	// +optional
	UserManaged *UserManagedBootDiagnostics `json:"userManaged,omitempty"`
}

// UserManagedBootDiagnostics is a user-managed storage account for boot diagnostics.
type UserManagedBootDiagnostics struct {
	// storageAccountURI is the blob endpoint of the storage account.
	// +kubebuilder:validation:Pattern=`^https://`
	// +kubebuilder:validation:MaxLength=1024
	// +required
	StorageAccountURI string `json:"storageAccountURI"`
}

// SpotEvictionPolicy is what happens to an evicted spot virtual machine.
// +kubebuilder:validation:Enum=Deallocate;Delete
type SpotEvictionPolicy string

const (
	// SpotEvictionPolicyDeallocate stops and deallocates evicted VMs.
	SpotEvictionPolicyDeallocate SpotEvictionPolicy = "Deallocate"
	// SpotEvictionPolicyDelete deletes evicted VMs.
	SpotEvictionPolicyDelete SpotEvictionPolicy = "Delete"
)

// SpotVMOptions makes a virtual machine a spot instance.
type SpotVMOptions struct {
	// maxPrice is the maximum hourly price; -1 or unset means the on-demand price.
	// +optional
	MaxPrice *resource.Quantity `json:"maxPrice,omitempty"`

	// evictionPolicy is what happens to an evicted VM. Defaults to Deallocate.
	// +optional
	EvictionPolicy *SpotEvictionPolicy `json:"evictionPolicy,omitempty"`
}

// SecurityTypes is the security type of a virtual machine.
// +kubebuilder:validation:Enum=ConfidentialVM;TrustedLaunch
type SecurityTypes string

const (
	// SecurityTypesTrustedLaunch is a trusted launch VM.
	SecurityTypesTrustedLaunch SecurityTypes = "TrustedLaunch"
	// SecurityTypesConfidentialVM is a confidential VM.
	SecurityTypesConfidentialVM SecurityTypes = "ConfidentialVM"
)

// SecurityProfile is the security profile of a virtual machine.
type SecurityProfile struct {
	// encryptionAtHost encrypts the VM's disks and cache at the host.
	// +optional
	EncryptionAtHost *bool `json:"encryptionAtHost,omitempty"`

	// securityType is TrustedLaunch or ConfidentialVM.
	// +optional
	SecurityType SecurityTypes `json:"securityType,omitempty"`

	// uefiSettings configures secure boot and vTPM.
	// +optional
	UefiSettings *UefiSettings `json:"uefiSettings,omitempty"`
}

// UefiSettings configures UEFI security features.
type UefiSettings struct {
	// secureBootEnabled turns on secure boot.
	// +optional
	SecureBootEnabled *bool `json:"secureBootEnabled,omitempty"`

	// vTpmEnabled turns on the virtual TPM.
	// +optional
	VTpmEnabled *bool `json:"vTpmEnabled,omitempty"`
}

// VMExtension is a virtual machine extension.
type VMExtension struct {
	// name of the extension.
	// +required
	Name string `json:"name"`

	// publisher of the extension.
	// +required
	Publisher string `json:"publisher"`

	// version of the extension handler.
	// +required
	Version string `json:"version"`

	// settings are the public settings of the extension.
	// +optional
	Settings Tags `json:"settings,omitempty"`

	// protectedSettings are the secret settings of the extension. They are stored in a Secret owned by the
	// machine and handed to ASO by reference, never placed in an ASO object's spec.
	// +optional
	ProtectedSettings Tags `json:"protectedSettings,omitempty"`
}

// NetworkInterface is a network interface of a virtual machine.
type NetworkInterface struct {
	// subnetName is the subnet of the interface. Defaults to the cluster's subnet for the machine's role.
	// +optional
	SubnetName string `json:"subnetName,omitempty"`

	// privateIPConfigs is the number of private IP configurations of the interface. Defaults to 1.
	// +optional
	PrivateIPConfigs int `json:"privateIPConfigs,omitempty"`

	// acceleratedNetworking turns on accelerated networking. Defaults to what the VM size supports.
	// +optional
	AcceleratedNetworking *bool `json:"acceleratedNetworking,omitempty"`
}

// ExtendedLocationSpec is an extended location, such as an Azure Edge Zone.
type ExtendedLocationSpec struct {
	// name of the extended location.
	// +required
	Name string `json:"name"`

	// type of the extended location: EdgeZone.
	// +kubebuilder:validation:Enum=EdgeZone
	// +required
	Type string `json:"type"`
}
