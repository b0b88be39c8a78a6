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
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachine,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,versions=v1beta1,name=default.azuremachine.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachine,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,versions=v1beta1,name=validation.azuremachine.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureMachineWebhookWithManager registers the defaulting and validating webhooks of AzureMachine.
func SetupAzureMachineWebhookWithManager(mgr ctrl.Manager) error {
	w := azureMachineWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureMachine{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureMachineWebhook struct{}

// Default fills in CAPZ's defaults.
func (azureMachineWebhook) Default(_ context.Context, m *AzureMachine) error {
	return m.SetDefaults()
}

// ValidateCreate validates a new AzureMachine.
func (azureMachineWebhook) ValidateCreate(_ context.Context, m *AzureMachine) (admission.Warnings, error) {
	return nil, Invalid("AzureMachine", m.Name, m.validate())
}

// validate checks an AzureMachine in full: unlike its template, it must have every required field.
func (m *AzureMachine) validate() field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateAzureMachineSpec(spec, &m.Spec)
	if m.Spec.VMSize == "" {
		errs = append(errs, field.Required(spec.Child("vmSize"), "the size of the VM, e.g. Standard_D2s_v3"))
	}
	return append(errs, ValidateImplementedFields("AzureMachine", m.Spec)...)
}

// ValidateUpdate validates a changed AzureMachine: only the fields CAPZ allows may change.
func (azureMachineWebhook) ValidateUpdate(_ context.Context, old, m *AzureMachine) (admission.Warnings, error) {
	if !m.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	spec := field.NewPath("spec")
	errs := m.validate()
	errs = append(errs, immutableExcept(spec, old.Spec, m.Spec,
		"providerID", "vmSize", "failureDomain", "additionalTags", "additionalCapabilities", "vmExtensions",
		"dnsServers", "subnetName", "disableVMBootstrapExtension", "asoPatches", "diagnostics", "acceleratedNetworking")...)
	if old.Spec.ProviderID != nil && *old.Spec.ProviderID != "" {
		errs = append(errs, ValidateImmutable(spec.Child("providerID"), old.Spec.ProviderID, m.Spec.ProviderID)...)
	}
	if old.Spec.Diagnostics != nil {
		errs = append(errs, ValidateImmutable(spec.Child("diagnostics"), old.Spec.Diagnostics, m.Spec.Diagnostics)...)
	}
	if old.Spec.AcceleratedNetworking != nil && m.Spec.AcceleratedNetworking != nil {
		// The deprecated field may only be cleared (defaulting moves it into networkInterfaces).
		errs = append(errs, ValidateImmutable(spec.Child("acceleratedNetworking"), old.Spec.AcceleratedNetworking, m.Spec.AcceleratedNetworking)...)
	}
	return nil, Invalid("AzureMachine", m.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureMachineWebhook) ValidateDelete(context.Context, *AzureMachine) (admission.Warnings, error) {
	return nil, nil
}

var (
	armIDPattern = regexp.MustCompile(`(?i)^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/[^/]+/[^/]+/[^/]+(/[^/]+/[^/]+)*$`)
	diskSizeMax  = int32(32767)
)

// validateARMID checks an Azure resource ID.
func validateARMID(path *field.Path, id string) field.ErrorList {
	if id == "" || armIDPattern.MatchString(id) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, id, "must be an Azure resource ID: /subscriptions/<id>/resourceGroups/<group>/providers/<namespace>/<type>/<name>")}
}

// validateAzureMachineSpec checks the values of an AzureMachine spec; AzureMachineTemplate uses it too. It
// requires nothing that a ClusterClass patch may fill in a template (vmSize): AzureMachine.validate does.
func validateAzureMachineSpec(path *field.Path, s *AzureMachineSpec) field.ErrorList {
	errs := ValidateImage(path.Child("image"), s.Image)
	errs = append(errs, ValidateSSHPublicKey(path.Child("sshPublicKey"), s.SSHPublicKey)...)
	errs = append(errs, ValidateTags(path.Child("additionalTags"), s.AdditionalTags)...)
	errs = append(errs, ValidateMachineIdentity(path, s.Identity, s.UserAssignedIdentities, s.SystemAssignedIdentityRole, s.RoleAssignmentName)...)
	errs = append(errs, ValidateOSDisk(path.Child("osDisk"), &s.OSDisk, path.Child("securityProfile"), s.SecurityProfile)...)
	errs = append(errs, ValidateDataDisks(path.Child("dataDisks"), s.DataDisks, s.AdditionalCapabilities)...)
	errs = append(errs, ValidateDiagnostics(path.Child("diagnostics"), s.Diagnostics)...)
	errs = append(errs, ValidateSecurityProfile(path.Child("securityProfile"), s.SecurityProfile)...)
	errs = append(errs, ValidateSpotVMOptions(path.Child("spotVMOptions"), s.SpotVMOptions)...)
	errs = append(errs, ValidateVMExtensions(path.Child("vmExtensions"), s.VMExtensions)...)
	errs = append(errs, ValidateASOPatches(path.Child("asoPatches"), s.ASOPatches)...)
	errs = append(errs, validateARMID(path.Child("capacityReservationGroupID"), ptrValue(s.CapacityReservationGroupID))...)
	errs = append(errs, validateARMID(path.Child("virtualMachineScaleSetID"), s.VirtualMachineScaleSetID)...)
	for i, dns := range s.DNSServers {
		errs = append(errs, validateIP(path.Child("dnsServers").Index(i), dns)...)
	}
	if id := ptrValue(s.ProviderID); id != "" && !strings.HasPrefix(id, "azure://") {
		errs = append(errs, field.Invalid(path.Child("providerID"), id, "must start with azure://"))
	}
	if len(s.NetworkInterfaces) > 0 {
		if s.SubnetName != "" {
			errs = append(errs, field.Forbidden(path.Child("subnetName"), "set the subnet in networkInterfaces[].subnetName instead"))
		}
		if s.AcceleratedNetworking != nil {
			errs = append(errs, field.Forbidden(path.Child("acceleratedNetworking"), "set networkInterfaces[].acceleratedNetworking instead"))
		}
	}
	for i, nic := range s.NetworkInterfaces {
		p := path.Child("networkInterfaces").Index(i)
		errs = append(errs, validateName(p.Child("subnetName"), nic.SubnetName, networkResourceNameRule)...)
		if nic.PrivateIPConfigs < 0 || nic.PrivateIPConfigs > 256 {
			errs = append(errs, field.Invalid(p.Child("privateIPConfigs"), nic.PrivateIPConfigs, "must be between 1 and 256"))
		}
	}
	return errs
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ValidateImage(path *field.Path, image *Image) field.ErrorList {
	if image == nil {
		return nil
	}
	set := 0
	for _, present := range []bool{image.ID != nil, image.SharedGallery != nil, image.Marketplace != nil, image.ComputeGallery != nil} {
		if present {
			set++
		}
	}
	if set != 1 {
		return field.ErrorList{field.Invalid(path, "", "set exactly one of id, sharedGallery, marketplace or computeGallery")}
	}
	var errs field.ErrorList
	if image.ID != nil {
		errs = append(errs, validateARMID(path.Child("id"), *image.ID)...)
	}
	if g := image.ComputeGallery; g != nil && (g.SubscriptionID == nil) != (g.ResourceGroup == nil) {
		errs = append(errs, field.Invalid(path.Child("computeGallery"), "", "set both subscriptionID and resourceGroup for a private gallery, or neither for a community gallery"))
	}
	if g := image.SharedGallery; g != nil {
		plan := []bool{g.Publisher != nil, g.Offer != nil, g.SKU != nil}
		if plan[0] != plan[1] || plan[1] != plan[2] {
			errs = append(errs, field.Invalid(path.Child("sharedGallery"), "", "set publisher, offer and sku together for a third-party image"))
		}
	}
	return errs
}

func ValidateMachineIdentity(path *field.Path, identity VMIdentity, userAssigned []UserAssignedIdentity, role *SystemAssignedIdentityRole, roleAssignmentName string) field.ErrorList {
	var errs field.ErrorList
	switch identity {
	case VMIdentityUserAssigned:
		if len(userAssigned) == 0 {
			errs = append(errs, field.Required(path.Child("userAssignedIdentities"), "identity UserAssigned needs at least one user-assigned identity"))
		}
	default:
		if len(userAssigned) > 0 {
			errs = append(errs, field.Forbidden(path.Child("userAssignedIdentities"), "requires identity UserAssigned"))
		}
	}
	for i, id := range userAssigned {
		errs = append(errs, validateARMID(path.Child("userAssignedIdentities").Index(i).Child("providerID"), strings.TrimPrefix(id.ProviderID, "azure://"))...)
	}
	if identity != VMIdentitySystemAssigned {
		if role != nil {
			errs = append(errs, field.Forbidden(path.Child("systemAssignedIdentityRole"), "requires identity SystemAssigned"))
		}
		if roleAssignmentName != "" {
			errs = append(errs, field.Forbidden(path.Child("roleAssignmentName"), "requires identity SystemAssigned"))
		}
	}
	if role != nil {
		errs = append(errs, validateGUID(path.Child("systemAssignedIdentityRole", "name"), role.Name)...)
		if role.Name != "" && roleAssignmentName != "" && role.Name != roleAssignmentName {
			errs = append(errs, field.Forbidden(path.Child("roleAssignmentName"), "set only systemAssignedIdentityRole.name"))
		}
	}
	return append(errs, validateGUID(path.Child("roleAssignmentName"), roleAssignmentName)...)
}

// ValidateOSDisk checks a VM's OS disk against the VM's security profile, which sits at spPath.
func ValidateOSDisk(path *field.Path, d *OSDisk, spPath *field.Path, sp *SecurityProfile) field.ErrorList {
	var errs field.ErrorList
	if d.OSType != "" && d.OSType != "Linux" && d.OSType != "Windows" {
		errs = append(errs, field.NotSupported(path.Child("osType"), d.OSType, []string{"Linux", "Windows"}))
	}
	if d.DiskSizeGB != nil && (*d.DiskSizeGB < 1 || *d.DiskSizeGB > 4095) {
		errs = append(errs, field.Invalid(path.Child("diskSizeGB"), *d.DiskSizeGB, "must be between 1 and 4095"))
	}
	if d.DiffDiskSettings != nil {
		if d.CachingType != "" && d.CachingType != "ReadOnly" {
			errs = append(errs, field.Invalid(path.Child("cachingType"), d.CachingType, "an ephemeral OS disk (diffDiskSettings) requires cachingType ReadOnly"))
		}
		if d.ManagedDisk != nil && d.ManagedDisk.DiskEncryptionSet != nil {
			errs = append(errs, field.Forbidden(path.Child("managedDisk", "diskEncryptionSet"), "an ephemeral OS disk cannot use a disk encryption set"))
		}
		if p := d.DiffDiskSettings.Placement; p != nil && *p == "NvmeDisk" {
			// ASO v2.18.0's VirtualMachine (API 2022-03-01) knows only CacheDisk and ResourceDisk.
			errs = append(errs, field.NotSupported(path.Child("diffDiskSettings", "placement"), *p, []string{"CacheDisk", "ResourceDisk"}))
		}
	}
	if d.ManagedDisk != nil && d.ManagedDisk.DiskEncryptionSet != nil {
		errs = append(errs, validateARMID(path.Child("managedDisk", "diskEncryptionSet", "id"), d.ManagedDisk.DiskEncryptionSet.ID)...)
	}
	if d.ManagedDisk != nil && d.ManagedDisk.SecurityProfile != nil {
		dsp := d.ManagedDisk.SecurityProfile
		p := path.Child("managedDisk", "securityProfile")
		if sp == nil || sp.SecurityType != SecurityTypesConfidentialVM {
			errs = append(errs, field.Forbidden(p, "a disk security profile requires "+spPath.Child("securityType").String()+" ConfidentialVM"))
		}
		if dsp.SecurityEncryptionType == "" {
			errs = append(errs, field.Required(p.Child("securityEncryptionType"), "VMGuestStateOnly or DiskWithVMGuestState"))
		}
		if dsp.DiskEncryptionSet != nil && dsp.SecurityEncryptionType != SecurityEncryptionTypeDiskWithVMGuestState {
			errs = append(errs, field.Forbidden(p.Child("diskEncryptionSet"), "requires securityEncryptionType DiskWithVMGuestState"))
		}
		if dsp.SecurityEncryptionType == SecurityEncryptionTypeDiskWithVMGuestState && sp != nil && sp.EncryptionAtHost != nil && *sp.EncryptionAtHost {
			errs = append(errs, field.Forbidden(spPath.Child("encryptionAtHost"), "cannot be combined with securityEncryptionType DiskWithVMGuestState"))
		}
	}
	if sp != nil && sp.SecurityType == SecurityTypesConfidentialVM && (d.ManagedDisk == nil || d.ManagedDisk.SecurityProfile == nil) {
		errs = append(errs, field.Required(path.Child("managedDisk", "securityProfile"), "a ConfidentialVM needs a disk security profile with a securityEncryptionType"))
	}
	return errs
}

func ValidateDataDisks(path *field.Path, disks []DataDisk, caps *AdditionalCapabilities) field.ErrorList {
	var errs field.ErrorList
	suffixes := map[string]bool{}
	luns := map[int32]bool{}
	for i, d := range disks {
		p := path.Index(i)
		if suffixes[d.NameSuffix] {
			errs = append(errs, field.Duplicate(p.Child("nameSuffix"), d.NameSuffix))
		}
		suffixes[d.NameSuffix] = true
		if d.DiskSizeGB < 1 || d.DiskSizeGB > diskSizeMax {
			errs = append(errs, field.Invalid(p.Child("diskSizeGB"), d.DiskSizeGB, "must be between 1 and 32767"))
		}
		if d.Lun != nil {
			if *d.Lun < 0 || *d.Lun > 63 {
				errs = append(errs, field.Invalid(p.Child("lun"), *d.Lun, "must be between 0 and 63"))
			}
			if luns[*d.Lun] {
				errs = append(errs, field.Duplicate(p.Child("lun"), *d.Lun))
			}
			luns[*d.Lun] = true
		}
		if d.ManagedDisk != nil && d.ManagedDisk.StorageAccountType == ultraSSD {
			if d.CachingType != "" && d.CachingType != "None" {
				errs = append(errs, field.Invalid(p.Child("cachingType"), d.CachingType, "Ultra disks support only cachingType None"))
			}
			if caps != nil && caps.UltraSSDEnabled != nil && !*caps.UltraSSDEnabled {
				errs = append(errs, field.Forbidden(p.Child("managedDisk", "storageAccountType"), "Ultra disks need additionalCapabilities.ultraSSDEnabled"))
			}
		}
	}
	return errs
}

func ValidateDiagnostics(path *field.Path, d *Diagnostics) field.ErrorList {
	if d == nil || d.Boot == nil {
		return nil
	}
	boot := path.Child("boot")
	if d.Boot.StorageAccountType == UserManagedDiagnosticsStorage && d.Boot.UserManaged == nil {
		return field.ErrorList{field.Required(boot.Child("userManaged"), "storageAccountType UserManaged needs a storage account")}
	}
	if d.Boot.StorageAccountType != UserManagedDiagnosticsStorage && d.Boot.UserManaged != nil {
		return field.ErrorList{field.Forbidden(boot.Child("userManaged"), "only with storageAccountType UserManaged")}
	}
	return nil
}

func ValidateSecurityProfile(path *field.Path, sp *SecurityProfile) field.ErrorList {
	if sp == nil || sp.UefiSettings == nil {
		if sp != nil && sp.SecurityType == SecurityTypesConfidentialVM {
			return field.ErrorList{field.Required(path.Child("uefiSettings", "vTpmEnabled"), "a ConfidentialVM needs vTPM")}
		}
		return nil
	}
	var errs field.ErrorList
	uefi := path.Child("uefiSettings")
	if sp.SecurityType == "" {
		if sp.UefiSettings.SecureBootEnabled != nil && *sp.UefiSettings.SecureBootEnabled {
			errs = append(errs, field.Forbidden(uefi.Child("secureBootEnabled"), "requires securityType TrustedLaunch or ConfidentialVM"))
		}
		if sp.UefiSettings.VTpmEnabled != nil && *sp.UefiSettings.VTpmEnabled {
			errs = append(errs, field.Forbidden(uefi.Child("vTpmEnabled"), "requires securityType TrustedLaunch or ConfidentialVM"))
		}
	}
	if sp.SecurityType == SecurityTypesConfidentialVM && (sp.UefiSettings.VTpmEnabled == nil || !*sp.UefiSettings.VTpmEnabled) {
		errs = append(errs, field.Required(uefi.Child("vTpmEnabled"), "a ConfidentialVM needs vTPM"))
	}
	return errs
}

func ValidateSpotVMOptions(path *field.Path, o *SpotVMOptions) field.ErrorList {
	if o == nil || o.MaxPrice == nil {
		return nil
	}
	price := o.MaxPrice.AsApproximateFloat64()
	if price <= 0 && price != -1 {
		return field.ErrorList{field.Invalid(path.Child("maxPrice"), o.MaxPrice.String(), "must be a positive price, or -1 for the on-demand price")}
	}
	return nil
}

func ValidateVMExtensions(path *field.Path, extensions []VMExtension) field.ErrorList {
	names := make([]string, len(extensions))
	var errs field.ErrorList
	for i, e := range extensions {
		names[i] = e.Name
		errs = append(errs, validateName(path.Index(i).Child("name"), e.Name, networkResourceNameRule)...)
	}
	return append(errs, validateUniqueNames(path, names)...)
}
