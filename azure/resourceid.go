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

package azure

import "fmt"

// ResourceGroupID is the ID of a resource group.
func ResourceGroupID(subscription, group string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", subscription, group)
}

// ResourceID is the ID of a resource in a resource group, e.g. ResourceID(s, g, "Microsoft.Network/virtualNetworks", "vnet").
func ResourceID(subscription, group, resourceType, name string) string {
	return fmt.Sprintf("%s/providers/%s/%s", ResourceGroupID(subscription, group), resourceType, name)
}

// ChildID is the ID of a child resource, e.g. ChildID(vnetID, "subnets", "node").
func ChildID(parentID, childType, name string) string {
	return fmt.Sprintf("%s/%s/%s", parentID, childType, name)
}

// Resource types used in IDs.
const (
	TypeVirtualNetwork       = "Microsoft.Network/virtualNetworks"
	TypeLoadBalancer         = "Microsoft.Network/loadBalancers"
	TypePublicIPAddress      = "Microsoft.Network/publicIPAddresses"
	TypeNetworkSecurityGroup = "Microsoft.Network/networkSecurityGroups"
	TypeRouteTable           = "Microsoft.Network/routeTables"
	TypeNatGateway           = "Microsoft.Network/natGateways"
	TypeNetworkInterface     = "Microsoft.Network/networkInterfaces"
	TypePrivateDNSZone       = "Microsoft.Network/privateDnsZones"
	TypeVirtualMachine       = "Microsoft.Compute/virtualMachines"
	TypeScaleSet             = "Microsoft.Compute/virtualMachineScaleSets"
	TypeDisk                 = "Microsoft.Compute/disks"
)

// ProviderIDScheme begins the provider ID cloud-provider-azure writes on a Node: the scheme, then the VM's (or the
// scale set's) resource ID.
const ProviderIDScheme = "azure://"

// ProviderID is the provider ID of the resource of the given ID.
func ProviderID(resourceID string) string { return ProviderIDScheme + resourceID }
