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
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// VirtualNetworkLinkInput describes the link of a private DNS zone to a virtual network.
type VirtualNetworkLinkInput struct {
	// Zone is the private DNS zone's name.
	Zone string
	// VnetName is the linked virtual network's name; the link is named "<vnet>-link", as in CAPZ.
	VnetName string
	// VirtualNetwork references the linked virtual network.
	VirtualNetwork *genruntime.ResourceReference
}

// VirtualNetworkLinkName is the name of the link of a private DNS zone to a virtual network.
func VirtualNetworkLinkName(vnet string) string { return vnet + "-link" }

// PrivateDNSZonesVirtualNetworkLink returns the link that lets a virtual network resolve a private DNS zone.
// Machines do not register their names in the zone.
func PrivateDNSZonesVirtualNetworkLink(c azure.Cluster, in VirtualNetworkLinkInput) *asonetworkdns.PrivateDnsZonesVirtualNetworkLink {
	name := VirtualNetworkLinkName(in.VnetName)
	return &asonetworkdns.PrivateDnsZonesVirtualNetworkLink{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Zone, name)},
		Spec: asonetworkdns.PrivateDnsZonesVirtualNetworkLink_Spec{
			AzureName:           name,
			Owner:               objectOwner(in.Zone),
			Location:            ptr.To(privateDNSLocation),
			VirtualNetwork:      &asonetworkdns.SubResource{Reference: in.VirtualNetwork},
			RegistrationEnabled: ptr.To(false),
			Tags:                c.Tags(""),
		},
	}
}
