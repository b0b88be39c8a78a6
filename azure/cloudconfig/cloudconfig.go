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

package cloudconfig

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// The keys of the Secret. CAPZ's templates read the first two; azure.json is the control plane's file too, kept
// for templates written for older CAPZ releases.
const (
	ControlPlaneKey = "control-plane-azure.json"
	WorkerNodeKey   = "worker-node-azure.json"
	LegacyKey       = "azure.json"
)

// vmType is cloud-provider-azure's node manager: "vmss" handles scale set instances, of both orchestration modes
// (enableVmssFlexNodes), and standalone VMs alike.
const vmType = "vmss"

// maximumLoadBalancerRuleCount is the limit of load balancer rules cloud-provider-azure puts on one load balancer,
// Azure's limit for a Standard load balancer as CAPZ sets it.
const maximumLoadBalancerRuleCount = 250

// SecretName is the name of the azure.json Secret of an AzureMachineTemplate or AzureMachinePool.
func SecretName(owner string) string { return owner + "-azure-json" }

// Input is everything azure.json says, resolved by the controller.
type Input struct {
	// Environment is the Azure cloud, e.g. AzurePublicCloud; empty means AzurePublicCloud.
	Environment string
	// TenantID and SubscriptionID are the cluster's.
	TenantID, SubscriptionID string
	// Location, ExtendedLocation and ResourceGroup are the cluster's.
	Location         string
	ExtendedLocation *infrav1.ExtendedLocationSpec
	ResourceGroup    string
	// Network is the cluster's network, after defaulting: the virtual network, the first node subnet with its
	// security group and route table, and the node outbound load balancer.
	Network infrav1.NetworkSpec
	// Identity is how cloud-provider-azure authenticates on the machines.
	Identity Identity
	// Overrides are the cluster's cloudProviderConfigOverrides.
	Overrides *infrav1.CloudProviderConfigOverrides
}

// Identity is how cloud-provider-azure authenticates on the machines: with the VMs' managed identity, or, for VMs
// without one, with the cluster identity's service principal.
type Identity struct {
	// VMIdentity is the machines' identity: SystemAssigned, UserAssigned or None.
	VMIdentity infrav1.VMIdentity
	// UserAssignedIdentityID is the resource ID of the user-assigned identity cloud-provider-azure uses (the
	// machines' first) for VMIdentity UserAssigned.
	UserAssignedIdentityID string
	// ClientID and ClientSecret are the cluster identity's service principal, for VMIdentity None. ClientSecret is
	// empty unless the identity is a service principal with a secret: no other identity has one to give.
	ClientID, ClientSecret string
}

// Config is cloud-provider-azure's configuration file, azure.json: the keys CAPZ writes.
type Config struct {
	Cloud                        string `json:"cloud"`
	TenantID                     string `json:"tenantId"`
	SubscriptionID               string `json:"subscriptionId"`
	AADClientID                  string `json:"aadClientId,omitempty"`
	AADClientSecret              string `json:"aadClientSecret,omitempty"`
	ResourceGroup                string `json:"resourceGroup"`
	SecurityGroupName            string `json:"securityGroupName"`
	SecurityGroupResourceGroup   string `json:"securityGroupResourceGroup"`
	Location                     string `json:"location"`
	ExtendedLocationType         string `json:"extendedLocationType,omitempty"`
	ExtendedLocationName         string `json:"extendedLocationName,omitempty"`
	VMType                       string `json:"vmType"`
	VNetName                     string `json:"vnetName"`
	VNetResourceGroup            string `json:"vnetResourceGroup"`
	SubnetName                   string `json:"subnetName"`
	RouteTableName               string `json:"routeTableName"`
	LoadBalancerSKU              string `json:"loadBalancerSku"`
	LoadBalancerName             string `json:"loadBalancerName"`
	MaximumLoadBalancerRuleCount int    `json:"maximumLoadBalancerRuleCount"`
	UseManagedIdentityExtension  bool   `json:"useManagedIdentityExtension"`
	UseInstanceMetadata          bool   `json:"useInstanceMetadata"`
	EnableVMSSFlexNodes          bool   `json:"enableVmssFlexNodes,omitempty"`
	UserAssignedIdentityID       string `json:"userAssignedIdentityID,omitempty"`
	RateLimit
	RouteRateLimit                  *RateLimit `json:"routeRateLimit,omitempty"`
	SubnetsRateLimit                *RateLimit `json:"subnetsRateLimit,omitempty"`
	InterfaceRateLimit              *RateLimit `json:"interfaceRateLimit,omitempty"`
	RouteTableRateLimit             *RateLimit `json:"routeTableRateLimit,omitempty"`
	LoadBalancerRateLimit           *RateLimit `json:"loadBalancerRateLimit,omitempty"`
	PublicIPAddressRateLimit        *RateLimit `json:"publicIPAddressRateLimit,omitempty"`
	SecurityGroupRateLimit          *RateLimit `json:"securityGroupRateLimit,omitempty"`
	VirtualMachineRateLimit         *RateLimit `json:"virtualMachineRateLimit,omitempty"`
	StorageAccountRateLimit         *RateLimit `json:"storageAccountRateLimit,omitempty"`
	DiskRateLimit                   *RateLimit `json:"diskRateLimit,omitempty"`
	SnapshotRateLimit               *RateLimit `json:"snapshotRateLimit,omitempty"`
	VirtualMachineScaleSetRateLimit *RateLimit `json:"virtualMachineScaleSetRateLimit,omitempty"`
	VirtualMachineSizesRateLimit    *RateLimit `json:"virtualMachineSizesRateLimit,omitempty"`
	AvailabilitySetRateLimit        *RateLimit `json:"availabilitySetRateLimit,omitempty"`
	BackOff
}

// RateLimit is a rate limit of cloud-provider-azure's Azure clients.
type RateLimit struct {
	CloudProviderRateLimit            bool    `json:"cloudProviderRateLimit,omitempty"`
	CloudProviderRateLimitQPS         float32 `json:"cloudProviderRateLimitQPS,omitempty"`
	CloudProviderRateLimitBucket      int     `json:"cloudProviderRateLimitBucket,omitempty"`
	CloudProviderRateLimitQPSWrite    float32 `json:"cloudProviderRateLimitQPSWrite,omitempty"`
	CloudProviderRateLimitBucketWrite int     `json:"cloudProviderRateLimitBucketWrite,omitempty"`
}

// BackOff is cloud-provider-azure's retry policy.
type BackOff struct {
	CloudProviderBackoff         bool    `json:"cloudProviderBackoff,omitempty"`
	CloudProviderBackoffRetries  int     `json:"cloudProviderBackoffRetries,omitempty"`
	CloudProviderBackoffExponent float64 `json:"cloudProviderBackoffExponent,omitempty"`
	CloudProviderBackoffDuration int     `json:"cloudProviderBackoffDuration,omitempty"`
	CloudProviderBackoffJitter   float64 `json:"cloudProviderBackoffJitter,omitempty"`
}

// AzureJSON returns the cloud provider configuration of a cluster's machines.
func AzureJSON(in Input) (*Config, error) {
	cloud := in.Environment
	if cloud == "" {
		cloud = infrav1.DefaultAzureCloud
	}
	subnet := nodeSubnet(in.Network.Subnets)
	vnetGroup := in.Network.Vnet.ResourceGroup
	if vnetGroup == "" {
		vnetGroup = in.ResourceGroup
	}
	c := &Config{
		Cloud:                        cloud,
		TenantID:                     in.TenantID,
		SubscriptionID:               in.SubscriptionID,
		ResourceGroup:                in.ResourceGroup,
		SecurityGroupName:            subnet.SecurityGroup.Name,
		SecurityGroupResourceGroup:   vnetGroup,
		Location:                     in.Location,
		VMType:                       vmType,
		VNetName:                     in.Network.Vnet.Name,
		VNetResourceGroup:            vnetGroup,
		SubnetName:                   subnet.Name,
		RouteTableName:               subnet.RouteTable.Name,
		LoadBalancerSKU:              string(infrav1.SKUStandard),
		MaximumLoadBalancerRuleCount: maximumLoadBalancerRuleCount,
		UseInstanceMetadata:          true,
		EnableVMSSFlexNodes:          true,
	}
	if lb := in.Network.NodeOutboundLB; lb != nil {
		c.LoadBalancerName = lb.Name
	}
	if el := in.ExtendedLocation; el != nil {
		c.ExtendedLocationType, c.ExtendedLocationName = el.Type, el.Name
	}
	switch in.Identity.VMIdentity {
	case infrav1.VMIdentitySystemAssigned:
		c.UseManagedIdentityExtension = true
	case infrav1.VMIdentityUserAssigned:
		if in.Identity.UserAssignedIdentityID == "" {
			return nil, fmt.Errorf("a machine with a user-assigned identity needs the identity's resource ID")
		}
		c.UseManagedIdentityExtension = true
		c.UserAssignedIdentityID = strings.TrimPrefix(in.Identity.UserAssignedIdentityID, azure.ProviderIDScheme)
	default:
		c.AADClientID, c.AADClientSecret = in.Identity.ClientID, in.Identity.ClientSecret
	}
	if o := in.Overrides; o != nil {
		for _, l := range o.RateLimits {
			limit := rateLimit(l.Config)
			if l.Name == infrav1.DefaultRateLimit {
				c.RateLimit = *limit
				continue
			}
			field, ok := c.rateLimitFields()[l.Name]
			if !ok {
				return nil, fmt.Errorf("unknown cloud provider rate limit %q", l.Name)
			}
			*field = limit
		}
		c.BackOff = BackOff{
			CloudProviderBackoff:         o.BackOffs.CloudProviderBackoff,
			CloudProviderBackoffRetries:  o.BackOffs.CloudProviderBackoffRetries,
			CloudProviderBackoffExponent: float(o.BackOffs.CloudProviderBackoffExponent),
			CloudProviderBackoffDuration: o.BackOffs.CloudProviderBackoffDuration,
			CloudProviderBackoffJitter:   float(o.BackOffs.CloudProviderBackoffJitter),
		}
	}
	return c, nil
}

// Secret returns the azure.json Secret of an AzureMachineTemplate or AzureMachinePool named owner. Control plane
// and worker machines get the same configuration, under the keys CAPZ's templates read.
func Secret(owner string, in Input) (*corev1.Secret, error) {
	c, err := AzureJSON(in)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(c, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode azure.json: %w", err)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: SecretName(owner)},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{ControlPlaneKey: data, WorkerNodeKey: data, LegacyKey: data},
	}, nil
}

// rateLimitFields maps the names of CAPZ's rateLimits to the clients' limits in the file.
func (c *Config) rateLimitFields() map[string]**RateLimit {
	return map[string]**RateLimit{
		infrav1.RouteRateLimit:                  &c.RouteRateLimit,
		infrav1.SubnetsRateLimit:                &c.SubnetsRateLimit,
		infrav1.InterfaceRateLimit:              &c.InterfaceRateLimit,
		infrav1.RouteTableRateLimit:             &c.RouteTableRateLimit,
		infrav1.LoadBalancerRateLimit:           &c.LoadBalancerRateLimit,
		infrav1.PublicIPAddressRateLimit:        &c.PublicIPAddressRateLimit,
		infrav1.SecurityGroupRateLimit:          &c.SecurityGroupRateLimit,
		infrav1.VirtualMachineRateLimit:         &c.VirtualMachineRateLimit,
		infrav1.StorageAccountRateLimit:         &c.StorageAccountRateLimit,
		infrav1.DiskRateLimit:                   &c.DiskRateLimit,
		infrav1.SnapshotRateLimit:               &c.SnapshotRateLimit,
		infrav1.VirtualMachineScaleSetRateLimit: &c.VirtualMachineScaleSetRateLimit,
		infrav1.VirtualMachineSizesRateLimit:    &c.VirtualMachineSizesRateLimit,
		infrav1.AvailabilitySetRateLimit:        &c.AvailabilitySetRateLimit,
	}
}

func rateLimit(in infrav1.RateLimitConfig) *RateLimit {
	return &RateLimit{
		CloudProviderRateLimit:            in.CloudProviderRateLimit,
		CloudProviderRateLimitQPS:         float32(float(in.CloudProviderRateLimitQPS)),
		CloudProviderRateLimitBucket:      in.CloudProviderRateLimitBucket,
		CloudProviderRateLimitQPSWrite:    float32(float(in.CloudProviderRateLimitQPSWrite)),
		CloudProviderRateLimitBucketWrite: in.CloudProviderRateLimitBucketWrite,
	}
}

func float(q *resource.Quantity) float64 {
	if q == nil {
		return 0
	}
	return q.AsApproximateFloat64()
}

// nodeSubnet is the subnet cloud-provider-azure puts load balancer frontends and routes in: the first node
// subnet, else the cluster subnet.
func nodeSubnet(subnets infrav1.Subnets) infrav1.SubnetSpec {
	for _, role := range []infrav1.SubnetRole{infrav1.SubnetNode, infrav1.SubnetCluster} {
		for _, s := range subnets {
			if s.Role == role {
				return s
			}
		}
	}
	return infrav1.SubnetSpec{}
}
