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
	"encoding/base64"
	"maps"
	"net/netip"
	"slices"
	"strings"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// What AKS and ASO fix for every cluster.
const (
	// AdminUsername is the admin user of the Linux nodes, as CAPZ names it.
	AdminUsername = "azureuser"
	// KubeconfigSecretKey is the key of the kubeconfig in the Secrets ASO writes (CAPI's kubeconfig key).
	KubeconfigSecretKey = "value"
	// OIDCIssuerConfigMapKey is the key of the OIDC issuer URL in the ConfigMap ASO writes.
	OIDCIssuerConfigMapKey = "issuer-url"
	// kubeletIdentityKey is AKS's key of the kubelet identity in identityProfile.
	kubeletIdentityKey = "kubeletidentity"
	// servicePrincipalMSI makes AKS use its managed identity rather than a service principal.
	servicePrincipalMSI = "msi"
	// dnsServiceIPHost is the host part of the default cluster DNS address in the service CIDR (x.y.z.10).
	dnsServiceIPHost = 10
)

// AdminKubeconfigSecretName is the Secret ASO writes the cluster's admin kubeconfig to (operatorSpec.secrets
// .adminCredentials), unless local accounts are disabled.
func AdminKubeconfigSecretName(cluster string) string { return cluster + "-aso-kubeconfig" }

// UserKubeconfigSecretName is the Secret ASO writes the cluster's user (Microsoft Entra ID) kubeconfig to
// (operatorSpec.secrets.userCredentials), when AKS-managed AAD is on.
func UserKubeconfigSecretName(cluster string) string { return cluster + "-user-aso-kubeconfig" }

// OIDCIssuerConfigMapName is the ConfigMap ASO writes the cluster's OIDC issuer URL to
// (operatorSpec.configMaps.oidcIssuerProfile), when the OIDC issuer is on.
func OIDCIssuerConfigMapName(cluster string) string { return cluster + "-oidc" }

// ControlPlaneInput is everything the translators need to know about an AzureManagedControlPlane, resolved by the
// controller.
type ControlPlaneInput struct {
	// Cluster is the resolved cluster: Name is the Cluster API cluster's name, ResourceGroup the control plane's
	// resourceGroupName, Location its location, AdditionalTags its additionalTags, SubscriptionID its
	// subscriptionID or the credential's.
	Cluster azure.Cluster
	// Name is the AKS cluster's name: the AzureManagedControlPlane's name.
	Name string
	// Spec is the AzureManagedControlPlane's spec, as its webhook defaulted it. Its version is the version to ask
	// AKS for: when AKS upgraded the cluster through its auto-upgrade channel to a newer version
	// (status.autoUpgradeVersion), the controller passes that one, as AKS never downgrades (CAPZ does the same).
	Spec infrav1.AzureManagedControlPlaneSpec
	// ClusterName is the Cluster API cluster's name, which names the kubeconfig Secrets and the OIDC issuer
	// ConfigMap; empty means Cluster.Name.
	ClusterName string
	// PodCIDRs are the Cluster's pod CIDR blocks (spec.clusterNetwork.pods), ServiceCIDRs its service CIDR blocks
	// (spec.clusterNetwork.services). One block sets podCidr/serviceCidr, two (dual-stack) podCidrs/serviceCidrs
	// and ipFamilies; none leaves the choice to AKS.
	PodCIDRs, ServiceCIDRs []string
	// InitialPools are the agent pools AKS creates with the cluster: every machine pool of the cluster, as CAPZ
	// inlines them all in its first PUT (at least one of mode System, which AKS needs). AKS needs them inline only
	// to create the cluster; the controller passes none once the cluster exists, and the agent pools are their own
	// ManagedClustersAgentPool objects from then on.
	InitialPools []AgentPoolInput
	// VNetSubnetID is the ARM ID of the cluster's node subnet (see SubnetID).
	VNetSubnetID string
}

// clusterName is the Cluster API cluster's name.
func (in ControlPlaneInput) clusterName() string {
	if in.ClusterName != "" {
		return in.ClusterName
	}
	return in.Cluster.Name
}

// ManagedCluster returns the AKS cluster of an AzureManagedControlPlane in the cluster's resource group, named
// after the control plane.
//
//   - kubernetesVersion is spec.version without its leading "v"; dnsPrefix, nodeResourceGroup, sku (tier Free or
//     Standard; the old name Paid is Standard) and the network settings come from the spec, the pod and service
//     CIDRs from the Cluster's clusterNetwork. Without dnsServiceIP, the cluster DNS gets the .10 address of the
//     first IPv4 service CIDR, as in CAPZ.
//   - The control plane's identity is system-assigned, or the user-assigned identity of the spec; the kubelets'
//     identity is kubeletUserAssignedIdentity. AKS uses managed identities, never a service principal ("msi").
//   - AKS-managed Microsoft Entra ID (aadProfile.managed) turns Azure RBAC on, as in CAPZ.
//   - The Linux nodes' admin is azureuser with the spec's SSH key, when there is one.
//   - ASO writes the admin kubeconfig (unless local accounts are disabled) and, with Entra ID, the user kubeconfig
//     to Secrets, and the OIDC issuer URL (when the issuer is on) to a ConfigMap; see AdminKubeconfigSecretName,
//     UserKubeconfigSecretName and OIDCIssuerConfigMapName.
//   - The system pools are inline agent pool profiles, sorted by name, while the controller passes them.
//
// Fleet membership (fleetsMember) and cluster extensions (extensions) are not translated: ASO's FleetsMember and
// Extension kinds are not among the provider's kinds yet.
func ManagedCluster(in ControlPlaneInput) *asocontainerservice.ManagedCluster {
	s := in.Spec
	c := in.Cluster
	out := &asocontainerservice.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec: asocontainerservice.ManagedCluster_Spec{
			AzureName:               in.Name,
			Owner:                   c.ResourceGroupOwner(),
			Location:                ptr.To(c.Location),
			Tags:                    c.NamedTags(in.Name, azure.RoleCommon, s.AdditionalTags),
			KubernetesVersion:       nonEmpty(strings.TrimPrefix(s.Version, "v")),
			DnsPrefix:               ptr.To(ptr.Deref(s.DNSPrefix, in.Name)),
			NodeResourceGroup:       nonEmpty(s.NodeResourceGroupName),
			EnableRBAC:              ptr.To(true),
			DisableLocalAccounts:    clone(s.DisableLocalAccounts),
			ServicePrincipalProfile: &asocontainerservice.ManagedClusterServicePrincipalProfile{ClientId: ptr.To(servicePrincipalMSI)},
			Sku:                     sku(s.SKU),
			NetworkProfile:          networkProfile(in),
			ApiServerAccessProfile:  apiServerAccessProfile(s.APIServerAccessProfile),
			AadProfile:              aadProfile(s.AADProfile),
			AddonProfiles:           addonProfiles(s.AddonProfiles),
			AutoScalerProfile:       autoScalerProfile(s.AutoScalerProfile),
			AutoUpgradeProfile:      autoUpgradeProfile(s.AutoUpgradeProfile),
			Identity:                identity(s.Identity),
			IdentityProfile:         identityProfile(s.KubeletUserAssignedIdentity),
			HttpProxyConfig:         httpProxyConfig(s.HTTPProxyConfig),
			SecurityProfile:         securityProfile(s.SecurityProfile),
			LinuxProfile:            linuxProfile(ptr.Deref(s.SSHPublicKey, "")),
			OperatorSpec:            operatorSpec(in),
		},
	}
	if p := s.OIDCIssuerProfile; p != nil && p.Enabled != nil {
		out.Spec.OidcIssuerProfile = &asocontainerservice.ManagedClusterOIDCIssuerProfile{Enabled: clone(p.Enabled)}
	}
	for _, pool := range in.InitialPools {
		if pool.Cluster.Name == "" {
			pool.Cluster = c
		}
		if pool.VNetSubnetID == "" {
			pool.VNetSubnetID = in.VNetSubnetID
		}
		out.Spec.AgentPoolProfiles = append(out.Spec.AgentPoolProfiles, AgentPoolProfile(pool))
	}
	slices.SortStableFunc(out.Spec.AgentPoolProfiles, func(a, b asocontainerservice.ManagedClusterAgentPoolProfile) int {
		return strings.Compare(ptr.Deref(a.Name, ""), ptr.Deref(b.Name, ""))
	})
	return out
}

func sku(s *infrav1.AKSSku) *asocontainerservice.ManagedClusterSKU {
	tier := infrav1.FreeManagedControlPlaneTier
	if s != nil && s.Tier != "" {
		tier = s.Tier
	}
	if tier == infrav1.PaidManagedControlPlaneTier {
		tier = infrav1.StandardManagedControlPlaneTier
	}
	return &asocontainerservice.ManagedClusterSKU{
		Name: ptr.To(asocontainerservice.ManagedClusterSKU_Name_Base),
		Tier: ptr.To(asocontainerservice.ManagedClusterSKU_Tier(tier)),
	}
}

func networkProfile(in ControlPlaneInput) *asocontainerservice.ContainerServiceNetworkProfile {
	s := in.Spec
	p := &asocontainerservice.ContainerServiceNetworkProfile{
		NetworkPlugin:       azure.Enum[asocontainerservice.ContainerServiceNetworkProfile_NetworkPlugin](s.NetworkPlugin),
		NetworkPluginMode:   azure.Enum[asocontainerservice.ContainerServiceNetworkProfile_NetworkPluginMode](s.NetworkPluginMode),
		NetworkPolicy:       azure.Enum[asocontainerservice.ContainerServiceNetworkProfile_NetworkPolicy](s.NetworkPolicy),
		NetworkDataplane:    azure.Enum[asocontainerservice.ContainerServiceNetworkProfile_NetworkDataplane](s.NetworkDataplane),
		OutboundType:        azure.Enum[asocontainerservice.ContainerServiceNetworkProfile_OutboundType](s.OutboundType),
		LoadBalancerProfile: loadBalancerProfile(s.LoadBalancerProfile),
		DnsServiceIP:        clone(s.DNSServiceIP),
	}
	if s.LoadBalancerSKU != nil {
		// CAPZ's SKUs are Basic and Standard; AKS's are basic and standard.
		p.LoadBalancerSku = ptr.To(asocontainerservice.ContainerServiceNetworkProfile_LoadBalancerSku(strings.ToLower(string(*s.LoadBalancerSKU))))
	}
	switch len(in.PodCIDRs) {
	case 0:
	case 1:
		p.PodCidr = ptr.To(in.PodCIDRs[0])
	default:
		p.PodCidrs = slices.Clone(in.PodCIDRs)
	}
	switch len(in.ServiceCIDRs) {
	case 0:
	case 1:
		p.ServiceCidr = ptr.To(in.ServiceCIDRs[0])
	default:
		p.ServiceCidrs = slices.Clone(in.ServiceCIDRs)
	}
	if len(in.PodCIDRs) > 1 || len(in.ServiceCIDRs) > 1 {
		p.IpFamilies = ipFamilies(append(slices.Clone(in.ServiceCIDRs), in.PodCIDRs...))
	}
	if p.DnsServiceIP == nil {
		p.DnsServiceIP = defaultDNSServiceIP(in.ServiceCIDRs)
	}
	return p
}

// ipFamilies are the IP families of the CIDRs, IPv4 first.
func ipFamilies(cidrs []string) []asocontainerservice.ContainerServiceNetworkProfile_IpFamilies {
	var v4, v6 bool
	for _, cidr := range cidrs {
		prefix, err := netip.ParsePrefix(cidr)
		if err != nil {
			continue
		}
		v4 = v4 || prefix.Addr().Is4()
		v6 = v6 || prefix.Addr().Is6()
	}
	var out []asocontainerservice.ContainerServiceNetworkProfile_IpFamilies
	if v4 {
		out = append(out, asocontainerservice.ContainerServiceNetworkProfile_IpFamilies_IPv4)
	}
	if v6 {
		out = append(out, asocontainerservice.ContainerServiceNetworkProfile_IpFamilies_IPv6)
	}
	return out
}

// defaultDNSServiceIP is the .10 address of the first IPv4 service CIDR, nil without one.
func defaultDNSServiceIP(serviceCIDRs []string) *string {
	for _, cidr := range serviceCIDRs {
		prefix, err := netip.ParsePrefix(cidr)
		if err != nil || !prefix.Addr().Is4() {
			continue
		}
		ip := prefix.Masked().Addr().As4()
		ip[3] = dnsServiceIPHost
		return ptr.To(netip.AddrFrom4(ip).String())
	}
	return nil
}

func loadBalancerProfile(p *infrav1.LoadBalancerProfile) *asocontainerservice.ManagedClusterLoadBalancerProfile {
	if p == nil {
		return nil
	}
	out := &asocontainerservice.ManagedClusterLoadBalancerProfile{
		AllocatedOutboundPorts: toInt(p.AllocatedOutboundPorts),
		IdleTimeoutInMinutes:   toInt(p.IdleTimeoutInMinutes),
	}
	if p.ManagedOutboundIPs != nil {
		out.ManagedOutboundIPs = &asocontainerservice.ManagedClusterLoadBalancerProfile_ManagedOutboundIPs{Count: toInt(p.ManagedOutboundIPs)}
	}
	if len(p.OutboundIPPrefixes) > 0 {
		out.OutboundIPPrefixes = &asocontainerservice.ManagedClusterLoadBalancerProfile_OutboundIPPrefixes{PublicIPPrefixes: resourceReferences(p.OutboundIPPrefixes)}
	}
	if len(p.OutboundIPs) > 0 {
		out.OutboundIPs = &asocontainerservice.ManagedClusterLoadBalancerProfile_OutboundIPs{PublicIPs: resourceReferences(p.OutboundIPs)}
	}
	return out
}

func resourceReferences(ids []string) []asocontainerservice.ResourceReference {
	out := make([]asocontainerservice.ResourceReference, 0, len(ids))
	for _, id := range ids {
		out = append(out, asocontainerservice.ResourceReference{Reference: armReference(id)})
	}
	return out
}

func apiServerAccessProfile(p *infrav1.APIServerAccessProfile) *asocontainerservice.ManagedClusterAPIServerAccessProfile {
	if p == nil {
		return nil
	}
	out := &asocontainerservice.ManagedClusterAPIServerAccessProfile{
		AuthorizedIPRanges:             slices.Clone(p.AuthorizedIPRanges),
		EnablePrivateCluster:           clone(p.EnablePrivateCluster),
		EnablePrivateClusterPublicFQDN: clone(p.EnablePrivateClusterPublicFQDN),
	}
	if zone := p.PrivateDNSZone; zone != nil {
		// AKS names the modes system and none; a zone resource ID goes as it is.
		value := *zone
		if strings.EqualFold(value, "System") || strings.EqualFold(value, "None") {
			value = strings.ToLower(value)
		}
		out.PrivateDNSZone = ptr.To(value)
	}
	return out
}

func aadProfile(p *infrav1.AADProfile) *asocontainerservice.ManagedClusterAADProfile {
	if p == nil {
		return nil
	}
	return &asocontainerservice.ManagedClusterAADProfile{
		Managed:             ptr.To(p.Managed),
		EnableAzureRBAC:     ptr.To(p.Managed),
		AdminGroupObjectIDs: slices.Clone(p.AdminGroupObjectIDs),
	}
}

// addonProfiles are the add-ons by name; a name given twice takes its last settings.
func addonProfiles(addons []infrav1.AddonProfile) map[string]asocontainerservice.ManagedClusterAddonProfile {
	if len(addons) == 0 {
		return nil
	}
	out := make(map[string]asocontainerservice.ManagedClusterAddonProfile, len(addons))
	for _, a := range addons {
		out[a.Name] = asocontainerservice.ManagedClusterAddonProfile{Enabled: ptr.To(a.Enabled), Config: maps.Clone(a.Config)}
	}
	return out
}

// autoScalerProfile maps CAPZ's camel-case autoscaler settings to ASO's, which carry the cluster autoscaler's
// flag names (balanceSimilarNodeGroups → balance-similar-node-groups, …). Both take the values as strings, except
// the expander, an enum in ASO.
func autoScalerProfile(p *infrav1.AutoScalerProfile) *asocontainerservice.ManagedClusterProperties_AutoScalerProfile {
	if p == nil {
		return nil
	}
	return &asocontainerservice.ManagedClusterProperties_AutoScalerProfile{
		BalanceSimilarNodeGroups:      (*string)(clone(p.BalanceSimilarNodeGroups)),
		Expander:                      azure.Enum[asocontainerservice.ManagedClusterProperties_AutoScalerProfile_Expander](p.Expander),
		MaxEmptyBulkDelete:            clone(p.MaxEmptyBulkDelete),
		MaxGracefulTerminationSec:     clone(p.MaxGracefulTerminationSec),
		MaxNodeProvisionTime:          clone(p.MaxNodeProvisionTime),
		MaxTotalUnreadyPercentage:     clone(p.MaxTotalUnreadyPercentage),
		NewPodScaleUpDelay:            clone(p.NewPodScaleUpDelay),
		OkTotalUnreadyCount:           clone(p.OkTotalUnreadyCount),
		ScanInterval:                  clone(p.ScanInterval),
		ScaleDownDelayAfterAdd:        clone(p.ScaleDownDelayAfterAdd),
		ScaleDownDelayAfterDelete:     clone(p.ScaleDownDelayAfterDelete),
		ScaleDownDelayAfterFailure:    clone(p.ScaleDownDelayAfterFailure),
		ScaleDownUnneededTime:         clone(p.ScaleDownUnneededTime),
		ScaleDownUnreadyTime:          clone(p.ScaleDownUnreadyTime),
		ScaleDownUtilizationThreshold: clone(p.ScaleDownUtilizationThreshold),
		SkipNodesWithLocalStorage:     (*string)(clone(p.SkipNodesWithLocalStorage)),
		SkipNodesWithSystemPods:       (*string)(clone(p.SkipNodesWithSystemPods)),
	}
}

func autoUpgradeProfile(p *infrav1.ManagedClusterAutoUpgradeProfile) *asocontainerservice.ManagedClusterAutoUpgradeProfile {
	if p == nil || p.UpgradeChannel == nil {
		return nil
	}
	return &asocontainerservice.ManagedClusterAutoUpgradeProfile{
		UpgradeChannel: azure.Enum[asocontainerservice.ManagedClusterAutoUpgradeProfile_UpgradeChannel](p.UpgradeChannel),
	}
}

// identity is the control plane's managed identity: system-assigned unless the spec names a user-assigned one.
func identity(id *infrav1.ManagedControlPlaneIdentity) *asocontainerservice.ManagedClusterIdentity {
	if id == nil || id.Type != infrav1.ManagedControlPlaneIdentityTypeUserAssigned {
		return &asocontainerservice.ManagedClusterIdentity{Type: ptr.To(asocontainerservice.ManagedClusterIdentity_Type_SystemAssigned)}
	}
	out := &asocontainerservice.ManagedClusterIdentity{Type: ptr.To(asocontainerservice.ManagedClusterIdentity_Type_UserAssigned)}
	if id.UserAssignedIdentityResourceID != "" {
		out.UserAssignedIdentities = []asocontainerservice.UserAssignedIdentityDetails{
			{Reference: genruntime.ResourceReference{ARMID: id.UserAssignedIdentityResourceID}},
		}
	}
	return out
}

// identityProfile gives the kubelets a user-assigned identity.
func identityProfile(kubeletIdentity string) map[string]asocontainerservice.UserAssignedIdentity {
	if kubeletIdentity == "" {
		return nil
	}
	return map[string]asocontainerservice.UserAssignedIdentity{
		kubeletIdentityKey: {ResourceReference: armReference(kubeletIdentity)},
	}
}

func httpProxyConfig(p *infrav1.HTTPProxyConfig) *asocontainerservice.ManagedClusterHTTPProxyConfig {
	if p == nil {
		return nil
	}
	return &asocontainerservice.ManagedClusterHTTPProxyConfig{
		HttpProxy:  clone(p.HTTPProxy),
		HttpsProxy: clone(p.HTTPSProxy),
		NoProxy:    slices.Clone(p.NoProxy),
		TrustedCa:  clone(p.TrustedCA),
	}
}

func securityProfile(p *infrav1.ManagedClusterSecurityProfile) *asocontainerservice.ManagedClusterSecurityProfile {
	if p == nil {
		return nil
	}
	out := &asocontainerservice.ManagedClusterSecurityProfile{}
	if kms := p.AzureKeyVaultKms; kms != nil {
		out.AzureKeyVaultKms = &asocontainerservice.AzureKeyVaultKms{
			Enabled:               ptr.To(kms.Enabled),
			KeyId:                 nonEmpty(kms.KeyID),
			KeyVaultNetworkAccess: azure.Enum[asocontainerservice.AzureKeyVaultKms_KeyVaultNetworkAccess](kms.KeyVaultNetworkAccess),
		}
		if id := ptr.Deref(kms.KeyVaultResourceID, ""); id != "" {
			out.AzureKeyVaultKms.KeyVaultResourceReference = armReference(id)
		}
	}
	if d := p.Defender; d != nil {
		out.Defender = &asocontainerservice.ManagedClusterSecurityProfileDefender{
			SecurityMonitoring: &asocontainerservice.ManagedClusterSecurityProfileDefenderSecurityMonitoring{
				Enabled: ptr.To(d.SecurityMonitoring.Enabled),
			},
		}
		if d.LogAnalyticsWorkspaceResourceID != "" {
			out.Defender.LogAnalyticsWorkspaceResourceReference = armReference(d.LogAnalyticsWorkspaceResourceID)
		}
	}
	if ic := p.ImageCleaner; ic != nil {
		out.ImageCleaner = &asocontainerservice.ManagedClusterSecurityProfileImageCleaner{
			Enabled:       ptr.To(ic.Enabled),
			IntervalHours: toInt(ic.IntervalHours),
		}
	}
	if wi := p.WorkloadIdentity; wi != nil {
		out.WorkloadIdentity = &asocontainerservice.ManagedClusterSecurityProfileWorkloadIdentity{Enabled: ptr.To(wi.Enabled)}
	}
	return out
}

// linuxProfile gives the Linux nodes' admin the SSH key, which the spec holds base64-encoded (the webhook checks
// it; a key that is not base64 goes as it is, for AKS to reject).
func linuxProfile(sshPublicKey string) *asocontainerservice.ContainerServiceLinuxProfile {
	if sshPublicKey == "" {
		return nil
	}
	key := sshPublicKey
	if decoded, err := base64.StdEncoding.DecodeString(sshPublicKey); err == nil {
		key = strings.TrimSpace(string(decoded))
	}
	return &asocontainerservice.ContainerServiceLinuxProfile{
		AdminUsername: ptr.To(AdminUsername),
		Ssh: &asocontainerservice.ContainerServiceSshConfiguration{
			PublicKeys: []asocontainerservice.ContainerServiceSshPublicKey{{KeyData: ptr.To(key)}},
		},
	}
}

// operatorSpec is what ASO exports to the namespace: the kubeconfigs and the OIDC issuer URL.
func operatorSpec(in ControlPlaneInput) *asocontainerservice.ManagedClusterOperatorSpec {
	s := in.Spec
	cluster := in.clusterName()
	secrets := &asocontainerservice.ManagedClusterOperatorSecrets{}
	if !ptr.Deref(s.DisableLocalAccounts, false) {
		secrets.AdminCredentials = &genruntime.SecretDestination{Name: AdminKubeconfigSecretName(cluster), Key: KubeconfigSecretKey}
	}
	if s.AADProfile != nil && s.AADProfile.Managed {
		secrets.UserCredentials = &genruntime.SecretDestination{Name: UserKubeconfigSecretName(cluster), Key: KubeconfigSecretKey}
	}
	out := &asocontainerservice.ManagedClusterOperatorSpec{}
	if secrets.AdminCredentials != nil || secrets.UserCredentials != nil {
		out.Secrets = secrets
	}
	if s.OIDCIssuerProfile != nil && ptr.Deref(s.OIDCIssuerProfile.Enabled, false) {
		out.ConfigMaps = &asocontainerservice.ManagedClusterOperatorConfigMaps{
			OIDCIssuerProfile: &genruntime.ConfigMapDestination{Name: OIDCIssuerConfigMapName(cluster), Key: OIDCIssuerConfigMapKey},
		}
	}
	if out.Secrets == nil && out.ConfigMaps == nil {
		return nil
	}
	return out
}

// armReference references an Azure resource by its ARM ID.
func armReference(id string) *genruntime.ResourceReference {
	return &genruntime.ResourceReference{ARMID: id}
}

// clone copies an optional value, so that the output shares no memory with the input.
func clone[T any](v *T) *T {
	if v == nil {
		return nil
	}
	return ptr.To(*v)
}

// toInt converts an optional int32 to ASO's int.
func toInt(v *int32) *int {
	if v == nil {
		return nil
	}
	return ptr.To(int(*v))
}

// nonEmpty is a string, or nil when it is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return ptr.To(s)
}
