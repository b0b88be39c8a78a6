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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// PublicIPInput describes a public IP address.
type PublicIPInput struct {
	// Spec is the address: name, DNS name and IP tags.
	Spec infrav1.PublicIPSpec
	// Zones are the availability zones of a zonal or zone-redundant address.
	Zones []string
	// IPv6 makes an IPv6 address; otherwise IPv4.
	IPv6 bool
	// RegionOnly keeps the address in the region when the cluster is in an Edge Zone: CAPZ v1.26.0 gives the
	// addresses of NAT gateways and of the bastion no extended location (azure/scope/cluster.go, PublicIPSpecs).
	RegionOnly bool
}

// PublicIPAddress returns a Standard, static public IP address in the cluster's resource group. A DNS name's
// first label becomes the Azure domain name label, and the whole name its FQDN, as CAPZ sends them.
func PublicIPAddress(c azure.Cluster, in PublicIPInput) *asonetwork.PublicIPAddress {
	version := asonetwork.IPVersion_IPv4
	if in.IPv6 {
		version = asonetwork.IPVersion_IPv6
	}
	ip := &asonetwork.PublicIPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Spec.Name)},
		Spec: asonetwork.PublicIPAddress_Spec{
			AzureName:                in.Spec.Name,
			Owner:                    c.ResourceGroupOwner(),
			Location:                 ptr.To(c.Location),
			Sku:                      &asonetwork.PublicIPAddressSku{Name: ptr.To(asonetwork.PublicIPAddressSku_Name_Standard)},
			PublicIPAllocationMethod: ptr.To(asonetwork.IPAllocationMethod_Static),
			PublicIPAddressVersion:   ptr.To(version),
			Zones:                    in.Zones,
			Tags:                     c.NamedTags(in.Spec.Name, ""),
		},
	}
	if !in.RegionOnly {
		ip.Spec.ExtendedLocation = extendedLocation(c)
	}
	if in.Spec.DNSName != "" {
		label, _, _ := strings.Cut(in.Spec.DNSName, ".")
		ip.Spec.DnsSettings = &asonetwork.PublicIPAddressDnsSettings{DomainNameLabel: ptr.To(label), Fqdn: ptr.To(in.Spec.DNSName)}
	}
	for _, tag := range in.Spec.IPTags {
		ip.Spec.IpTags = append(ip.Spec.IpTags, asonetwork.IpTag{IpTagType: ptr.To(tag.Type), Tag: ptr.To(tag.Tag)})
	}
	return ip
}

// extendedLocation returns the cluster's Edge Zone for network resources that support one.
func extendedLocation(c azure.Cluster) *asonetwork.ExtendedLocation {
	if c.ExtendedLocation == nil {
		return nil
	}
	return &asonetwork.ExtendedLocation{Name: ptr.To(c.ExtendedLocation.Name), Type: ptr.To(asonetwork.ExtendedLocationType(c.ExtendedLocation.Type))}
}
