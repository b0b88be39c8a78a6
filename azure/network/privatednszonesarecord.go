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

const (
	// APIServerRecord is the name of the API server's A record in the private DNS zone, as in CAPZ: the API server
	// of a private cluster is apiserver.<zone>.
	APIServerRecord = "apiserver"

	apiServerRecordTTL = 300
)

// PrivateDNSZonesARecord returns the A record apiserver.<zone> pointing to the private IP of the internal API
// server load balancer.
func PrivateDNSZonesARecord(zone, ip string) *asonetworkdns.PrivateDnsZonesARecord {
	return &asonetworkdns.PrivateDnsZonesARecord{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(zone, APIServerRecord)},
		Spec: asonetworkdns.PrivateDnsZonesARecord_Spec{
			AzureName: APIServerRecord,
			Owner:     objectOwner(zone),
			Ttl:       ptr.To(apiServerRecordTTL),
			ARecords:  []asonetworkdns.ARecord{{Ipv4Address: ptr.To(ip)}},
		},
	}
}
