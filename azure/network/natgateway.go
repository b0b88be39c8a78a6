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

// NatGateway returns a Standard NAT gateway in the cluster's resource group with its public IP address (the
// PublicIPAddress object of spec.ip.name) and zones; Azure's default TCP idle timeout (4 minutes), which CAPZ
// leaves too.
func NatGateway(c azure.Cluster, spec infrav1.NatGateway) *asonetwork.NatGateway {
	out := &asonetwork.NatGateway{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(spec.Name)},
		Spec: asonetwork.NatGateway_Spec{
			AzureName: spec.Name,
			Owner:     ownerGroup(c, c.ResourceGroup),
			Location:  ptr.To(c.Location),
			Sku:       &asonetwork.NatGatewaySku{Name: ptr.To(asonetwork.NatGatewaySku_Name_Standard)},
			Zones:     spec.Zones,
			Tags:      c.NamedTags(spec.Name, ""),
		},
	}
	if spec.NatGatewayIP.Name != "" {
		out.Spec.PublicIpAddresses = []asonetwork.SubResource{{
			Reference: objectReference("PublicIPAddress", azure.ObjectName(spec.NatGatewayIP.Name)),
		}}
	}
	return out
}
