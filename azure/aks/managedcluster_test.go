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
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// fullControlPlane is a control plane with every feature the ManagedCluster carries: a private cluster with
// Microsoft Entra ID and local accounts disabled, OIDC and workload identity, KMS, Defender, the image cleaner, an
// outbound load balancer profile, an autoscaler profile, add-ons, an HTTP proxy and user-assigned identities.
func fullControlPlane() *infrav1.AzureManagedControlPlane {
	const sub = "/subscriptions/" + testSubscription
	return controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
		s := &cp.Spec
		s.AdditionalTags = infrav1.Tags{"team": "platform"}
		s.SSHPublicKey = ptr.To(testSSHKey)
		s.DNSPrefix = ptr.To("my-aks-dns")
		s.NodeResourceGroupName = "my-aks-nodes"
		s.SKU = &infrav1.AKSSku{Tier: infrav1.PaidManagedControlPlaneTier}
		s.NetworkPlugin = ptr.To(infrav1.NetworkPluginAzure)
		s.NetworkPluginMode = ptr.To(infrav1.NetworkPluginModeOverlay)
		s.NetworkDataplane = ptr.To(infrav1.NetworkDataplaneTypeCilium)
		s.NetworkPolicy = ptr.To(infrav1.NetworkPolicyCilium)
		s.OutboundType = ptr.To(infrav1.ManagedControlPlaneOutboundTypeLoadBalancer)
		s.DNSServiceIP = ptr.To("192.168.0.53")
		s.LoadBalancerProfile = &infrav1.LoadBalancerProfile{
			OutboundIPPrefixes:     []string{sub + "/resourceGroups/egress-rg/providers/Microsoft.Network/publicIPPrefixes/egress"},
			AllocatedOutboundPorts: ptr.To[int32](1024),
			IdleTimeoutInMinutes:   ptr.To[int32](10),
		}
		s.APIServerAccessProfile = &infrav1.APIServerAccessProfile{
			EnablePrivateCluster:           ptr.To(true),
			PrivateDNSZone:                 ptr.To("System"),
			EnablePrivateClusterPublicFQDN: ptr.To(true),
		}
		s.AADProfile = &infrav1.AADProfile{Managed: true, AdminGroupObjectIDs: []string{"11111111-2222-3333-4444-555555555555"}}
		s.DisableLocalAccounts = ptr.To(true)
		s.OIDCIssuerProfile = &infrav1.OIDCIssuerProfile{Enabled: ptr.To(true)}
		s.SecurityProfile = &infrav1.ManagedClusterSecurityProfile{
			AzureKeyVaultKms: &infrav1.AzureKeyVaultKms{
				Enabled: true, KeyID: "https://my-kv.vault.azure.net/keys/etcd/0123456789abcdef0123456789abcdef",
				KeyVaultNetworkAccess: ptr.To(infrav1.KeyVaultNetworkAccessTypesPrivate),
				KeyVaultResourceID:    ptr.To(sub + "/resourceGroups/kv-rg/providers/Microsoft.KeyVault/vaults/my-kv"),
			},
			Defender: &infrav1.ManagedClusterSecurityProfileDefender{
				LogAnalyticsWorkspaceResourceID: sub + "/resourceGroups/logs-rg/providers/Microsoft.OperationalInsights/workspaces/logs",
				SecurityMonitoring:              infrav1.ManagedClusterSecurityProfileDefenderSecurityMonitoring{Enabled: true},
			},
			ImageCleaner:     &infrav1.ManagedClusterSecurityProfileImageCleaner{Enabled: true, IntervalHours: ptr.To[int32](48)},
			WorkloadIdentity: &infrav1.ManagedClusterSecurityProfileWorkloadIdentity{Enabled: true},
		}
		s.AutoScalerProfile = &infrav1.AutoScalerProfile{
			BalanceSimilarNodeGroups:      ptr.To(infrav1.AutoScalerFlagTrue),
			Expander:                      ptr.To(infrav1.ExpanderLeastWaste),
			MaxEmptyBulkDelete:            ptr.To("5"),
			MaxGracefulTerminationSec:     ptr.To("300"),
			MaxNodeProvisionTime:          ptr.To("20m"),
			MaxTotalUnreadyPercentage:     ptr.To("40"),
			NewPodScaleUpDelay:            ptr.To("30s"),
			OkTotalUnreadyCount:           ptr.To("4"),
			ScanInterval:                  ptr.To("20s"),
			ScaleDownDelayAfterAdd:        ptr.To("15m"),
			ScaleDownDelayAfterDelete:     ptr.To("30s"),
			ScaleDownDelayAfterFailure:    ptr.To("5m"),
			ScaleDownUnneededTime:         ptr.To("12m"),
			ScaleDownUnreadyTime:          ptr.To("25m"),
			ScaleDownUtilizationThreshold: ptr.To("0.6"),
			SkipNodesWithLocalStorage:     ptr.To(infrav1.AutoScalerFlagTrue),
			SkipNodesWithSystemPods:       ptr.To(infrav1.AutoScalerFlagFalse),
		}
		s.AddonProfiles = []infrav1.AddonProfile{
			{Name: "azurepolicy", Enabled: true},
			{Name: "azureKeyvaultSecretsProvider", Enabled: true, Config: map[string]string{"enableSecretRotation": "true", "rotationPollInterval": "2m"}},
			{Name: "httpApplicationRouting", Enabled: false},
		}
		s.HTTPProxyConfig = &infrav1.HTTPProxyConfig{
			HTTPProxy: ptr.To("http://proxy.example.com:3128/"), HTTPSProxy: ptr.To("http://proxy.example.com:3128/"),
			NoProxy:   []string{"localhost", "127.0.0.1", ".svc", "10.0.0.0/8"},
			TrustedCA: ptr.To("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="),
		}
		s.Identity = &infrav1.ManagedControlPlaneIdentity{
			Type:                           infrav1.ManagedControlPlaneIdentityTypeUserAssigned,
			UserAssignedIdentityResourceID: sub + "/resourceGroups/id-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/control-plane",
		}
		s.KubeletUserAssignedIdentity = sub + "/resourceGroups/id-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet"
		s.AutoUpgradeProfile = &infrav1.ManagedClusterAutoUpgradeProfile{UpgradeChannel: ptr.To(infrav1.UpgradeChannelPatch)}
	})
}

func TestManagedCluster(t *testing.T) {
	system := machinePool("pool0", infrav1.NodePoolModeSystem, nil)
	system2 := machinePool("pool1", infrav1.NodePoolModeSystem, func(p *infrav1.AzureManagedMachinePool) {
		p.Spec.AvailabilityZones = []string{"1", "2", "3"}
		p.Spec.Taints = infrav1.Taints{{Key: "CriticalAddonsOnly", Value: "true", Effect: infrav1.TaintEffectNoSchedule}}
	})
	tests := map[string]ControlPlaneInput{
		"minimal": controlPlaneInput(controlPlane(nil), system),
		// Two system pools, which the ManagedCluster lists by name whatever their order.
		"full": controlPlaneInput(fullControlPlane(), system2, system),
	}
	full := tests["full"]
	full.ServiceCIDRs = []string{"192.168.0.0/16"}
	full.PodCIDRs = []string{"172.16.0.0/12"}
	tests["full"] = full
	// Once the cluster exists, the controller passes no system pools.
	tests["after-creation"] = controlPlaneInput(controlPlane(nil))
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, "managedcluster-"+name, ManagedCluster(in))
		})
	}
}

func TestManagedCluster_SKU(t *testing.T) {
	tests := []struct {
		tier *infrav1.AKSSku
		want asocontainerservice.ManagedClusterSKU_Tier
	}{
		{tier: nil, want: asocontainerservice.ManagedClusterSKU_Tier_Free},
		{tier: &infrav1.AKSSku{}, want: asocontainerservice.ManagedClusterSKU_Tier_Free},
		{tier: &infrav1.AKSSku{Tier: infrav1.FreeManagedControlPlaneTier}, want: asocontainerservice.ManagedClusterSKU_Tier_Free},
		{tier: &infrav1.AKSSku{Tier: infrav1.StandardManagedControlPlaneTier}, want: asocontainerservice.ManagedClusterSKU_Tier_Standard},
		{tier: &infrav1.AKSSku{Tier: infrav1.PaidManagedControlPlaneTier}, want: asocontainerservice.ManagedClusterSKU_Tier_Standard},
	}
	for _, tt := range tests {
		g := NewWithT(t)
		in := controlPlaneInput(controlPlane(nil))
		in.Spec.SKU = tt.tier
		got := ManagedCluster(in).Spec.Sku
		g.Expect(*got.Tier).To(Equal(tt.want))
		g.Expect(*got.Name).To(Equal(asocontainerservice.ManagedClusterSKU_Name_Base))
	}
}

func TestManagedCluster_Network(t *testing.T) {
	tests := []struct {
		name                string
		pods, services      []string
		dnsServiceIP        *string
		wantPodCidr         *string
		wantPodCidrs        []string
		wantServiceCidr     *string
		wantServiceCidrs    []string
		wantDNSServiceIP    *string
		wantIPFamilies      []asocontainerservice.ContainerServiceNetworkProfile_IpFamilies
		loadBalancerSKU     infrav1.ManagedLoadBalancerSKU
		wantLoadBalancerSKU asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku
	}{
		{
			name: "no cluster network: AKS chooses", loadBalancerSKU: infrav1.ManagedLoadBalancerSKUStandard,
			wantLoadBalancerSKU: asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku_Standard,
		},
		{
			name: "service CIDR: the DNS service gets its .10 address", services: []string{"10.96.0.0/12"},
			loadBalancerSKU: infrav1.ManagedLoadBalancerSKUBasic,
			wantServiceCidr: ptr.To("10.96.0.0/12"), wantDNSServiceIP: ptr.To("10.96.0.10"),
			wantLoadBalancerSKU: asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku_Basic,
		},
		{
			name: "service CIDR written with host bits", services: []string{"10.0.5.7/16"},
			loadBalancerSKU: infrav1.ManagedLoadBalancerSKUStandard,
			wantServiceCidr: ptr.To("10.0.5.7/16"), wantDNSServiceIP: ptr.To("10.0.0.10"),
			wantLoadBalancerSKU: asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku_Standard,
		},
		{
			name: "the spec's DNS service IP wins", pods: []string{"10.244.0.0/16"}, services: []string{"10.0.0.0/16"},
			dnsServiceIP: ptr.To("10.0.0.53"), loadBalancerSKU: infrav1.ManagedLoadBalancerSKUStandard,
			wantPodCidr: ptr.To("10.244.0.0/16"), wantServiceCidr: ptr.To("10.0.0.0/16"), wantDNSServiceIP: ptr.To("10.0.0.53"),
			wantLoadBalancerSKU: asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku_Standard,
		},
		{
			name: "dual-stack", pods: []string{"10.244.0.0/16", "fd12:3456:789a::/64"}, services: []string{"fd00::/108", "10.0.0.0/16"},
			loadBalancerSKU: infrav1.ManagedLoadBalancerSKUStandard,
			wantPodCidrs:    []string{"10.244.0.0/16", "fd12:3456:789a::/64"}, wantServiceCidrs: []string{"fd00::/108", "10.0.0.0/16"},
			wantDNSServiceIP: ptr.To("10.0.0.10"),
			wantIPFamilies: []asocontainerservice.ContainerServiceNetworkProfile_IpFamilies{
				asocontainerservice.ContainerServiceNetworkProfile_IpFamilies_IPv4, asocontainerservice.ContainerServiceNetworkProfile_IpFamilies_IPv6,
			},
			wantLoadBalancerSKU: asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku_Standard,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := controlPlaneInput(controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
				cp.Spec.DNSServiceIP = tt.dnsServiceIP
				cp.Spec.LoadBalancerSKU = ptr.To(tt.loadBalancerSKU)
			}))
			in.PodCIDRs, in.ServiceCIDRs = tt.pods, tt.services
			p := ManagedCluster(in).Spec.NetworkProfile
			g.Expect(p.PodCidr).To(Equal(tt.wantPodCidr))
			g.Expect(p.PodCidrs).To(Equal(tt.wantPodCidrs))
			g.Expect(p.ServiceCidr).To(Equal(tt.wantServiceCidr))
			g.Expect(p.ServiceCidrs).To(Equal(tt.wantServiceCidrs))
			g.Expect(p.DnsServiceIP).To(Equal(tt.wantDNSServiceIP))
			g.Expect(p.IpFamilies).To(Equal(tt.wantIPFamilies))
			g.Expect(*p.LoadBalancerSku).To(Equal(tt.wantLoadBalancerSKU))
			g.Expect(*p.NetworkPlugin).To(Equal(asocontainerservice.ContainerServiceNetworkProfile_NetworkPlugin_Azure))
		})
	}
}

func TestManagedCluster_OperatorSpec(t *testing.T) {
	tests := []struct {
		name                     string
		aad                      *infrav1.AADProfile
		disableLocalAccounts     *bool
		oidc                     bool
		wantAdmin, wantUser      bool
		wantOIDC, wantOperatorOK bool
	}{
		{name: "default: the admin kubeconfig", wantAdmin: true},
		{name: "Entra ID: both kubeconfigs", aad: &infrav1.AADProfile{Managed: true}, wantAdmin: true, wantUser: true},
		{
			name: "local accounts disabled: the user kubeconfig only", aad: &infrav1.AADProfile{Managed: true},
			disableLocalAccounts: ptr.To(true), wantUser: true,
		},
		{name: "local accounts explicitly enabled", disableLocalAccounts: ptr.To(false), wantAdmin: true},
		{name: "OIDC issuer: its URL too", oidc: true, wantAdmin: true, wantOIDC: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := controlPlaneInput(controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
				cp.Spec.AADProfile = tt.aad
				cp.Spec.DisableLocalAccounts = tt.disableLocalAccounts
				cp.Spec.OIDCIssuerProfile = &infrav1.OIDCIssuerProfile{Enabled: ptr.To(tt.oidc)}
			}))
			in.ClusterName = "capi-cluster"
			op := ManagedCluster(in).Spec.OperatorSpec
			g.Expect(op).NotTo(BeNil())
			g.Expect(op.Secrets).NotTo(BeNil())
			if tt.wantAdmin {
				g.Expect(op.Secrets.AdminCredentials).NotTo(BeNil())
				g.Expect(op.Secrets.AdminCredentials.Name).To(Equal("capi-cluster-aso-kubeconfig"))
				g.Expect(op.Secrets.AdminCredentials.Key).To(Equal("value"))
			} else {
				g.Expect(op.Secrets.AdminCredentials).To(BeNil())
			}
			if tt.wantUser {
				g.Expect(op.Secrets.UserCredentials).NotTo(BeNil())
				g.Expect(op.Secrets.UserCredentials.Name).To(Equal("capi-cluster-user-aso-kubeconfig"))
				g.Expect(op.Secrets.UserCredentials.Key).To(Equal("value"))
			} else {
				g.Expect(op.Secrets.UserCredentials).To(BeNil())
			}
			if tt.wantOIDC {
				g.Expect(op.ConfigMaps.OIDCIssuerProfile.Name).To(Equal("capi-cluster-oidc"))
				g.Expect(op.ConfigMaps.OIDCIssuerProfile.Key).To(Equal("issuer-url"))
			} else {
				g.Expect(op.ConfigMaps).To(BeNil())
			}
		})
	}
}

func TestManagedCluster_ClusterNameDefaultsToTheCluster(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(controlPlane(nil))
	in.ClusterName = ""
	g.Expect(ManagedCluster(in).Spec.OperatorSpec.Secrets.AdminCredentials.Name).To(Equal(AdminKubeconfigSecretName("my-cluster")))
}

func TestManagedCluster_PrivateDNSZone(t *testing.T) {
	zoneID := "/subscriptions/" + testSubscription + "/resourceGroups/dns-rg/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io"
	for given, want := range map[string]string{"System": "system", "none": "none", "NONE": "none", zoneID: zoneID} {
		g := NewWithT(t)
		in := controlPlaneInput(controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
			cp.Spec.APIServerAccessProfile = &infrav1.APIServerAccessProfile{EnablePrivateCluster: ptr.To(true), PrivateDNSZone: ptr.To(given)}
		}))
		g.Expect(*ManagedCluster(in).Spec.ApiServerAccessProfile.PrivateDNSZone).To(Equal(want), given)
	}
}

func TestManagedCluster_Version(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(controlPlane(nil))
	g.Expect(*ManagedCluster(in).Spec.KubernetesVersion).To(Equal("1.33.2"))
	in.Spec.Version = "1.34.0"
	g.Expect(*ManagedCluster(in).Spec.KubernetesVersion).To(Equal("1.34.0"))
}

func TestManagedCluster_SSHKey(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(controlPlane(nil))
	g.Expect(ManagedCluster(in).Spec.LinuxProfile).To(BeNil())
	in.Spec.SSHPublicKey = ptr.To(testSSHKey)
	p := ManagedCluster(in).Spec.LinuxProfile
	g.Expect(*p.AdminUsername).To(Equal("azureuser"))
	g.Expect(p.Ssh.PublicKeys).To(HaveLen(1))
	g.Expect(*p.Ssh.PublicKeys[0].KeyData).To(Equal(testSSHKeyText))
}

func TestManagedCluster_DoesNotShareInput(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(fullControlPlane(), machinePool("pool0", infrav1.NodePoolModeSystem, nil))
	mc := ManagedCluster(in)
	*mc.Spec.ApiServerAccessProfile.EnablePrivateCluster = false
	mc.Spec.AadProfile.AdminGroupObjectIDs[0] = "changed"
	mc.Spec.AddonProfiles["azureKeyvaultSecretsProvider"].Config["rotationPollInterval"] = "changed"
	*mc.Spec.AutoScalerProfile.ScanInterval = "changed"
	g.Expect(*in.Spec.APIServerAccessProfile.EnablePrivateCluster).To(BeTrue())
	g.Expect(in.Spec.AADProfile.AdminGroupObjectIDs[0]).NotTo(Equal("changed"))
	g.Expect(in.Spec.AddonProfiles[1].Config["rotationPollInterval"]).To(Equal("2m"))
	g.Expect(*in.Spec.AutoScalerProfile.ScanInterval).To(Equal("20s"))
}

func TestManagedCluster_InitialPoolsTakeTheClustersSubnetAndTheirOwnTags(t *testing.T) {
	g := NewWithT(t)
	cp := controlPlane(func(cp *infrav1.AzureManagedControlPlane) { cp.Spec.AdditionalTags = infrav1.Tags{"team": "platform"} })
	in := controlPlaneInput(cp)
	// A pool input without cluster or subnet, as a controller might build it for the inline profiles only.
	pool := machinePool("pool0", infrav1.NodePoolModeSystem, func(p *infrav1.AzureManagedMachinePool) { p.Spec.AdditionalTags = infrav1.Tags{"pool": "system"} })
	in.InitialPools = []AgentPoolInput{{Name: "pool0", Spec: pool.Spec}}
	profiles := ManagedCluster(in).Spec.AgentPoolProfiles
	g.Expect(profiles).To(HaveLen(1))
	g.Expect(profiles[0].VnetSubnetReference.ARMID).To(Equal(in.VNetSubnetID))
	g.Expect(profiles[0].Tags).To(Equal(map[string]string{"pool": "system"}), "CAPZ tags a pool with its additionalTags only")
	g.Expect(profiles[0].OrchestratorVersion).To(BeNil())
}

// TestManagedCluster_InlinesEveryInitialPool: the first PUT carries every pool, User ones too, as CAPZ's does, in
// the order of their names.
func TestManagedCluster_InlinesEveryInitialPool(t *testing.T) {
	g := NewWithT(t)
	cp := controlPlane(nil)
	in := controlPlaneInput(cp, machinePool("pool1", infrav1.NodePoolModeUser, nil), machinePool("pool0", infrav1.NodePoolModeSystem, nil))
	profiles := ManagedCluster(in).Spec.AgentPoolProfiles
	g.Expect(profiles).To(HaveLen(2))
	g.Expect(*profiles[0].Name).To(Equal("pool0"))
	g.Expect(*profiles[0].Mode).To(Equal(asocontainerservice.AgentPoolMode_System))
	g.Expect(*profiles[1].Name).To(Equal("pool1"))
	g.Expect(*profiles[1].Mode).To(Equal(asocontainerservice.AgentPoolMode_User))
}

func TestManagedCluster_DNSPrefixDefaultsToTheName(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(controlPlane(nil))
	in.Spec.DNSPrefix = nil
	g.Expect(*ManagedCluster(in).Spec.DnsPrefix).To(Equal("my-aks"))
}

func TestManagedCluster_Identity(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(controlPlane(nil))
	in.Spec.Identity = nil
	id := ManagedCluster(in).Spec.Identity
	g.Expect(*id.Type).To(Equal(asocontainerservice.ManagedClusterIdentity_Type_SystemAssigned))
	g.Expect(id.UserAssignedIdentities).To(BeEmpty())
	g.Expect(ManagedCluster(in).Spec.IdentityProfile).To(BeNil())
}
