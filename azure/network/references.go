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

package network

import (
	"strings"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// References between ASO objects. An object we create is referenced by its Kubernetes name, so that ASO waits for
// it; a resource we do not manage (a bring-your-own one, another cluster's, a part of the same load balancer) is
// referenced by its ARM ID.

// ownerGroup is the owner of a resource in a resource group: the cluster's ResourceGroup object when the group is
// the cluster's, otherwise the group's ARM ID (the provider does not manage other resource groups).
func ownerGroup(c azure.Cluster, group string) *genruntime.KnownResourceReference {
	if group == "" || strings.EqualFold(group, c.ResourceGroup) {
		return c.ResourceGroupOwner()
	}
	return &genruntime.KnownResourceReference{ARMID: azure.ResourceGroupID(c.SubscriptionID, group)}
}

// objectReference references the ASO network object of the given kind and Kubernetes name.
func objectReference(kind, name string) *genruntime.ResourceReference {
	return &genruntime.ResourceReference{Group: asonetwork.GroupVersion.Group, Kind: kind, Name: name}
}

// armReference references an Azure resource by its ARM ID.
func armReference(id string) *genruntime.ResourceReference {
	return &genruntime.ResourceReference{ARMID: id}
}

// byIDOrName references a resource given by ID as it is, and one given by name as the ASO object of that kind.
func byIDOrName(kind, id, name string) *genruntime.ResourceReference {
	if id != "" {
		return armReference(id)
	}
	return objectReference(kind, azure.ObjectName(name))
}

// IsVirtualNetworkReferenced reports whether the cluster's virtual network is brought by the user: it has an id
// and does not carry the cluster's "owned" tag. CAPZ writes the id and tags of a virtual network it created back
// into the spec, so a manifest of a CAPZ-managed network keeps being managed.
func IsVirtualNetworkReferenced(c azure.Cluster, vnet infrav1.VnetSpec) bool {
	return vnet.ID != "" && vnet.Tags[azure.ClusterTagKey(c.Name)] != infrav1.ResourceLifecycleOwned
}

// VirtualNetworkID returns the ARM ID of the cluster's virtual network: its id when given, otherwise the ID of
// its name in its resource group.
func VirtualNetworkID(c azure.Cluster, vnet infrav1.VnetSpec) string {
	if vnet.ID != "" {
		return vnet.ID
	}
	return azure.ResourceID(c.SubscriptionID, virtualNetworkGroup(c, vnet), azure.TypeVirtualNetwork, vnet.Name)
}

// VirtualNetworkReference references the cluster's virtual network: its ASO object when the provider manages it,
// its ARM ID when it is the user's.
func VirtualNetworkReference(c azure.Cluster, vnet infrav1.VnetSpec) *genruntime.ResourceReference {
	if IsVirtualNetworkReferenced(c, vnet) {
		return armReference(VirtualNetworkID(c, vnet))
	}
	return objectReference("VirtualNetwork", azure.ObjectName(vnet.Name))
}

// SubnetReference references a subnet of the cluster's virtual network: its ASO object when the provider manages
// the network, its ARM ID (the subnet's id when given) when the network is the user's.
func SubnetReference(c azure.Cluster, vnet infrav1.VnetSpec, subnet infrav1.SubnetSpec) *genruntime.ResourceReference {
	if !IsVirtualNetworkReferenced(c, vnet) {
		return objectReference("VirtualNetworksSubnet", azure.ObjectName(vnet.Name, subnet.Name))
	}
	if subnet.ID != "" {
		return armReference(subnet.ID)
	}
	return armReference(azure.ChildID(VirtualNetworkID(c, vnet), "subnets", subnet.Name))
}

// virtualNetworkGroup is the resource group of the virtual network, which also holds its security groups and route tables.
func virtualNetworkGroup(c azure.Cluster, vnet infrav1.VnetSpec) string {
	if vnet.ResourceGroup != "" {
		return vnet.ResourceGroup
	}
	return c.ResourceGroup
}

// remoteVirtualNetworkID is the ARM ID of a peered virtual network.
func remoteVirtualNetworkID(c azure.Cluster, peering infrav1.VnetPeeringSpec) string {
	group := peering.ResourceGroup
	if group == "" {
		group = c.ResourceGroup
	}
	return azure.ResourceID(c.SubscriptionID, group, azure.TypeVirtualNetwork, peering.RemoteVnetName)
}

// objectOwner is the owner of a child resource: the ASO object of its parent, named by the parent's name parts.
func objectOwner(parent ...string) *genruntime.KnownResourceReference {
	return &genruntime.KnownResourceReference{Name: azure.ObjectName(parent...)}
}
