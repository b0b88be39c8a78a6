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
	"fmt"
	"net/netip"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedcontrolplane,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,versions=v1beta1,name=default.azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedcontrolplane,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,versions=v1beta1,name=validation.azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedControlPlaneWebhookWithManager registers the defaulting and validating webhooks of
// AzureManagedControlPlane.
func SetupAzureManagedControlPlaneWebhookWithManager(mgr ctrl.Manager, opts WebhookOptions) error {
	w := azureManagedControlPlaneWebhook{opts: opts}
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedControlPlane{}).WithDefaulter(w).WithValidator(w).Complete()
}

// azureManagedControlPlaneWebhook validates without reading other objects. CAPZ also checks spec.dnsServiceIP
// against the owning Cluster's service CIDR; that needs a client, so only the address itself is checked here. It
// requires spec.identityRef as WebhookOptions say; CAPZ v1.26.0's CRD requires it on every AzureManagedControlPlane.
type azureManagedControlPlaneWebhook struct {
	opts WebhookOptions
}

// Default fills in CAPZ's defaults.
func (azureManagedControlPlaneWebhook) Default(_ context.Context, c *AzureManagedControlPlane) error {
	c.SetDefaults()
	return nil
}

// ValidateCreate validates a new AzureManagedControlPlane.
func (w azureManagedControlPlaneWebhook) ValidateCreate(_ context.Context, c *AzureManagedControlPlane) (admission.Warnings, error) {
	errs := c.validate()
	errs = append(errs, w.opts.validateIdentityRefRequired(field.NewPath("spec", "identityRef"), c.Spec.IdentityRef, false)...)
	return managedControlPlaneWarnings(field.NewPath("spec"), &c.Spec.AzureManagedControlPlaneClassSpec),
		Invalid("AzureManagedControlPlane", c.Name, errs)
}

// ValidateUpdate validates a changed AzureManagedControlPlane, including what AKS cannot change after creation.
func (w azureManagedControlPlaneWebhook) ValidateUpdate(_ context.Context, old, c *AzureManagedControlPlane) (admission.Warnings, error) {
	if !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := c.validate()
	errs = append(errs, w.opts.validateIdentityRefRequired(field.NewPath("spec", "identityRef"), c.Spec.IdentityRef, old.Spec.IdentityRef == nil)...)
	errs = append(errs, validateAzureManagedControlPlaneUpdate(old, c)...)
	errs = ValidateImplementedFieldsUpdate("AzureManagedControlPlane", &old.Spec, &c.Spec, errs)
	return managedControlPlaneWarnings(field.NewPath("spec"), &c.Spec.AzureManagedControlPlaneClassSpec),
		Invalid("AzureManagedControlPlane", c.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureManagedControlPlaneWebhook) ValidateDelete(context.Context, *AzureManagedControlPlane) (admission.Warnings, error) {
	return nil, nil
}

var (
	// dnsPrefixPattern is AKS's rule for a DNS prefix: 1 to 54 letters, digits and hyphens, starting and ending
	// with a letter or digit.
	dnsPrefixPattern = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,52}[a-zA-Z0-9])?$`)
	// fleetsMemberNamePattern is Azure Kubernetes Fleet's rule for a member name.
	fleetsMemberNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// privateDNSZoneIDPattern matches the resource ID of a private DNS zone AKS accepts for a private cluster.
	privateDNSZoneIDPattern = regexp.MustCompile(`(?i)^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/privateDnsZones/([a-z0-9-]{1,32}\.)?(private|privatelink)\.[a-z0-9]+\.azmk8s\.io$`)
)

// maxNodeResourceGroupNameLength is AKS's limit on the node resource group name, shorter than Azure's 90.
const maxNodeResourceGroupNameLength = 80

func (c *AzureManagedControlPlane) validate() field.ErrorList {
	spec := field.NewPath("spec")
	s := &c.Spec
	errs := validateManagedControlPlaneClassSpec(spec, &s.AzureManagedControlPlaneClassSpec)
	if lower := strings.ToLower(c.Name); strings.Contains(lower, "microsoft") || strings.Contains(lower, "windows") {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), c.Name,
			"AKS cluster names may not contain the reserved words microsoft or windows"))
	}
	if s.ResourceGroupName == "" {
		errs = append(errs, field.Required(spec.Child("resourceGroupName"),
			"the resource group of the AKS cluster (defaulted only when the cluster.x-k8s.io/cluster-name label is set)"))
	}
	if s.Location == "" {
		errs = append(errs, field.Required(spec.Child("location"), "the Azure region of the cluster, e.g. eastus"))
	}
	if s.Version == "" {
		errs = append(errs, field.Required(spec.Child("version"), "a Kubernetes version such as v1.33.2"))
	}
	errs = append(errs, validateNodeResourceGroupName(spec.Child("nodeResourceGroupName"), s.NodeResourceGroupName, s.ResourceGroupName)...)
	errs = append(errs, ValidateSSHPublicKey(spec.Child("sshPublicKey"), ptr.Deref(s.SSHPublicKey, ""))...)
	if s.DNSPrefix != nil && !dnsPrefixPattern.MatchString(*s.DNSPrefix) {
		errs = append(errs, field.Invalid(spec.Child("dnsPrefix"), *s.DNSPrefix,
			"must be 1 to 54 letters, digits and hyphens, starting and ending with a letter or digit"))
	}
	if m := s.FleetsMember; m != nil {
		p := spec.Child("fleetsMember")
		errs = append(errs, validateFleetsMemberClass(p, &m.FleetsMemberClassSpec)...)
		if m.Name != "" && !fleetsMemberNamePattern.MatchString(m.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name,
				"may contain only lowercase letters, digits and hyphens, starting and ending with a letter or digit"))
		}
	}
	return append(errs, ValidateImplementedFields("AzureManagedControlPlane", &c.Spec)...)
}

func validateNodeResourceGroupName(path *field.Path, name, resourceGroup string) field.ErrorList {
	if name == "" {
		return nil
	}
	if errs := validateName(path, name, resourceGroupNameRule); len(errs) > 0 {
		return errs
	}
	if len(name) > maxNodeResourceGroupNameLength {
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf(
			"AKS limits the node resource group name to %d characters; set a shorter spec.nodeResourceGroupName",
			maxNodeResourceGroupNameLength))}
	}
	if strings.EqualFold(name, resourceGroup) {
		return field.ErrorList{field.Invalid(path, name,
			"must differ from spec.resourceGroupName: AKS creates and owns the node resource group")}
	}
	return nil
}

func validateFleetsMemberClass(path *field.Path, m *FleetsMemberClassSpec) field.ErrorList {
	var errs field.ErrorList
	if m.ManagerName == "" {
		errs = append(errs, field.Required(path.Child("managerName"), "the name of the fleet manager"))
	}
	if m.ManagerResourceGroup == "" {
		errs = append(errs, field.Required(path.Child("managerResourceGroup"), "the resource group of the fleet manager"))
	}
	return append(errs, validateName(path.Child("managerResourceGroup"), m.ManagerResourceGroup, resourceGroupNameRule)...)
}

// validateManagedControlPlaneClassSpec checks the settings an AzureManagedControlPlane shares with its template.
// It runs after defaulting, so an unset network plugin, identity or OIDC issuer profile has its default. It requires
// nothing a ClusterClass patch or Cluster API may fill in a template (version, location, resource group, identity):
// AzureManagedControlPlane.validate does.
func validateManagedControlPlaneClassSpec(path *field.Path, s *AzureManagedControlPlaneClassSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateKubernetesVersion(path.Child("version"), s.Version)...)
	errs = append(errs, validateName(path.Child("resourceGroupName"), s.ResourceGroupName, resourceGroupNameRule)...)
	errs = append(errs, validateGUID(path.Child("subscriptionID"), s.SubscriptionID)...)
	errs = append(errs, ValidateTags(path.Child("additionalTags"), s.AdditionalTags)...)
	errs = append(errs, validateIdentityRef(path.Child("identityRef"), s.IdentityRef)...)
	if s.AzureEnvironment != "" {
		if _, ok := cloudAppSuffix[s.AzureEnvironment]; !ok {
			errs = append(errs, field.NotSupported(path.Child("azureEnvironment"), s.AzureEnvironment,
				[]string{"AzurePublicCloud", "AzureChinaCloud", "AzureUSGovernmentCloud"}))
		}
	}
	errs = append(errs, validateManagedVirtualNetwork(path.Child("virtualNetwork"), &s.VirtualNetwork, s.ResourceGroupName)...)
	errs = append(errs, validateManagedNetworking(path, s)...)
	errs = append(errs, validateLoadBalancerProfile(path.Child("loadBalancerProfile"), s.LoadBalancerProfile, s.LoadBalancerSKU)...)
	errs = append(errs, validateAPIServerAccessProfile(path.Child("apiServerAccessProfile"), s.APIServerAccessProfile)...)
	errs = append(errs, validateManagedIdentities(path, s)...)
	errs = append(errs, validateAADProfile(path, s)...)
	addons := make([]string, len(s.AddonProfiles))
	for i, a := range s.AddonProfiles {
		addons[i] = a.Name
	}
	errs = append(errs, validateUniqueNames(path.Child("addonProfiles"), addons)...)
	errs = append(errs, validateAKSExtensions(path.Child("extensions"), s.AKSExtensions)...)
	errs = append(errs, validateAutoScalerProfile(path.Child("autoscalerProfile"), s.AutoScalerProfile)...)
	errs = append(errs, validateManagedClusterSecurityProfile(path, s)...)
	errs = append(errs, validateMergePatches(path.Child("asoManagedClusterPatches"), s.ASOManagedClusterPatches)...)
	errs = append(errs, ValidateASOPatches(path.Child("asoPatches"), s.ASOPatches)...)
	return errs
}

// parseCIDR parses one CIDR block; an empty one is left to defaulting.
func parseCIDR(path *field.Path, cidr string) (netip.Prefix, field.ErrorList) {
	if cidr == "" {
		return netip.Prefix{}, nil
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Prefix{}, field.ErrorList{field.Invalid(path, cidr, "invalid CIDR block")}
	}
	if p.Masked() != p {
		return netip.Prefix{}, field.ErrorList{field.Invalid(path, cidr, fmt.Sprintf("host bits are set; did you mean %s?", p.Masked()))}
	}
	return p, nil
}

// validateManagedVirtualNetwork checks the virtual network; its resource group is checked only when it is not the
// cluster's, which is reported on its own field.
func validateManagedVirtualNetwork(path *field.Path, v *ManagedControlPlaneVirtualNetwork, clusterResourceGroup string) field.ErrorList {
	errs := validateName(path.Child("name"), v.Name, vnetNameRule)
	if v.ResourceGroup != clusterResourceGroup {
		errs = append(errs, validateName(path.Child("resourceGroup"), v.ResourceGroup, resourceGroupNameRule)...)
	}
	vnet, vnetErrs := parseCIDR(path.Child("cidrBlock"), v.CIDRBlock)
	errs = append(errs, vnetErrs...)
	subnetPath := path.Child("subnet")
	errs = append(errs, validateName(subnetPath.Child("name"), v.Subnet.Name, networkResourceNameRule)...)
	subnet, subnetErrs := parseCIDR(subnetPath.Child("cidrBlock"), v.Subnet.CIDRBlock)
	errs = append(errs, subnetErrs...)
	if vnet.IsValid() && subnet.IsValid() {
		errs = append(errs, validateWithin([]netip.Prefix{vnet},
			[]labelledPrefix{{subnetPath.Child("cidrBlock"), subnet}}, path.Child("cidrBlock"))...)
	}
	return append(errs, validatePrivateEndpoints(subnetPath.Child("privateEndpoints"), v.Subnet.PrivateEndpoints)...)
}

// validateManagedNetworking checks that the network plugin, its mode, the policy engine and the dataplane fit
// together, and the cluster DNS service address.
func validateManagedNetworking(path *field.Path, s *AzureManagedControlPlaneClassSpec) field.ErrorList {
	var errs field.ErrorList
	plugin := ptr.Deref(s.NetworkPlugin, NetworkPluginAzure)
	policy := ptr.Deref(s.NetworkPolicy, "")
	dataplane := ptr.Deref(s.NetworkDataplane, "")
	if policy == NetworkPolicyAzure && plugin != NetworkPluginAzure {
		errs = append(errs, field.Invalid(path.Child("networkPolicy"), policy,
			"Azure network policy manager requires networkPlugin azure (Azure CNI)"))
	}
	if ptr.Deref(s.NetworkPluginMode, "") == NetworkPluginModeOverlay && plugin != NetworkPluginAzure {
		errs = append(errs, field.Invalid(path.Child("networkPluginMode"), NetworkPluginModeOverlay,
			"overlay is a mode of Azure CNI: it requires networkPlugin azure"))
	}
	if policy == NetworkPolicyCilium && dataplane != "" && dataplane != NetworkDataplaneTypeCilium {
		errs = append(errs, field.Invalid(path.Child("networkPolicy"), policy,
			"cilium network policy requires networkDataplane cilium"))
	}
	if dataplane == NetworkDataplaneTypeCilium {
		if policy != "" && policy != NetworkPolicyCilium {
			errs = append(errs, field.Invalid(path.Child("networkPolicy"), policy,
				"the cilium dataplane enforces network policies itself: set networkPolicy cilium or leave it empty"))
		}
		if plugin != NetworkPluginAzure {
			errs = append(errs, field.Invalid(path.Child("networkDataplane"), dataplane,
				"the cilium dataplane is Azure CNI powered by Cilium: it requires networkPlugin azure"))
		}
	}
	if s.DNSServiceIP != nil {
		p := path.Child("dnsServiceIP")
		addr, err := netip.ParseAddr(*s.DNSServiceIP)
		switch {
		case err != nil || !addr.Is4():
			errs = append(errs, field.Invalid(p, *s.DNSServiceIP,
				"must be an IPv4 address inside the Cluster's service CIDR (spec.clusterNetwork.services.cidrBlocks), such as 10.0.0.10"))
		case addr.As4()[3] == 1:
			errs = append(errs, field.Invalid(p, *s.DNSServiceIP,
				"the first address of the service CIDR belongs to the kubernetes Service; use another one, such as the .10 address"))
		}
	}
	return errs
}

func validateLoadBalancerProfile(path *field.Path, p *LoadBalancerProfile, sku *ManagedLoadBalancerSKU) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	var sources []string
	if p.ManagedOutboundIPs != nil {
		sources = append(sources, "managedOutboundIPs")
		if n := *p.ManagedOutboundIPs; n < 1 || n > 100 {
			errs = append(errs, field.Invalid(path.Child("managedOutboundIPs"), n, "must be between 1 and 100"))
		}
	}
	if len(p.OutboundIPPrefixes) > 0 {
		sources = append(sources, "outboundIPPrefixes")
		for i, id := range p.OutboundIPPrefixes {
			errs = append(errs, validateARMID(path.Child("outboundIPPrefixes").Index(i), id)...)
		}
	}
	if len(p.OutboundIPs) > 0 {
		sources = append(sources, "outboundIPs")
		for i, id := range p.OutboundIPs {
			errs = append(errs, validateARMID(path.Child("outboundIPs").Index(i), id)...)
		}
	}
	if len(sources) > 1 {
		errs = append(errs, field.Forbidden(path,
			"set at most one of managedOutboundIPs, outboundIPPrefixes and outboundIPs; found "+strings.Join(sources, ", ")))
	}
	if n := p.AllocatedOutboundPorts; n != nil && (*n < 0 || *n > 64000 || *n%8 != 0) {
		errs = append(errs, field.Invalid(path.Child("allocatedOutboundPorts"), *n,
			"must be between 0 and 64000 and a multiple of 8; 0 lets Azure choose"))
	}
	if n := p.IdleTimeoutInMinutes; n != nil && (*n < 4 || *n > 120) {
		errs = append(errs, field.Invalid(path.Child("idleTimeoutInMinutes"), *n, "must be between 4 and 120"))
	}
	if ptr.Deref(sku, ManagedLoadBalancerSKUStandard) == ManagedLoadBalancerSKUBasic {
		errs = append(errs, field.Forbidden(path, "an outbound load balancer profile requires loadBalancerSKU Standard"))
	}
	return errs
}

func validateAPIServerAccessProfile(path *field.Path, p *APIServerAccessProfile) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	private := ptr.Deref(p.EnablePrivateCluster, false)
	for i, r := range p.AuthorizedIPRanges {
		if _, err := netip.ParsePrefix(r); err != nil {
			errs = append(errs, field.Invalid(path.Child("authorizedIPRanges").Index(i), r,
				"must be a CIDR block such as 203.0.113.0/24"))
		}
	}
	if private && len(p.AuthorizedIPRanges) > 0 {
		errs = append(errs, field.Forbidden(path.Child("authorizedIPRanges"),
			"a private cluster's API server has no public endpoint to restrict; authorized IP ranges apply to public clusters only"))
	}
	if z := p.PrivateDNSZone; z != nil && !strings.EqualFold(*z, "System") && !strings.EqualFold(*z, "None") {
		zp := path.Child("privateDNSZone")
		if !privateDNSZoneIDPattern.MatchString(*z) {
			errs = append(errs, field.Invalid(zp, *z, "must be System, None, or the resource ID of a private DNS zone named "+
				"private.<location>.azmk8s.io, privatelink.<location>.azmk8s.io or <subzone>.private(link).<location>.azmk8s.io"))
		}
		if !private {
			errs = append(errs, field.Forbidden(zp, "a private DNS zone is used only by a private cluster (enablePrivateCluster: true)"))
		}
	}
	if ptr.Deref(p.EnablePrivateClusterPublicFQDN, false) && !private {
		errs = append(errs, field.Forbidden(path.Child("enablePrivateClusterPublicFQDN"),
			"applies only to a private cluster (enablePrivateCluster: true)"))
	}
	return errs
}

func validateManagedIdentities(path *field.Path, s *AzureManagedControlPlaneClassSpec) field.ErrorList {
	var errs field.ErrorList
	userAssigned := s.Identity != nil && s.Identity.Type == ManagedControlPlaneIdentityTypeUserAssigned
	if id := s.Identity; id != nil {
		p := path.Child("identity", "userAssignedIdentityResourceID")
		switch {
		case userAssigned && id.UserAssignedIdentityResourceID == "":
			errs = append(errs, field.Required(p, "the resource ID of the user-assigned identity, for identity type UserAssigned"))
		case userAssigned:
			errs = append(errs, validateARMID(p, id.UserAssignedIdentityResourceID)...)
		case id.UserAssignedIdentityResourceID != "":
			errs = append(errs, field.Forbidden(p, "only for identity type UserAssigned"))
		}
	}
	if s.KubeletUserAssignedIdentity != "" {
		p := path.Child("kubeletUserAssignedIdentity")
		errs = append(errs, validateARMID(p, s.KubeletUserAssignedIdentity)...)
		if !userAssigned {
			errs = append(errs, field.Forbidden(p,
				"AKS accepts a kubelet identity only with a user-assigned control plane identity (identity.type UserAssigned)"))
		}
	}
	return errs
}

func validateAADProfile(path *field.Path, s *AzureManagedControlPlaneClassSpec) field.ErrorList {
	var errs field.ErrorList
	managed := false
	if a := s.AADProfile; a != nil {
		managed = a.Managed
		if !a.Managed {
			errs = append(errs, field.Invalid(path.Child("aadProfile", "managed"), a.Managed,
				"AKS supports only AKS-managed Microsoft Entra ID integration; set managed: true"))
		}
		for i, id := range a.AdminGroupObjectIDs {
			errs = append(errs, validateGUID(path.Child("aadProfile", "adminGroupObjectIDs").Index(i), id)...)
		}
	}
	if ptr.Deref(s.DisableLocalAccounts, false) && !managed {
		errs = append(errs, field.Forbidden(path.Child("disableLocalAccounts"),
			"disabling local accounts requires Microsoft Entra ID integration (aadProfile.managed: true), or nobody could sign in"))
	}
	return errs
}

func validateAKSExtensions(path *field.Path, extensions []AKSExtension) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, len(extensions))
	for i, e := range extensions {
		names[i] = e.Name
		p := path.Index(i)
		if e.ExtensionType == "" {
			errs = append(errs, field.Required(p.Child("extensionType"), "the type of the extension, e.g. microsoft.flux"))
		}
		auto := ptr.Deref(e.AutoUpgradeMinorVersion, true)
		if e.Version != nil && auto {
			errs = append(errs, field.Forbidden(p.Child("version"), "a pinned version requires autoUpgradeMinorVersion: false"))
		}
		if e.ReleaseTrain != nil && !auto {
			errs = append(errs, field.Forbidden(p.Child("releaseTrain"), "a release train is followed only with autoUpgradeMinorVersion: true"))
		}
		if sc := e.Scope; sc != nil {
			sp := p.Child("scope")
			switch sc.ScopeType {
			case ExtensionScopeCluster:
				if sc.ReleaseNamespace == "" {
					errs = append(errs, field.Required(sp.Child("releaseNamespace"), "the namespace of a cluster-scoped extension"))
				}
				if sc.TargetNamespace != "" {
					errs = append(errs, field.Forbidden(sp.Child("targetNamespace"), "only for scopeType Namespace"))
				}
			case ExtensionScopeNamespace:
				if sc.TargetNamespace == "" {
					errs = append(errs, field.Required(sp.Child("targetNamespace"), "the namespace of a namespace-scoped extension"))
				}
				if sc.ReleaseNamespace != "" {
					errs = append(errs, field.Forbidden(sp.Child("releaseNamespace"), "only for scopeType Cluster"))
				}
			}
		}
	}
	return append(errs, validateUniqueNames(path, names)...)
}

// validateAutoScalerProfile checks the autoscaler settings that the CRD schema cannot: the others carry patterns.
func validateAutoScalerProfile(path *field.Path, a *AutoScalerProfile) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if v := a.MaxEmptyBulkDelete; v != nil {
		if n, err := strconv.Atoi(*v); err != nil || n < 0 {
			errs = append(errs, field.Invalid(path.Child("maxEmptyBulkDelete"), *v, "must be a whole number, such as 10"))
		}
	}
	if v := a.MaxTotalUnreadyPercentage; v != nil {
		if n, err := strconv.Atoi(*v); err != nil || n < 0 || n > 100 {
			errs = append(errs, field.Invalid(path.Child("maxTotalUnreadyPercentage"), *v, "must be a whole percentage between 0 and 100"))
		}
	}
	if v := a.NewPodScaleUpDelay; v != nil {
		if _, err := time.ParseDuration(*v); err != nil {
			errs = append(errs, field.Invalid(path.Child("newPodScaleUpDelay"), *v, "must be a duration such as 0s or 1m"))
		}
	}
	if v := a.ScaleDownUtilizationThreshold; v != nil {
		if f, err := strconv.ParseFloat(*v, 64); err != nil || f < 0 || f > 1 {
			errs = append(errs, field.Invalid(path.Child("scaleDownUtilizationThreshold"), *v, "must be a fraction between 0 and 1, such as 0.5"))
		}
	}
	return errs
}

func validateManagedClusterSecurityProfile(path *field.Path, s *AzureManagedControlPlaneClassSpec) field.ErrorList {
	sp := s.SecurityProfile
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	p := path.Child("securityProfile")
	if kms := sp.AzureKeyVaultKms; kms != nil {
		kp := p.Child("azureKeyVaultKms")
		if s.Identity == nil || s.Identity.Type != ManagedControlPlaneIdentityTypeUserAssigned {
			errs = append(errs, field.Forbidden(kp, "KMS encryption requires a user-assigned control plane identity (identity.type UserAssigned)"))
		}
		if kms.Enabled && kms.KeyID == "" {
			errs = append(errs, field.Required(kp.Child("keyID"), "the identifier of the Key Vault key, including its version"))
		}
		access := ptr.Deref(kms.KeyVaultNetworkAccess, KeyVaultNetworkAccessTypesPublic)
		resourceID := ptr.Deref(kms.KeyVaultResourceID, "")
		switch access {
		case KeyVaultNetworkAccessTypesPrivate:
			if resourceID == "" {
				errs = append(errs, field.Required(kp.Child("keyVaultResourceID"), "the resource ID of a Key Vault with private access"))
			}
		case KeyVaultNetworkAccessTypesPublic:
			if resourceID != "" {
				errs = append(errs, field.Forbidden(kp.Child("keyVaultResourceID"), "only with keyVaultNetworkAccess Private"))
			}
		default:
			errs = append(errs, field.NotSupported(kp.Child("keyVaultNetworkAccess"), access,
				[]string{string(KeyVaultNetworkAccessTypesPublic), string(KeyVaultNetworkAccessTypesPrivate)}))
		}
		errs = append(errs, validateARMID(kp.Child("keyVaultResourceID"), resourceID)...)
	}
	oidc := s.OIDCIssuerProfile != nil && ptr.Deref(s.OIDCIssuerProfile.Enabled, false)
	if wi := sp.WorkloadIdentity; wi != nil && wi.Enabled && !oidc {
		errs = append(errs, field.Forbidden(p.Child("workloadIdentity", "enabled"),
			"workload identity requires the OIDC issuer (oidcIssuerProfile.enabled: true)"))
	}
	if d := sp.Defender; d != nil {
		dp := p.Child("defender", "logAnalyticsWorkspaceResourceID")
		if d.LogAnalyticsWorkspaceResourceID == "" {
			errs = append(errs, field.Required(dp, "the resource ID of the Log Analytics workspace Defender reports to"))
		}
		errs = append(errs, validateARMID(dp, d.LogAnalyticsWorkspaceResourceID)...)
	}
	return errs
}

// managedControlPlaneWarnings tells the user about settings AKS may reject that the webhook cannot decide on.
func managedControlPlaneWarnings(path *field.Path, s *AzureManagedControlPlaneClassSpec) admission.Warnings {
	var w admission.Warnings
	if ptr.Deref(s.NetworkDataplane, "") == NetworkDataplaneTypeCilium && ptr.Deref(s.NetworkPluginMode, "") != NetworkPluginModeOverlay {
		w = append(w, fmt.Sprintf("%s: the cilium dataplane needs networkPluginMode overlay, or agent pools with a pod subnet "+
			"(set through asoManagedClustersAgentPoolPatches); AKS rejects the cluster otherwise", path.Child("networkDataplane")))
	}
	return w
}

// validateAzureManagedControlPlaneUpdate rejects the changes AKS (or CAPZ) does not allow after creation.
func validateAzureManagedControlPlaneUpdate(old, c *AzureManagedControlPlane) field.ErrorList {
	spec := field.NewPath("spec")
	o, n := &old.Spec, &c.Spec
	var errs field.ErrorList
	for _, f := range []struct {
		name     string
		old, new any
	}{
		{"subscriptionID", o.SubscriptionID, n.SubscriptionID},
		{"resourceGroupName", o.ResourceGroupName, n.ResourceGroupName},
		{"nodeResourceGroupName", o.NodeResourceGroupName, n.NodeResourceGroupName},
		{"location", o.Location, n.Location},
		{"sshPublicKey", o.SSHPublicKey, n.SSHPublicKey},
		{"dnsServiceIP", o.DNSServiceIP, n.DNSServiceIP},
		{"networkPlugin", o.NetworkPlugin, n.NetworkPlugin},
		{"networkPolicy", o.NetworkPolicy, n.NetworkPolicy},
		{"networkDataplane", o.NetworkDataplane, n.NetworkDataplane},
		{"outboundType", o.OutboundType, n.OutboundType},
		{"loadBalancerSKU", o.LoadBalancerSKU, n.LoadBalancerSKU},
		{"httpProxyConfig", o.HTTPProxyConfig, n.HTTPProxyConfig},
		{"azureEnvironment", o.AzureEnvironment, n.AzureEnvironment},
		{"identity", effectiveIdentity(o.Identity), effectiveIdentity(n.Identity)},
		{"kubeletUserAssignedIdentity", o.KubeletUserAssignedIdentity, n.KubeletUserAssignedIdentity},
	} {
		errs = append(errs, ValidateImmutable(spec.Child(f.name), f.old, f.new)...)
	}
	// An object created before DNS prefixes were defaulted had the control plane's name as its prefix.
	errs = append(errs, ValidateImmutable(spec.Child("dnsPrefix"), ptr.Deref(o.DNSPrefix, old.Name), ptr.Deref(n.DNSPrefix, c.Name))...)

	vnet := spec.Child("virtualNetwork")
	errs = append(errs, ValidateImmutable(vnet.Child("name"), o.VirtualNetwork.Name, n.VirtualNetwork.Name)...)
	errs = append(errs, ValidateImmutable(vnet.Child("resourceGroup"), o.VirtualNetwork.ResourceGroup, n.VirtualNetwork.ResourceGroup)...)
	errs = append(errs, ValidateImmutable(vnet.Child("cidrBlock"), o.VirtualNetwork.CIDRBlock, n.VirtualNetwork.CIDRBlock)...)
	errs = append(errs, ValidateImmutable(vnet.Child("subnet", "name"), o.VirtualNetwork.Subnet.Name, n.VirtualNetwork.Subnet.Name)...)
	errs = append(errs, ValidateImmutable(vnet.Child("subnet", "cidrBlock"), o.VirtualNetwork.Subnet.CIDRBlock, n.VirtualNetwork.Subnet.CIDRBlock)...)

	errs = append(errs, validateVersionUpgrade(spec.Child("version"), o.Version, n.Version, old.Status.AutoUpgradeVersion)...)
	errs = append(errs, validateNetworkPluginModeUpdate(spec.Child("networkPluginMode"), o, n)...)
	errs = append(errs, validateAPIServerAccessProfileUpdate(spec.Child("apiServerAccessProfile"), o.APIServerAccessProfile, n.APIServerAccessProfile)...)
	errs = append(errs, validateAADProfileUpdate(spec, o, n)...)
	errs = append(errs, validateAddonProfilesUpdate(spec.Child("addonProfiles"), o.AddonProfiles, n.AddonProfiles)...)
	errs = append(errs, validateAKSExtensionsUpdate(spec.Child("extensions"), o.AKSExtensions, n.AKSExtensions)...)
	errs = append(errs, validateSecurityProfileUpdate(spec.Child("securityProfile"), o.SecurityProfile, n.SecurityProfile)...)

	if o.OIDCIssuerProfile != nil && ptr.Deref(o.OIDCIssuerProfile.Enabled, false) &&
		(n.OIDCIssuerProfile == nil || !ptr.Deref(n.OIDCIssuerProfile.Enabled, false)) {
		errs = append(errs, field.Forbidden(spec.Child("oidcIssuerProfile", "enabled"), "the OIDC issuer cannot be disabled once enabled"))
	}
	if o.AutoUpgradeProfile != nil && o.AutoUpgradeProfile.UpgradeChannel != nil &&
		(n.AutoUpgradeProfile == nil || n.AutoUpgradeProfile.UpgradeChannel == nil) {
		errs = append(errs, field.Forbidden(spec.Child("autoUpgradeProfile", "upgradeChannel"),
			"cannot be removed; set it to none to turn automatic upgrades off"))
	}
	if o.FleetsMember != nil && n.FleetsMember != nil && o.FleetsMember.Name != "" {
		errs = append(errs, ValidateImmutable(spec.Child("fleetsMember", "name"), o.FleetsMember.Name, n.FleetsMember.Name)...)
	}
	if old.Spec.ControlPlaneEndpoint.IsValid() {
		errs = append(errs, ValidateImmutable(spec.Child("controlPlaneEndpoint"), o.ControlPlaneEndpoint, n.ControlPlaneEndpoint)...)
	}
	return errs
}

// effectiveIdentity is a control plane identity with its default, so that an object stored before defaulting
// compares equal to its defaulted self.
func effectiveIdentity(id *ManagedControlPlaneIdentity) ManagedControlPlaneIdentity {
	e := ManagedControlPlaneIdentity{Type: ManagedControlPlaneIdentityTypeSystemAssigned}
	if id != nil {
		e.UserAssignedIdentityResourceID = id.UserAssignedIdentityResourceID
		if id.Type != "" {
			e.Type = id.Type
		}
	}
	return e
}

func validateNetworkPluginModeUpdate(path *field.Path, o, n *AzureManagedControlPlaneSpec) field.ErrorList {
	wasOverlay := ptr.Deref(o.NetworkPluginMode, "") == NetworkPluginModeOverlay
	isOverlay := ptr.Deref(n.NetworkPluginMode, "") == NetworkPluginModeOverlay
	switch {
	case wasOverlay && !isOverlay:
		return field.ErrorList{field.Forbidden(path, "AKS cannot move a cluster off Azure CNI overlay")}
	case !wasOverlay && isOverlay && o.NetworkPolicy != nil:
		return field.ErrorList{field.Forbidden(path, "overlay cannot be turned on for a cluster with a network policy engine (spec.networkPolicy)")}
	}
	return nil
}

// validateAPIServerAccessProfileUpdate allows changes of the authorized IP ranges only.
func validateAPIServerAccessProfileUpdate(path *field.Path, o, n *APIServerAccessProfile) field.ErrorList {
	if o == nil {
		o = &APIServerAccessProfile{}
	}
	if n == nil {
		n = &APIServerAccessProfile{}
	}
	errs := ValidateImmutable(path.Child("enablePrivateCluster"), ptr.Deref(o.EnablePrivateCluster, false), ptr.Deref(n.EnablePrivateCluster, false))
	errs = append(errs, ValidateImmutable(path.Child("privateDNSZone"), ptr.Deref(o.PrivateDNSZone, ""), ptr.Deref(n.PrivateDNSZone, ""))...)
	return append(errs, ValidateImmutable(path.Child("enablePrivateClusterPublicFQDN"),
		ptr.Deref(o.EnablePrivateClusterPublicFQDN, false), ptr.Deref(n.EnablePrivateClusterPublicFQDN, false))...)
}

func validateAADProfileUpdate(spec *field.Path, o, n *AzureManagedControlPlaneSpec) field.ErrorList {
	var errs field.ErrorList
	if o.AADProfile != nil {
		switch {
		case n.AADProfile == nil:
			errs = append(errs, field.Forbidden(spec.Child("aadProfile"), "Microsoft Entra ID integration cannot be turned off once on"))
		case o.AADProfile.Managed && !n.AADProfile.Managed:
			errs = append(errs, field.Forbidden(spec.Child("aadProfile", "managed"), "cannot go back to false"))
		}
	}
	if o.DisableLocalAccounts != nil {
		errs = append(errs, ValidateImmutable(spec.Child("disableLocalAccounts"), o.DisableLocalAccounts, n.DisableLocalAccounts)...)
	}
	return errs
}

// validateAddonProfilesUpdate forbids removing an add-on: AKS keeps it running unless it is disabled.
func validateAddonProfilesUpdate(path *field.Path, o, n []AddonProfile) field.ErrorList {
	kept := map[string]bool{}
	for _, a := range n {
		kept[a.Name] = true
	}
	var errs field.ErrorList
	for _, a := range o {
		if !kept[a.Name] {
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("add-on %q cannot be removed; set its enabled: false to turn it off", a.Name)))
		}
	}
	return errs
}

// validateAKSExtensionsUpdate forbids changing what an installed extension is; its settings and version may change.
func validateAKSExtensionsUpdate(path *field.Path, o, n []AKSExtension) field.ErrorList {
	installed := map[string]AKSExtension{}
	for _, e := range o {
		installed[e.Name] = e
	}
	var errs field.ErrorList
	for i, e := range n {
		was, ok := installed[e.Name]
		if !ok {
			continue
		}
		p := path.Index(i)
		errs = append(errs, ValidateImmutable(p.Child("extensionType"), was.ExtensionType, e.ExtensionType)...)
		errs = append(errs, ValidateImmutable(p.Child("scope"), was.Scope, e.Scope)...)
		errs = append(errs, ValidateImmutable(p.Child("identity"), was.Identity, e.Identity)...)
		if was.Plan != nil && e.Plan != nil {
			errs = append(errs, ValidateImmutable(p.Child("plan"), was.Plan, e.Plan)...)
		}
	}
	return errs
}

// validateSecurityProfileUpdate forbids removing a security feature; each has an enabled flag to turn it off.
func validateSecurityProfileUpdate(path *field.Path, o, n *ManagedClusterSecurityProfile) field.ErrorList {
	if o == nil {
		return nil
	}
	if n == nil {
		n = &ManagedClusterSecurityProfile{}
	}
	var errs field.ErrorList
	for _, f := range []struct {
		name     string
		old, new any
		turnOff  string
	}{
		{"azureKeyVaultKms", o.AzureKeyVaultKms, n.AzureKeyVaultKms, "enabled: false"},
		{"defender", o.Defender, n.Defender, "securityMonitoring.enabled: false"},
		{"imageCleaner", o.ImageCleaner, n.ImageCleaner, "enabled: false"},
		{"workloadIdentity", o.WorkloadIdentity, n.WorkloadIdentity, "enabled: false"},
	} {
		if !reflect.ValueOf(f.old).IsNil() && reflect.ValueOf(f.new).IsNil() {
			errs = append(errs, field.Forbidden(path.Child(f.name), "cannot be removed; set its "+f.turnOff+" to turn it off"))
		}
	}
	return errs
}
