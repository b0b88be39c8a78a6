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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// privateDNSLocation is the location of private DNS zones and their links: they are global resources.
const privateDNSLocation = "global"

// PrivateDNSZoneInput describes the private DNS zone of a private API server.
type PrivateDNSZoneInput struct {
	// Zone is the zone name, e.g. my-cluster.capz.io.
	Zone string
	// ResourceGroup is the zone's resource group; empty means the cluster's. A zone in another group is owned by
	// that group's ARM ID: the provider does not manage other resource groups.
	ResourceGroup string
}

// PrivateDNSZone returns the private DNS zone of a private API server.
func PrivateDNSZone(c azure.Cluster, in PrivateDNSZoneInput) *asonetworkdns.PrivateDnsZone {
	return &asonetworkdns.PrivateDnsZone{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Zone)},
		Spec: asonetworkdns.PrivateDnsZone_Spec{
			AzureName: in.Zone,
			Owner:     ownerGroup(c, in.ResourceGroup),
			Location:  ptr.To(privateDNSLocation),
			Tags:      c.Tags(""),
		},
	}
}
