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
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// SubnetInput describes a subnet of the cluster's virtual network.
type SubnetInput struct {
	// Vnet is the virtual network the subnet belongs to.
	Vnet infrav1.VnetSpec
	// Spec is the subnet. Its security group, route table and NAT gateway are attached when they are named: by
	// ARM ID when they have an id, otherwise as the ASO objects of that name.
	Spec infrav1.SubnetSpec
}

// Subnet returns a subnet of the cluster's virtual network with all its address prefixes; a subnet of one prefix
// also has it as its addressPrefix, as CAPZ sends it (Azure refuses addressPrefixes alone to subscriptions without
// the feature Microsoft.Network/AllowMultipleAddressPrefixesOnSubnet). A subnet with an IPv6 prefix never gets a
// NAT gateway: NAT gateways are IPv4 only. privateEndpointNetworkPolicies is not sent, as in CAPZ, whose API has no
// field for it: Azure's default applies, and an ASO patch of the VirtualNetworksSubnet sets it.
func Subnet(c azure.Cluster, in SubnetInput) *asonetwork.VirtualNetworksSubnet {
	s := in.Spec
	out := &asonetwork.VirtualNetworksSubnet{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Vnet.Name, s.Name)},
		Spec: asonetwork.VirtualNetworksSubnet_Spec{
			AzureName:       s.Name,
			Owner:           objectOwner(in.Vnet.Name),
			AddressPrefixes: s.CIDRBlocks,
		},
	}
	if len(s.CIDRBlocks) == 1 {
		out.Spec.AddressPrefix = ptr.To(s.CIDRBlocks[0])
	}
	if s.SecurityGroup.Name != "" || s.SecurityGroup.ID != "" {
		out.Spec.NetworkSecurityGroup = &asonetwork.NetworkSecurityGroupSpec_VirtualNetworks_Subnet_SubResourceEmbedded{
			Reference: byIDOrName("NetworkSecurityGroup", s.SecurityGroup.ID, s.SecurityGroup.Name),
		}
	}
	if s.RouteTable.Name != "" || s.RouteTable.ID != "" {
		out.Spec.RouteTable = &asonetwork.RouteTableSpec_VirtualNetworks_Subnet_SubResourceEmbedded{
			Reference: byIDOrName("RouteTable", s.RouteTable.ID, s.RouteTable.Name),
		}
	}
	if (s.NatGateway.Name != "" || s.NatGateway.ID != "") && !s.IsIPv6Enabled() {
		out.Spec.NatGateway = &asonetwork.SubResource{Reference: byIDOrName("NatGateway", s.NatGateway.ID, s.NatGateway.Name)}
	}
	for _, se := range s.ServiceEndpoints {
		out.Spec.ServiceEndpoints = append(out.Spec.ServiceEndpoints, asonetwork.ServiceEndpointPropertiesFormat{
			Service:   ptr.To(se.Service),
			Locations: se.Locations,
		})
	}
	return out
}
