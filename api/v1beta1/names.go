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
	"fmt"
	"hash/fnv"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// Default names of the Azure resources of a cluster and its machines. ASO object names equal the Azure resource
// names, in the owner's namespace. They follow CAPZ's naming so that a CAPZ manifest yields the same resources;
// "cluster" below is the AzureCluster's name, "machine" the AzureMachine's name.
const (
	// DefaultVnetCIDR is the address space of a managed virtual network.
	DefaultVnetCIDR = "10.0.0.0/8"
	// DefaultControlPlaneSubnetCIDR is the address prefix of the default control-plane subnet.
	DefaultControlPlaneSubnetCIDR = "10.0.0.0/16"
	// DefaultNodeSubnetCIDR is the address prefix of the default node subnet.
	DefaultNodeSubnetCIDR = "10.1.0.0/16"
	// DefaultNodeSubnetCIDRPattern numbers the address prefixes of further node subnets: 10.<n>.0.0/16.
	DefaultNodeSubnetCIDRPattern = "10.%d.0.0/16"
	// DefaultClusterSubnetCIDR is the address prefix of a subnet with role "cluster".
	DefaultClusterSubnetCIDR = "10.0.0.0/16"
	// DefaultAzureBastionSubnetName is the name Azure requires for a Bastion subnet.
	DefaultAzureBastionSubnetName = "AzureBastionSubnet"
	// DefaultAzureBastionSubnetCIDR is the address prefix of the Bastion subnet.
	DefaultAzureBastionSubnetCIDR = "10.255.255.224/27"
	// DefaultInternalLBIPAddress is the private frontend IP of an internal API server load balancer.
	DefaultInternalLBIPAddress = "10.0.0.100"
	// DefaultLBIdleTimeoutInMinutes is the idle timeout of load balancer rules.
	DefaultLBIdleTimeoutInMinutes = 4
	// DefaultAPIServerPort is the port of the Kubernetes API server.
	DefaultAPIServerPort = 6443
	// DefaultPrivateDNSZoneSuffix suffixes the default private DNS zone: <cluster>.capz.io.
	DefaultPrivateDNSZoneSuffix = "capz.io"
	// DefaultAzureCloud is the Azure environment when none is given.
	DefaultAzureCloud = "AzurePublicCloud"
)

// VnetName is the default virtual network name.
func VnetName(cluster string) string { return cluster + "-vnet" }

// ControlPlaneSubnetName is the default control-plane subnet name.
func ControlPlaneSubnetName(cluster string) string { return cluster + "-controlplane-subnet" }

// NodeSubnetName is the default node subnet name.
func NodeSubnetName(cluster string) string { return cluster + "-node-subnet" }

// ClusterSubnetName is the default name of a subnet with role "cluster".
func ClusterSubnetName(cluster string) string { return cluster + "-subnet" }

// ControlPlaneSecurityGroupName is the default control-plane network security group name.
func ControlPlaneSecurityGroupName(cluster string) string { return cluster + "-controlplane-nsg" }

// NodeSecurityGroupName is the default node network security group name.
func NodeSecurityGroupName(cluster string) string { return cluster + "-node-nsg" }

// ClusterSecurityGroupName is the default security group name of a "cluster" subnet.
func ClusterSecurityGroupName(cluster string) string { return cluster + "-nsg" }

// NodeRouteTableName is the default node route table name.
func NodeRouteTableName(cluster string) string { return cluster + "-node-routetable" }

// ClusterRouteTableName is the default route table name of a "cluster" subnet.
func ClusterRouteTableName(cluster string) string { return cluster + "-routetable" }

// NodeNatGatewayName is the default NAT gateway name of node subnets.
func NodeNatGatewayName(cluster string) string { return cluster + "-node-natgw" }

// ClusterNatGatewayName is the default NAT gateway name of a "cluster" subnet.
func ClusterNatGatewayName(cluster string) string { return cluster + "-natgw" }

// NatGatewayIPName is the default public IP name of a NAT gateway.
func NatGatewayIPName(natGateway string) string { return "pip-" + natGateway }

// PublicLBName is the default name of a public API server load balancer.
func PublicLBName(cluster string) string { return cluster + "-public-lb" }

// InternalLBName is the default name of an internal API server load balancer.
func InternalLBName(cluster string) string { return cluster + "-internal-lb" }

// NodeOutboundLBName is the default name of the node outbound load balancer: the cluster name, as in CAPZ.
func NodeOutboundLBName(cluster string) string { return cluster }

// ControlPlaneOutboundLBName is the default name of the control-plane outbound load balancer.
func ControlPlaneOutboundLBName(cluster string) string { return cluster + "-outbound-lb" }

// APIServerPublicIPName is the default public IP name of the API server.
func APIServerPublicIPName(cluster string) string { return "pip-" + cluster + "-apiserver" }

// NodeOutboundIPName is the default public IP name of the node outbound load balancer.
func NodeOutboundIPName(cluster string) string { return "pip-" + cluster + "-node-outbound" }

// ControlPlaneOutboundIPName is the default public IP name of the control-plane outbound load balancer.
func ControlPlaneOutboundIPName(cluster string) string {
	return "pip-" + cluster + "-controlplane-outbound"
}

// FrontendIPConfigName is the default frontend IP configuration name of a load balancer.
func FrontendIPConfigName(lb string) string { return lb + "-frontEnd" }

// BackendPoolName is the default backend pool name of the API server load balancer.
func BackendPoolName(lb string) string { return lb + "-backendPool" }

// OutboundBackendPoolName is the default backend pool name of an outbound load balancer.
func OutboundBackendPoolName(lb string) string { return lb + "-outboundBackendPool" }

// AzureBastionName is the default Azure Bastion host name.
func AzureBastionName(cluster string) string { return cluster + "-azure-bastion" }

// AzureBastionPublicIPName is the default public IP name of the Azure Bastion host.
func AzureBastionPublicIPName(cluster string) string { return cluster + "-azure-bastion-pip" }

// PrivateDNSZoneName is the default private DNS zone of a private API server.
func PrivateDNSZoneName(cluster string) string { return cluster + "." + DefaultPrivateDNSZoneSuffix }

// WithIndex numbers a name: <name>-<n>.
func WithIndex(name string, n int) string { return fmt.Sprintf("%s-%d", name, n) }

// APIServerDNSLabel is the default DNS label of the API server's public IP, as CAPZ v1.26.0 makes it: the cluster
// name and the FNV-1a hash of <subscription>/<resource group>/<public IP name>, in lower case.
func APIServerDNSLabel(subscriptionID, resourceGroup, publicIP, cluster string) string {
	h := fnv.New32a()
	_, _ = fmt.Fprintf(h, "%s/%s/%s", subscriptionID, resourceGroup, publicIP) // a hash.Hash never fails to write
	return strings.ToLower(fmt.Sprintf("%s-%x", cluster, h.Sum32()))
}

// cloudAppSuffix is the DNS suffix of public IP addresses per Azure environment: its keys are the azureEnvironment
// values the API accepts (AzureEnvironments).
var cloudAppSuffix = map[string]string{
	"AzurePublicCloud":       "cloudapp.azure.com",
	"AzureChinaCloud":        "cloudapp.chinacloudapi.cn",
	"AzureUSGovernmentCloud": "cloudapp.usgovcloudapi.net",
}

// AzureEnvironments lists the azureEnvironment values the API accepts, sorted.
func AzureEnvironments() []string {
	return sets.List(sets.KeySet(cloudAppSuffix))
}

// APIServerFQDN is the default DNS name of the API server's public IP (APIServerDNSLabel) in its location and
// Azure environment.
func APIServerFQDN(subscriptionID, resourceGroup, publicIP, cluster, location, environment string) string {
	suffix, ok := cloudAppSuffix[environment]
	if !ok {
		suffix = cloudAppSuffix[DefaultAzureCloud]
	}
	return strings.ToLower(fmt.Sprintf("%s.%s.%s", APIServerDNSLabel(subscriptionID, resourceGroup, publicIP, cluster), location, suffix))
}

// NetworkInterfaceName is the name of the index-th of a machine's count network interfaces, as CAPZ names them:
// <machine>-nic for a machine with one interface, <machine>-nic-<index> (from 0) for a machine with several.
func NetworkInterfaceName(machine string, index, count int) string {
	if count <= 1 {
		return machine + "-nic"
	}
	return fmt.Sprintf("%s-nic-%d", machine, index)
}

// MachinePublicIPName is the default public IP name of a machine.
func MachinePublicIPName(machine string) string { return "pip-" + machine }

// OSDiskName is the name of a machine's OS disk.
func OSDiskName(machine string) string { return machine + "_OSDisk" }

// DataDiskName is the name of a machine's data disk.
func DataDiskName(machine, nameSuffix string) string { return machine + "_" + nameSuffix }

// BootstrapExtensionName is the name of the VM extension that reports bootstrap success.
const BootstrapExtensionName = "CAPZ.Linux.Bootstrapping"

// Defaults of AKS clusters (AzureManagedControlPlane); "controlPlane" below is the AzureManagedControlPlane's name.
const (
	// DefaultAKSVnetCIDR is the address space of an AKS cluster's virtual network.
	DefaultAKSVnetCIDR = "10.0.0.0/8"
	// DefaultAKSNodeSubnetCIDR is the address prefix of an AKS cluster's node subnet.
	DefaultAKSNodeSubnetCIDR = "10.240.0.0/16"
	// DefaultAKSVnetCIDRForOverlay is the address space of the virtual network of an AKS cluster with Azure CNI
	// overlay, whose pods take their addresses outside the virtual network.
	DefaultAKSVnetCIDRForOverlay = "10.224.0.0/12"
	// DefaultAKSNodeSubnetCIDRForOverlay is the address prefix of the node subnet of an AKS cluster with Azure CNI
	// overlay.
	DefaultAKSNodeSubnetCIDRForOverlay = "10.224.0.0/16"
	// DefaultFleetsMemberGroup is the update group of an Azure Kubernetes Fleet member.
	DefaultFleetsMemberGroup = "default"
)

// AKSVirtualNetworkName is the default virtual network name of an AKS cluster: the control plane's name, as in CAPZ.
func AKSVirtualNetworkName(controlPlane string) string { return controlPlane }

// AKSSubnetName is the default node subnet name of an AKS cluster: the control plane's name, as in CAPZ.
func AKSSubnetName(controlPlane string) string { return controlPlane }

// AKSNodeResourceGroupName is the default resource group AKS creates for a cluster's nodes, named the way AKS
// names it: MC_<resourceGroup>_<controlPlane>_<location>.
func AKSNodeResourceGroupName(resourceGroup, controlPlane, location string) string {
	return fmt.Sprintf("MC_%s_%s_%s", resourceGroup, controlPlane, location)
}
