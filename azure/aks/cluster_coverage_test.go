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

package aks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/fieldpath"
)

// The field-coverage tests fill every spec field of AzureManagedControlPlane and AzureManagedMachinePool with a
// distinctive value, run the translators and check that each value reaches the ASO objects, unless the field is
// a documented exclusion. A spec field added to the API fails them until it is translated (and set here) or
// excluded with its reason.

// controlPlaneExclusions are the AzureManagedControlPlane spec fields (and everything under them) that no
// translator of this package reads, and why. Their distinctive values ("cov-…") must not reach the objects.
var controlPlaneExclusions = map[string]string{
	"machineTemplate":          "Cluster API's control plane contract with ClusterClass; AKS nodes are not Machines",
	"identityRef":              "the controller resolves the identity into the ASO credential Secret (credential-from annotation)",
	"subscriptionID":           "the controller resolves it (or the credential's subscription) into azure.Cluster.SubscriptionID",
	"azureEnvironment":         "the Azure cloud of the credential: ASO's endpoints come from its credential, not from the ManagedCluster",
	"asoManagedClusterPatches": "the engine (azure/aso) applies them to the translated ManagedCluster",
	"asoPatches":               "the engine (azure/aso) applies them to the translated objects",
	"controlPlaneEndpoint":     "the controller reports the AKS API server's FQDN there; nothing in Azure is made from it",
	"enablePreviewFeatures": "not supported yet: the AKS preview API (containerservice v20251002preview) is not among the " +
		"provider's ASO kinds; the webhook must reject true (false, the default, is what the translators do)",
	"fleetsMember": "not supported yet: ASO's FleetsMember (containerservice v1api20250301) is not among the provider's " +
		"ASO kinds (scheme, test CRDs); the webhook rejects it with \"field not supported yet\"",
	"extensions": "not supported yet: ASO's Extension (kubernetesconfiguration v1api20241101) is not among the provider's " +
		"ASO kinds (scheme, test CRDs); the webhook rejects it with \"field not supported yet\"",
}

// machinePoolExclusions are the AzureManagedMachinePool spec fields no translator of this package reads, and why.
var machinePoolExclusions = map[string]string{
	"asoManagedClustersAgentPoolPatches": "the engine (azure/aso) applies them to the translated agent pool",
	"asoPatches":                         "the engine (azure/aso) applies them to the translated objects",
	"providerIDList":                     "the controller sets it from the nodes of the pool",
}

const (
	covSub         = "00000000-0000-0000-0000-0000000000c0"
	covCluster     = "cov-cluster"
	covControlPane = "cov-aks"
	covPool        = "cov-machine-pool"
)

func covID(group, resourceType, name string) string {
	return azure.ResourceID(covSub, group, resourceType, name)
}

// coverageControlPlane is an AzureManagedControlPlane spec with every field set. The translators do not validate,
// so fields the webhook would not accept together (three outbound IP sources, authorized IP ranges of a private
// cluster) are all set.
func coverageControlPlane() infrav1.AzureManagedControlPlaneSpec {
	return infrav1.AzureManagedControlPlaneSpec{
		AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
			MachineTemplate: &infrav1.AzureManagedControlPlaneTemplateMachineTemplate{ObjectMeta: clusterv1.ObjectMeta{
				Labels: map[string]string{"cov-mt-label": "cov-mt-label-value"}, Annotations: map[string]string{"cov-mt-annotation": "cov-mt-annotation-value"},
			}},
			ResourceGroupName: "cov-rg",
			Version:           "v1.31.7",
			VirtualNetwork: infrav1.ManagedControlPlaneVirtualNetwork{
				ResourceGroup: "cov-vnet-rg", Name: "cov-vnet", CIDRBlock: "10.71.0.0/16",
				Subnet: infrav1.ManagedControlPlaneSubnet{
					Name: "cov-subnet", CIDRBlock: "10.71.3.0/24",
					ServiceEndpoints: infrav1.ServiceEndpoints{{Service: "Microsoft.CovService", Locations: []string{"cov-se-location"}}},
					PrivateEndpoints: infrav1.PrivateEndpoints{{
						Name: "cov-pe", Location: "cov-pe-location", CustomNetworkInterfaceName: "cov-pe-nic",
						PrivateIPAddresses:        []string{"10.71.3.77"},
						ApplicationSecurityGroups: []string{covID("cov-asg-rg", "Microsoft.Network/applicationSecurityGroups", "cov-asg")},
						ManualApproval:            true,
						PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{
							Name: "cov-plsc", PrivateLinkServiceID: covID("cov-pls-rg", "Microsoft.Network/privateLinkServices", "cov-pls"),
							GroupIDs: []string{"cov-pe-group"}, RequestMessage: "cov-request",
						}},
					}},
				},
			},
			SubscriptionID:    covSub,
			Location:          "cov-location",
			AdditionalTags:    infrav1.Tags{"cov-tag-key": "cov-tag-value"},
			NetworkPlugin:     ptr.To(infrav1.NetworkPluginKubenet),
			NetworkPluginMode: ptr.To(infrav1.NetworkPluginModeOverlay),
			NetworkPolicy:     ptr.To(infrav1.NetworkPolicyCalico),
			NetworkDataplane:  ptr.To(infrav1.NetworkDataplaneTypeCilium),
			OutboundType:      ptr.To(infrav1.ManagedControlPlaneOutboundTypeUserDefinedRouting),
			DNSServiceIP:      ptr.To("10.72.0.53"),
			LoadBalancerSKU:   ptr.To(infrav1.ManagedLoadBalancerSKUBasic),
			IdentityRef:       &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "cov-identity", Namespace: "cov-identity-ns"},
			AADProfile:        &infrav1.AADProfile{Managed: true, AdminGroupObjectIDs: []string{"cov-admin-group"}},
			AddonProfiles: []infrav1.AddonProfile{
				{Name: "covaddon", Config: map[string]string{"covAddonKey": "cov-addon-value"}, Enabled: true},
				{Name: "covaddonoff"},
			},
			SKU: &infrav1.AKSSku{Tier: infrav1.PaidManagedControlPlaneTier},
			LoadBalancerProfile: &infrav1.LoadBalancerProfile{
				ManagedOutboundIPs:     ptr.To[int32](7),
				OutboundIPPrefixes:     []string{covID("cov-ip-rg", azure.TypePublicIPAddress+"Prefixes", "cov-prefix")},
				OutboundIPs:            []string{covID("cov-ip-rg", azure.TypePublicIPAddress, "cov-pip")},
				AllocatedOutboundPorts: ptr.To[int32](4008),
				IdleTimeoutInMinutes:   ptr.To[int32](77),
			},
			APIServerAccessProfile: &infrav1.APIServerAccessProfile{
				AuthorizedIPRanges:             []string{"203.0.113.0/24"},
				EnablePrivateCluster:           ptr.To(true),
				PrivateDNSZone:                 ptr.To(covID("cov-dns-rg", azure.TypePrivateDNSZone, "cov.private.eastus.azmk8s.io")),
				EnablePrivateClusterPublicFQDN: ptr.To(true),
			},
			AutoScalerProfile: &infrav1.AutoScalerProfile{
				BalanceSimilarNodeGroups:      ptr.To(infrav1.AutoScalerFlagTrue),
				Expander:                      ptr.To(infrav1.ExpanderMostPods),
				MaxEmptyBulkDelete:            ptr.To("11"),
				MaxGracefulTerminationSec:     ptr.To("611"),
				MaxNodeProvisionTime:          ptr.To("17m"),
				MaxTotalUnreadyPercentage:     ptr.To("47"),
				NewPodScaleUpDelay:            ptr.To("13s"),
				OkTotalUnreadyCount:           ptr.To("5"),
				ScanInterval:                  ptr.To("19s"),
				ScaleDownDelayAfterAdd:        ptr.To("21m"),
				ScaleDownDelayAfterDelete:     ptr.To("23s"),
				ScaleDownDelayAfterFailure:    ptr.To("4m"),
				ScaleDownUnneededTime:         ptr.To("27m"),
				ScaleDownUnreadyTime:          ptr.To("29m"),
				ScaleDownUtilizationThreshold: ptr.To("0.37"),
				SkipNodesWithLocalStorage:     ptr.To(infrav1.AutoScalerFlagTrue),
				SkipNodesWithSystemPods:       ptr.To(infrav1.AutoScalerFlagFalse),
			},
			AzureEnvironment: "AzureChinaCloud",
			Identity: &infrav1.ManagedControlPlaneIdentity{
				Type:                           infrav1.ManagedControlPlaneIdentityTypeUserAssigned,
				UserAssignedIdentityResourceID: covID("cov-id-rg", "Microsoft.ManagedIdentity/userAssignedIdentities", "cov-cp-identity"),
			},
			KubeletUserAssignedIdentity: covID("cov-id-rg", "Microsoft.ManagedIdentity/userAssignedIdentities", "cov-kubelet-identity"),
			HTTPProxyConfig: &infrav1.HTTPProxyConfig{
				HTTPProxy: ptr.To("http://cov-proxy:3128"), HTTPSProxy: ptr.To("https://cov-secure-proxy:3129"),
				NoProxy: []string{"cov-no-proxy.example"}, TrustedCA: ptr.To("cov-trusted-ca"),
			},
			OIDCIssuerProfile:    &infrav1.OIDCIssuerProfile{Enabled: ptr.To(true)},
			DisableLocalAccounts: ptr.To(true),
			AKSExtensions: []infrav1.AKSExtension{{
				Name: "cov-ext", AKSAssignedIdentityType: infrav1.AKSAssignedIdentitySystemAssigned, AutoUpgradeMinorVersion: ptr.To(false),
				ConfigurationSettings: map[string]string{"cov-ext-key": "cov-ext-value"}, ExtensionType: "cov.extension",
				Plan: &infrav1.ExtensionPlan{
					Name: "cov-plan", Product: "cov-product", PromotionCode: "cov-promo", Publisher: "cov-publisher", Version: "cov-plan-version",
				},
				ReleaseTrain: ptr.To("cov-train"),
				Scope:        &infrav1.ExtensionScope{ScopeType: infrav1.ExtensionScopeNamespace, ReleaseNamespace: "cov-release-ns", TargetNamespace: "cov-target-ns"},
				Version:      ptr.To("cov-ext-version"),
				Identity:     infrav1.ExtensionIdentitySystemAssigned,
			}},
			AutoUpgradeProfile: &infrav1.ManagedClusterAutoUpgradeProfile{UpgradeChannel: ptr.To(infrav1.UpgradeChannelRapid)},
			SecurityProfile: &infrav1.ManagedClusterSecurityProfile{
				AzureKeyVaultKms: &infrav1.AzureKeyVaultKms{
					Enabled: true, KeyID: "https://cov-kv.vault.azure.net/keys/cov-key/1",
					KeyVaultNetworkAccess: ptr.To(infrav1.KeyVaultNetworkAccessTypesPrivate),
					KeyVaultResourceID:    ptr.To(covID("cov-kv-rg", "Microsoft.KeyVault/vaults", "cov-kv")),
				},
				Defender: &infrav1.ManagedClusterSecurityProfileDefender{
					LogAnalyticsWorkspaceResourceID: covID("cov-logs-rg", "Microsoft.OperationalInsights/workspaces", "cov-logs"),
					SecurityMonitoring:              infrav1.ManagedClusterSecurityProfileDefenderSecurityMonitoring{Enabled: true},
				},
				ImageCleaner:     &infrav1.ManagedClusterSecurityProfileImageCleaner{Enabled: true, IntervalHours: ptr.To[int32](73)},
				WorkloadIdentity: &infrav1.ManagedClusterSecurityProfileWorkloadIdentity{Enabled: true},
			},
			ASOManagedClusterPatches: []string{`{"spec":{"cov-patched":"cov-patch-value"}}`},
			EnablePreviewFeatures:    ptr.To(true),
			ASOPatches: []infrav1.ASOPatch{{
				Target: infrav1.ASOPatchTarget{Kind: "cov-patch-kind", Name: "cov-patch-target"},
				Type:   infrav1.JSONPatchType, Patch: `[{"op":"add","path":"/spec/cov","value":"cov-json-patch"}]`,
			}},
		},
		NodeResourceGroupName: "cov-node-rg",
		ControlPlaneEndpoint:  clusterv1.APIEndpoint{Host: "cov-endpoint.example.com", Port: 4443},
		SSHPublicKey:          ptr.To(testSSHKey),
		DNSPrefix:             ptr.To("cov-dns-prefix"),
		FleetsMember: &infrav1.FleetsMember{
			FleetsMemberClassSpec: infrav1.FleetsMemberClassSpec{Group: "cov-fleet-group", ManagerName: "cov-fleet", ManagerResourceGroup: "cov-fleet-rg"},
			Name:                  "cov-fleet-member",
		},
	}
}

// coverageMachinePool is an AzureManagedMachinePool spec with every field set; numbers of 1000 or more are unique,
// so that their text identifies them.
func coverageMachinePool() infrav1.AzureManagedMachinePoolSpec {
	return infrav1.AzureManagedMachinePoolSpec{
		AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
			AdditionalTags:       infrav1.Tags{"cov-pool-tag": "cov-pool-tag-value"},
			Name:                 ptr.To("covpool"),
			Mode:                 infrav1.NodePoolModeUser,
			SKU:                  "Standard_Cov8s_v9",
			OSDiskSizeGB:         ptr.To[int32](173),
			AvailabilityZones:    []string{"3"},
			NodeLabels:           map[string]string{"cov-label": "cov-label-value"},
			Taints:               infrav1.Taints{{Effect: infrav1.TaintEffectNoExecute, Key: "cov-taint-key", Value: "cov-taint-value"}},
			Scaling:              &infrav1.ManagedMachinePoolScaling{MinSize: ptr.To[int32](3), MaxSize: ptr.To[int32](7)},
			MaxPods:              ptr.To[int32](77),
			OsDiskType:           ptr.To(infrav1.ManagedOSDiskTypeEphemeral),
			EnableUltraSSD:       ptr.To(true),
			OSType:               ptr.To(infrav1.AgentPoolOSTypeWindows),
			EnableNodePublicIP:   ptr.To(true),
			NodePublicIPPrefixID: ptr.To(covID("cov-ip-rg", azure.TypePublicIPAddress+"Prefixes", "cov-node-prefix")),
			ScaleSetPriority:     ptr.To(infrav1.ScaleSetPrioritySpot),
			ScaleDownMode:        ptr.To(infrav1.ScaleDownModeDeallocate),
			SpotMaxPrice:         ptr.To(resource.MustParse("0.0173")),
			KubeletConfig: &infrav1.KubeletConfig{
				CPUManagerPolicy:      ptr.To(infrav1.CPUManagerPolicyStatic),
				CPUCfsQuota:           ptr.To(true),
				CPUCfsQuotaPeriod:     ptr.To("117ms"),
				ImageGcHighThreshold:  ptr.To[int32](91),
				ImageGcLowThreshold:   ptr.To[int32](61),
				TopologyManagerPolicy: ptr.To(infrav1.TopologyManagerPolicySingleNumaNode),
				AllowedUnsafeSysctls:  []string{"cov.sysctl.*"},
				FailSwapOn:            ptr.To(false),
				ContainerLogMaxSizeMB: ptr.To[int32](1071),
				ContainerLogMaxFiles:  ptr.To[int32](1007),
				PodMaxPids:            ptr.To[int32](4097),
			},
			KubeletDiskType: ptr.To(infrav1.KubeletDiskTypeTemporary),
			LinuxOSConfig: &infrav1.LinuxOSConfig{
				SwapFileSizeMB:             ptr.To[int32](1537),
				TransparentHugePageDefrag:  ptr.To(infrav1.TransparentHugePageDefragDeferMadvise),
				TransparentHugePageEnabled: ptr.To(infrav1.TransparentHugePageEnabledAlways),
				Sysctls: &infrav1.SysctlConfig{
					FsAioMaxNr: ptr.To[int32](5001), FsFileMax: ptr.To[int32](5002), FsInotifyMaxUserWatches: ptr.To[int32](5003),
					FsNrOpen: ptr.To[int32](5004), KernelThreadsMax: ptr.To[int32](5005), NetCoreNetdevMaxBacklog: ptr.To[int32](5006),
					NetCoreOptmemMax: ptr.To[int32](5007), NetCoreRmemDefault: ptr.To[int32](5008), NetCoreRmemMax: ptr.To[int32](5009),
					NetCoreSomaxconn: ptr.To[int32](5010), NetCoreWmemDefault: ptr.To[int32](5011), NetCoreWmemMax: ptr.To[int32](5012),
					NetIpv4IPLocalPortRange:      ptr.To("32769 60998"),
					NetIpv4NeighDefaultGcThresh1: ptr.To[int32](5013), NetIpv4NeighDefaultGcThresh2: ptr.To[int32](5014),
					NetIpv4NeighDefaultGcThresh3: ptr.To[int32](5015), NetIpv4TCPFinTimeout: ptr.To[int32](5016),
					NetIpv4TCPKeepaliveProbes: ptr.To[int32](5017), NetIpv4TCPKeepaliveTime: ptr.To[int32](5018),
					NetIpv4TCPMaxSynBacklog: ptr.To[int32](5019), NetIpv4TCPMaxTwBuckets: ptr.To[int32](5020),
					NetIpv4TCPTwReuse: ptr.To(true), NetIpv4TCPkeepaliveIntvl: ptr.To[int32](5021),
					NetNetfilterNfConntrackBuckets: ptr.To[int32](5022), NetNetfilterNfConntrackMax: ptr.To[int32](5023),
					VMMaxMapCount: ptr.To[int32](5024), VMSwappiness: ptr.To[int32](5025), VMVfsCachePressure: ptr.To[int32](5026),
				},
			},
			SubnetName:                         ptr.To("cov-pool-subnet"),
			EnableFIPS:                         ptr.To(true),
			EnableEncryptionAtHost:             ptr.To(true),
			ASOManagedClustersAgentPoolPatches: []string{`{"spec":{"cov-pool-patched":"cov-pool-patch-value"}}`},
			ASOPatches: []infrav1.ASOPatch{{
				Target: infrav1.ASOPatchTarget{Kind: "cov-pool-patch-kind"}, Type: infrav1.MergePatchType, Patch: `{"cov-pool":"cov-pool-merge"}`,
			}},
		},
		ProviderIDList: []string{"azure:///cov-provider-id"},
	}
}

// Needles are what the objects must show for a field, where its value alone is not distinctive or is transformed.
// Keys are field paths, or "<path>=<value>" for one value (booleans need one). A needle is a text the objects'
// YAML must contain, "!<text>" one it must not contain, or "@<path>=<value>" a value at a path of an object (for
// the control plane the path starts with the kind; for the agent pool it is relative to its properties).
var controlPlaneNeedles = map[string][]string{
	"version":                         {"kubernetesVersion: 1.31.7", "!v1.31.7"},
	"virtualNetwork.cidrBlock":        {"- 10.71.0.0/16"},
	"virtualNetwork.subnet.cidrBlock": {"- 10.71.3.0/24"},
	"virtualNetwork.subnet.serviceEndpoints[].service":              {"service: Microsoft.CovService"},
	"virtualNetwork.subnet.privateEndpoints[].privateIPAddresses[]": {"privateIPAddress: 10.71.3.77"},
	"virtualNetwork.subnet.privateEndpoints[].manualApproval=true":  {"manualPrivateLinkServiceConnections:"},
	"networkPlugin":     {"@ManagedCluster.spec.networkProfile.networkPlugin=kubenet"},
	"networkPluginMode": {"@ManagedCluster.spec.networkProfile.networkPluginMode=overlay"},
	"networkPolicy":     {"@ManagedCluster.spec.networkProfile.networkPolicy=calico"},
	"networkDataplane":  {"@ManagedCluster.spec.networkProfile.networkDataplane=cilium"},
	"outboundType":      {"@ManagedCluster.spec.networkProfile.outboundType=userDefinedRouting"},
	"dnsServiceIP":      {"@ManagedCluster.spec.networkProfile.dnsServiceIP=10.72.0.53"},
	"loadBalancerSKU":   {"@ManagedCluster.spec.networkProfile.loadBalancerSku=basic"},
	"aadProfile.managed=true": {
		"@ManagedCluster.spec.aadProfile.managed=true", "@ManagedCluster.spec.aadProfile.enableAzureRBAC=true",
		"name: " + UserKubeconfigSecretName(covCluster),
	},
	"addonProfiles[].enabled=true":                     {"@ManagedCluster.spec.addonProfiles.covaddon.enabled=true", "@ManagedCluster.spec.addonProfiles.covaddonoff.enabled=false"},
	"sku.tier=Paid":                                    {"@ManagedCluster.spec.sku.tier=Standard", "@ManagedCluster.spec.sku.name=Base"},
	"loadBalancerProfile.managedOutboundIPs":           {"@ManagedCluster.spec.networkProfile.loadBalancerProfile.managedOutboundIPs.count=7"},
	"loadBalancerProfile.allocatedOutboundPorts":       {"@ManagedCluster.spec.networkProfile.loadBalancerProfile.allocatedOutboundPorts=4008"},
	"loadBalancerProfile.idleTimeoutInMinutes":         {"@ManagedCluster.spec.networkProfile.loadBalancerProfile.idleTimeoutInMinutes=77"},
	"apiServerAccessProfile.authorizedIPRanges[]":      {"- 203.0.113.0/24"},
	"apiServerAccessProfile.enablePrivateCluster=true": {"@ManagedCluster.spec.apiServerAccessProfile.enablePrivateCluster=true"},
	"apiServerAccessProfile.enablePrivateClusterPublicFQDN=true": {
		"@ManagedCluster.spec.apiServerAccessProfile.enablePrivateClusterPublicFQDN=true",
	},
	// The cluster autoscaler's settings take its flag names in ASO.
	"autoscalerProfile.balanceSimilarNodeGroups":      {"balance-similar-node-groups: \"true\""},
	"autoscalerProfile.expander":                      {"expander: most-pods"},
	"autoscalerProfile.maxEmptyBulkDelete":            {"max-empty-bulk-delete: \"11\""},
	"autoscalerProfile.maxGracefulTerminationSec":     {"max-graceful-termination-sec: \"611\""},
	"autoscalerProfile.maxNodeProvisionTime":          {"max-node-provision-time: 17m"},
	"autoscalerProfile.maxTotalUnreadyPercentage":     {"max-total-unready-percentage: \"47\""},
	"autoscalerProfile.newPodScaleUpDelay":            {"new-pod-scale-up-delay: 13s"},
	"autoscalerProfile.okTotalUnreadyCount":           {"ok-total-unready-count: \"5\""},
	"autoscalerProfile.scanInterval":                  {"scan-interval: 19s"},
	"autoscalerProfile.scaleDownDelayAfterAdd":        {"scale-down-delay-after-add: 21m"},
	"autoscalerProfile.scaleDownDelayAfterDelete":     {"scale-down-delay-after-delete: 23s"},
	"autoscalerProfile.scaleDownDelayAfterFailure":    {"scale-down-delay-after-failure: 4m"},
	"autoscalerProfile.scaleDownUnneededTime":         {"scale-down-unneeded-time: 27m"},
	"autoscalerProfile.scaleDownUnreadyTime":          {"scale-down-unready-time: 29m"},
	"autoscalerProfile.scaleDownUtilizationThreshold": {"scale-down-utilization-threshold: \"0.37\""},
	"autoscalerProfile.skipNodesWithLocalStorage":     {"skip-nodes-with-local-storage: \"true\""},
	"autoscalerProfile.skipNodesWithSystemPods":       {"skip-nodes-with-system-pods: \"false\""},
	"identity.type":               {"@ManagedCluster.spec.identity.type=UserAssigned"},
	"kubeletUserAssignedIdentity": {"kubeletidentity:"},
	"oidcIssuerProfile.enabled=true": {
		"@ManagedCluster.spec.oidcIssuerProfile.enabled=true", "name: " + OIDCIssuerConfigMapName(covCluster),
	},
	"disableLocalAccounts=true":                     {"@ManagedCluster.spec.disableLocalAccounts=true", "!adminCredentials", "!" + AdminKubeconfigSecretName(covCluster)},
	"autoUpgradeProfile.upgradeChannel":             {"@ManagedCluster.spec.autoUpgradeProfile.upgradeChannel=rapid"},
	"securityProfile.azureKeyVaultKms.enabled=true": {"@ManagedCluster.spec.securityProfile.azureKeyVaultKms.enabled=true"},
	"securityProfile.azureKeyVaultKms.keyVaultNetworkAccess": {
		"@ManagedCluster.spec.securityProfile.azureKeyVaultKms.keyVaultNetworkAccess=Private",
	},
	"securityProfile.defender.securityMonitoring.enabled=true": {
		"@ManagedCluster.spec.securityProfile.defender.securityMonitoring.enabled=true",
	},
	"securityProfile.imageCleaner.enabled=true":     {"@ManagedCluster.spec.securityProfile.imageCleaner.enabled=true"},
	"securityProfile.imageCleaner.intervalHours":    {"@ManagedCluster.spec.securityProfile.imageCleaner.intervalHours=73"},
	"securityProfile.workloadIdentity.enabled=true": {"@ManagedCluster.spec.securityProfile.workloadIdentity.enabled=true"},
	"sshPublicKey": {"@ManagedCluster.spec.linuxProfile.ssh.publicKeys[0].keyData=" + testSSHKeyText, "adminUsername: azureuser"},
}

var machinePoolNeedles = map[string][]string{
	"mode":                                          {"@mode=User"},
	"sku":                                           {"vmSize: Standard_Cov8s_v9"},
	"osDiskSizeGB":                                  {"@osDiskSizeGB=173"},
	"availabilityZones[]":                           {"@availabilityZones=[3]"},
	"taints[].effect":                               {"- cov-taint-key=cov-taint-value:NoExecute"},
	"scaling.minSize":                               {"@minCount=3", "@enableAutoScaling=true"},
	"scaling.maxSize":                               {"@maxCount=7", "@enableAutoScaling=true"},
	"maxPods":                                       {"@maxPods=77"},
	"osDiskType":                                    {"@osDiskType=Ephemeral"},
	"enableUltraSSD=true":                           {"@enableUltraSSD=true"},
	"osType":                                        {"@osType=Windows"},
	"enableNodePublicIP=true":                       {"@enableNodePublicIP=true"},
	"scaleSetPriority":                              {"@scaleSetPriority=Spot"},
	"scaleDownMode":                                 {"@scaleDownMode=Deallocate"},
	"spotMaxPrice":                                  {"@spotMaxPrice=0.0173"},
	"kubeletConfig.cpuManagerPolicy":                {"@kubeletConfig.cpuManagerPolicy=static"},
	"kubeletConfig.cpuCfsQuota=true":                {"@kubeletConfig.cpuCfsQuota=true"},
	"kubeletConfig.cpuCfsQuotaPeriod":               {"@kubeletConfig.cpuCfsQuotaPeriod=117ms"},
	"kubeletConfig.imageGcHighThreshold":            {"@kubeletConfig.imageGcHighThreshold=91"},
	"kubeletConfig.imageGcLowThreshold":             {"@kubeletConfig.imageGcLowThreshold=61"},
	"kubeletConfig.topologyManagerPolicy":           {"@kubeletConfig.topologyManagerPolicy=single-numa-node"},
	"kubeletConfig.failSwapOn=false":                {"@kubeletConfig.failSwapOn=false"},
	"kubeletDiskType":                               {"@kubeletDiskType=Temporary"},
	"linuxOSConfig.transparentHugePageDefrag":       {"@linuxOSConfig.transparentHugePageDefrag=defer+madvise"},
	"linuxOSConfig.transparentHugePageEnabled":      {"@linuxOSConfig.transparentHugePageEnabled=always"},
	"linuxOSConfig.sysctls.netIpv4IPLocalPortRange": {"@linuxOSConfig.sysctls.netIpv4IpLocalPortRange=32769 60998"},
	"linuxOSConfig.sysctls.netIpv4TCPTwReuse=true":  {"@linuxOSConfig.sysctls.netIpv4TcpTwReuse=true"},
	"enableFIPS=true":                               {"@enableFIPS=true"},
	"enableEncryptionAtHost=true":                   {"@enableEncryptionAtHost=true"},
}

// TestControlPlaneResources_FieldCoverage translates an AzureManagedControlPlane with every field set, with a
// system pool, and checks that every value reaches the ASO objects.
func TestControlPlaneResources_FieldCoverage(t *testing.T) {
	spec := coverageControlPlane()
	c := azure.Cluster{
		Name: covCluster, SubscriptionID: spec.SubscriptionID, Location: spec.Location, ResourceGroup: spec.ResourceGroupName,
		AdditionalTags: spec.AdditionalTags,
	}
	pool := AgentPoolInput{
		Cluster: c, ManagedClusterName: covControlPane, Name: "cov-system-pool", Version: "v1.31.7",
		Spec: infrav1.AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
			Mode: infrav1.NodePoolModeSystem, SKU: "Standard_D2s_v3", Name: ptr.To("covsystem"),
		}},
	}
	in := ControlPlaneInput{
		Cluster: c, Name: covControlPane, Spec: spec, ClusterName: covCluster, ServiceCIDRs: []string{"10.72.0.0/16"},
		PodCIDRs: []string{"10.244.0.0/16"}, InitialPools: []AgentPoolInput{pool}, VNetSubnetID: SubnetID(c, spec.VirtualNetwork),
	}
	resources := ControlPlaneResources(in)
	objects := map[string]map[string]any{}
	var text strings.Builder
	for _, r := range resources {
		kind := kindOf(r.Object)
		text.WriteString("kind: " + kind + "\n" + yamlText(t, r.Object))
		if _, ok := objects[kind]; !ok {
			objects[kind] = toMap(t, r.Object)
		}
	}
	find := func(path string) (any, bool) {
		kind, rest, _ := strings.Cut(path, ".")
		return lookup(objects[kind], rest)
	}
	covered := checkCoverage(t, spec, text.String(), find, controlPlaneExclusions, controlPlaneNeedles)
	checkComplete(t, "AzureManagedControlPlane", reflect.TypeFor[infrav1.AzureManagedControlPlaneSpec](), covered, controlPlaneExclusions, controlPlaneNeedles)
}

// TestAgentPool_FieldCoverage translates an AzureManagedMachinePool with every field set, as an agent pool and as
// the ManagedCluster's inline profile, and checks that every value reaches both.
func TestAgentPool_FieldCoverage(t *testing.T) {
	spec := coverageMachinePool()
	in := AgentPoolInput{
		Cluster:            azure.Cluster{Name: covCluster, SubscriptionID: covSub, Location: "cov-location", ResourceGroup: "cov-rg"},
		ManagedClusterName: covControlPane, Name: covPool, Spec: spec, Replicas: ptr.To[int32](5), Version: "v1.31.7",
		VNetSubnetID: azure.ChildID(covID("cov-rg", azure.TypeVirtualNetwork, "cov-vnet"), "subnets", "cov-subnet"),
	}
	views := map[string]any{"agent-pool": AgentPool(in), "inline-profile": AgentPoolProfile(in)}
	for name, obj := range views {
		t.Run(name, func(t *testing.T) {
			content := toMap(t, obj)
			if spec, ok := content["spec"].(map[string]any); ok {
				content = spec
			}
			find := func(path string) (any, bool) { return lookup(content, path) }
			covered := checkCoverage(t, spec, yamlText(t, obj), find, machinePoolExclusions, machinePoolNeedles)
			checkComplete(t, "AzureManagedMachinePool", reflect.TypeFor[infrav1.AzureManagedMachinePoolSpec](), covered, machinePoolExclusions, machinePoolNeedles)
		})
	}
}

// checkCoverage checks every set field of spec against the objects' text and content, and returns the paths of
// the fields it checked.
func checkCoverage(t *testing.T, spec any, text string, find func(string) (any, bool), exclusions map[string]string,
	needles map[string][]string) map[string]bool {
	t.Helper()
	covered := map[string]bool{}
	specLeaves(reflect.ValueOf(spec), "", func(path string, v reflect.Value) {
		if reason, excluded := excludedBy(exclusions, path); excluded {
			for _, value := range leafTexts(v) {
				if strings.Contains(value, "cov-") && strings.Contains(text, value) {
					t.Errorf("%s is excluded (%s), yet its value %q reaches the objects", path, reason, value)
				}
			}
			return
		}
		covered[path] = true
		for _, needle := range needlesFor(t, needles, path, v) {
			switch {
			case strings.HasPrefix(needle, "!"):
				if strings.Contains(text, needle[1:]) {
					t.Errorf("%s: the objects contain %q", path, needle[1:])
				}
			case strings.HasPrefix(needle, "@"):
				at, want, _ := strings.Cut(needle[1:], "=")
				got, ok := find(at)
				if !ok || fmt.Sprint(got) != want {
					t.Errorf("%s: %s is %v (found: %t), want %s", path, at, got, ok, want)
				}
			default:
				if !strings.Contains(text, needle) {
					t.Errorf("%s: the objects do not contain %q", path, needle)
				}
			}
		}
	})
	return covered
}

// checkComplete checks that every field of the spec type was checked or is excluded, that the exclusions and
// needles name fields of the type, and that the webhook admits the checked fields and rejects those excluded as
// not supported yet.
func checkComplete(t *testing.T, kind string, typ reflect.Type, covered map[string]bool, exclusions map[string]string, needles map[string][]string) {
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
	all := fieldPaths(typ, "")
	var missing []string
	for path := range all {
		if _, excluded := excludedBy(exclusions, path); !excluded && !covered[path] {
			missing = append(missing, path)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("spec fields neither set by the coverage test nor excluded: %v", missing)
	}
	for path := range exclusions {
		if !all[path] && !hasPathUnder(all, path) {
			t.Errorf("the exclusions name %s, which is no field", path)
		}
	}
	for key := range needles {
		path, _, _ := strings.Cut(key, "=")
		if !all[path] {
			t.Errorf("the needles name %s, which is no field", path)
		}
	}
}

func hasPathUnder(all map[string]bool, prefix string) bool {
	for p := range all {
		if strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[]") {
			return true
		}
	}
	return false
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

// needlesFor returns what the objects must show for a field's value: its needles, or else the value itself when it
// is distinctive (a "cov" text, a map of them, or a number of at least 1000 written as a YAML value).
func needlesFor(t *testing.T, needles map[string][]string, path string, v reflect.Value) []string {
	t.Helper()
	switch v.Kind() {
	case reflect.Bool:
		key := path + "=" + strconv.FormatBool(v.Bool())
		if n, ok := needles[key]; ok {
			return n
		}
		t.Errorf("add a needle for %q: a boolean needs one", key)
		return nil
	case reflect.String:
		if n, ok := needles[path+"="+v.String()]; ok {
			return n
		}
	}
	if n, ok := needles[path]; ok {
		return n
	}
	switch v.Kind() {
	case reflect.String:
		if strings.Contains(v.String(), "cov") {
			return []string{v.String()}
		}
	case reflect.Map:
		texts := leafTexts(v)
		if !slices.ContainsFunc(texts, func(s string) bool { return !strings.Contains(s, "cov") }) {
			return texts
		}
	case reflect.Int32:
		if v.Int() >= 1000 {
			return []string{": " + strconv.FormatInt(v.Int(), 10) + "\n"}
		}
	}
	t.Errorf("add a needle for %q: %v is not distinctive enough to look for", path, v.Interface())
	return nil
}

// leafTexts are the texts of a field's value: a string, a number, or a map's keys and values.
func leafTexts(v reflect.Value) []string {
	switch v.Kind() {
	case reflect.String:
		return []string{v.String()}
	case reflect.Int32, reflect.Int64, reflect.Int:
		return []string{strconv.FormatInt(v.Int(), 10)}
	case reflect.Map:
		var out []string
		for _, k := range v.MapKeys() {
			out = append(out, k.String(), v.MapIndex(k).String())
		}
		slices.Sort(out)
		return out
	}
	if q, ok := v.Interface().(resource.Quantity); ok {
		return []string{q.String()}
	}
	return nil
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	timeType     = reflect.TypeFor[metav1.Time]()
)

// specLeaves calls visit with the JSON path of every field that holds a value: a scalar that is set through a
// pointer or is not zero, a non-empty map, a quantity. List items share the path "<list>[]".
func specLeaves(v reflect.Value, path string, visit func(string, reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Elem().Kind() != reflect.Struct || v.Elem().Type() == quantityType {
			visit(path, v.Elem())
			return
		}
		specLeaves(v.Elem(), path, visit)
	case reflect.Struct:
		if v.Type() == quantityType {
			visit(path, v)
			return
		}
		for i := range v.NumField() {
			if name, ok := fieldpath.JSONName(v.Type().Field(i)); ok {
				specLeaves(v.Field(i), fieldpath.Join(path, name), visit)
			}
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

// fieldPaths returns the path of every value a type can hold, as specLeaves names them.
func fieldPaths(t reflect.Type, path string) map[string]bool {
	out := map[string]bool{}
	switch t.Kind() {
	case reflect.Pointer:
		return fieldPaths(t.Elem(), path)
	case reflect.Slice:
		return fieldPaths(t.Elem(), path+"[]")
	case reflect.Struct:
		if t == quantityType || t == timeType {
			out[path] = true
			return out
		}
		for i := range t.NumField() {
			name, ok := fieldpath.JSONName(t.Field(i))
			if !ok {
				continue
			}
			for p := range fieldPaths(t.Field(i).Type, fieldpath.Join(path, name)) {
				out[p] = true
			}
		}
	default:
		out[path] = true
	}
	return out
}

// lookup finds the value at a dotted path of JSON content; "name[i]" indexes a list.
func lookup(content map[string]any, path string) (any, bool) {
	var cur any = content
	for _, part := range strings.Split(path, ".") {
		index := -1
		if open := strings.Index(part, "["); open >= 0 && strings.HasSuffix(part, "]") {
			n, err := strconv.Atoi(part[open+1 : len(part)-1])
			if err != nil {
				return nil, false
			}
			part, index = part[:open], n
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
		if index >= 0 {
			list, ok := cur.([]any)
			if !ok || index >= len(list) {
				return nil, false
			}
			cur = list[index]
		}
	}
	return cur, true
}

// toMap is the JSON content of a value.
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// yamlText is the YAML of a value.
func yamlText(t *testing.T, v any) string {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
