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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// This file holds the types shared by the AzureManaged* (typed AKS) kinds: the class specs that a control plane
// or machine pool and its template have in common, and the AKS settings they are made of.

// AzureManagedControlPlaneClassSpec holds the AzureManagedControlPlane settings that may appear in a ClusterClass
// template. The AzureManagedControlPlane spec adds the cluster-specific fields (DNS prefix, node resource group,
// endpoint, SSH key, fleet member name).
type AzureManagedControlPlaneClassSpec struct {
	// machineTemplate fulfills the Cluster API control plane contract, which expects the field on control planes
	// used with ClusterClass. AKS nodes are not Cluster API Machines, so only its metadata is kept.
	// +optional
	MachineTemplate *AzureManagedControlPlaneTemplateMachineTemplate `json:"machineTemplate,omitempty"`

	// resourceGroupName is the resource group of the AKS cluster. Immutable. Required on an
	// AzureManagedControlPlane (defaulted from its cluster's name); a template may leave it to a ClusterClass patch.
	// +optional
	ResourceGroupName string `json:"resourceGroupName,omitempty"`

	// version is the Kubernetes version of the cluster, e.g. v1.33.2. Required on an AzureManagedControlPlane; a
	// template may leave it to Cluster API, which sets it from the Cluster's topology.
	// +optional
	Version string `json:"version,omitempty"`

	// virtualNetwork is the virtual network of the cluster's nodes. It is created when it does not exist.
	// Defaults to a network named after the cluster in the cluster's resource group.
	// +optional
	VirtualNetwork ManagedControlPlaneVirtualNetwork `json:"virtualNetwork,omitempty,omitzero"`

	// subscriptionID is the Azure subscription of the cluster. Defaults to the subscription of the credentials.
	// +optional
	SubscriptionID string `json:"subscriptionID,omitempty"`

	// location is the Azure region of the cluster, e.g. eastus. Required on an AzureManagedControlPlane; a template
	// may leave it to a ClusterClass patch.
	// +optional
	Location string `json:"location,omitempty"`

	// additionalTags are added to the cluster's Azure resources.
	// +optional
	AdditionalTags Tags `json:"additionalTags,omitempty"`

	// networkPlugin is the network plugin of the cluster: azure (Azure CNI), kubenet or none (bring your own CNI).
	// Immutable.
	// +kubebuilder:default=azure
	// +optional
	NetworkPlugin *NetworkPlugin `json:"networkPlugin,omitempty"`

	// networkPluginMode is the mode of the network plugin; overlay gives pods addresses from a private CIDR.
	// +optional
	NetworkPluginMode *NetworkPluginMode `json:"networkPluginMode,omitempty"`

	// networkPolicy is the network policy engine: azure, calico or cilium. Immutable.
	// +optional
	NetworkPolicy *NetworkPolicy `json:"networkPolicy,omitempty"`

	// networkDataplane is the dataplane of the cluster network: azure or cilium. Immutable.
	// +optional
	NetworkDataplane *NetworkDataplaneType `json:"networkDataplane,omitempty"`

	// outboundType is how nodes reach the internet. Immutable.
	// +optional
	OutboundType *ManagedControlPlaneOutboundType `json:"outboundType,omitempty"`

	// dnsServiceIP is the IP address of the cluster DNS service, inside the service CIDR. Immutable.
	// +optional
	DNSServiceIP *string `json:"dnsServiceIP,omitempty"`

	// loadBalancerSKU is the SKU of the cluster's load balancer. Immutable.
	// +kubebuilder:default=Standard
	// +optional
	LoadBalancerSKU *ManagedLoadBalancerSKU `json:"loadBalancerSKU,omitempty"`

	// identityRef references the AzureClusterIdentity whose credentials ASO uses for this cluster. Required on an
	// AzureManagedControlPlane; a template may leave it to a ClusterClass patch.
	// +optional
	IdentityRef *corev1.ObjectReference `json:"identityRef,omitempty"`

	// aadProfile configures Microsoft Entra ID (AAD) integration.
	// +optional
	AADProfile *AADProfile `json:"aadProfile,omitempty"`

	// addonProfiles are the AKS add-ons to enable or disable.
	// +optional
	AddonProfiles []AddonProfile `json:"addonProfiles,omitempty"`

	// sku is the pricing tier of the cluster.
	// +optional
	SKU *AKSSku `json:"sku,omitempty"`

	// loadBalancerProfile configures the cluster's outbound load balancer.
	// +optional
	LoadBalancerProfile *LoadBalancerProfile `json:"loadBalancerProfile,omitempty"`

	// apiServerAccessProfile configures access to the API server.
	// +optional
	APIServerAccessProfile *APIServerAccessProfile `json:"apiServerAccessProfile,omitempty"`

	// autoscalerProfile configures the cluster autoscaler of the cluster.
	// +optional
	AutoScalerProfile *AutoScalerProfile `json:"autoscalerProfile,omitempty"`

	// azureEnvironment is the Azure cloud, e.g. AzurePublicCloud (the default), AzureChinaCloud, AzureUSGovernmentCloud.
	// +optional
	AzureEnvironment string `json:"azureEnvironment,omitempty"`

	// identity is the managed identity of the cluster's control plane.
	// +optional
	Identity *ManagedControlPlaneIdentity `json:"identity,omitempty"`

	// kubeletUserAssignedIdentity is the resource ID of a user-assigned identity for the kubelets.
	// +optional
	KubeletUserAssignedIdentity string `json:"kubeletUserAssignedIdentity,omitempty"`

	// httpProxyConfig configures an HTTP proxy for the nodes. Immutable.
	// +optional
	HTTPProxyConfig *HTTPProxyConfig `json:"httpProxyConfig,omitempty"`

	// oidcIssuerProfile configures the cluster's OIDC issuer.
	// +optional
	OIDCIssuerProfile *OIDCIssuerProfile `json:"oidcIssuerProfile,omitempty"`

	// disableLocalAccounts disables the cluster's local admin accounts; requires AAD integration.
	// +optional
	DisableLocalAccounts *bool `json:"disableLocalAccounts,omitempty"`

	// extensions are AKS cluster extensions to install.
	// +optional
	AKSExtensions []AKSExtension `json:"extensions,omitempty"`

	// autoUpgradeProfile configures automatic upgrades of the cluster.
	// +optional
	AutoUpgradeProfile *ManagedClusterAutoUpgradeProfile `json:"autoUpgradeProfile,omitempty"`

	// securityProfile configures security features of the cluster.
	// +optional
	SecurityProfile *ManagedClusterSecurityProfile `json:"securityProfile,omitempty"`

	// asoManagedClusterPatches are RFC 7386 JSON merge patches (in JSON or YAML) applied, in order, to the generated
	// ASO ManagedCluster before it is applied. They are applied before asoPatches.
	// +optional
	ASOManagedClusterPatches []string `json:"asoManagedClusterPatches,omitempty"`

	// enablePreviewFeatures uses the AKS preview API for the cluster and its agent pools.
	// +kubebuilder:default=false
	// +optional
	EnablePreviewFeatures *bool `json:"enablePreviewFeatures,omitempty"`

	// asoPatches are patches applied to the generated ASO objects (see ASOPatch).
	// +optional
	ASOPatches []ASOPatch `json:"asoPatches,omitempty"`
}

// AzureManagedControlPlaneTemplateMachineTemplate is the machine template of a managed control plane. It exists for
// the Cluster API control plane contract only.
type AzureManagedControlPlaneTemplateMachineTemplate struct {
	// metadata is the metadata Cluster API topology sets for control plane machines.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
}

// ManagedControlPlaneVirtualNetwork is the virtual network of an AKS cluster's nodes. A virtual network that already
// exists in Azure without the cluster's "owned" tag is brought by the user and is never modified or deleted.
type ManagedControlPlaneVirtualNetwork struct {
	// resourceGroup is the resource group of the virtual network. Defaults to the cluster's resource group.
	// +optional
	ResourceGroup string `json:"resourceGroup,omitempty"`

	// name of the virtual network.
	// +required
	Name string `json:"name"`

	// cidrBlock is the address prefix of the virtual network.
	// +kubebuilder:default="10.0.0.0/8"
	// +required
	CIDRBlock string `json:"cidrBlock"`

	// subnet is the subnet of the cluster's nodes.
	// +optional
	Subnet ManagedControlPlaneSubnet `json:"subnet,omitempty,omitzero"`
}

// ManagedControlPlaneSubnet is the subnet of an AKS cluster's nodes.
type ManagedControlPlaneSubnet struct {
	// name of the subnet.
	// +required
	Name string `json:"name"`

	// cidrBlock is the address prefix of the subnet.
	// +kubebuilder:default="10.240.0.0/16"
	// +required
	CIDRBlock string `json:"cidrBlock"`

	// serviceEndpoints are the service endpoints of the subnet.
	// +optional
	ServiceEndpoints ServiceEndpoints `json:"serviceEndpoints,omitempty"`

	// privateEndpoints are private endpoints created in the subnet.
	// +optional
	PrivateEndpoints PrivateEndpoints `json:"privateEndpoints,omitempty"`
}

// FleetsMemberClassSpec holds the Azure Kubernetes Fleet membership settings that may appear in a ClusterClass
// template.
type FleetsMemberClassSpec struct {
	// group is the update group of the member in the fleet.
	// +kubebuilder:default=default
	// +optional
	Group string `json:"group,omitempty"`

	// managerName is the name of the fleet manager.
	// +required
	ManagerName string `json:"managerName"`

	// managerResourceGroup is the resource group of the fleet manager.
	// +required
	ManagerResourceGroup string `json:"managerResourceGroup"`
}

// FleetsMember makes an AKS cluster a member of an Azure Kubernetes Fleet.
type FleetsMember struct {
	FleetsMemberClassSpec `json:",inline"`

	// name of the fleet member. Defaults to the cluster name.
	// +optional
	Name string `json:"name,omitempty"`
}

// NetworkPlugin is the network plugin of an AKS cluster.
// +kubebuilder:validation:Enum=azure;kubenet;none
type NetworkPlugin string

const (
	// NetworkPluginAzure is Azure CNI.
	NetworkPluginAzure NetworkPlugin = "azure"
	// NetworkPluginKubenet is kubenet.
	NetworkPluginKubenet NetworkPlugin = "kubenet"
	// NetworkPluginNone installs no CNI; the user brings one.
	NetworkPluginNone NetworkPlugin = "none"
)

// NetworkPluginMode is the mode of an AKS network plugin.
// +kubebuilder:validation:Enum=overlay
type NetworkPluginMode string

// NetworkPluginModeOverlay gives pods addresses from a private CIDR, separate from the virtual network.
const NetworkPluginModeOverlay NetworkPluginMode = "overlay"

// NetworkPolicy is the network policy engine of an AKS cluster.
// +kubebuilder:validation:Enum=azure;calico;cilium
type NetworkPolicy string

const (
	// NetworkPolicyAzure is Azure network policy manager.
	NetworkPolicyAzure NetworkPolicy = "azure"
	// NetworkPolicyCalico is Calico.
	NetworkPolicyCalico NetworkPolicy = "calico"
	// NetworkPolicyCilium is Cilium (requires networkDataplane cilium).
	NetworkPolicyCilium NetworkPolicy = "cilium"
)

// NetworkDataplaneType is the network dataplane of an AKS cluster.
// +kubebuilder:validation:Enum=azure;cilium
type NetworkDataplaneType string

const (
	// NetworkDataplaneTypeAzure is the Azure dataplane.
	NetworkDataplaneTypeAzure NetworkDataplaneType = "azure"
	// NetworkDataplaneTypeCilium is the Cilium dataplane.
	NetworkDataplaneTypeCilium NetworkDataplaneType = "cilium"
)

// ManagedControlPlaneOutboundType is how the nodes of an AKS cluster reach the internet.
// +kubebuilder:validation:Enum=loadBalancer;managedNATGateway;userAssignedNATGateway;userDefinedRouting
type ManagedControlPlaneOutboundType string

const (
	// ManagedControlPlaneOutboundTypeLoadBalancer uses the cluster's load balancer.
	ManagedControlPlaneOutboundTypeLoadBalancer ManagedControlPlaneOutboundType = "loadBalancer"
	// ManagedControlPlaneOutboundTypeManagedNATGateway uses a NAT gateway managed by AKS.
	ManagedControlPlaneOutboundTypeManagedNATGateway ManagedControlPlaneOutboundType = "managedNATGateway"
	// ManagedControlPlaneOutboundTypeUserAssignedNATGateway uses the user's NAT gateway on the subnet.
	ManagedControlPlaneOutboundTypeUserAssignedNATGateway ManagedControlPlaneOutboundType = "userAssignedNATGateway"
	// ManagedControlPlaneOutboundTypeUserDefinedRouting uses the user's routes on the subnet.
	ManagedControlPlaneOutboundTypeUserDefinedRouting ManagedControlPlaneOutboundType = "userDefinedRouting"
)

// ManagedLoadBalancerSKU is the SKU of an AKS cluster's load balancer.
// +kubebuilder:validation:Enum=Basic;Standard
type ManagedLoadBalancerSKU string

const (
	// ManagedLoadBalancerSKUBasic is the Basic SKU.
	ManagedLoadBalancerSKUBasic ManagedLoadBalancerSKU = "Basic"
	// ManagedLoadBalancerSKUStandard is the Standard SKU.
	ManagedLoadBalancerSKUStandard ManagedLoadBalancerSKU = "Standard"
)

// AADProfile configures Microsoft Entra ID (AAD) integration of an AKS cluster.
type AADProfile struct {
	// managed enables AKS-managed AAD integration; it must be true.
	// +required
	Managed bool `json:"managed"`

	// adminGroupObjectIDs are the object IDs of the AAD groups that get cluster-admin.
	// +required
	AdminGroupObjectIDs []string `json:"adminGroupObjectIDs"`
}

// AddonProfile enables or disables an AKS add-on.
type AddonProfile struct {
	// name of the add-on, e.g. azurepolicy.
	// +required
	Name string `json:"name"`

	// config are key-value settings of the add-on.
	// +optional
	Config map[string]string `json:"config,omitempty"`

	// enabled turns the add-on on or off.
	// +required
	Enabled bool `json:"enabled"`
}

// AzureManagedControlPlaneSkuTier is the pricing tier of an AKS cluster.
// +kubebuilder:validation:Enum=Free;Paid;Standard
type AzureManagedControlPlaneSkuTier string

const (
	// FreeManagedControlPlaneTier is the Free tier.
	FreeManagedControlPlaneTier AzureManagedControlPlaneSkuTier = "Free"
	// PaidManagedControlPlaneTier is the former name of the Standard tier.
	//
	// Deprecated: use StandardManagedControlPlaneTier.
	PaidManagedControlPlaneTier AzureManagedControlPlaneSkuTier = "Paid"
	// StandardManagedControlPlaneTier is the Standard tier, with an uptime SLA.
	StandardManagedControlPlaneTier AzureManagedControlPlaneSkuTier = "Standard"
)

// AKSSku is the SKU of an AKS cluster.
type AKSSku struct {
	// tier is the pricing tier of the cluster.
	// +kubebuilder:default=Free
	// +required
	Tier AzureManagedControlPlaneSkuTier `json:"tier"`
}

// LoadBalancerProfile configures the outbound load balancer of an AKS cluster. Set at most one of
// managedOutboundIPs, outboundIPPrefixes and outboundIPs.
type LoadBalancerProfile struct {
	// managedOutboundIPs is the number of outbound IPs AKS creates for the load balancer.
	// +optional
	ManagedOutboundIPs *int32 `json:"managedOutboundIPs,omitempty"`

	// outboundIPPrefixes are resource IDs of public IP prefixes for outbound traffic.
	// +optional
	OutboundIPPrefixes []string `json:"outboundIPPrefixes,omitempty"`

	// outboundIPs are resource IDs of public IP addresses for outbound traffic.
	// +optional
	OutboundIPs []string `json:"outboundIPs,omitempty"`

	// allocatedOutboundPorts is the number of SNAT ports per VM, 0–64000 in multiples of 8; 0 lets Azure choose.
	// +optional
	AllocatedOutboundPorts *int32 `json:"allocatedOutboundPorts,omitempty"`

	// idleTimeoutInMinutes is the idle timeout of outbound flows, 4–120 minutes.
	// +optional
	IdleTimeoutInMinutes *int32 `json:"idleTimeoutInMinutes,omitempty"`
}

// APIServerAccessProfile configures access to the API server of an AKS cluster.
type APIServerAccessProfile struct {
	// authorizedIPRanges are the IP ranges allowed to reach the API server.
	// +optional
	AuthorizedIPRanges []string `json:"authorizedIPRanges,omitempty"`

	// enablePrivateCluster makes the API server private. Immutable.
	// +optional
	EnablePrivateCluster *bool `json:"enablePrivateCluster,omitempty"`

	// privateDNSZone is the private DNS zone mode of a private cluster: System, None, or a zone resource ID. Immutable.
	// +optional
	PrivateDNSZone *string `json:"privateDNSZone,omitempty"`

	// enablePrivateClusterPublicFQDN adds a public FQDN to a private cluster. Immutable.
	// +optional
	EnablePrivateClusterPublicFQDN *bool `json:"enablePrivateClusterPublicFQDN,omitempty"`
}

// AutoScalerFlag is a boolean setting of the cluster autoscaler, written as the string "true" or "false".
// +kubebuilder:validation:Enum="true";"false"
type AutoScalerFlag string

const (
	// AutoScalerFlagTrue is "true".
	AutoScalerFlagTrue AutoScalerFlag = "true"
	// AutoScalerFlagFalse is "false".
	AutoScalerFlagFalse AutoScalerFlag = "false"
)

// Expander is the expander of the cluster autoscaler: how it chooses the node group to scale up.
// +kubebuilder:validation:Enum=least-waste;most-pods;priority;random
type Expander string

const (
	// ExpanderLeastWaste picks the node group that wastes the least CPU and memory.
	ExpanderLeastWaste Expander = "least-waste"
	// ExpanderMostPods picks the node group that schedules the most pods.
	ExpanderMostPods Expander = "most-pods"
	// ExpanderPriority picks by user-assigned priorities.
	ExpanderPriority Expander = "priority"
	// ExpanderRandom picks at random.
	ExpanderRandom Expander = "random"
)

// AutoScalerProfile configures the cluster autoscaler of an AKS cluster. The values are strings, as AKS takes them.
type AutoScalerProfile struct {
	// balanceSimilarNodeGroups balances the sizes of similar node groups.
	// +kubebuilder:default="false"
	// +optional
	BalanceSimilarNodeGroups *AutoScalerFlag `json:"balanceSimilarNodeGroups,omitempty"`

	// expander is how the autoscaler chooses the node group to scale up.
	// +kubebuilder:default=random
	// +optional
	Expander *Expander `json:"expander,omitempty"`

	// maxEmptyBulkDelete is the maximum number of empty nodes deleted at once.
	// +kubebuilder:default="10"
	// +optional
	MaxEmptyBulkDelete *string `json:"maxEmptyBulkDelete,omitempty"`

	// maxGracefulTerminationSec is the maximum time, in seconds, the autoscaler waits for pod termination when it
	// scales down a node.
	// +kubebuilder:validation:Pattern=`^(\d+)$`
	// +kubebuilder:default="600"
	// +optional
	MaxGracefulTerminationSec *string `json:"maxGracefulTerminationSec,omitempty"`

	// maxNodeProvisionTime is the maximum time the autoscaler waits for a node to be provisioned, in minutes (e.g. 15m).
	// +kubebuilder:validation:Pattern=`^(\d+)m$`
	// +kubebuilder:default="15m"
	// +optional
	MaxNodeProvisionTime *string `json:"maxNodeProvisionTime,omitempty"`

	// maxTotalUnreadyPercentage is the maximum percentage of unready nodes, 0–100, above which the autoscaler stops.
	// +kubebuilder:validation:Pattern=`^(\d+)$`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:default="45"
	// +optional
	MaxTotalUnreadyPercentage *string `json:"maxTotalUnreadyPercentage,omitempty"`

	// newPodScaleUpDelay ignores unschedulable pods younger than this duration (e.g. 0s, 1m).
	// +kubebuilder:default="0s"
	// +optional
	NewPodScaleUpDelay *string `json:"newPodScaleUpDelay,omitempty"`

	// okTotalUnreadyCount is the number of unready nodes allowed regardless of maxTotalUnreadyPercentage.
	// +kubebuilder:validation:Pattern=`^(\d+)$`
	// +kubebuilder:default="3"
	// +optional
	OkTotalUnreadyCount *string `json:"okTotalUnreadyCount,omitempty"`

	// scanInterval is how often the cluster is reevaluated, in seconds (e.g. 10s).
	// +kubebuilder:validation:Pattern=`^(\d+)s$`
	// +kubebuilder:default="10s"
	// +optional
	ScanInterval *string `json:"scanInterval,omitempty"`

	// scaleDownDelayAfterAdd is how long after a scale up scale-down evaluation resumes, in minutes (e.g. 10m).
	// +kubebuilder:validation:Pattern=`^(\d+)m$`
	// +kubebuilder:default="10m"
	// +optional
	ScaleDownDelayAfterAdd *string `json:"scaleDownDelayAfterAdd,omitempty"`

	// scaleDownDelayAfterDelete is how long after a node deletion scale-down evaluation resumes, in seconds (e.g. 10s).
	// +kubebuilder:validation:Pattern=`^(\d+)s$`
	// +kubebuilder:default="10s"
	// +optional
	ScaleDownDelayAfterDelete *string `json:"scaleDownDelayAfterDelete,omitempty"`

	// scaleDownDelayAfterFailure is how long after a scale-down failure evaluation resumes, in minutes (e.g. 3m).
	// +kubebuilder:validation:Pattern=`^(\d+)m$`
	// +kubebuilder:default="3m"
	// +optional
	ScaleDownDelayAfterFailure *string `json:"scaleDownDelayAfterFailure,omitempty"`

	// scaleDownUnneededTime is how long a node must be unneeded before it may be scaled down, in minutes (e.g. 10m).
	// +kubebuilder:validation:Pattern=`^(\d+)m$`
	// +kubebuilder:default="10m"
	// +optional
	ScaleDownUnneededTime *string `json:"scaleDownUnneededTime,omitempty"`

	// scaleDownUnreadyTime is how long an unready node must be unneeded before it may be scaled down, in minutes
	// (e.g. 20m).
	// +kubebuilder:validation:Pattern=`^(\d+)m$`
	// +kubebuilder:default="20m"
	// +optional
	ScaleDownUnreadyTime *string `json:"scaleDownUnreadyTime,omitempty"`

	// scaleDownUtilizationThreshold is the utilization (requested over capacity) below which a node may be scaled
	// down, e.g. 0.5.
	// +kubebuilder:default="0.5"
	// +optional
	ScaleDownUtilizationThreshold *string `json:"scaleDownUtilizationThreshold,omitempty"`

	// skipNodesWithLocalStorage keeps nodes with pods that use local storage.
	// +kubebuilder:default="false"
	// +optional
	SkipNodesWithLocalStorage *AutoScalerFlag `json:"skipNodesWithLocalStorage,omitempty"`

	// skipNodesWithSystemPods keeps nodes with kube-system pods (other than DaemonSet pods).
	// +kubebuilder:default="true"
	// +optional
	SkipNodesWithSystemPods *AutoScalerFlag `json:"skipNodesWithSystemPods,omitempty"`
}

// ManagedControlPlaneIdentityType is the kind of managed identity of an AKS control plane.
// +kubebuilder:validation:Enum=SystemAssigned;UserAssigned
type ManagedControlPlaneIdentityType string

const (
	// ManagedControlPlaneIdentityTypeSystemAssigned is a system-assigned identity.
	ManagedControlPlaneIdentityTypeSystemAssigned ManagedControlPlaneIdentityType = "SystemAssigned"
	// ManagedControlPlaneIdentityTypeUserAssigned is a user-assigned identity.
	ManagedControlPlaneIdentityTypeUserAssigned ManagedControlPlaneIdentityType = "UserAssigned"
)

// ManagedControlPlaneIdentity is the managed identity of an AKS control plane.
type ManagedControlPlaneIdentity struct {
	// type of the identity.
	// +kubebuilder:default=SystemAssigned
	// +optional
	Type ManagedControlPlaneIdentityType `json:"type,omitempty"`

	// userAssignedIdentityResourceID is the resource ID of the identity, for type UserAssigned.
	// +optional
	UserAssignedIdentityResourceID string `json:"userAssignedIdentityResourceID,omitempty"`
}

// HTTPProxyConfig configures an HTTP proxy for the nodes of an AKS cluster.
type HTTPProxyConfig struct {
	// httpProxy is the proxy for HTTP connections.
	// +optional
	HTTPProxy *string `json:"httpProxy,omitempty"`

	// httpsProxy is the proxy for HTTPS connections.
	// +optional
	HTTPSProxy *string `json:"httpsProxy,omitempty"`

	// noProxy are hosts, domains and CIDRs that bypass the proxy.
	// +optional
	NoProxy []string `json:"noProxy,omitempty"`

	// trustedCa is a PEM certificate authority the nodes trust for the proxy.
	// +optional
	TrustedCA *string `json:"trustedCa,omitempty"`
}

// OIDCIssuerProfile configures the OIDC issuer of an AKS cluster.
type OIDCIssuerProfile struct {
	// enabled turns the OIDC issuer on. It cannot be turned off once on.
	// +kubebuilder:default=false
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// AKSAssignedIdentity is the kind of identity AKS assigns to an extension.
// +kubebuilder:validation:Enum=SystemAssigned;UserAssigned
type AKSAssignedIdentity string

const (
	// AKSAssignedIdentitySystemAssigned is a system-assigned identity.
	AKSAssignedIdentitySystemAssigned AKSAssignedIdentity = "SystemAssigned"
	// AKSAssignedIdentityUserAssigned is a user-assigned identity.
	AKSAssignedIdentityUserAssigned AKSAssignedIdentity = "UserAssigned"
)

// ExtensionIdentity is the kind of identity of an extension.
// +kubebuilder:validation:Enum=SystemAssigned
type ExtensionIdentity string

// ExtensionIdentitySystemAssigned is a system-assigned identity.
const ExtensionIdentitySystemAssigned ExtensionIdentity = "SystemAssigned"

// ExtensionScopeType is the scope of an extension.
// +kubebuilder:validation:Enum=Cluster;Namespace
type ExtensionScopeType string

const (
	// ExtensionScopeCluster installs the extension for the whole cluster.
	ExtensionScopeCluster ExtensionScopeType = "Cluster"
	// ExtensionScopeNamespace installs the extension in one namespace.
	ExtensionScopeNamespace ExtensionScopeType = "Namespace"
)

// AKSExtension is an AKS cluster extension (a Microsoft.KubernetesConfiguration extension).
type AKSExtension struct {
	// name of the extension.
	// +required
	Name string `json:"name"`

	// aksAssignedIdentityType is the kind of identity AKS assigns to the extension.
	// +optional
	AKSAssignedIdentityType AKSAssignedIdentity `json:"aksAssignedIdentityType,omitempty"`

	// autoUpgradeMinorVersion lets the extension's minor version upgrade automatically.
	// +kubebuilder:default=true
	// +optional
	AutoUpgradeMinorVersion *bool `json:"autoUpgradeMinorVersion,omitempty"`

	// configurationSettings are settings of the extension.
	// +optional
	ConfigurationSettings map[string]string `json:"configurationSettings,omitempty"`

	// extensionType is the type of the extension, e.g. microsoft.flux.
	// +required
	ExtensionType string `json:"extensionType"`

	// plan is the Marketplace plan of a third-party extension.
	// +optional
	Plan *ExtensionPlan `json:"plan,omitempty"`

	// releaseTrain is the release train the extension follows when autoUpgradeMinorVersion is true, e.g. Stable.
	// +optional
	ReleaseTrain *string `json:"releaseTrain,omitempty"`

	// scope is where the extension is installed.
	// +optional
	Scope *ExtensionScope `json:"scope,omitempty"`

	// version of the extension; only when autoUpgradeMinorVersion is false.
	// +optional
	Version *string `json:"version,omitempty"`

	// identity is the kind of identity of the extension.
	// +optional
	Identity ExtensionIdentity `json:"identity,omitempty"`
}

// ExtensionPlan is the Marketplace plan of an extension.
type ExtensionPlan struct {
	// name of the plan.
	// +optional
	Name string `json:"name,omitempty"`

	// product of the plan (the offer).
	// +optional
	Product string `json:"product,omitempty"`

	// promotionCode of the plan.
	// +optional
	PromotionCode string `json:"promotionCode,omitempty"`

	// publisher of the plan.
	// +optional
	Publisher string `json:"publisher,omitempty"`

	// version of the plan.
	// +optional
	Version string `json:"version,omitempty"`
}

// ExtensionScope is where an extension is installed.
type ExtensionScope struct {
	// scopeType is Cluster or Namespace.
	// +required
	ScopeType ExtensionScopeType `json:"scopeType"`

	// releaseNamespace is the namespace of a cluster-scoped extension.
	// +optional
	ReleaseNamespace string `json:"releaseNamespace,omitempty"`

	// targetNamespace is the namespace of a namespace-scoped extension.
	// +optional
	TargetNamespace string `json:"targetNamespace,omitempty"`
}

// UpgradeChannel is the automatic upgrade channel of an AKS cluster.
// +kubebuilder:validation:Enum=node-image;none;patch;rapid;stable
type UpgradeChannel string

const (
	// UpgradeChannelNodeImage upgrades node images only.
	UpgradeChannelNodeImage UpgradeChannel = "node-image"
	// UpgradeChannelNone disables automatic upgrades.
	UpgradeChannelNone UpgradeChannel = "none"
	// UpgradeChannelPatch upgrades to the latest patch of the current minor version.
	UpgradeChannelPatch UpgradeChannel = "patch"
	// UpgradeChannelRapid upgrades to the latest supported version.
	UpgradeChannelRapid UpgradeChannel = "rapid"
	// UpgradeChannelStable upgrades to the latest patch of the previous minor version (N-1).
	UpgradeChannelStable UpgradeChannel = "stable"
)

// ManagedClusterAutoUpgradeProfile configures automatic upgrades of an AKS cluster.
type ManagedClusterAutoUpgradeProfile struct {
	// upgradeChannel is the automatic upgrade channel. When set, the cluster's version may move ahead of
	// spec.version; status.autoUpgradeVersion reports it.
	// +optional
	UpgradeChannel *UpgradeChannel `json:"upgradeChannel,omitempty"`
}

// ManagedClusterSecurityProfile configures security features of an AKS cluster.
type ManagedClusterSecurityProfile struct {
	// azureKeyVaultKms configures encryption of secrets with a Key Vault key (KMS).
	// +optional
	AzureKeyVaultKms *AzureKeyVaultKms `json:"azureKeyVaultKms,omitempty"`

	// defender configures Microsoft Defender for Containers.
	// +optional
	Defender *ManagedClusterSecurityProfileDefender `json:"defender,omitempty"`

	// imageCleaner configures the removal of unused images from the nodes.
	// +optional
	ImageCleaner *ManagedClusterSecurityProfileImageCleaner `json:"imageCleaner,omitempty"`

	// workloadIdentity configures Microsoft Entra Workload ID.
	// +optional
	WorkloadIdentity *ManagedClusterSecurityProfileWorkloadIdentity `json:"workloadIdentity,omitempty"`
}

// KeyVaultNetworkAccessTypes is how the Key Vault of KMS encryption is reached: Public or Private.
type KeyVaultNetworkAccessTypes string

const (
	// KeyVaultNetworkAccessTypesPublic is a Key Vault reachable from public networks.
	KeyVaultNetworkAccessTypesPublic KeyVaultNetworkAccessTypes = "Public"
	// KeyVaultNetworkAccessTypesPrivate is a Key Vault reachable from private networks only.
	KeyVaultNetworkAccessTypesPrivate KeyVaultNetworkAccessTypes = "Private"
)

// AzureKeyVaultKms configures encryption of an AKS cluster's secrets with a Key Vault key.
type AzureKeyVaultKms struct {
	// enabled turns KMS encryption on.
	// +required
	Enabled bool `json:"enabled"`

	// keyID is the identifier of the Key Vault key, including its version.
	// +required
	KeyID string `json:"keyID"`

	// keyVaultNetworkAccess is Public or Private. Private requires keyVaultResourceID.
	// +kubebuilder:default=Public
	// +optional
	KeyVaultNetworkAccess *KeyVaultNetworkAccessTypes `json:"keyVaultNetworkAccess,omitempty"`

	// keyVaultResourceID is the resource ID of the Key Vault, for private access.
	// +optional
	KeyVaultResourceID *string `json:"keyVaultResourceID,omitempty"`
}

// ManagedClusterSecurityProfileDefender configures Microsoft Defender for Containers.
type ManagedClusterSecurityProfileDefender struct {
	// logAnalyticsWorkspaceResourceID is the resource ID of the Log Analytics workspace Defender reports to.
	// +required
	LogAnalyticsWorkspaceResourceID string `json:"logAnalyticsWorkspaceResourceID"`

	// securityMonitoring turns Defender threat detection on or off.
	// +required
	SecurityMonitoring ManagedClusterSecurityProfileDefenderSecurityMonitoring `json:"securityMonitoring"`
}

// ManagedClusterSecurityProfileDefenderSecurityMonitoring turns Defender threat detection on or off.
type ManagedClusterSecurityProfileDefenderSecurityMonitoring struct {
	// enabled turns threat detection on.
	// +required
	Enabled bool `json:"enabled"`
}

// ManagedClusterSecurityProfileImageCleaner configures the removal of unused images from the nodes.
type ManagedClusterSecurityProfileImageCleaner struct {
	// enabled turns the image cleaner on.
	// +required
	Enabled bool `json:"enabled"`

	// intervalHours is the scan interval, 24–2160 hours. AKS defaults it to 168 (one week).
	// +kubebuilder:validation:Minimum=24
	// +kubebuilder:validation:Maximum=2160
	// +optional
	IntervalHours *int32 `json:"intervalHours,omitempty"`
}

// ManagedClusterSecurityProfileWorkloadIdentity configures Microsoft Entra Workload ID.
type ManagedClusterSecurityProfileWorkloadIdentity struct {
	// enabled turns workload identity on; requires the OIDC issuer.
	// +required
	Enabled bool `json:"enabled"`
}

// AzureManagedMachinePoolClassSpec holds the AzureManagedMachinePool settings that may appear in a ClusterClass
// template.
type AzureManagedMachinePoolClassSpec struct {
	// additionalTags are added to the agent pool's Azure resources.
	// +optional
	AdditionalTags Tags `json:"additionalTags,omitempty"`

	// name of the agent pool in AKS. Defaults to the AzureManagedMachinePool's name. Immutable.
	// +optional
	Name *string `json:"name,omitempty"`

	// mode of the agent pool: System pools run system pods and every cluster needs one; User pools run workloads.
	// Required on an AzureManagedMachinePool; a template may leave it to a ClusterClass patch.
	// +optional
	Mode NodePoolMode `json:"mode,omitempty"`

	// sku is the VM size of the agent pool's nodes, e.g. Standard_D2s_v3. Immutable. Required on an
	// AzureManagedMachinePool; a template may leave it to a ClusterClass patch.
	// +optional
	SKU string `json:"sku,omitempty"`

	// osDiskSizeGB is the OS disk size of the nodes, in GB. Immutable.
	// +optional
	OSDiskSizeGB *int32 `json:"osDiskSizeGB,omitempty"`

	// availabilityZones are the availability zones of the nodes. Immutable.
	// +optional
	AvailabilityZones []string `json:"availabilityZones,omitempty"`

	// nodeLabels are labels of the agent pool's nodes.
	// +optional
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`

	// taints are taints of the agent pool's nodes.
	// +optional
	Taints Taints `json:"taints,omitempty"`

	// scaling turns on the cluster autoscaler for the agent pool, between minSize and maxSize nodes.
	// +optional
	Scaling *ManagedMachinePoolScaling `json:"scaling,omitempty"`

	// maxPods is the maximum number of pods per node. Immutable.
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`

	// osDiskType is the kind of OS disk of the nodes. Immutable.
	// +kubebuilder:default=Managed
	// +optional
	OsDiskType *ManagedOSDiskType `json:"osDiskType,omitempty"`

	// enableUltraSSD allows UltraSSD disks on the nodes. Immutable.
	// +optional
	EnableUltraSSD *bool `json:"enableUltraSSD,omitempty"`

	// osType is the operating system of the nodes. Immutable.
	// +kubebuilder:default=Linux
	// +optional
	OSType *AgentPoolOSType `json:"osType,omitempty"`

	// enableNodePublicIP gives each node a public IP address. Immutable.
	// +optional
	EnableNodePublicIP *bool `json:"enableNodePublicIP,omitempty"`

	// nodePublicIPPrefixID is the resource ID of the public IP prefix node addresses come from. Immutable.
	// +optional
	NodePublicIPPrefixID *string `json:"nodePublicIPPrefixID,omitempty"`

	// scaleSetPriority is the priority of the nodes' scale set: Regular or Spot. Immutable.
	// +optional
	ScaleSetPriority *ScaleSetPriority `json:"scaleSetPriority,omitempty"`

	// scaleDownMode is what happens to nodes removed by scale down.
	// +kubebuilder:default=Delete
	// +optional
	ScaleDownMode *ScaleDownMode `json:"scaleDownMode,omitempty"`

	// spotMaxPrice is the maximum hourly price of spot nodes; -1 means the on-demand price.
	// +optional
	SpotMaxPrice *resource.Quantity `json:"spotMaxPrice,omitempty"`

	// kubeletConfig configures the kubelets of the nodes. Immutable.
	// +optional
	KubeletConfig *KubeletConfig `json:"kubeletConfig,omitempty"`

	// kubeletDiskType is where kubelet data (emptyDir volumes, container logs) lives. Immutable.
	// +optional
	KubeletDiskType *KubeletDiskType `json:"kubeletDiskType,omitempty"`

	// linuxOSConfig configures the operating system of Linux nodes. Immutable.
	// +optional
	LinuxOSConfig *LinuxOSConfig `json:"linuxOSConfig,omitempty"`

	// subnetName is the subnet of the nodes, in the cluster's virtual network. Defaults to the cluster's subnet.
	// Immutable.
	// +optional
	SubnetName *string `json:"subnetName,omitempty"`

	// enableFIPS uses FIPS-enabled node images. Immutable.
	// +optional
	EnableFIPS *bool `json:"enableFIPS,omitempty"`

	// enableEncryptionAtHost encrypts the nodes' disks and caches at the host. Immutable.
	// +optional
	EnableEncryptionAtHost *bool `json:"enableEncryptionAtHost,omitempty"`

	// asoManagedClustersAgentPoolPatches are RFC 7386 JSON merge patches (in JSON or YAML) applied, in order, to the
	// generated ASO ManagedClustersAgentPool before it is applied. They are applied before asoPatches.
	// +optional
	ASOManagedClustersAgentPoolPatches []string `json:"asoManagedClustersAgentPoolPatches,omitempty"`

	// asoPatches are patches applied to the generated ASO objects (see ASOPatch).
	// +optional
	ASOPatches []ASOPatch `json:"asoPatches,omitempty"`
}

// NodePoolMode is the mode of an AKS agent pool.
// +kubebuilder:validation:Enum=System;User
type NodePoolMode string

const (
	// NodePoolModeSystem is a pool that runs system pods.
	NodePoolModeSystem NodePoolMode = "System"
	// NodePoolModeUser is a pool for workloads.
	NodePoolModeUser NodePoolMode = "User"
)

// ManagedOSDiskType is the kind of OS disk of an AKS agent pool's nodes.
// +kubebuilder:validation:Enum=Ephemeral;Managed
type ManagedOSDiskType string

const (
	// ManagedOSDiskTypeEphemeral is an ephemeral OS disk on the host.
	ManagedOSDiskTypeEphemeral ManagedOSDiskType = "Ephemeral"
	// ManagedOSDiskTypeManaged is a managed disk.
	ManagedOSDiskTypeManaged ManagedOSDiskType = "Managed"
)

// AgentPoolOSType is the operating system of an AKS agent pool's nodes.
// +kubebuilder:validation:Enum=Linux;Windows
type AgentPoolOSType string

const (
	// AgentPoolOSTypeLinux is Linux.
	AgentPoolOSTypeLinux AgentPoolOSType = "Linux"
	// AgentPoolOSTypeWindows is Windows.
	AgentPoolOSTypeWindows AgentPoolOSType = "Windows"
)

// ScaleSetPriority is the priority of an AKS agent pool's scale set.
// +kubebuilder:validation:Enum=Regular;Spot
type ScaleSetPriority string

const (
	// ScaleSetPriorityRegular is regular, on-demand VMs.
	ScaleSetPriorityRegular ScaleSetPriority = "Regular"
	// ScaleSetPrioritySpot is spot VMs.
	ScaleSetPrioritySpot ScaleSetPriority = "Spot"
)

// ScaleDownMode is what happens to the nodes of an AKS agent pool removed by scale down.
// +kubebuilder:validation:Enum=Deallocate;Delete
type ScaleDownMode string

const (
	// ScaleDownModeDeallocate stops and deallocates the nodes, to start them faster later.
	ScaleDownModeDeallocate ScaleDownMode = "Deallocate"
	// ScaleDownModeDelete deletes the nodes.
	ScaleDownModeDelete ScaleDownMode = "Delete"
)

// ManagedMachinePoolScaling is the autoscaling range of an AKS agent pool.
type ManagedMachinePoolScaling struct {
	// minSize is the minimum number of nodes.
	// +optional
	MinSize *int32 `json:"minSize,omitempty"`

	// maxSize is the maximum number of nodes.
	// +optional
	MaxSize *int32 `json:"maxSize,omitempty"`
}

// TaintEffect is the effect of a node taint.
// +kubebuilder:validation:Enum=NoSchedule;NoExecute;PreferNoSchedule
type TaintEffect string

const (
	// TaintEffectNoSchedule keeps new pods without a toleration off the node.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectNoExecute also evicts running pods without a toleration.
	TaintEffectNoExecute TaintEffect = "NoExecute"
	// TaintEffectPreferNoSchedule avoids the node for pods without a toleration when possible.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
)

// Taints is a list of node taints.
type Taints []Taint

// Taint is a taint of an AKS agent pool's nodes.
type Taint struct {
	// effect of the taint.
	// +required
	Effect TaintEffect `json:"effect"`

	// key of the taint.
	// +required
	Key string `json:"key"`

	// value of the taint.
	// +required
	Value string `json:"value"`
}

// CPUManagerPolicy is the CPU manager policy of the kubelet.
// +kubebuilder:validation:Enum=none;static
type CPUManagerPolicy string

const (
	// CPUManagerPolicyNone is the default policy.
	CPUManagerPolicyNone CPUManagerPolicy = "none"
	// CPUManagerPolicyStatic gives Guaranteed pods with integer CPU requests exclusive CPUs.
	CPUManagerPolicyStatic CPUManagerPolicy = "static"
)

// TopologyManagerPolicy is the topology manager policy of the kubelet.
// +kubebuilder:validation:Enum=none;best-effort;restricted;single-numa-node
type TopologyManagerPolicy string

const (
	// TopologyManagerPolicyNone is the default policy.
	TopologyManagerPolicyNone TopologyManagerPolicy = "none"
	// TopologyManagerPolicyBestEffort prefers NUMA alignment.
	TopologyManagerPolicyBestEffort TopologyManagerPolicy = "best-effort"
	// TopologyManagerPolicyRestricted rejects pods that cannot be NUMA-aligned.
	TopologyManagerPolicyRestricted TopologyManagerPolicy = "restricted"
	// TopologyManagerPolicySingleNumaNode requires a single NUMA node.
	TopologyManagerPolicySingleNumaNode TopologyManagerPolicy = "single-numa-node"
)

// KubeletConfig is the supported subset of the kubelet configuration of an AKS agent pool's nodes.
type KubeletConfig struct {
	// cpuManagerPolicy is the CPU manager policy.
	// +optional
	CPUManagerPolicy *CPUManagerPolicy `json:"cpuManagerPolicy,omitempty"`

	// cpuCfsQuota enforces CPU CFS quotas for containers with CPU limits.
	// +optional
	CPUCfsQuota *bool `json:"cpuCfsQuota,omitempty"`

	// cpuCfsQuotaPeriod is the CPU CFS quota period, in milliseconds (e.g. 100ms).
	// +optional
	CPUCfsQuotaPeriod *string `json:"cpuCfsQuotaPeriod,omitempty"`

	// imageGcHighThreshold is the disk usage percentage above which image garbage collection always runs.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGcHighThreshold *int32 `json:"imageGcHighThreshold,omitempty"`

	// imageGcLowThreshold is the disk usage percentage below which image garbage collection never runs; it must be
	// lower than imageGcHighThreshold.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGcLowThreshold *int32 `json:"imageGcLowThreshold,omitempty"`

	// topologyManagerPolicy is the topology manager policy.
	// +optional
	TopologyManagerPolicy *TopologyManagerPolicy `json:"topologyManagerPolicy,omitempty"`

	// allowedUnsafeSysctls are unsafe sysctls or patterns (ending in *) pods may set: kernel.shm*, kernel.msg*,
	// kernel.sem, fs.mqueue.* or net.*.
	// +optional
	AllowedUnsafeSysctls []string `json:"allowedUnsafeSysctls,omitempty"`

	// failSwapOn makes the kubelet fail to start when swap is on.
	// +optional
	FailSwapOn *bool `json:"failSwapOn,omitempty"`

	// containerLogMaxSizeMB is the size, in MB, at which a container log is rotated.
	// +optional
	ContainerLogMaxSizeMB *int32 `json:"containerLogMaxSizeMB,omitempty"`

	// containerLogMaxFiles is the maximum number of log files per container, at least 2.
	// +kubebuilder:validation:Minimum=2
	// +optional
	ContainerLogMaxFiles *int32 `json:"containerLogMaxFiles,omitempty"`

	// podMaxPids is the maximum number of processes per pod; -1 means no limit.
	// +kubebuilder:validation:Minimum=-1
	// +optional
	PodMaxPids *int32 `json:"podMaxPids,omitempty"`
}

// KubeletDiskType is where the kubelet data of an AKS agent pool's nodes lives.
// +kubebuilder:validation:Enum=OS;Temporary
type KubeletDiskType string

const (
	// KubeletDiskTypeOS is the OS disk.
	KubeletDiskTypeOS KubeletDiskType = "OS"
	// KubeletDiskTypeTemporary is the temporary (resource) disk.
	KubeletDiskTypeTemporary KubeletDiskType = "Temporary"
)

// TransparentHugePageEnabled is the transparent huge page mode of a Linux node.
// +kubebuilder:validation:Enum=always;madvise;never
type TransparentHugePageEnabled string

const (
	// TransparentHugePageEnabledAlways is always.
	TransparentHugePageEnabledAlways TransparentHugePageEnabled = "always"
	// TransparentHugePageEnabledMadvise is madvise.
	TransparentHugePageEnabledMadvise TransparentHugePageEnabled = "madvise"
	// TransparentHugePageEnabledNever is never.
	TransparentHugePageEnabledNever TransparentHugePageEnabled = "never"
)

// TransparentHugePageDefrag is the transparent huge page defragmentation mode of a Linux node.
// +kubebuilder:validation:Enum=always;defer;defer+madvise;madvise;never
type TransparentHugePageDefrag string

const (
	// TransparentHugePageDefragAlways is always.
	TransparentHugePageDefragAlways TransparentHugePageDefrag = "always"
	// TransparentHugePageDefragDefer is defer.
	TransparentHugePageDefragDefer TransparentHugePageDefrag = "defer"
	// TransparentHugePageDefragDeferMadvise is defer+madvise.
	TransparentHugePageDefragDeferMadvise TransparentHugePageDefrag = "defer+madvise"
	// TransparentHugePageDefragMadvise is madvise.
	TransparentHugePageDefragMadvise TransparentHugePageDefrag = "madvise"
	// TransparentHugePageDefragNever is never.
	TransparentHugePageDefragNever TransparentHugePageDefrag = "never"
)

// LinuxOSConfig configures the operating system of an AKS agent pool's Linux nodes.
type LinuxOSConfig struct {
	// swapFileSizeMB is the size, in MB, of a swap file created on each node.
	// +kubebuilder:validation:Minimum=1
	// +optional
	SwapFileSizeMB *int32 `json:"swapFileSizeMB,omitempty"`

	// sysctls are kernel settings of the nodes.
	// +optional
	Sysctls *SysctlConfig `json:"sysctls,omitempty"`

	// transparentHugePageDefrag is the transparent huge page defragmentation mode.
	// +optional
	TransparentHugePageDefrag *TransparentHugePageDefrag `json:"transparentHugePageDefrag,omitempty"`

	// transparentHugePageEnabled is the transparent huge page mode.
	// +optional
	TransparentHugePageEnabled *TransparentHugePageEnabled `json:"transparentHugePageEnabled,omitempty"`
}

// SysctlConfig holds kernel settings of an AKS agent pool's Linux nodes. Each field names the sysctl it sets.
type SysctlConfig struct {
	// fsAioMaxNr sets fs.aio-max-nr.
	// +kubebuilder:validation:Minimum=65536
	// +kubebuilder:validation:Maximum=6553500
	// +optional
	FsAioMaxNr *int32 `json:"fsAioMaxNr,omitempty"`

	// fsFileMax sets fs.file-max.
	// +kubebuilder:validation:Minimum=8192
	// +kubebuilder:validation:Maximum=12000500
	// +optional
	FsFileMax *int32 `json:"fsFileMax,omitempty"`

	// fsInotifyMaxUserWatches sets fs.inotify.max_user_watches.
	// +kubebuilder:validation:Minimum=781250
	// +kubebuilder:validation:Maximum=2097152
	// +optional
	FsInotifyMaxUserWatches *int32 `json:"fsInotifyMaxUserWatches,omitempty"`

	// fsNrOpen sets fs.nr_open.
	// +kubebuilder:validation:Minimum=8192
	// +kubebuilder:validation:Maximum=20000500
	// +optional
	FsNrOpen *int32 `json:"fsNrOpen,omitempty"`

	// kernelThreadsMax sets kernel.threads-max.
	// +kubebuilder:validation:Minimum=20
	// +kubebuilder:validation:Maximum=513785
	// +optional
	KernelThreadsMax *int32 `json:"kernelThreadsMax,omitempty"`

	// netCoreNetdevMaxBacklog sets net.core.netdev_max_backlog.
	// +kubebuilder:validation:Minimum=1000
	// +kubebuilder:validation:Maximum=3240000
	// +optional
	NetCoreNetdevMaxBacklog *int32 `json:"netCoreNetdevMaxBacklog,omitempty"`

	// netCoreOptmemMax sets net.core.optmem_max.
	// +kubebuilder:validation:Minimum=20480
	// +kubebuilder:validation:Maximum=4194304
	// +optional
	NetCoreOptmemMax *int32 `json:"netCoreOptmemMax,omitempty"`

	// netCoreRmemDefault sets net.core.rmem_default.
	// +kubebuilder:validation:Minimum=212992
	// +kubebuilder:validation:Maximum=134217728
	// +optional
	NetCoreRmemDefault *int32 `json:"netCoreRmemDefault,omitempty"`

	// netCoreRmemMax sets net.core.rmem_max.
	// +kubebuilder:validation:Minimum=212992
	// +kubebuilder:validation:Maximum=134217728
	// +optional
	NetCoreRmemMax *int32 `json:"netCoreRmemMax,omitempty"`

	// netCoreSomaxconn sets net.core.somaxconn.
	// +kubebuilder:validation:Minimum=4096
	// +kubebuilder:validation:Maximum=3240000
	// +optional
	NetCoreSomaxconn *int32 `json:"netCoreSomaxconn,omitempty"`

	// netCoreWmemDefault sets net.core.wmem_default.
	// +kubebuilder:validation:Minimum=212992
	// +kubebuilder:validation:Maximum=134217728
	// +optional
	NetCoreWmemDefault *int32 `json:"netCoreWmemDefault,omitempty"`

	// netCoreWmemMax sets net.core.wmem_max.
	// +kubebuilder:validation:Minimum=212992
	// +kubebuilder:validation:Maximum=134217728
	// +optional
	NetCoreWmemMax *int32 `json:"netCoreWmemMax,omitempty"`

	// netIpv4IPLocalPortRange sets net.ipv4.ip_local_port_range, as "first last" with first in 1024–60999 and last
	// in 32768–65000.
	// +optional
	NetIpv4IPLocalPortRange *string `json:"netIpv4IPLocalPortRange,omitempty"`

	// netIpv4NeighDefaultGcThresh1 sets net.ipv4.neigh.default.gc_thresh1.
	// +kubebuilder:validation:Minimum=128
	// +kubebuilder:validation:Maximum=80000
	// +optional
	NetIpv4NeighDefaultGcThresh1 *int32 `json:"netIpv4NeighDefaultGcThresh1,omitempty"`

	// netIpv4NeighDefaultGcThresh2 sets net.ipv4.neigh.default.gc_thresh2.
	// +kubebuilder:validation:Minimum=512
	// +kubebuilder:validation:Maximum=90000
	// +optional
	NetIpv4NeighDefaultGcThresh2 *int32 `json:"netIpv4NeighDefaultGcThresh2,omitempty"`

	// netIpv4NeighDefaultGcThresh3 sets net.ipv4.neigh.default.gc_thresh3.
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=100000
	// +optional
	NetIpv4NeighDefaultGcThresh3 *int32 `json:"netIpv4NeighDefaultGcThresh3,omitempty"`

	// netIpv4TCPFinTimeout sets net.ipv4.tcp_fin_timeout.
	// +kubebuilder:validation:Minimum=5
	// +kubebuilder:validation:Maximum=120
	// +optional
	NetIpv4TCPFinTimeout *int32 `json:"netIpv4TCPFinTimeout,omitempty"`

	// netIpv4TCPKeepaliveProbes sets net.ipv4.tcp_keepalive_probes.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=15
	// +optional
	NetIpv4TCPKeepaliveProbes *int32 `json:"netIpv4TCPKeepaliveProbes,omitempty"`

	// netIpv4TCPKeepaliveTime sets net.ipv4.tcp_keepalive_time.
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:validation:Maximum=432000
	// +optional
	NetIpv4TCPKeepaliveTime *int32 `json:"netIpv4TCPKeepaliveTime,omitempty"`

	// netIpv4TCPMaxSynBacklog sets net.ipv4.tcp_max_syn_backlog.
	// +kubebuilder:validation:Minimum=128
	// +kubebuilder:validation:Maximum=3240000
	// +optional
	NetIpv4TCPMaxSynBacklog *int32 `json:"netIpv4TCPMaxSynBacklog,omitempty"`

	// netIpv4TCPMaxTwBuckets sets net.ipv4.tcp_max_tw_buckets.
	// +kubebuilder:validation:Minimum=8000
	// +kubebuilder:validation:Maximum=1440000
	// +optional
	NetIpv4TCPMaxTwBuckets *int32 `json:"netIpv4TCPMaxTwBuckets,omitempty"`

	// netIpv4TCPTwReuse sets net.ipv4.tcp_tw_reuse.
	// +optional
	NetIpv4TCPTwReuse *bool `json:"netIpv4TCPTwReuse,omitempty"`

	// netIpv4TCPkeepaliveIntvl sets net.ipv4.tcp_keepalive_intvl.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=75
	// +optional
	NetIpv4TCPkeepaliveIntvl *int32 `json:"netIpv4TCPkeepaliveIntvl,omitempty"`

	// netNetfilterNfConntrackBuckets sets net.netfilter.nf_conntrack_buckets.
	// +kubebuilder:validation:Minimum=65536
	// +kubebuilder:validation:Maximum=147456
	// +optional
	NetNetfilterNfConntrackBuckets *int32 `json:"netNetfilterNfConntrackBuckets,omitempty"`

	// netNetfilterNfConntrackMax sets net.netfilter.nf_conntrack_max.
	// +kubebuilder:validation:Minimum=131072
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	NetNetfilterNfConntrackMax *int32 `json:"netNetfilterNfConntrackMax,omitempty"`

	// vmMaxMapCount sets vm.max_map_count.
	// +kubebuilder:validation:Minimum=65530
	// +kubebuilder:validation:Maximum=262144
	// +optional
	VMMaxMapCount *int32 `json:"vmMaxMapCount,omitempty"`

	// vmSwappiness sets vm.swappiness.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	VMSwappiness *int32 `json:"vmSwappiness,omitempty"`

	// vmVfsCachePressure sets vm.vfs_cache_pressure.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=500
	// +optional
	VMVfsCachePressure *int32 `json:"vmVfsCachePressure,omitempty"`
}
