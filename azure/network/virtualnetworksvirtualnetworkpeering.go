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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// VirtualNetworkPeeringName is the name of the peering from one virtual network to another, as in CAPZ.
func VirtualNetworkPeeringName(from, to string) string { return from + "-To-" + to }

// VirtualNetworkPeerings returns both halves of a peering of the cluster's virtual network with a remote one: the
// forward peering <vnet>-To-<remote>, owned by the cluster's virtual network, with the forward properties, and
// the reverse peering <remote>-To-<vnet>, owned by the remote network (by ARM ID: the provider does not manage it),
// with the reverse properties. The remote network is referenced by ARM ID; the cluster's by VirtualNetworkReference,
// so that ASO waits for a network the provider creates.
func VirtualNetworkPeerings(c azure.Cluster, vnet infrav1.VnetSpec, peering infrav1.VnetPeeringSpec) (
	forward, reverse *asonetwork.VirtualNetworksVirtualNetworkPeering,
) {
	remoteID := remoteVirtualNetworkID(c, peering)

	forwardName := VirtualNetworkPeeringName(vnet.Name, peering.RemoteVnetName)
	forward = virtualNetworkPeering(azure.ObjectName(vnet.Name, forwardName), forwardName, objectOwner(vnet.Name),
		armReference(remoteID), peering.ForwardPeeringProperties)

	reverseName := VirtualNetworkPeeringName(peering.RemoteVnetName, vnet.Name)
	reverse = virtualNetworkPeering(azure.ObjectName(peering.RemoteVnetName, reverseName), reverseName,
		&genruntime.KnownResourceReference{ARMID: remoteID}, VirtualNetworkReference(c, vnet), peering.ReversePeeringProperties)
	return forward, reverse
}

func virtualNetworkPeering(objectName, name string, owner *genruntime.KnownResourceReference, remote *genruntime.ResourceReference,
	props infrav1.VnetPeeringProperties) *asonetwork.VirtualNetworksVirtualNetworkPeering {
	return &asonetwork.VirtualNetworksVirtualNetworkPeering{
		ObjectMeta: metav1.ObjectMeta{Name: objectName},
		Spec: asonetwork.VirtualNetworksVirtualNetworkPeering_Spec{
			AzureName:                 name,
			Owner:                     owner,
			RemoteVirtualNetwork:      &asonetwork.SubResource{Reference: remote},
			AllowForwardedTraffic:     props.AllowForwardedTraffic,
			AllowGatewayTransit:       props.AllowGatewayTransit,
			AllowVirtualNetworkAccess: props.AllowVirtualNetworkAccess,
			UseRemoteGateways:         props.UseRemoteGateways,
		},
	}
}
