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

// VirtualNetwork returns the cluster's virtual network in its resource group: the address space of its CIDR
// blocks, its own tags with the cluster's, and the cluster's Edge Zone. Whether the network is the user's is
// decided by the caller (IsVirtualNetworkReferenced) and the engine, not here.
func VirtualNetwork(c azure.Cluster, vnet infrav1.VnetSpec) *asonetwork.VirtualNetwork {
	out := &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(vnet.Name)},
		Spec: asonetwork.VirtualNetwork_Spec{
			AzureName:        vnet.Name,
			Owner:            ownerGroup(c, virtualNetworkGroup(c, vnet)),
			Location:         ptr.To(c.Location),
			ExtendedLocation: extendedLocation(c),
			Tags:             c.NamedTags(vnet.Name, azure.RoleCommon, vnet.Tags),
		},
	}
	if len(vnet.CIDRBlocks) > 0 {
		out.Spec.AddressSpace = &asonetwork.AddressSpace{AddressPrefixes: vnet.CIDRBlocks}
	}
	return out
}
