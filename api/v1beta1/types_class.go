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
)

// AzureClusterClassSpec holds the AzureCluster settings that may appear in a ClusterClass template.
type AzureClusterClassSpec struct {
	// subscriptionID is the Azure subscription of the cluster. Defaults to the subscription of the credentials.
	// +optional
	SubscriptionID string `json:"subscriptionID,omitempty"`

	// location is the Azure region of the cluster, e.g. eastus. Required on an AzureCluster; a template may leave
	// it to a ClusterClass patch.
	// +optional
	Location string `json:"location,omitempty"`

	// extendedLocation is an extended location (Edge Zone) for the cluster's resources.
	// +optional
	ExtendedLocation *ExtendedLocationSpec `json:"extendedLocation,omitempty"`

	// additionalTags are added to every Azure resource of the cluster.
	// +optional
	AdditionalTags Tags `json:"additionalTags,omitempty"`

	// identityRef references the AzureClusterIdentity whose credentials ASO uses for this cluster.
	// +optional
	IdentityRef *corev1.ObjectReference `json:"identityRef,omitempty"`

	// azureEnvironment is the Azure cloud, e.g. AzurePublicCloud (the default), AzureChinaCloud, AzureUSGovernmentCloud.
	// +optional
	AzureEnvironment string `json:"azureEnvironment,omitempty"`

	// cloudProviderConfigOverrides overrides rate limits and back-offs of the cloud provider configuration.
	// +optional
	CloudProviderConfigOverrides *CloudProviderConfigOverrides `json:"cloudProviderConfigOverrides,omitempty"`

	// failureDomains are the failure domains of the cluster, keyed by availability zone. Defaults to the zones of
	// the location.
	// +optional
	FailureDomains FailureDomains `json:"failureDomains,omitempty"`

	// asoPatches are patches applied to the ASO objects generated for the cluster (see ASOPatch).
	// +optional
	ASOPatches []ASOPatch `json:"asoPatches,omitempty"`
}

// FailureDomains are failure domains keyed by name (CAPZ's map form; status uses the Cluster API list form).
type FailureDomains map[string]FailureDomainSpec

// FailureDomainSpec describes a failure domain.
type FailureDomainSpec struct {
	// controlPlane says whether control-plane machines may be placed in this failure domain.
	// +optional
	ControlPlane bool `json:"controlPlane,omitempty"`

	// attributes are free-form attributes of the failure domain.
	// +optional
	Attributes map[string]string `json:"attributes,omitempty"`
}

// CloudProviderConfigOverrides overrides settings of the cloud provider configuration.
type CloudProviderConfigOverrides struct {
	// rateLimits are per-client rate limits.
	// +optional
	RateLimits []RateLimitSpec `json:"rateLimits,omitempty"`

	// backOffs configures retries of the cloud provider.
	// +optional
	BackOffs BackOffConfig `json:"backOffs,omitempty,omitzero"`
}

// The names of the cloud provider's clients whose rate limits RateLimitSpec sets.
const (
	DefaultRateLimit                = "defaultRateLimit"
	RouteRateLimit                  = "routeRateLimit"
	SubnetsRateLimit                = "subnetsRateLimit"
	InterfaceRateLimit              = "interfaceRateLimit"
	RouteTableRateLimit             = "routeTableRateLimit"
	LoadBalancerRateLimit           = "loadBalancerRateLimit"
	PublicIPAddressRateLimit        = "publicIPAddressRateLimit"
	SecurityGroupRateLimit          = "securityGroupRateLimit"
	VirtualMachineRateLimit         = "virtualMachineRateLimit"
	StorageAccountRateLimit         = "storageAccountRateLimit"
	DiskRateLimit                   = "diskRateLimit"
	SnapshotRateLimit               = "snapshotRateLimit"
	VirtualMachineScaleSetRateLimit = "virtualMachineScaleSetRateLimit"
	VirtualMachineSizesRateLimit    = "virtualMachineSizesRateLimit"
	AvailabilitySetRateLimit        = "availabilitySetRateLimit"
)

// RateLimitSpec is the rate limit of one cloud provider client.
type RateLimitSpec struct {
	// name of the client the limit applies to.
	// +kubebuilder:validation:Enum=defaultRateLimit;routeRateLimit;subnetsRateLimit;interfaceRateLimit;routeTableRateLimit;loadBalancerRateLimit;publicIPAddressRateLimit;securityGroupRateLimit;virtualMachineRateLimit;storageAccountRateLimit;diskRateLimit;snapshotRateLimit;virtualMachineScaleSetRateLimit;virtualMachineSizesRateLimit;availabilitySetRateLimit
	// +required
	Name string `json:"name"`

	// config is the rate limit.
	// +optional
	Config RateLimitConfig `json:"config,omitempty,omitzero"`
}

// RateLimitConfig is a rate limit of the cloud provider.
type RateLimitConfig struct {
	// cloudProviderRateLimit turns the limit on.
	// +optional
	CloudProviderRateLimit bool `json:"cloudProviderRateLimit,omitempty"`

	// cloudProviderRateLimitQPS is the read QPS.
	// +optional
	CloudProviderRateLimitQPS *resource.Quantity `json:"cloudProviderRateLimitQPS,omitempty"`

	// cloudProviderRateLimitBucket is the read burst.
	// +optional
	CloudProviderRateLimitBucket int `json:"cloudProviderRateLimitBucket,omitempty"`

	// cloudProviderRateLimitQPSWrite is the write QPS.
	// +optional
	CloudProviderRateLimitQPSWrite *resource.Quantity `json:"cloudProviderRateLimitQPSWrite,omitempty"`

	// cloudProviderRateLimitBucketWrite is the write burst.
	// +optional
	CloudProviderRateLimitBucketWrite int `json:"cloudProviderRateLimitBucketWrite,omitempty"`
}

// BackOffConfig configures retries of the cloud provider.
type BackOffConfig struct {
	// cloudProviderBackoff turns back-off on.
	// +optional
	CloudProviderBackoff bool `json:"cloudProviderBackoff,omitempty"`

	// cloudProviderBackoffRetries is the number of retries.
	// +optional
	CloudProviderBackoffRetries int `json:"cloudProviderBackoffRetries,omitempty"`

	// cloudProviderBackoffExponent is the exponent of the back-off.
	// +optional
	CloudProviderBackoffExponent *resource.Quantity `json:"cloudProviderBackoffExponent,omitempty"`

	// cloudProviderBackoffDuration is the initial back-off in seconds.
	// +optional
	CloudProviderBackoffDuration int `json:"cloudProviderBackoffDuration,omitempty"`

	// cloudProviderBackoffJitter is the jitter of the back-off.
	// +optional
	CloudProviderBackoffJitter *resource.Quantity `json:"cloudProviderBackoffJitter,omitempty"`
}
