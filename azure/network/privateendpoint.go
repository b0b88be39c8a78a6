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
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// PrivateEndpointInput describes a private endpoint in a subnet of the cluster.
type PrivateEndpointInput struct {
	// Spec is the private endpoint.
	Spec infrav1.PrivateEndpointSpec
	// Subnet references the subnet the endpoint is in.
	Subnet *genruntime.ResourceReference
}

// PrivateEndpoint returns a private endpoint in the cluster's resource group, in its own location (default: the
// cluster's). Its connections to private link services are automatic, or manual (the remote owner approves them)
// with manualApproval. A connection without a name is named after the endpoint. Static private IPs, the network
// interface's name and application security groups are passed through.
func PrivateEndpoint(c azure.Cluster, in PrivateEndpointInput) *asonetwork.PrivateEndpoint {
	spec := in.Spec
	location := spec.Location
	if location == "" {
		location = c.Location
	}
	out := &asonetwork.PrivateEndpoint{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(spec.Name)},
		Spec: asonetwork.PrivateEndpoint_Spec{
			AzureName: spec.Name,
			Owner:     ownerGroup(c, c.ResourceGroup),
			Location:  ptr.To(location),
			Subnet:    &asonetwork.Subnet_PrivateEndpoint_SubResourceEmbedded{Reference: in.Subnet},
			Tags:      c.NamedTags(spec.Name, ""),
		},
	}
	if spec.CustomNetworkInterfaceName != "" {
		out.Spec.CustomNetworkInterfaceName = ptr.To(spec.CustomNetworkInterfaceName)
	}
	var connections []asonetwork.PrivateLinkServiceConnection
	for i, conn := range spec.PrivateLinkServiceConnections {
		name := conn.Name
		if name == "" {
			name = spec.Name
			if len(spec.PrivateLinkServiceConnections) > 1 {
				name = infrav1.WithIndex(spec.Name, i+1)
			}
		}
		connection := asonetwork.PrivateLinkServiceConnection{
			Name:                        ptr.To(name),
			PrivateLinkServiceReference: armReference(conn.PrivateLinkServiceID),
			GroupIds:                    conn.GroupIDs,
		}
		if conn.RequestMessage != "" {
			connection.RequestMessage = ptr.To(conn.RequestMessage)
		}
		connections = append(connections, connection)
	}
	if spec.ManualApproval {
		out.Spec.ManualPrivateLinkServiceConnections = connections
	} else {
		out.Spec.PrivateLinkServiceConnections = connections
	}
	for _, ip := range spec.PrivateIPAddresses {
		out.Spec.IpConfigurations = append(out.Spec.IpConfigurations, asonetwork.PrivateEndpointIPConfiguration{PrivateIPAddress: ptr.To(ip)})
	}
	for _, asg := range spec.ApplicationSecurityGroups {
		out.Spec.ApplicationSecurityGroups = append(out.Spec.ApplicationSecurityGroups,
			asonetwork.ApplicationSecurityGroupSpec_PrivateEndpoint_SubResourceEmbedded{Reference: armReference(asg)})
	}
	return out
}
