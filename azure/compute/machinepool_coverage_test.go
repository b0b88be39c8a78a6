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
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// poolCoverageExclusions are the AzureMachinePool spec fields (and everything under them) that no translator
// reads, and why. Their distinctive values ("cov-…") must not show up in the translated objects either. The
// webhook rejects none of them: each is implemented elsewhere.
var poolCoverageExclusions = map[string]string{
	"providerID":                            "set by the controller from the scale set's resource ID",
	"providerIDList":                        "set by the controller: the instances' VM IDs (Flexible) or the scale set's Nodes (Uniform)",
	"roleAssignmentName":                    "deprecated; defaulting moves it into systemAssignedIdentityRole.name",
	"template.subnetName":                   "deprecated; defaulting moves it into template.networkInterfaces[0].subnetName",
	"template.acceleratedNetworking":        "deprecated; defaulting moves it into template.networkInterfaces[0].acceleratedNetworking",
	"asoPatches":                            "applied by the engine (azure/aso) to the translated objects",
	"strategy.type":                         "RollingUpdate, the only type: the controller rolls the instances",
	"strategy.rollingUpdate.maxSurge":       "read by the controller's rollout (instances of a Flexible scale set, capacity of a Uniform one)",
	"strategy.rollingUpdate.maxUnavailable": "read by the controller's rollout (instances of a Flexible scale set, capacity of a Uniform one)",
}

const covPool = "cov-pool"

// poolCoverageSpec is an AzureMachinePool spec with every field set to a distinctive value.
func poolCoverageSpec() infrav1exp.AzureMachinePoolSpec {
	m := coverageSpec()
	return infrav1exp.AzureMachinePoolSpec{
		Location: "covlocation",
		Template: infrav1exp.AzureMachinePoolMachineTemplate{
			VMSize: m.VMSize, Image: m.Image, OSDisk: m.OSDisk, DataDisks: m.DataDisks, SSHPublicKey: m.SSHPublicKey,
			AcceleratedNetworking: ptr.To(true), AdditionalCapabilities: m.AdditionalCapabilities, Diagnostics: m.Diagnostics,
			TerminateNotificationTimeout: ptr.To[int32](11), SecurityProfile: m.SecurityProfile, SpotVMOptions: &infrav1.SpotVMOptions{
				MaxPrice: ptr.To(resource.MustParse("0.0171")), EvictionPolicy: ptr.To(infrav1.SpotEvictionPolicyDelete),
			},
			SubnetName: "cov-deprecated-subnet", VMExtensions: m.VMExtensions, DisableVMBootstrapExtension: ptr.To(true),
			NetworkInterfaces: m.NetworkInterfaces,
		},
		AdditionalTags:             infrav1.Tags{"cov-tag-key": "cov-tag-value"},
		ProviderID:                 "azure://" + covID(azure.TypeScaleSet, "cov-provider-id-vmss"),
		ProviderIDList:             []string{"azure://" + covID(azure.TypeVirtualMachine, "cov-provider-id-list-vm")},
		Identity:                   infrav1.VMIdentitySystemAssigned,
		SystemAssignedIdentityRole: m.SystemAssignedIdentityRole,
		RoleAssignmentName:         "cov-deprecated-role-assignment",
		Strategy: infrav1exp.AzureMachinePoolDeploymentStrategy{
			Type: infrav1exp.RollingUpdateAzureMachinePoolDeploymentStrategyType,
			RollingUpdate: &infrav1exp.MachineRollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("37%")), MaxSurge: ptr.To(intstr.FromInt32(4)),
				DeletePolicy: infrav1exp.OldestDeletePolicyType,
			},
		},
		OrchestrationMode:        infrav1exp.UniformOrchestrationMode,
		PlatformFaultDomainCount: ptr.To[int32](3),
		ZoneBalance:              ptr.To(true),
		ASOPatches: []infrav1.ASOPatch{{
			Target: infrav1.ASOPatchTarget{Kind: "VirtualMachineScaleSet", Name: "cov-patch-target"},
			Type:   infrav1.MergePatchType,
			Patch:  `{"spec":{"licenseType":"cov-patched-license"}}`,
		}},
	}
}

// poolCoverageVariants change poolCoverageSpec where fields exclude each other: the orchestration modes, the
// kinds of image and of identity, and the delete policies a mode supports.
var poolCoverageVariants = map[string]func(*infrav1exp.AzureMachinePoolSpec){
	"uniform-marketplace-image": func(*infrav1exp.AzureMachinePoolSpec) {},
	"uniform-compute-gallery-image": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Template.Image = &infrav1.Image{ComputeGallery: &infrav1.AzureComputeGalleryImage{
			Gallery: "cov-gallery", Name: "cov-gallery-image", Version: "6.6.6",
			SubscriptionID: ptr.To("00000000-0000-0000-0000-0000000000cc"), ResourceGroup: ptr.To("cov-gallery-rg"),
			Plan: &infrav1.ImagePlan{Publisher: "cov-plan-publisher", Offer: "cov-plan-offer", SKU: "cov-plan-sku"},
		}}
	},
	"uniform-shared-gallery-image": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Template.Image = &infrav1.Image{SharedGallery: &infrav1.AzureSharedGalleryImage{
			SubscriptionID: "00000000-0000-0000-0000-0000000000dd", ResourceGroup: "cov-sig-rg", Gallery: "cov-sig",
			Name: "cov-sig-image", Version: "5.5.5",
			Publisher: ptr.To("cov-sig-publisher"), Offer: ptr.To("cov-sig-offer"), SKU: ptr.To("cov-sig-sku"),
		}}
	},
	"uniform-image-id": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Template.Image = &infrav1.Image{ID: ptr.To(covID("Microsoft.Compute/images", "cov-image"))}
	},
	"uniform-user-assigned-identity": userAssignedPool,
	"uniform-newest": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Strategy.RollingUpdate.DeletePolicy = infrav1exp.NewestDeletePolicyType
	},
	"uniform-random": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Strategy.RollingUpdate.DeletePolicy = infrav1exp.RandomDeletePolicyType
	},
	"flexible": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.OrchestrationMode = infrav1exp.FlexibleOrchestrationMode
		s.Strategy.RollingUpdate.DeletePolicy = infrav1exp.NewestDeletePolicyType
	},
	"flexible-user-assigned-identity-extensions-enabled": func(s *infrav1exp.AzureMachinePoolSpec) {
		s.OrchestrationMode = infrav1exp.FlexibleOrchestrationMode
		s.Strategy.RollingUpdate.DeletePolicy = infrav1exp.RandomDeletePolicyType
		s.Template.DisableVMBootstrapExtension = ptr.To(false)
		userAssignedPool(s)
	},
}

func userAssignedPool(s *infrav1exp.AzureMachinePoolSpec) {
	s.Identity = infrav1.VMIdentityUserAssigned
	s.SystemAssignedIdentityRole = nil
	s.RoleAssignmentName = ""
	s.UserAssignedIdentities = []infrav1.UserAssignedIdentity{{
		ProviderID: "azure://" + covID("Microsoft.ManagedIdentity/userAssignedIdentities", "cov-uai"),
	}}
}

// poolCoverageNeedles are what the translated objects' YAML must contain for a spec field where the value alone
// is not distinctive or is transformed; see coverageNeedles. A Flexible pool's objects include an instance's.
var poolCoverageNeedles = map[string][]string{
	"location":                           {"location: covlocation"},
	"template.vmSize":                    {"Standard_Cov7s_v9"},
	"template.image.marketplace.version": {"version: 7.7.7"},
	"template.image.marketplace.thirdPartyImage=true":              {"product: cov-mkt-offer", "name: cov-mkt-sku"},
	"template.image.computeGallery.version":                        {"/versions/6.6.6"},
	"template.image.sharedGallery.version":                         {"/versions/5.5.5"},
	"identity=SystemAssigned":                                      {"type: SystemAssigned", "self.status.identity.principalId", "kind: RoleAssignment"},
	"identity=UserAssigned":                                        {"type: UserAssigned", "!self.status.identity.principalId", "!kind: RoleAssignment"},
	"template.osDisk.osType":                                       {"osType: Linux"},
	"template.osDisk.diskSizeGB":                                   {"diskSizeGB: 211"},
	"template.osDisk.managedDisk.storageAccountType":               {"storageAccountType: Premium_ZRS"},
	"template.osDisk.diffDiskSettings.option":                      {"option: Local"},
	"template.osDisk.diffDiskSettings.placement":                   {"placement: ResourceDisk"},
	"template.osDisk.cachingType":                                  {"caching: ReadOnly"},
	"template.dataDisks[].nameSuffix":                              {"covdata"},
	"template.dataDisks[].diskSizeGB":                              {"diskSizeGB: 173"},
	"template.dataDisks[].managedDisk.storageAccountType":          {"storageAccountType: UltraSSD_LRS"},
	"template.dataDisks[].lun":                                     {"lun: 17"},
	"template.dataDisks[].cachingType":                             {"caching: None"},
	"template.sshPublicKey":                                        {testSSHKeyText},
	"template.additionalCapabilities.ultraSSDEnabled=false":        {"ultraSSDEnabled: false"},
	"template.diagnostics.boot.storageAccountType":                 {"storageUri: https://covdiag.blob.core.windows.net/", "enabled: true"},
	"template.terminateNotificationTimeout":                        {"notBeforeTimeout: PT11M", "enable: true"},
	"template.spotVMOptions.maxPrice":                              {"maxPrice: 0.0171", "priority: Spot"},
	"template.spotVMOptions.evictionPolicy":                        {"evictionPolicy: Delete"},
	"template.securityProfile.encryptionAtHost=true":               {"encryptionAtHost: true"},
	"template.securityProfile.securityType":                        {"securityType: ConfidentialVM"},
	"template.securityProfile.uefiSettings.secureBootEnabled=true": {"secureBootEnabled: true"},
	"template.securityProfile.uefiSettings.vTpmEnabled=true":       {"vTpmEnabled: true"},
	"template.disableVMBootstrapExtension=true":                    {"!" + LinuxBootstrapExtension},
	"template.disableVMBootstrapExtension=false":                   {LinuxBootstrapExtension},
	"template.vmExtensions[].version":                              {`typeHandlerVersion: "9.8"`},
	"template.vmExtensions[].protectedSettings": {
		"covProtectedKey: " + base64.StdEncoding.EncodeToString([]byte("cov-protected-value")), "!cov-protected-value",
	},
	// A Uniform scale set names its IP configurations ipConfig<n>; a Flexible pool's instance, <nic>-<n>.
	"template.networkInterfaces[].privateIPConfigs":            {"name: ipConfig2 | -nic-0-2", "-nic-1 | -nic-1-2"},
	"template.networkInterfaces[].acceleratedNetworking=true":  {"enableAcceleratedNetworking: true"},
	"template.networkInterfaces[].acceleratedNetworking=false": {"enableAcceleratedNetworking: false"},
	"userAssignedIdentities[].providerID": {
		"armId: " + covID("Microsoft.ManagedIdentity/userAssignedIdentities", "cov-uai"), "type: UserAssigned", "!azure:///",
	},
	"strategy.rollingUpdate.deletePolicy=Oldest": {"- OldestVM"},
	"strategy.rollingUpdate.deletePolicy=Newest": {"- NewestVM"},
	"strategy.rollingUpdate.deletePolicy=Random": {"- Default"},
	"orchestrationMode=Uniform":                  {"orchestrationMode: Uniform", "capacity: 2", "!kind: VirtualMachine\n"},
	"orchestrationMode=Flexible":                 {"orchestrationMode: Flexible", "virtualMachineScaleSet:", "kind: VirtualMachine\n"},
	"platformFaultDomainCount":                   {"platformFaultDomainCount: 3"},
	"zoneBalance=true":                           {"zoneBalance: true"},
}

// TestMachinePoolResources_FieldCoverage translates AzureMachinePool specs with every field set, in both
// orchestration modes, and checks that every value reaches the ASO objects (or Secrets) of the pool and, for a
// Flexible pool, of an instance, unless the field is a documented exclusion. A new spec field fails the test until
// it is translated (and set here) or excluded.
func TestMachinePoolResources_FieldCoverage(t *testing.T) {
	covered := map[string]bool{}
	for name, variant := range poolCoverageVariants {
		t.Run(name, func(t *testing.T) {
			spec := poolCoverageSpec()
			variant(&spec)
			in := ScaleSetInput{
				Cluster: testCluster, Name: covPool, Spec: spec, Capacity: 2, Zones: []string{"1", "2"},
				VNet: VNetRef{Name: "cov-vnet"}, DefaultSubnet: "cov-default-subnet",
				BootstrapData: []byte(testBootstrapData), KubernetesVersion: "v1.34.1",
			}
			resources := MachinePoolResources(in)
			needles := poolCoverageNeedles
			if spec.OrchestrationMode == infrav1exp.FlexibleOrchestrationMode {
				// Each instance's identity has its own role assignment, named after the pool's.
				needles = maps.Clone(poolCoverageNeedles)
				// The controller deletes a Flexible pool's instances itself: its scale set has no scale-in policy.
				for _, policy := range []string{"Newest", "Random"} {
					needles["strategy.rollingUpdate.deletePolicy="+policy] = []string{"!scaleInPolicy"}
				}
				if role := spec.SystemAssignedIdentityRole; role != nil {
					needles["systemAssignedIdentityRole.name"] = []string{"azureName: " + ReplicaRoleAssignmentName(role.Name, covPool+"-r1")}
				}
				c := testCluster
				c.Location = spec.Location
				resources = append(resources, ReplicaResources(ReplicaInput{
					Cluster: c, ScaleSet: covPool, Name: covPool + "-r1", Model: (&infrav1exp.AzureMachinePool{Spec: spec}).Model("v1.34.1", "2"),
					VNet: in.VNet, DefaultSubnet: in.DefaultSubnet, BootstrapData: in.BootstrapData,
				})...)
			}
			var text strings.Builder
			for _, r := range resources {
				text.WriteString("kind: " + kindOf(r.Object) + "\n")
				text.WriteString(yamlOf(t, []any{r.Object}))
			}
			out := text.String()
			specLeaves(reflect.ValueOf(spec), "", func(path string, v reflect.Value) {
				if reason, excluded := excludedBy(poolCoverageExclusions, path); excluded {
					for _, value := range leafValues(v) {
						if strings.Contains(value, "cov-") && strings.Contains(out, value) {
							t.Errorf("%s is excluded (%s), yet its value %q shows up in the objects", path, reason, value)
						}
					}
					return
				}
				covered[path] = true
				for _, needle := range needlesFor(t, needles, path, v) {
					if absent, ok := strings.CutPrefix(needle, "!"); ok {
						if strings.Contains(out, absent) {
							t.Errorf("%s: the objects contain %q", path, absent)
						}
						continue
					}
					// "a | b": either will do (Uniform and Flexible pools differ).
					if !slices.ContainsFunc(strings.Split(needle, " | "), func(n string) bool { return strings.Contains(out, n) }) {
						t.Errorf("%s: the objects do not contain %q", path, needle)
					}
				}
			})
		})
	}
	var missing []string
	for path := range specFieldPaths(reflect.TypeFor[infrav1exp.AzureMachinePoolSpec](), "") {
		if _, excluded := excludedBy(poolCoverageExclusions, path); !excluded && !covered[path] {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("spec fields neither set by the coverage test nor excluded: %v", missing)
	}
	checkFieldSupport(t, "AzureMachinePool", covered, poolCoverageExclusions)
}
