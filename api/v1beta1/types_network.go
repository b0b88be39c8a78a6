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

// Tags is a map of Azure resource tags (key → value).
type Tags map[string]string

// SubnetRole is the role a subnet plays in the cluster.
// +kubebuilder:validation:Enum=node;control-plane;bastion;cluster
type SubnetRole string

const (
	// SubnetNode is the role of a subnet that hosts worker nodes.
	SubnetNode SubnetRole = "node"
	// SubnetControlPlane is the role of a subnet that hosts control-plane nodes.
	SubnetControlPlane SubnetRole = "control-plane"
	// SubnetBastion is the role of the Azure Bastion subnet.
	SubnetBastion SubnetRole = "bastion"
	// SubnetCluster is the role of a subnet shared by control-plane and worker nodes.
	SubnetCluster SubnetRole = "cluster"
)

// NetworkClassSpec holds the network settings that may appear in a ClusterClass template.
type NetworkClassSpec struct {
	// privateDNSZoneName is the name of the private DNS zone for a private API server.
	// Defaults to <cluster>.capz.io.
	// +optional
	PrivateDNSZoneName string `json:"privateDNSZoneName,omitempty"`

	// privateDNSZoneResourceGroup is the resource group of the private DNS zone.
	// Defaults to the cluster's resource group.
	// +optional
	PrivateDNSZoneResourceGroup string `json:"privateDNSZoneResourceGroup,omitempty"`
}

// NetworkSpec describes the network of a self-managed cluster.
type NetworkSpec struct {
	// vnet is the virtual network of the cluster.
	// +optional
	Vnet VnetSpec `json:"vnet,omitempty,omitzero"`

	// subnets are the subnets of the virtual network.
	// +optional
	Subnets Subnets `json:"subnets,omitempty"`

	// apiServerLB is the load balancer in front of the API server.
	// +optional
	APIServerLB *LoadBalancerSpec `json:"apiServerLB,omitempty"`

	// nodeOutboundLB is the load balancer used for outbound traffic of worker nodes.
	// +optional
	NodeOutboundLB *LoadBalancerSpec `json:"nodeOutboundLB,omitempty"`

	// controlPlaneOutboundLB is the load balancer used for outbound traffic of control-plane nodes
	// of a cluster with an internal API server load balancer.
	// +optional
	ControlPlaneOutboundLB *LoadBalancerSpec `json:"controlPlaneOutboundLB,omitempty"`

	// additionalAPIServerLBPorts are extra ports opened on the API server load balancer.
	// +optional
	AdditionalAPIServerLBPorts []LoadBalancerPort `json:"additionalAPIServerLBPorts,omitempty"`

	// privateDNSZone controls whether a private DNS zone is created for a private API server.
	// "None" skips it (the user provides DNS); "System" (the default) creates it.
	// +kubebuilder:validation:Enum=System;None
	// +optional
	PrivateDNSZone *PrivateDNSZoneMode `json:"privateDNSZone,omitempty"`

	NetworkClassSpec `json:",inline"`
}

// PrivateDNSZoneMode says who provides the private DNS zone of a private API server.
type PrivateDNSZoneMode string

const (
	// PrivateDNSZoneModeSystem makes the provider create the private DNS zone.
	PrivateDNSZoneModeSystem PrivateDNSZoneMode = "System"
	// PrivateDNSZoneModeNone makes the provider skip the private DNS zone.
	PrivateDNSZoneModeNone PrivateDNSZoneMode = "None"
)

// LoadBalancerPort is an extra port on the API server load balancer.
type LoadBalancerPort struct {
	// name of the port, used for the load balancing rule.
	// +required
	Name string `json:"name"`

	// port is the frontend and backend port.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// VnetClassSpec holds the virtual network settings that may appear in a ClusterClass template.
type VnetClassSpec struct {
	// cidrBlocks are the address prefixes of the virtual network. Defaults to 10.0.0.0/8.
	// +optional
	CIDRBlocks []string `json:"cidrBlocks,omitempty"`

	// tags are additional tags for the virtual network.
	// +optional
	Tags Tags `json:"tags,omitempty"`
}

// VnetSpec describes the cluster's virtual network. A virtual network with an id, or one that already exists in
// Azure without the cluster's "owned" tag, is brought by the user: the provider references it and never modifies
// or deletes it.
type VnetSpec struct {
	// resourceGroup is the resource group of the virtual network. Defaults to the cluster's resource group.
	// +optional
	ResourceGroup string `json:"resourceGroup,omitempty"`

	// id is the Azure resource ID of an existing virtual network.
	// +optional
	ID string `json:"id,omitempty"`

	// name of the virtual network. Defaults to <cluster>-vnet.
	// +required
	Name string `json:"name"`

	// peerings are peerings of this virtual network with other virtual networks.
	// +optional
	Peerings VnetPeerings `json:"peerings,omitempty"`

	VnetClassSpec `json:",inline"`
}

// VnetPeerings is a list of virtual network peerings.
type VnetPeerings []VnetPeeringSpec

// VnetPeeringSpec is a peering of the cluster's virtual network with a remote one.
type VnetPeeringSpec struct {
	VnetPeeringClassSpec `json:",inline"`
}

// VnetPeeringClassSpec holds the peering settings that may appear in a ClusterClass template.
type VnetPeeringClassSpec struct {
	// resourceGroup is the resource group of the remote virtual network. Defaults to the cluster's resource group.
	// +optional
	ResourceGroup string `json:"resourceGroup,omitempty"`

	// remoteVnetName is the name of the remote virtual network.
	// +required
	RemoteVnetName string `json:"remoteVnetName"`

	// forwardPeeringProperties are the properties of the peering from this virtual network to the remote one.
	// +optional
	ForwardPeeringProperties VnetPeeringProperties `json:"forwardPeeringProperties,omitempty,omitzero"`

	// reversePeeringProperties are the properties of the peering from the remote virtual network to this one.
	// +optional
	ReversePeeringProperties VnetPeeringProperties `json:"reversePeeringProperties,omitempty,omitzero"`
}

// VnetPeeringProperties are the properties of one direction of a virtual network peering.
type VnetPeeringProperties struct {
	// allowForwardedTraffic allows traffic forwarded by the remote network.
	// +optional
	AllowForwardedTraffic *bool `json:"allowForwardedTraffic,omitempty"`

	// allowGatewayTransit allows the remote network to use this network's gateway.
	// +optional
	AllowGatewayTransit *bool `json:"allowGatewayTransit,omitempty"`

	// allowVirtualNetworkAccess allows VMs in the remote network to reach VMs in this network.
	// +optional
	AllowVirtualNetworkAccess *bool `json:"allowVirtualNetworkAccess,omitempty"`

	// useRemoteGateways uses the remote network's gateways.
	// +optional
	UseRemoteGateways *bool `json:"useRemoteGateways,omitempty"`
}

// Subnets is a list of subnets.
type Subnets []SubnetSpec

// SubnetClassSpec holds the subnet settings that may appear in a ClusterClass template.
type SubnetClassSpec struct {
	// name of the subnet.
	// +required
	Name string `json:"name"`

	// role of the subnet.
	// +required
	Role SubnetRole `json:"role"`

	// cidrBlocks are the address prefixes of the subnet. Defaults: 10.0.0.0/16 for control-plane,
	// 10.1.0.0/16 for node subnets.
	// +optional
	CIDRBlocks []string `json:"cidrBlocks,omitempty"`

	// serviceEndpoints are the service endpoints of the subnet.
	// +optional
	ServiceEndpoints ServiceEndpoints `json:"serviceEndpoints,omitempty"`

	// privateEndpoints are private endpoints created in the subnet.
	// +optional
	PrivateEndpoints PrivateEndpoints `json:"privateEndpoints,omitempty"`
}

// SubnetSpec describes a subnet of the cluster's virtual network.
type SubnetSpec struct {
	SubnetClassSpec `json:",inline"`

	// id is the Azure resource ID of an existing subnet.
	// +optional
	ID string `json:"id,omitempty"`

	// securityGroup is the network security group of the subnet.
	// +optional
	SecurityGroup SecurityGroup `json:"securityGroup,omitempty,omitzero"`

	// routeTable is the route table of the subnet.
	// +optional
	RouteTable RouteTable `json:"routeTable,omitempty,omitzero"`

	// natGateway is the NAT gateway of the subnet.
	// +optional
	NatGateway NatGateway `json:"natGateway,omitempty,omitzero"`
}

// ServiceEndpoints is a list of subnet service endpoints.
type ServiceEndpoints []ServiceEndpointSpec

// ServiceEndpointSpec is a subnet service endpoint.
type ServiceEndpointSpec struct {
	// service is the service type, for example Microsoft.Storage.
	// +required
	Service string `json:"service"`

	// locations where the service endpoint is available.
	// +required
	Locations []string `json:"locations"`
}

// PrivateEndpoints is a list of private endpoints.
type PrivateEndpoints []PrivateEndpointSpec

// PrivateEndpointSpec is a private endpoint in a subnet.
type PrivateEndpointSpec struct {
	// name of the private endpoint.
	// +required
	Name string `json:"name"`

	// location of the private endpoint. Defaults to the cluster's location.
	// +optional
	Location string `json:"location,omitempty"`

	// privateLinkServiceConnections are the connections to private link services.
	// +optional
	PrivateLinkServiceConnections []PrivateLinkServiceConnection `json:"privateLinkServiceConnections,omitempty"`

	// customNetworkInterfaceName is the name of the private endpoint's network interface.
	// +optional
	CustomNetworkInterfaceName string `json:"customNetworkInterfaceName,omitempty"`

	// privateIPAddresses are static private IP addresses for the private endpoint.
	// +optional
	PrivateIPAddresses []string `json:"privateIPAddresses,omitempty"`

	// applicationSecurityGroups are resource IDs of application security groups of the private endpoint.
	// +optional
	ApplicationSecurityGroups []string `json:"applicationSecurityGroups,omitempty"`

	// manualApproval makes the connections manual: the remote owner must approve them.
	// +optional
	ManualApproval bool `json:"manualApproval,omitempty"`
}

// PrivateLinkServiceConnection is a connection of a private endpoint to a private link service.
type PrivateLinkServiceConnection struct {
	// name of the connection.
	// +optional
	Name string `json:"name,omitempty"`

	// privateLinkServiceID is the resource ID of the private link service.
	// +optional
	PrivateLinkServiceID string `json:"privateLinkServiceID,omitempty"`

	// groupIDs are the group IDs of the remote resource the connection targets.
	// +optional
	GroupIDs []string `json:"groupIDs,omitempty"`

	// requestMessage is a message sent with a manual connection request.
	// +kubebuilder:validation:MaxLength=140
	// +optional
	RequestMessage string `json:"requestMessage,omitempty"`
}

// SecurityGroupClass holds the security group settings that may appear in a ClusterClass template.
type SecurityGroupClass struct {
	// securityRules are the rules of the security group.
	// +optional
	SecurityRules SecurityRules `json:"securityRules,omitempty"`

	// tags are additional tags for the security group.
	// +optional
	Tags Tags `json:"tags,omitempty"`
}

// SecurityGroup is a network security group.
type SecurityGroup struct {
	// id is the Azure resource ID of an existing security group.
	// +optional
	ID string `json:"id,omitempty"`

	// name of the security group. Defaults to <cluster>-<role>-nsg.
	// +required
	Name string `json:"name"`

	SecurityGroupClass `json:",inline"`
}

// SecurityRules is a list of security rules.
type SecurityRules []SecurityRule

// SecurityGroupProtocol is the protocol a security rule matches.
// +kubebuilder:validation:Enum=Tcp;Udp;Icmp;*
type SecurityGroupProtocol string

const (
	// SecurityGroupProtocolAll matches every protocol.
	SecurityGroupProtocolAll SecurityGroupProtocol = "*"
	// SecurityGroupProtocolTCP matches TCP.
	SecurityGroupProtocolTCP SecurityGroupProtocol = "Tcp"
	// SecurityGroupProtocolUDP matches UDP.
	SecurityGroupProtocolUDP SecurityGroupProtocol = "Udp"
	// SecurityGroupProtocolICMP matches ICMP.
	SecurityGroupProtocolICMP SecurityGroupProtocol = "Icmp"
)

// SecurityRuleDirection is the direction of traffic a security rule matches.
// +kubebuilder:validation:Enum=Inbound;Outbound
type SecurityRuleDirection string

const (
	// SecurityRuleDirectionInbound matches inbound traffic.
	SecurityRuleDirectionInbound SecurityRuleDirection = "Inbound"
	// SecurityRuleDirectionOutbound matches outbound traffic.
	SecurityRuleDirectionOutbound SecurityRuleDirection = "Outbound"
)

// SecurityRuleAccess says whether matching traffic is allowed or denied.
// +kubebuilder:validation:Enum=Allow;Deny
type SecurityRuleAccess string

const (
	// SecurityRuleActionAllow allows matching traffic.
	SecurityRuleActionAllow SecurityRuleAccess = "Allow"
	// SecurityRuleActionDeny denies matching traffic.
	SecurityRuleActionDeny SecurityRuleAccess = "Deny"
)

// SecurityRule is a rule of a network security group. Azure refuses a rule without a priority, a source (source or
// sources), a destination, source ports or destination ports, so the AzureCluster webhook refuses one too; write "*"
// for any address or port.
type SecurityRule struct {
	// name of the rule.
	// +required
	Name string `json:"name"`

	// description of the rule.
	// +required
	Description string `json:"description"`

	// protocol the rule matches.
	// +required
	Protocol SecurityGroupProtocol `json:"protocol"`

	// direction of traffic the rule matches.
	// +required
	Direction SecurityRuleDirection `json:"direction"`

	// priority of the rule, 100–4096; lower numbers win. Required by Azure.
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=4096
	// +optional
	Priority int32 `json:"priority,omitempty"`

	// sourcePorts is the source port or range, for example "*" or "80-88", or a comma list of them. Required by Azure.
	// +optional
	SourcePorts *string `json:"sourcePorts,omitempty"`

	// destinationPorts is the destination port or range, for example "443" or "*", or a comma list of them.
	// Required by Azure.
	// +optional
	DestinationPorts *string `json:"destinationPorts,omitempty"`

	// source is the source address prefix: a CIDR, "*" or a service tag. Azure requires source or sources.
	// +optional
	Source *string `json:"source,omitempty"`

	// sources are several source address prefixes (mutually exclusive with source).
	// +optional
	Sources []*string `json:"sources,omitempty"`

	// destination is the destination address prefix: a CIDR, "*" or a service tag. Required by Azure.
	// +optional
	Destination *string `json:"destination,omitempty"`

	// action is Allow (the default) or Deny.
	// +kubebuilder:default=Allow
	// +optional
	Action SecurityRuleAccess `json:"action,omitempty"`
}

// RouteTable is the route table of a subnet.
type RouteTable struct {
	// id is the Azure resource ID of an existing route table.
	// +optional
	ID string `json:"id,omitempty"`

	// name of the route table.
	// +required
	Name string `json:"name"`
}

// NatGatewayClassSpec holds the NAT gateway settings that may appear in a ClusterClass template.
type NatGatewayClassSpec struct {
	// name of the NAT gateway.
	// +required
	Name string `json:"name"`
}

// NatGateway is the NAT gateway of a subnet.
type NatGateway struct {
	// id is the Azure resource ID of an existing NAT gateway.
	// +optional
	ID string `json:"id,omitempty"`

	// ip is the public IP address of the NAT gateway.
	// +optional
	NatGatewayIP PublicIPSpec `json:"ip,omitempty,omitzero"`

	// zones are the availability zones of the NAT gateway.
	// +optional
	Zones []string `json:"zones,omitempty"`

	NatGatewayClassSpec `json:",inline"`
}

// PublicIPSpec is a public IP address.
type PublicIPSpec struct {
	// name of the public IP address.
	// +required
	Name string `json:"name"`

	// dnsName is the fully qualified DNS name of the address; its first label becomes the Azure domain name label.
	// +optional
	DNSName string `json:"dnsName,omitempty"`

	// ipTags are IP tags of the address.
	// +optional
	IPTags []IPTag `json:"ipTags,omitempty"`
}

// IPTag is an IP tag of a public IP address.
type IPTag struct {
	// type of the tag, for example FirstPartyUsage.
	// +required
	Type string `json:"type"`

	// tag value, for example SQL.
	// +required
	Tag string `json:"tag"`
}

// LBType is the type of a load balancer.
// +kubebuilder:validation:Enum=Internal;Public
type LBType string

const (
	// Internal is a load balancer with private frontends only.
	Internal LBType = "Internal"
	// Public is a load balancer with public frontends.
	Public LBType = "Public"
)

// SKU is the SKU of a load balancer.
// +kubebuilder:validation:Enum=Standard
type SKU string

// SKUStandard is the Standard load balancer SKU.
const SKUStandard SKU = "Standard"

// LoadBalancerClassSpec holds the load balancer settings that may appear in a ClusterClass template.
type LoadBalancerClassSpec struct {
	// sku of the load balancer. Only Standard is supported.
	// +optional
	SKU SKU `json:"sku,omitempty"`

	// type of the load balancer: Public or Internal.
	// +optional
	Type LBType `json:"type,omitempty"`

	// idleTimeoutInMinutes is the TCP idle timeout of the load balancer rules, 4–30 minutes.
	// +kubebuilder:validation:Minimum=4
	// +kubebuilder:validation:Maximum=30
	// +optional
	IdleTimeoutInMinutes *int32 `json:"idleTimeoutInMinutes,omitempty"`
}

// LoadBalancerSpec describes a load balancer.
type LoadBalancerSpec struct {
	// id is the Azure resource ID of an existing load balancer.
	// +optional
	ID string `json:"id,omitempty"`

	// name of the load balancer.
	// +optional
	Name string `json:"name,omitempty"`

	// frontendIPs are the frontend IP configurations of the load balancer.
	// +optional
	FrontendIPs []FrontendIP `json:"frontendIPs,omitempty"`

	// frontendIPsCount is the number of public frontend IPs of an outbound load balancer.
	// +optional
	FrontendIPsCount *int32 `json:"frontendIPsCount,omitempty"`

	// backendPool is the backend address pool of the load balancer.
	// +optional
	BackendPool BackendPool `json:"backendPool,omitempty,omitzero"`

	// availabilityZones are the zones of the load balancer's frontends.
	// +kubebuilder:validation:MaxItems=3
	// +optional
	AvailabilityZones []string `json:"availabilityZones,omitempty"`

	LoadBalancerClassSpec `json:",inline"`
}

// BackendPool is the backend address pool of a load balancer.
type BackendPool struct {
	// name of the backend pool.
	// +optional
	Name string `json:"name,omitempty"`
}

// FrontendIPClass holds the frontend IP settings that may appear in a ClusterClass template.
type FrontendIPClass struct {
	// privateIP is the static private IP address of an internal frontend.
	// +optional
	PrivateIPAddress string `json:"privateIP,omitempty"`
}

// FrontendIP is a frontend IP configuration of a load balancer.
type FrontendIP struct {
	// name of the frontend IP configuration.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// publicIP is the public IP address of a public frontend.
	// +optional
	PublicIP *PublicIPSpec `json:"publicIP,omitempty"`

	FrontendIPClass `json:",inline"`
}

// BastionSpec describes the bastion host of the cluster.
type BastionSpec struct {
	// azureBastion is an Azure Bastion host.
	// +optional
	AzureBastion *AzureBastion `json:"azureBastion,omitempty"`
}

// BastionHostSkuName is the SKU of an Azure Bastion host.
// +kubebuilder:validation:Enum=Basic;Standard
type BastionHostSkuName string

const (
	// BasicBastionHostSku is the Basic SKU.
	BasicBastionHostSku BastionHostSkuName = "Basic"
	// StandardBastionHostSku is the Standard SKU.
	StandardBastionHostSku BastionHostSkuName = "Standard"
)

// AzureBastion is an Azure Bastion host.
type AzureBastion struct {
	// name of the bastion host. Defaults to <cluster>-azure-bastion.
	// +optional
	Name string `json:"name,omitempty"`

	// subnet of the bastion host. Defaults to AzureBastionSubnet, 10.255.255.224/27.
	// +optional
	Subnet SubnetSpec `json:"subnet,omitempty,omitzero"`

	// publicIP of the bastion host.
	// +optional
	PublicIP PublicIPSpec `json:"publicIP,omitempty,omitzero"`

	// sku of the bastion host.
	// +kubebuilder:default=Basic
	// +optional
	Sku BastionHostSkuName `json:"sku,omitempty"`

	// enableTunneling enables native client support (requires the Standard SKU).
	// +kubebuilder:default=false
	// +optional
	EnableTunneling bool `json:"enableTunneling,omitempty"`
}
