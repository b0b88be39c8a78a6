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
	"strings"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
)

// Families of the objects of an AKS cluster and its agent pools: each family is one condition, <Family>Ready.
var (
	FamilyResourceGroup    = network.FamilyResourceGroup
	FamilyVNet             = network.FamilyVNet
	FamilySubnets          = network.FamilySubnets
	FamilyPrivateEndpoints = network.FamilyPrivateEndpoints
	FamilyManagedCluster   = azure.NewFamily("ManagedCluster")
	FamilyAgentPool        = azure.NewFamily("AgentPool")
)

// ControlPlaneResources returns every ASO object of an AzureManagedControlPlane, in the order the engine applies
// them: the resource group, the virtual network and the node subnet, the subnet's private endpoints and the AKS
// cluster.
//
//   - The resource group is Adoptable: the engine finds out whether it is the user's.
//   - A virtual network in another resource group than the cluster's is the user's (as in CAPZ): it and its subnet
//     are Referenced, only read, and the private endpoints reference the subnet by ARM ID. A virtual network in the
//     cluster's resource group is Adoptable, and so is its subnet: the provider creates them unless they exist
//     without the cluster's "owned" tag (subnets have no tags, so an existing subnet stays the user's and is never
//     rewritten).
//   - Fleet membership and cluster extensions are not supported yet; the webhook rejects them (see ManagedCluster).
func ControlPlaneResources(in ControlPlaneInput) []azure.Resource {
	c := in.Cluster
	vnet := virtualNetworkSpec(c, in.Spec.VirtualNetwork)
	subnet := subnetSpec(in.Spec.VirtualNetwork.Subnet)
	referenced := IsVirtualNetworkReferenced(c, in.Spec.VirtualNetwork)

	out := []azure.Resource{{Object: resources.ResourceGroup(c), Family: FamilyResourceGroup, Adoptable: true}}
	out = append(out,
		azure.Resource{Object: network.VirtualNetwork(c, vnet), Family: FamilyVNet, Referenced: referenced, Adoptable: !referenced},
		azure.Resource{
			Object: network.Subnet(c, network.SubnetInput{Vnet: vnet, Spec: subnet}),
			Family: FamilySubnets, Referenced: referenced, Adoptable: !referenced,
		},
	)
	subnetRef := network.SubnetReference(c, vnet, subnet)
	for _, spec := range subnet.PrivateEndpoints {
		pe := network.PrivateEndpoint(c, network.PrivateEndpointInput{Spec: spec, Subnet: subnetRef})
		out = append(out, azure.Resource{Object: pe, Family: FamilyPrivateEndpoints})
	}
	return append(out, azure.Resource{Object: ManagedCluster(in), Family: FamilyManagedCluster})
}

// MachinePoolResources returns the ASO objects of an AzureManagedMachinePool: its agent pool.
func MachinePoolResources(in AgentPoolInput) []azure.Resource {
	return []azure.Resource{{Object: AgentPool(in), Family: FamilyAgentPool}}
}

// IsVirtualNetworkReferenced reports whether an AKS cluster's virtual network is the user's: it is in another
// resource group than the cluster's.
func IsVirtualNetworkReferenced(c azure.Cluster, vnet infrav1.ManagedControlPlaneVirtualNetwork) bool {
	return vnet.ResourceGroup != "" && !strings.EqualFold(vnet.ResourceGroup, c.ResourceGroup)
}

// SubnetID returns the ARM ID of an AKS cluster's node subnet, the VNetSubnetID of the inputs.
func SubnetID(c azure.Cluster, vnet infrav1.ManagedControlPlaneVirtualNetwork) string {
	return azure.ChildID(network.VirtualNetworkID(c, virtualNetworkSpec(c, vnet)), "subnets", vnet.Subnet.Name)
}

// virtualNetworkSpec is an AKS cluster's virtual network as the network translators take it. A user's network
// gets its ARM ID, which makes the network translators reference it and its subnets by ID.
func virtualNetworkSpec(c azure.Cluster, vnet infrav1.ManagedControlPlaneVirtualNetwork) infrav1.VnetSpec {
	out := infrav1.VnetSpec{ResourceGroup: vnet.ResourceGroup, Name: vnet.Name}
	if vnet.CIDRBlock != "" {
		out.CIDRBlocks = []string{vnet.CIDRBlock}
	}
	if IsVirtualNetworkReferenced(c, vnet) {
		out.ID = azure.ResourceID(c.SubscriptionID, vnet.ResourceGroup, azure.TypeVirtualNetwork, vnet.Name)
	}
	return out
}

// subnetSpec is an AKS cluster's node subnet as the network translators take it.
func subnetSpec(s infrav1.ManagedControlPlaneSubnet) infrav1.SubnetSpec {
	out := infrav1.SubnetSpec{SubnetClassSpec: infrav1.SubnetClassSpec{
		Name: s.Name, Role: infrav1.SubnetNode, ServiceEndpoints: s.ServiceEndpoints, PrivateEndpoints: s.PrivateEndpoints,
	}}
	if s.CIDRBlock != "" {
		out.CIDRBlocks = []string{s.CIDRBlock}
	}
	return out
}
