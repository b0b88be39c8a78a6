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

// SecurityGroupInput describes a network security group.
type SecurityGroupInput struct {
	// Spec is the security group: its name and tags. Its rules are separate objects (SecurityRule).
	Spec infrav1.SecurityGroup
	// ResourceGroup is the group of the virtual network, where CAPZ puts its security groups.
	ResourceGroup string
}

// NetworkSecurityGroup returns a network security group, tagged with its own tags and the cluster's.
func NetworkSecurityGroup(c azure.Cluster, in SecurityGroupInput) *asonetwork.NetworkSecurityGroup {
	return &asonetwork.NetworkSecurityGroup{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Spec.Name)},
		Spec: asonetwork.NetworkSecurityGroup_Spec{
			AzureName: in.Spec.Name,
			Owner:     ownerGroup(c, in.ResourceGroup),
			Location:  ptr.To(c.Location),
			Tags:      c.NamedTags(in.Spec.Name, "", in.Spec.Tags),
		},
	}
}
