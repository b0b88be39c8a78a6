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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// newManagedControlPlane returns a defaulted, valid AzureManagedControlPlane, changed by the given functions
// before defaulting.
func newManagedControlPlane(changes ...func(*AzureManagedControlPlane)) *AzureManagedControlPlane {
	c := &AzureManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "ns", Labels: map[string]string{ClusterNameLabel: "c1"}},
		Spec: AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: AzureManagedControlPlaneClassSpec{
			ResourceGroupName: "rg",
			Version:           "v1.33.2",
			Location:          "eastus",
			IdentityRef:       &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "identity"},
		}},
	}
	for _, change := range changes {
		change(c)
	}
	c.SetDefaults()
	return c
}

func TestAzureManagedControlPlane_SetDefaults(t *testing.T) {
	g := NewWithT(t)
	c := &AzureManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "cp", Labels: map[string]string{ClusterNameLabel: "c1"}},
		Spec: AzureManagedControlPlaneSpec{
			AzureManagedControlPlaneClassSpec: AzureManagedControlPlaneClassSpec{
				Version: "1.33.2", Location: "eastus",
				SKU:        &AKSSku{Tier: PaidManagedControlPlaneTier},
				ASOPatches: []ASOPatch{{Target: ASOPatchTarget{Kind: "ManagedCluster"}, Patch: "{}"}},
			},
			FleetsMember: &FleetsMember{FleetsMemberClassSpec: FleetsMemberClassSpec{ManagerName: "fm", ManagerResourceGroup: "fm-rg"}},
		},
	}
	c.SetDefaults()
	s := c.Spec
	g.Expect(s.ResourceGroupName).To(Equal("c1"))
	g.Expect(s.Version).To(Equal("v1.33.2"))
	g.Expect(s.SKU.Tier).To(Equal(StandardManagedControlPlaneTier))
	g.Expect(s.NetworkPlugin).To(HaveValue(Equal(NetworkPluginAzure)))
	g.Expect(s.LoadBalancerSKU).To(HaveValue(Equal(ManagedLoadBalancerSKUStandard)))
	g.Expect(s.Identity).To(Equal(&ManagedControlPlaneIdentity{Type: ManagedControlPlaneIdentityTypeSystemAssigned}))
	g.Expect(s.OIDCIssuerProfile).To(Equal(&OIDCIssuerProfile{Enabled: ptr.To(false)}))
	g.Expect(s.VirtualNetwork).To(Equal(ManagedControlPlaneVirtualNetwork{
		Name: "cp", ResourceGroup: "c1", CIDRBlock: "10.0.0.0/8",
		Subnet: ManagedControlPlaneSubnet{Name: "cp", CIDRBlock: "10.240.0.0/16"},
	}))
	g.Expect(s.NodeResourceGroupName).To(Equal("MC_c1_cp_eastus"))
	g.Expect(s.DNSPrefix).To(HaveValue(Equal("cp")))
	g.Expect(s.FleetsMember.Name).To(Equal("c1"))
	g.Expect(s.FleetsMember.Group).To(Equal("default"))
	g.Expect(s.ASOPatches[0].Type).To(Equal(MergePatchType))
	g.Expect(s.SSHPublicKey).To(BeNil(), "an AKS cluster without a key gets none")

	overlay := newManagedControlPlane(func(c *AzureManagedControlPlane) {
		c.Spec.NetworkPluginMode = ptr.To(NetworkPluginModeOverlay)
	})
	g.Expect(overlay.Spec.VirtualNetwork.CIDRBlock).To(Equal("10.224.0.0/12"))
	g.Expect(overlay.Spec.VirtualNetwork.Subnet.CIDRBlock).To(Equal("10.224.0.0/16"))

	again := c.DeepCopy()
	again.SetDefaults()
	g.Expect(again).To(Equal(c), "defaulting is idempotent")
}

func TestAzureManagedControlPlane_ValidateCreate(t *testing.T) {
	key, err := GenerateSSHPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		change    func(*AzureManagedControlPlane)
		wantPaths []string
	}{
		{name: "defaulted control plane is valid", change: func(*AzureManagedControlPlane) {}},
		{name: "version without v is defaulted", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "1.33.2" }},
		{name: "version not semver", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.33" }, wantPaths: []string{"spec.version"}},
		{name: "name with a reserved word", change: func(c *AzureManagedControlPlane) { c.Name = "my-windows-cp" }, wantPaths: []string{"metadata.name"}},
		{name: "bad resource group name", change: func(c *AzureManagedControlPlane) { c.Spec.ResourceGroupName = "rg." }, wantPaths: []string{"spec.resourceGroupName"}},
		{name: "no resource group and no cluster label", change: func(c *AzureManagedControlPlane) {
			c.Spec.ResourceGroupName, c.Labels = "", nil
		}, wantPaths: []string{"spec.resourceGroupName"}},
		{name: "node resource group equal to the resource group", change: func(c *AzureManagedControlPlane) {
			c.Spec.NodeResourceGroupName = "RG"
		}, wantPaths: []string{"spec.nodeResourceGroupName"}},
		{name: "default node resource group too long for AKS", change: func(c *AzureManagedControlPlane) {
			c.Spec.ResourceGroupName = strings.Repeat("r", 70)
		}, wantPaths: []string{"spec.nodeResourceGroupName"}},
		{name: "subscription ID not a GUID", change: func(c *AzureManagedControlPlane) { c.Spec.SubscriptionID = "sub" }, wantPaths: []string{"spec.subscriptionID"}},
		{name: "identityRef to another kind", change: func(c *AzureManagedControlPlane) { c.Spec.IdentityRef.Kind = "Secret" }, wantPaths: []string{"spec.identityRef.kind"}},
		{name: "bad SSH key", change: func(c *AzureManagedControlPlane) { c.Spec.SSHPublicKey = ptr.To("not-a-key") }, wantPaths: []string{"spec.sshPublicKey"}},
		{name: "valid SSH key", change: func(c *AzureManagedControlPlane) { c.Spec.SSHPublicKey = ptr.To(key) }},
		{name: "bad DNS prefix", change: func(c *AzureManagedControlPlane) { c.Spec.DNSPrefix = ptr.To("-cp") }, wantPaths: []string{"spec.dnsPrefix"}},
		{name: "azure network policy with kubenet", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPlugin, c.Spec.NetworkPolicy = ptr.To(NetworkPluginKubenet), ptr.To(NetworkPolicyAzure)
		}, wantPaths: []string{"spec.networkPolicy"}},
		{name: "overlay with kubenet", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPlugin, c.Spec.NetworkPluginMode = ptr.To(NetworkPluginKubenet), ptr.To(NetworkPluginModeOverlay)
		}, wantPaths: []string{"spec.networkPluginMode"}},
		{name: "cilium dataplane with calico policy", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPluginMode = ptr.To(NetworkPluginModeOverlay)
			c.Spec.NetworkDataplane, c.Spec.NetworkPolicy = ptr.To(NetworkDataplaneTypeCilium), ptr.To(NetworkPolicyCalico)
		}, wantPaths: []string{"spec.networkPolicy"}},
		{name: "cilium policy with azure dataplane", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkDataplane, c.Spec.NetworkPolicy = ptr.To(NetworkDataplaneTypeAzure), ptr.To(NetworkPolicyCilium)
		}, wantPaths: []string{"spec.networkPolicy"}},
		{name: "cilium dataplane with overlay and no policy", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPluginMode, c.Spec.NetworkDataplane = ptr.To(NetworkPluginModeOverlay), ptr.To(NetworkDataplaneTypeCilium)
		}},
		{name: "DNS service IP is the first address", change: func(c *AzureManagedControlPlane) {
			c.Spec.DNSServiceIP = ptr.To("10.0.0.1")
		}, wantPaths: []string{"spec.dnsServiceIP"}},
		{name: "DNS service IP not IPv4", change: func(c *AzureManagedControlPlane) {
			c.Spec.DNSServiceIP = ptr.To("fd00::10")
		}, wantPaths: []string{"spec.dnsServiceIP"}},
		{name: "DNS service IP valid", change: func(c *AzureManagedControlPlane) { c.Spec.DNSServiceIP = ptr.To("10.0.0.10") }},
		{name: "virtual network CIDR invalid", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.CIDRBlock = "10.0.0.0/33"
		}, wantPaths: []string{"spec.virtualNetwork.cidrBlock"}},
		{name: "subnet outside the virtual network", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.CIDRBlock, c.Spec.VirtualNetwork.Subnet.CIDRBlock = "10.0.0.0/16", "10.1.0.0/24"
		}, wantPaths: []string{"spec.virtualNetwork.subnet.cidrBlock"}},
		{name: "subnet CIDR with host bits", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.Subnet.CIDRBlock = "10.240.0.1/16"
		}, wantPaths: []string{"spec.virtualNetwork.subnet.cidrBlock"}},
		{name: "bad virtual network name", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.Name = "vnet-"
		}, wantPaths: []string{"spec.virtualNetwork.name"}},
		{name: "authorized IP range not a CIDR", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{AuthorizedIPRanges: []string{"203.0.113.0/24", "203.0.113.300/32"}}
		}, wantPaths: []string{"spec.apiServerAccessProfile.authorizedIPRanges[1]"}},
		{name: "authorized IP ranges on a private cluster", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{AuthorizedIPRanges: []string{"203.0.113.0/24"}, EnablePrivateCluster: ptr.To(true)}
		}, wantPaths: []string{"spec.apiServerAccessProfile.authorizedIPRanges"}},
		{name: "private DNS zone ID on a public cluster", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{PrivateDNSZone: ptr.To(
				"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/privatelink.eastus.azmk8s.io")}
		}, wantPaths: []string{"spec.apiServerAccessProfile.privateDNSZone"}},
		{name: "private DNS zone with a wrong name", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{EnablePrivateCluster: ptr.To(true), PrivateDNSZone: ptr.To(
				"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/example.com")}
		}, wantPaths: []string{"spec.apiServerAccessProfile.privateDNSZone"}},
		{name: "private cluster with system DNS zone", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{EnablePrivateCluster: ptr.To(true), PrivateDNSZone: ptr.To("System")}
		}},
		{name: "user-assigned identity without its ID", change: func(c *AzureManagedControlPlane) {
			c.Spec.Identity = &ManagedControlPlaneIdentity{Type: ManagedControlPlaneIdentityTypeUserAssigned}
		}, wantPaths: []string{"spec.identity.userAssignedIdentityResourceID"}},
		{name: "user-assigned identity ID not a resource ID", change: func(c *AzureManagedControlPlane) {
			c.Spec.Identity = &ManagedControlPlaneIdentity{Type: ManagedControlPlaneIdentityTypeUserAssigned, UserAssignedIdentityResourceID: "id"}
		}, wantPaths: []string{"spec.identity.userAssignedIdentityResourceID"}},
		{name: "kubelet identity with a system-assigned control plane identity", change: func(c *AzureManagedControlPlane) {
			c.Spec.KubeletUserAssignedIdentity = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet"
		}, wantPaths: []string{"spec.kubeletUserAssignedIdentity"}},
		{name: "local accounts disabled without AAD", change: func(c *AzureManagedControlPlane) {
			c.Spec.DisableLocalAccounts = ptr.To(true)
		}, wantPaths: []string{"spec.disableLocalAccounts"}},
		{name: "local accounts disabled with managed AAD", change: func(c *AzureManagedControlPlane) {
			c.Spec.DisableLocalAccounts = ptr.To(true)
			c.Spec.AADProfile = &AADProfile{Managed: true, AdminGroupObjectIDs: []string{"00000000-0000-0000-0000-000000000001"}}
		}},
		{name: "AAD admin group not a GUID", change: func(c *AzureManagedControlPlane) {
			c.Spec.AADProfile = &AADProfile{Managed: true, AdminGroupObjectIDs: []string{"admins"}}
		}, wantPaths: []string{"spec.aadProfile.adminGroupObjectIDs[0]"}},
		{name: "fleet member with a bad name", change: func(c *AzureManagedControlPlane) {
			c.Spec.FleetsMember = &FleetsMember{Name: "Member_1", FleetsMemberClassSpec: FleetsMemberClassSpec{ManagerName: "fm", ManagerResourceGroup: "rg"}}
		}, wantPaths: []string{"spec.fleetsMember.name", "spec.fleetsMember"}},
		{name: "fleet member without manager", change: func(c *AzureManagedControlPlane) {
			c.Spec.FleetsMember = &FleetsMember{FleetsMemberClassSpec: FleetsMemberClassSpec{ManagerResourceGroup: "rg"}}
		}, wantPaths: []string{"spec.fleetsMember.managerName", "spec.fleetsMember"}},
		{name: "extension names not unique", change: func(c *AzureManagedControlPlane) {
			c.Spec.AKSExtensions = []AKSExtension{{Name: "flux", ExtensionType: "microsoft.flux"}, {Name: "flux", ExtensionType: "microsoft.flux"}}
		}, wantPaths: []string{"spec.extensions[1].name", "spec.extensions"}},
		{name: "pinned extension version with auto-upgrade", change: func(c *AzureManagedControlPlane) {
			c.Spec.AKSExtensions = []AKSExtension{{Name: "flux", ExtensionType: "microsoft.flux", Version: ptr.To("1.0.0")}}
		}, wantPaths: []string{"spec.extensions[0].version", "spec.extensions"}},
		{name: "add-on names not unique", change: func(c *AzureManagedControlPlane) {
			c.Spec.AddonProfiles = []AddonProfile{{Name: "azurepolicy", Enabled: true}, {Name: "azurepolicy"}}
		}, wantPaths: []string{"spec.addonProfiles[1].name"}},
		{name: "workload identity without OIDC issuer", change: func(c *AzureManagedControlPlane) {
			c.Spec.SecurityProfile = &ManagedClusterSecurityProfile{WorkloadIdentity: &ManagedClusterSecurityProfileWorkloadIdentity{Enabled: true}}
		}, wantPaths: []string{"spec.securityProfile.workloadIdentity.enabled"}},
		{name: "KMS with a system-assigned identity", change: func(c *AzureManagedControlPlane) {
			c.Spec.SecurityProfile = &ManagedClusterSecurityProfile{AzureKeyVaultKms: &AzureKeyVaultKms{Enabled: true, KeyID: "https://kv/keys/k/1"}}
		}, wantPaths: []string{"spec.securityProfile.azureKeyVaultKms"}},
		{name: "autoscaler utilization threshold above 1", change: func(c *AzureManagedControlPlane) {
			c.Spec.AutoScalerProfile = &AutoScalerProfile{ScaleDownUtilizationThreshold: ptr.To("1.5")}
		}, wantPaths: []string{"spec.autoscalerProfile.scaleDownUtilizationThreshold"}},
		{name: "tag key with a forbidden character", change: func(c *AzureManagedControlPlane) {
			c.Spec.AdditionalTags = Tags{"a/b": "c"}
		}, wantPaths: []string{"spec.additionalTags[a/b]"}},
		{name: "managed cluster patch not an object", change: func(c *AzureManagedControlPlane) {
			c.Spec.ASOManagedClusterPatches = []string{`{"spec":{}}`, `[1, 2]`}
		}, wantPaths: []string{"spec.asoManagedClusterPatches[1]"}},
		{name: "managed cluster patch renames the object", change: func(c *AzureManagedControlPlane) {
			c.Spec.ASOManagedClusterPatches = []string{"metadata:\n  name: other\n"}
		}, wantPaths: []string{"spec.asoManagedClusterPatches[0]"}},
		{name: "preview features are not supported yet", change: func(c *AzureManagedControlPlane) {
			c.Spec.EnablePreviewFeatures = ptr.To(true)
		}, wantPaths: []string{"spec.enablePreviewFeatures"}},
		{name: "ASO patch does not parse", change: func(c *AzureManagedControlPlane) {
			c.Spec.ASOPatches = []ASOPatch{{Target: ASOPatchTarget{Kind: "ManagedCluster"}, Type: JSONPatchType, Patch: `{"op": "add"}`}}
		}, wantPaths: []string{"spec.asoPatches[0].patch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c := newManagedControlPlane(tc.change)
			_, err := azureManagedControlPlaneWebhook{}.ValidateCreate(context.Background(), c)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedControlPlane_ValidateCreateWarnings(t *testing.T) {
	g := NewWithT(t)
	c := newManagedControlPlane(func(c *AzureManagedControlPlane) {
		c.Spec.NetworkDataplane = ptr.To(NetworkDataplaneTypeCilium)
	})
	warnings, err := azureManagedControlPlaneWebhook{}.ValidateCreate(context.Background(), c)
	g.Expect(err).NotTo(HaveOccurred(), "a pod subnet can make a cilium dataplane without overlay valid")
	g.Expect(warnings).To(ConsistOf(HavePrefix("spec.networkDataplane: ")))
}

func TestLoadBalancerProfile(t *testing.T) {
	tests := []struct {
		name      string
		profile   LoadBalancerProfile
		sku       ManagedLoadBalancerSKU
		wantPaths []string
	}{
		{name: "managed outbound IPs", profile: LoadBalancerProfile{ManagedOutboundIPs: ptr.To[int32](2), AllocatedOutboundPorts: ptr.To[int32](1024), IdleTimeoutInMinutes: ptr.To[int32](30)}},
		{name: "outbound IPs", profile: LoadBalancerProfile{OutboundIPs: []string{"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/ip"}}},
		{name: "two sources of outbound IPs", profile: LoadBalancerProfile{
			ManagedOutboundIPs: ptr.To[int32](1),
			OutboundIPPrefixes: []string{"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p"},
		}, wantPaths: []string{"spec.loadBalancerProfile"}},
		{name: "no managed outbound IP", profile: LoadBalancerProfile{ManagedOutboundIPs: ptr.To[int32](0)}, wantPaths: []string{"spec.loadBalancerProfile.managedOutboundIPs"}},
		{name: "too many managed outbound IPs", profile: LoadBalancerProfile{ManagedOutboundIPs: ptr.To[int32](101)}, wantPaths: []string{"spec.loadBalancerProfile.managedOutboundIPs"}},
		{name: "outbound IP not a resource ID", profile: LoadBalancerProfile{OutboundIPs: []string{"ip"}}, wantPaths: []string{"spec.loadBalancerProfile.outboundIPs[0]"}},
		{name: "ports not a multiple of 8", profile: LoadBalancerProfile{AllocatedOutboundPorts: ptr.To[int32](1001)}, wantPaths: []string{"spec.loadBalancerProfile.allocatedOutboundPorts"}},
		{name: "too many ports", profile: LoadBalancerProfile{AllocatedOutboundPorts: ptr.To[int32](64008)}, wantPaths: []string{"spec.loadBalancerProfile.allocatedOutboundPorts"}},
		{name: "zero ports lets Azure choose", profile: LoadBalancerProfile{AllocatedOutboundPorts: ptr.To[int32](0)}},
		{name: "idle timeout too short", profile: LoadBalancerProfile{IdleTimeoutInMinutes: ptr.To[int32](3)}, wantPaths: []string{"spec.loadBalancerProfile.idleTimeoutInMinutes"}},
		{name: "idle timeout too long", profile: LoadBalancerProfile{IdleTimeoutInMinutes: ptr.To[int32](121)}, wantPaths: []string{"spec.loadBalancerProfile.idleTimeoutInMinutes"}},
		{name: "basic load balancer", profile: LoadBalancerProfile{ManagedOutboundIPs: ptr.To[int32](1)}, sku: ManagedLoadBalancerSKUBasic, wantPaths: []string{"spec.loadBalancerProfile"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c := newManagedControlPlane(func(c *AzureManagedControlPlane) {
				c.Spec.LoadBalancerProfile = &tc.profile
				if tc.sku != "" {
					c.Spec.LoadBalancerSKU = ptr.To(tc.sku)
				}
			})
			_, err := azureManagedControlPlaneWebhook{}.ValidateCreate(context.Background(), c)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedControlPlane_ValidateUpdate(t *testing.T) {
	tests := []struct {
		name      string
		old       func(*AzureManagedControlPlane)
		change    func(*AzureManagedControlPlane)
		wantPaths []string
	}{
		{name: "patch upgrade", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.33.5" }},
		{name: "minor upgrade", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.34.0" }},
		{name: "two minor versions at once", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.35.0" }, wantPaths: []string{"spec.version"}},
		{name: "downgrade", change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.33.1" }, wantPaths: []string{"spec.version"}},
		{name: "below the auto-upgraded version", old: func(c *AzureManagedControlPlane) {
			c.Status.AutoUpgradeVersion = "v1.34.1"
		}, change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.34.0" }, wantPaths: []string{"spec.version"}},
		{name: "one minor past the auto-upgraded version", old: func(c *AzureManagedControlPlane) {
			c.Status.AutoUpgradeVersion = "v1.34.1"
		}, change: func(c *AzureManagedControlPlane) { c.Spec.Version = "v1.35.0" }},
		{name: "location", change: func(c *AzureManagedControlPlane) { c.Spec.Location = "westus" }, wantPaths: []string{"spec.location"}},
		{name: "subscription", change: func(c *AzureManagedControlPlane) {
			c.Spec.SubscriptionID = "00000000-0000-0000-0000-000000000001"
		}, wantPaths: []string{"spec.subscriptionID"}},
		{name: "network plugin", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPlugin = ptr.To(NetworkPluginKubenet)
		}, wantPaths: []string{"spec.networkPlugin"}},
		{name: "network policy", change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPolicy = ptr.To(NetworkPolicyCalico)
		}, wantPaths: []string{"spec.networkPolicy"}},
		{name: "load balancer SKU", change: func(c *AzureManagedControlPlane) {
			c.Spec.LoadBalancerSKU = ptr.To(ManagedLoadBalancerSKUBasic)
		}, wantPaths: []string{"spec.loadBalancerSKU"}},
		{name: "identity", change: func(c *AzureManagedControlPlane) {
			c.Spec.Identity = &ManagedControlPlaneIdentity{Type: ManagedControlPlaneIdentityTypeUserAssigned,
				UserAssignedIdentityResourceID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cp"}
		}, wantPaths: []string{"spec.identity"}},
		{name: "identity defaulted on an object stored without one", old: func(c *AzureManagedControlPlane) {
			c.Spec.Identity = nil
		}, change: func(*AzureManagedControlPlane) {}},
		{name: "DNS prefix", change: func(c *AzureManagedControlPlane) { c.Spec.DNSPrefix = ptr.To("other") }, wantPaths: []string{"spec.dnsPrefix"}},
		{name: "DNS prefix set on an object that predates its default", old: func(c *AzureManagedControlPlane) {
			c.Spec.DNSPrefix = nil
		}, change: func(c *AzureManagedControlPlane) { c.Spec.DNSPrefix = ptr.To("cp") }},
		{name: "virtual network name", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.Name = "other"
		}, wantPaths: []string{"spec.virtualNetwork.name"}},
		{name: "subnet CIDR", change: func(c *AzureManagedControlPlane) {
			c.Spec.VirtualNetwork.Subnet.CIDRBlock = "10.241.0.0/16"
		}, wantPaths: []string{"spec.virtualNetwork.subnet.cidrBlock"}},
		{name: "OIDC issuer turned on", change: func(c *AzureManagedControlPlane) {
			c.Spec.OIDCIssuerProfile.Enabled = ptr.To(true)
		}},
		{name: "OIDC issuer turned off", old: func(c *AzureManagedControlPlane) {
			c.Spec.OIDCIssuerProfile.Enabled = ptr.To(true)
		}, change: func(c *AzureManagedControlPlane) { c.Spec.OIDCIssuerProfile.Enabled = ptr.To(false) }, wantPaths: []string{"spec.oidcIssuerProfile.enabled"}},
		{name: "authorized IP ranges change", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{AuthorizedIPRanges: []string{"203.0.113.0/24"}}
		}},
		{name: "private cluster turned on", change: func(c *AzureManagedControlPlane) {
			c.Spec.APIServerAccessProfile = &APIServerAccessProfile{EnablePrivateCluster: ptr.To(true)}
		}, wantPaths: []string{"spec.apiServerAccessProfile.enablePrivateCluster"}},
		{name: "AAD removed", old: func(c *AzureManagedControlPlane) {
			c.Spec.AADProfile = &AADProfile{Managed: true}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.AADProfile = nil }, wantPaths: []string{"spec.aadProfile"}},
		{name: "local accounts setting changed", old: func(c *AzureManagedControlPlane) {
			c.Spec.AADProfile, c.Spec.DisableLocalAccounts = &AADProfile{Managed: true}, ptr.To(false)
		}, change: func(c *AzureManagedControlPlane) { c.Spec.DisableLocalAccounts = ptr.To(true) }, wantPaths: []string{"spec.disableLocalAccounts"}},
		{name: "add-on removed", old: func(c *AzureManagedControlPlane) {
			c.Spec.AddonProfiles = []AddonProfile{{Name: "azurepolicy", Enabled: true}}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.AddonProfiles = nil }, wantPaths: []string{"spec.addonProfiles"}},
		{name: "add-on disabled", old: func(c *AzureManagedControlPlane) {
			c.Spec.AddonProfiles = []AddonProfile{{Name: "azurepolicy", Enabled: true}}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.AddonProfiles[0].Enabled = false }},
		{name: "overlay turned on with a network policy", old: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPolicy = ptr.To(NetworkPolicyCalico)
		}, change: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPluginMode = ptr.To(NetworkPluginModeOverlay)
		}, wantPaths: []string{"spec.networkPluginMode"}},
		{name: "overlay turned off", old: func(c *AzureManagedControlPlane) {
			c.Spec.NetworkPluginMode = ptr.To(NetworkPluginModeOverlay)
		}, change: func(c *AzureManagedControlPlane) { c.Spec.NetworkPluginMode = nil }, wantPaths: []string{"spec.networkPluginMode"}},
		{name: "extension type changed", old: func(c *AzureManagedControlPlane) {
			c.Spec.AKSExtensions = []AKSExtension{{Name: "ext", ExtensionType: "microsoft.flux"}}
		}, change: func(c *AzureManagedControlPlane) {
			c.Spec.AKSExtensions[0].ExtensionType = "microsoft.dapr"
		}, wantPaths: []string{"spec.extensions[0].extensionType", "spec.extensions"}},
		{name: "workload identity removed", old: func(c *AzureManagedControlPlane) {
			c.Spec.OIDCIssuerProfile.Enabled = ptr.To(true)
			c.Spec.SecurityProfile = &ManagedClusterSecurityProfile{WorkloadIdentity: &ManagedClusterSecurityProfileWorkloadIdentity{Enabled: true}}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.SecurityProfile = nil }, wantPaths: []string{"spec.securityProfile.workloadIdentity"}},
		{name: "upgrade channel removed", old: func(c *AzureManagedControlPlane) {
			c.Spec.AutoUpgradeProfile = &ManagedClusterAutoUpgradeProfile{UpgradeChannel: ptr.To(UpgradeChannelStable)}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.AutoUpgradeProfile = nil }, wantPaths: []string{"spec.autoUpgradeProfile.upgradeChannel"}},
		{name: "fleet member renamed", old: func(c *AzureManagedControlPlane) {
			c.Spec.FleetsMember = &FleetsMember{Name: "m1", FleetsMemberClassSpec: FleetsMemberClassSpec{ManagerName: "fm", ManagerResourceGroup: "rg"}}
		}, change: func(c *AzureManagedControlPlane) { c.Spec.FleetsMember.Name = "m2" }, wantPaths: []string{"spec.fleetsMember.name", "spec.fleetsMember"}},
		{name: "control plane endpoint set", change: func(c *AzureManagedControlPlane) {
			c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "cp.hcp.eastus.azmk8s.io", Port: 443}
		}},
		{name: "control plane endpoint changed", old: func(c *AzureManagedControlPlane) {
			c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "cp.hcp.eastus.azmk8s.io", Port: 443}
		}, change: func(c *AzureManagedControlPlane) {
			c.Spec.ControlPlaneEndpoint.Host = "other.hcp.eastus.azmk8s.io"
		}, wantPaths: []string{"spec.controlPlaneEndpoint"}},
		{name: "tags, SKU and autoscaler change", change: func(c *AzureManagedControlPlane) {
			c.Spec.AdditionalTags = Tags{"team": "a"}
			c.Spec.SKU.Tier = StandardManagedControlPlaneTier
			c.Spec.AutoScalerProfile = &AutoScalerProfile{Expander: ptr.To(ExpanderLeastWaste)}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newManagedControlPlane()
			if tc.old != nil {
				tc.old(old)
			}
			c := old.DeepCopy()
			c.Status = AzureManagedControlPlaneStatus{}
			tc.change(c)
			c.SetDefaults()
			_, err := azureManagedControlPlaneWebhook{}.ValidateUpdate(context.Background(), old, c)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedControlPlane_ValidateUpdateWhileDeleting(t *testing.T) {
	g := NewWithT(t)
	old := newManagedControlPlane()
	c := old.DeepCopy()
	c.DeletionTimestamp = ptr.To(metav1.Now())
	c.Spec.Location = "westus"
	_, err := azureManagedControlPlaneWebhook{}.ValidateUpdate(context.Background(), old, c)
	g.Expect(err).NotTo(HaveOccurred())
}

func TestAzureManagedControlPlaneTemplate_Validate(t *testing.T) {
	newTemplate := func(change func(*AzureManagedControlPlaneTemplate)) *AzureManagedControlPlaneTemplate {
		tmpl := &AzureManagedControlPlaneTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"},
			Spec: AzureManagedControlPlaneTemplateSpec{Template: AzureManagedControlPlaneTemplateResource{
				Spec: AzureManagedControlPlaneTemplateResourceSpec{AzureManagedControlPlaneClassSpec: AzureManagedControlPlaneClassSpec{
					Version: "1.33.2", Location: "eastus",
				}},
			}},
		}
		if change != nil {
			change(tmpl)
		}
		g := NewWithT(t)
		g.Expect(azureManagedControlPlaneTemplateWebhook{}.Default(context.Background(), tmpl)).To(Succeed())
		return tmpl
	}
	tests := []struct {
		name      string
		old       func(*AzureManagedControlPlaneTemplate)
		change    func(*AzureManagedControlPlaneTemplate)
		ctx       context.Context
		wantPaths []string
	}{
		{name: "unchanged", change: func(*AzureManagedControlPlaneTemplate) {}},
		{name: "changed", change: func(tmpl *AzureManagedControlPlaneTemplate) {
			tmpl.Spec.Template.Spec.Location = "westus"
		}, wantPaths: []string{"spec.template.spec"}},
		{name: "changed in a topology dry-run", ctx: topologyDryRunContext(), change: func(tmpl *AzureManagedControlPlaneTemplate) {
			tmpl.Annotations = topologyDryRunAnnotations()
			tmpl.Spec.Template.Spec.Location = "westus"
		}},
		{name: "changed in a dry-run without the topology annotation", ctx: topologyDryRunContext(), change: func(tmpl *AzureManagedControlPlaneTemplate) {
			tmpl.Spec.Template.Spec.Location = "westus"
		}, wantPaths: []string{"spec.template.spec"}},
		{name: "changed to an invalid spec in a topology dry-run", ctx: topologyDryRunContext(), change: func(tmpl *AzureManagedControlPlaneTemplate) {
			tmpl.Annotations = topologyDryRunAnnotations()
			tmpl.Spec.Template.Spec.NetworkPlugin = ptr.To(NetworkPluginKubenet)
			tmpl.Spec.Template.Spec.NetworkPolicy = ptr.To(NetworkPolicyAzure)
		}, wantPaths: []string{"spec.template.spec.networkPolicy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newTemplate(tc.old)
			tmpl := old.DeepCopy()
			tc.change(tmpl)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := azureManagedControlPlaneTemplateWebhook{}.ValidateUpdate(ctx, old, tmpl)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}

	t.Run("create names the template path", func(t *testing.T) {
		g := NewWithT(t)
		tmpl := newTemplate(func(tmpl *AzureManagedControlPlaneTemplate) {
			tmpl.Spec.Template.Spec.Version = "latest"
			tmpl.Spec.Template.Spec.LoadBalancerProfile = &LoadBalancerProfile{IdleTimeoutInMinutes: ptr.To[int32](1)}
			tmpl.Spec.Template.Spec.FleetsMember = &FleetsMemberClassSpec{ManagerName: "fm"}
		})
		g.Expect(tmpl.Spec.Template.Spec.FleetsMember.Group).To(Equal("default"))
		_, err := azureManagedControlPlaneTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
		g.Expect(causePaths(err)).To(ConsistOf(
			"spec.template.spec.version",
			"spec.template.spec.loadBalancerProfile.idleTimeoutInMinutes",
			"spec.template.spec.fleetsMember.managerResourceGroup",
			"spec.template.spec.fleetsMember",
		))
	})
}

func TestAzureManagedControlPlaneTemplate_DefaultsLeaveTheNetworkGroup(t *testing.T) {
	g := NewWithT(t)
	tmpl := &AzureManagedControlPlaneTemplate{}
	tmpl.Spec.Template.Spec.ResourceGroupName = "placeholder"
	g.Expect(azureManagedControlPlaneTemplateWebhook{}.Default(context.Background(), tmpl)).To(Succeed())
	// A ClusterClass patches the control plane's resource group; the network's must follow it, not the template's.
	g.Expect(tmpl.Spec.Template.Spec.VirtualNetwork.ResourceGroup).To(BeEmpty())

	cp := newManagedControlPlane(func(c *AzureManagedControlPlane) { c.Spec.ResourceGroupName = "patched" })
	g.Expect(cp.Spec.VirtualNetwork.ResourceGroup).To(Equal("patched"))
}

// TestAzureManagedControlPlaneTemplate_DefaultsTheSubnetName: a template's subnet is named after the template (CAPZ's
// template webhook does so), and a control plane made from it keeps that name; a name the user gives stays.
func TestAzureManagedControlPlaneTemplate_DefaultsTheSubnetName(t *testing.T) {
	g := NewWithT(t)
	tmpl := &AzureManagedControlPlaneTemplate{}
	tmpl.Name = "aks-control-plane"
	g.Expect(azureManagedControlPlaneTemplateWebhook{}.Default(context.Background(), tmpl)).To(Succeed())
	g.Expect(tmpl.Spec.Template.Spec.VirtualNetwork.Subnet.Name).To(Equal("aks-control-plane"))
	g.Expect(tmpl.Spec.Template.Spec.VirtualNetwork.Name).To(BeEmpty(), "each control plane names its own network")

	cp := newManagedControlPlane(func(c *AzureManagedControlPlane) {
		c.Spec.VirtualNetwork.Subnet.Name = tmpl.Spec.Template.Spec.VirtualNetwork.Subnet.Name
	})
	g.Expect(cp.Spec.VirtualNetwork.Subnet.Name).To(Equal("aks-control-plane"))

	tmpl.Spec.Template.Spec.VirtualNetwork.Subnet.Name = "nodes"
	g.Expect(azureManagedControlPlaneTemplateWebhook{}.Default(context.Background(), tmpl)).To(Succeed())
	g.Expect(tmpl.Spec.Template.Spec.VirtualNetwork.Subnet.Name).To(Equal("nodes"))
}
