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
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/fieldpath"
)

// coverageExclusions are the AzureMachine spec fields (and everything under them) that no translator reads, and
// why. Their distinctive values ("cov-…") must not show up in the translated objects either.
var coverageExclusions = map[string]string{
	"providerID":            "set by the controller from the VM's resource ID once the VM exists",
	"failureDomain":         "deprecated; the controller resolves the zone (the Machine's failure domain wins) into MachineInput.Zone",
	"roleAssignmentName":    "deprecated; defaulting moves it into systemAssignedIdentityRole.name",
	"subnetName":            "deprecated; defaulting moves it into networkInterfaces[0].subnetName",
	"acceleratedNetworking": "deprecated; defaulting moves it into networkInterfaces[0].acceleratedNetworking",
	"asoPatches":            "applied by the engine (azure/aso) to the translated objects",
}

const (
	covMachine = "cov-machine"
	covSub     = "00000000-0000-0000-0000-0000000000c0"
)

// covID is the ARM ID of a resource named name in the coverage test's subscription.
func covID(resourceType, name string) string {
	return azure.ResourceID(covSub, "cov-rg", resourceType, name)
}

// coverageSpec is an AzureMachine spec with every field set to a distinctive value, the image a Marketplace one.
func coverageSpec() infrav1.AzureMachineSpec {
	return infrav1.AzureMachineSpec{
		ProviderID:    ptr.To("azure://" + covID(azure.TypeVirtualMachine, "cov-provider-id-vm")),
		VMSize:        "Standard_Cov7s_v9",
		FailureDomain: ptr.To("cov-failure-domain"),
		Image: &infrav1.Image{Marketplace: &infrav1.AzureMarketplaceImage{
			ImagePlan:       infrav1.ImagePlan{Publisher: "cov-mkt-publisher", Offer: "cov-mkt-offer", SKU: "cov-mkt-sku"},
			Version:         "7.7.7",
			ThirdPartyImage: true,
		}},
		Identity: infrav1.VMIdentitySystemAssigned,
		SystemAssignedIdentityRole: &infrav1.SystemAssignedIdentityRole{
			Name:         "6f0c7d1e-2a3b-5c4d-8e9f-0a1b2c3d4e5f",
			Scope:        azure.ResourceGroupID(covSub, "cov-scope-rg"),
			DefinitionID: "/subscriptions/" + covSub + "/providers/Microsoft.Authorization/roleDefinitions/cov-role-definition",
		},
		RoleAssignmentName: "cov-deprecated-role-assignment",
		OSDisk: infrav1.OSDisk{
			OSType:     "Linux",
			DiskSizeGB: ptr.To[int32](211),
			ManagedDisk: &infrav1.ManagedDiskParameters{
				StorageAccountType: "Premium_ZRS",
				DiskEncryptionSet:  &infrav1.DiskEncryptionSetParameters{ID: covID("Microsoft.Compute/diskEncryptionSets", "cov-os-des")},
				SecurityProfile: &infrav1.VMDiskSecurityProfile{
					DiskEncryptionSet:      &infrav1.DiskEncryptionSetParameters{ID: covID("Microsoft.Compute/diskEncryptionSets", "cov-os-cvm-des")},
					SecurityEncryptionType: infrav1.SecurityEncryptionTypeDiskWithVMGuestState,
				},
			},
			DiffDiskSettings: &infrav1.DiffDiskSettings{Option: "Local", Placement: ptr.To(infrav1.DiffDiskPlacement("ResourceDisk"))},
			CachingType:      "ReadOnly",
		},
		DataDisks: []infrav1.DataDisk{{
			NameSuffix: "covdata",
			DiskSizeGB: 173,
			ManagedDisk: &infrav1.ManagedDiskParameters{
				StorageAccountType: "UltraSSD_LRS",
				DiskEncryptionSet:  &infrav1.DiskEncryptionSetParameters{ID: covID("Microsoft.Compute/diskEncryptionSets", "cov-data-des")},
				SecurityProfile: &infrav1.VMDiskSecurityProfile{
					DiskEncryptionSet:      &infrav1.DiskEncryptionSetParameters{ID: covID("Microsoft.Compute/diskEncryptionSets", "cov-data-cvm-des")},
					SecurityEncryptionType: infrav1.SecurityEncryptionTypeVMGuestStateOnly,
				},
			},
			Lun:         ptr.To[int32](17),
			CachingType: "None",
		}},
		SSHPublicKey:           testSSHKey,
		AdditionalTags:         infrav1.Tags{"cov-tag-key": "cov-tag-value"},
		AdditionalCapabilities: &infrav1.AdditionalCapabilities{UltraSSDEnabled: ptr.To(false)},
		AllocatePublicIP:       true,
		EnableIPForwarding:     true,
		AcceleratedNetworking:  ptr.To(true),
		Diagnostics: &infrav1.Diagnostics{Boot: &infrav1.BootDiagnostics{
			StorageAccountType: infrav1.UserManagedDiagnosticsStorage,
			UserManaged:        &infrav1.UserManagedBootDiagnostics{StorageAccountURI: "https://covdiag.blob.core.windows.net/"},
		}},
		SpotVMOptions: &infrav1.SpotVMOptions{
			MaxPrice:       ptr.To(resource.MustParse("0.0171")),
			EvictionPolicy: ptr.To(infrav1.SpotEvictionPolicyDelete),
		},
		SecurityProfile: &infrav1.SecurityProfile{
			EncryptionAtHost: ptr.To(true),
			SecurityType:     infrav1.SecurityTypesConfidentialVM,
			UefiSettings:     &infrav1.UefiSettings{SecureBootEnabled: ptr.To(true), VTpmEnabled: ptr.To(true)},
		},
		SubnetName:                  "cov-deprecated-subnet",
		DNSServers:                  []string{"10.99.0.53"},
		DisableExtensionOperations:  ptr.To(false),
		DisableVMBootstrapExtension: ptr.To(true),
		VMExtensions: []infrav1.VMExtension{{
			Name: "CovExt", Publisher: "cov.publisher", Version: "9.8",
			Settings:          infrav1.Tags{"covSettingKey": "cov-setting-value"},
			ProtectedSettings: infrav1.Tags{"covProtectedKey": "cov-protected-value"},
		}},
		NetworkInterfaces: []infrav1.NetworkInterface{
			{SubnetName: "cov-subnet-a", PrivateIPConfigs: 3, AcceleratedNetworking: ptr.To(true)},
			{SubnetName: "cov-subnet-b", PrivateIPConfigs: 3, AcceleratedNetworking: ptr.To(false)},
		},
		CapacityReservationGroupID: ptr.To(covID("Microsoft.Compute/capacityReservationGroups", "cov-crg")),
		VirtualMachineScaleSetID:   covID(azure.TypeScaleSet, "cov-vmss"),
		ASOPatches: []infrav1.ASOPatch{{
			Target: infrav1.ASOPatchTarget{Kind: "VirtualMachine", Name: "cov-patch-target"},
			Type:   infrav1.MergePatchType,
			Patch:  `{"spec":{"licenseType":"cov-patched-license"}}`,
		}},
	}
}

// coverageVariants change coverageSpec where fields exclude each other: the kinds of image, of identity, and
// extensions turned off.
var coverageVariants = map[string]func(*infrav1.AzureMachineSpec){
	"marketplace-image": func(*infrav1.AzureMachineSpec) {},
	"compute-gallery-image": func(s *infrav1.AzureMachineSpec) {
		s.Image = &infrav1.Image{ComputeGallery: &infrav1.AzureComputeGalleryImage{
			Gallery: "cov-gallery", Name: "cov-gallery-image", Version: "6.6.6",
			SubscriptionID: ptr.To("00000000-0000-0000-0000-0000000000cc"), ResourceGroup: ptr.To("cov-gallery-rg"),
			Plan: &infrav1.ImagePlan{Publisher: "cov-plan-publisher", Offer: "cov-plan-offer", SKU: "cov-plan-sku"},
		}}
	},
	"shared-gallery-image": func(s *infrav1.AzureMachineSpec) {
		s.Image = &infrav1.Image{SharedGallery: &infrav1.AzureSharedGalleryImage{
			SubscriptionID: "00000000-0000-0000-0000-0000000000dd", ResourceGroup: "cov-sig-rg", Gallery: "cov-sig",
			Name: "cov-sig-image", Version: "5.5.5",
			Publisher: ptr.To("cov-sig-publisher"), Offer: ptr.To("cov-sig-offer"), SKU: ptr.To("cov-sig-sku"),
		}}
	},
	"image-id": func(s *infrav1.AzureMachineSpec) {
		s.Image = &infrav1.Image{ID: ptr.To(covID("Microsoft.Compute/images", "cov-image"))}
	},
	"user-assigned-identity": func(s *infrav1.AzureMachineSpec) {
		s.Identity = infrav1.VMIdentityUserAssigned
		s.SystemAssignedIdentityRole = nil
		s.RoleAssignmentName = ""
		s.UserAssignedIdentities = []infrav1.UserAssignedIdentity{{
			ProviderID: "azure://" + covID("Microsoft.ManagedIdentity/userAssignedIdentities", "cov-uai"),
		}}
	},
	"extension-operations-disabled": func(s *infrav1.AzureMachineSpec) {
		s.DisableExtensionOperations = ptr.To(true)
		s.DisableVMBootstrapExtension = nil
		s.VMExtensions = nil
	},
}

// coverageNeedles are what the translated objects' YAML must contain for a spec field, where the value alone is
// not distinctive or is transformed. Keys are field paths, or "<path>=<value>" for a particular value (required
// for booleans); a needle starting with "!" must not appear.
var coverageNeedles = map[string][]string{
	"vmSize":                                              {"vmSize: Standard_Cov7s_v9"},
	"image.marketplace.version":                           {"version: 7.7.7"},
	"image.marketplace.thirdPartyImage=true":              {"product: cov-mkt-offer", "name: cov-mkt-sku"},
	"image.computeGallery.version":                        {"/versions/6.6.6"},
	"image.sharedGallery.version":                         {"/versions/5.5.5"},
	"identity=SystemAssigned":                             {"type: SystemAssigned", "self.status.identity.principalId"},
	"identity=UserAssigned":                               {"type: UserAssigned", "!self.status.identity.principalId"},
	"osDisk.osType":                                       {"osType: Linux"},
	"osDisk.diskSizeGB":                                   {"diskSizeGB: 211"},
	"osDisk.managedDisk.storageAccountType":               {"storageAccountType: Premium_ZRS"},
	"osDisk.diffDiskSettings.option":                      {"option: Local"},
	"osDisk.diffDiskSettings.placement":                   {"placement: ResourceDisk"},
	"osDisk.cachingType":                                  {"caching: ReadOnly"},
	"dataDisks[].nameSuffix":                              {"name: " + infrav1.DataDiskName(covMachine, "covdata")},
	"dataDisks[].diskSizeGB":                              {"diskSizeGB: 173"},
	"dataDisks[].managedDisk.storageAccountType":          {"storageAccountType: UltraSSD_LRS"},
	"dataDisks[].lun":                                     {"lun: 17"},
	"dataDisks[].cachingType":                             {"caching: None"},
	"sshPublicKey":                                        {testSSHKeyText},
	"additionalCapabilities.ultraSSDEnabled=false":        {"ultraSSDEnabled: false"},
	"allocatePublicIP=true":                               {"name: " + infrav1.MachinePublicIPName(covMachine), "kind: PublicIPAddress"},
	"enableIPForwarding=true":                             {"enableIPForwarding: true"},
	"diagnostics.boot.storageAccountType":                 {"storageUri: https://covdiag.blob.core.windows.net/", "enabled: true"},
	"spotVMOptions.maxPrice":                              {"maxPrice: 0.0171", "priority: Spot"},
	"spotVMOptions.evictionPolicy":                        {"evictionPolicy: Delete"},
	"securityProfile.encryptionAtHost=true":               {"encryptionAtHost: true"},
	"securityProfile.securityType":                        {"securityType: ConfidentialVM"},
	"securityProfile.uefiSettings.secureBootEnabled=true": {"secureBootEnabled: true"},
	"securityProfile.uefiSettings.vTpmEnabled=true":       {"vTpmEnabled: true"},
	"disableExtensionOperations=false":                    {"allowExtensionOperations: true", "typeHandlerVersion"},
	"disableExtensionOperations=true":                     {"allowExtensionOperations: false", "!typeHandlerVersion"},
	"disableVMBootstrapExtension=true":                    {"!" + LinuxBootstrapExtension},
	"vmExtensions[].version":                              {`typeHandlerVersion: "9.8"`},
	"vmExtensions[].protectedSettings": {
		"name: " + ProtectedSettingsSecretName(covMachine, "CovExt"), "covProtectedKey: " + base64.StdEncoding.EncodeToString([]byte("cov-protected-value")),
		"!cov-protected-value",
	},
	"networkInterfaces[].privateIPConfigs":            {"name: " + covMachine + "-nic-0-2", "name: " + covMachine + "-nic-1-2"},
	"networkInterfaces[].acceleratedNetworking=true":  {"enableAcceleratedNetworking: true"},
	"networkInterfaces[].acceleratedNetworking=false": {"enableAcceleratedNetworking: false"},
	"userAssignedIdentities[].providerID": {
		"armId: " + covID("Microsoft.ManagedIdentity/userAssignedIdentities", "cov-uai"), "type: UserAssigned", "!azure:///",
	},
}

// TestMachineResources_FieldCoverage translates AzureMachine specs with every field set and checks that every
// value reaches the ASO objects (or Secrets), unless the field is a documented exclusion. A new spec field fails
// the test until it is translated (and set here) or excluded.
func TestMachineResources_FieldCoverage(t *testing.T) {
	covered := map[string]bool{}
	for name, variant := range coverageVariants {
		t.Run(name, func(t *testing.T) {
			spec := coverageSpec()
			variant(&spec)
			in := MachineInput{
				Cluster: testCluster, Name: covMachine, Spec: spec, Role: azure.RoleNode, Zone: "3",
				VNet: VNetRef{Name: "cov-vnet"}, DefaultSubnet: "cov-default-subnet",
				BootstrapData: []byte(testBootstrapData), KubernetesVersion: "v1.34.1",
			}
			var text strings.Builder
			for _, r := range MachineResources(in) {
				text.WriteString("kind: " + kindOf(r.Object) + "\n")
				text.WriteString(yamlOf(t, []any{r.Object}))
			}
			out := text.String()
			specLeaves(reflect.ValueOf(spec), "", func(path string, v reflect.Value) {
				if reason, excluded := excludedBy(coverageExclusions, path); excluded {
					for _, value := range leafValues(v) {
						if strings.Contains(value, "cov-") && strings.Contains(out, value) {
							t.Errorf("%s is excluded (%s), yet its value %q shows up in the objects", path, reason, value)
						}
					}
					return
				}
				covered[path] = true
				for _, needle := range needlesFor(t, coverageNeedles, path, v) {
					if absent, ok := strings.CutPrefix(needle, "!"); ok {
						if strings.Contains(out, absent) {
							t.Errorf("%s: the objects contain %q", path, absent)
						}
						continue
					}
					if !strings.Contains(out, needle) {
						t.Errorf("%s: the objects do not contain %q", path, needle)
					}
				}
			})
		})
	}
	var missing []string
	for path := range specFieldPaths(reflect.TypeFor[infrav1.AzureMachineSpec](), "") {
		if _, excluded := excludedBy(coverageExclusions, path); !excluded && !covered[path] {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("spec fields neither set by the coverage test nor excluded: %v", missing)
	}
	checkFieldSupport(t, "AzureMachine", covered, coverageExclusions)
}

// checkFieldSupport checks that the webhook admits every field the coverage test found in the objects and rejects
// every field excluded as not supported yet.
func checkFieldSupport(t *testing.T, kind string, covered map[string]bool, exclusions map[string]string) {
	t.Helper()
	for path := range covered {
		if !infrav1.IsFieldImplemented(kind, path) {
			t.Errorf("%s %s reaches the objects, yet the webhook rejects it as not implemented", kind, path)
		}
	}
	for path, reason := range exclusions {
		if notSupported := strings.HasPrefix(reason, "not supported yet"); notSupported == infrav1.IsFieldImplemented(kind, path) {
			t.Errorf("%s %s: the exclusion says %q, yet the webhook's implemented fields say %t", kind, path, reason, !notSupported)
		}
	}
}

// excludedBy returns the exclusion covering a field path.
func excludedBy(exclusions map[string]string, path string) (string, bool) {
	for prefix, reason := range exclusions {
		if path == prefix || strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[]") {
			return reason, true
		}
	}
	return "", false
}

// needlesFor returns what the objects must (or, with "!", must not) contain for a field's value.
func needlesFor(t *testing.T, coverageNeedles map[string][]string, path string, v reflect.Value) []string {
	t.Helper()
	if v.Kind() == reflect.Bool {
		key := path + "=" + strconv.FormatBool(v.Bool())
		if needles, ok := coverageNeedles[key]; ok {
			return needles
		}
		t.Errorf("add coverageNeedles[%q]: a boolean needs an explicit needle", key)
		return nil
	}
	if v.Kind() == reflect.String {
		if needles, ok := coverageNeedles[path+"="+v.String()]; ok {
			return needles
		}
	}
	if needles, ok := coverageNeedles[path]; ok {
		return needles
	}
	values := leafValues(v)
	for _, value := range values {
		if len(value) < 5 || v.Kind() != reflect.String && v.Kind() != reflect.Map {
			t.Errorf("add coverageNeedles[%q]: %q is not distinctive enough to look for", path, value)
			return nil
		}
	}
	return values
}

// leafValues are the texts of a field's value: a string, a number, or a map's keys and values.
func leafValues(v reflect.Value) []string {
	switch v.Kind() {
	case reflect.String:
		return []string{v.String()}
	case reflect.Bool:
		return nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return []string{strconv.FormatInt(v.Int(), 10)}
	case reflect.Map:
		var out []string
		for _, k := range v.MapKeys() {
			out = append(out, k.String(), v.MapIndex(k).String())
		}
		sort.Strings(out)
		return out
	}
	if q, ok := v.Interface().(resource.Quantity); ok {
		return []string{q.String()}
	}
	return nil
}

var quantityType = reflect.TypeFor[resource.Quantity]()

// specLeaves calls visit with the JSON path of every set field that holds a value: strings, numbers and booleans
// that are not zero (or are set through a pointer), non-empty maps and quantities. List items share the path
// "<list>[]".
func specLeaves(v reflect.Value, path string, visit func(string, reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() != reflect.Struct {
			visit(path, e)
			return
		}
		specLeaves(v.Elem(), path, visit)
	case reflect.Struct:
		if v.Type() == quantityType {
			visit(path, v)
			return
		}
		for i := range v.NumField() {
			name, ok := fieldpath.JSONName(v.Type().Field(i))
			if !ok {
				continue
			}
			specLeaves(v.Field(i), fieldpath.Join(path, name), visit)
		}
	case reflect.Slice:
		for i := range v.Len() {
			specLeaves(v.Index(i), path+"[]", visit)
		}
	case reflect.Map:
		if v.Len() > 0 {
			visit(path, v)
		}
	default:
		if !v.IsZero() {
			visit(path, v)
		}
	}
}

// specFieldPaths returns the JSON path of every value a type can hold, as specLeaves names them.
func specFieldPaths(t reflect.Type, path string) map[string]bool {
	out := map[string]bool{}
	switch t.Kind() {
	case reflect.Pointer:
		return specFieldPaths(t.Elem(), path)
	case reflect.Struct:
		if t == quantityType {
			out[path] = true
			return out
		}
		for i := range t.NumField() {
			name, ok := fieldpath.JSONName(t.Field(i))
			if !ok {
				continue
			}
			for p := range specFieldPaths(t.Field(i).Type, fieldpath.Join(path, name)) {
				out[p] = true
			}
		}
	case reflect.Slice:
		return specFieldPaths(t.Elem(), path+"[]")
	default:
		out[path] = true
	}
	return out
}
