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

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// RouteTableInput describes a route table.
type RouteTableInput struct {
	// Name of the route table.
	Name string
	// ResourceGroup is the group of the virtual network, where CAPZ puts its route tables.
	ResourceGroup string
}

// RouteTable returns an empty route table: routes are added by the cloud provider of the workload cluster (pod
// routes without an overlay), not by the provider.
func RouteTable(c azure.Cluster, in RouteTableInput) *asonetwork.RouteTable {
	return &asonetwork.RouteTable{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec: asonetwork.RouteTable_Spec{
			AzureName: in.Name,
			Owner:     ownerGroup(c, in.ResourceGroup),
			Location:  ptr.To(c.Location),
			Tags:      c.NamedTags(in.Name, ""),
		},
	}
}
