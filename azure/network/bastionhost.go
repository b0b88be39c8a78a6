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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// BastionHostInput describes the cluster's Azure Bastion host.
type BastionHostInput struct {
	// Spec is the bastion host, defaulted: name, public IP, subnet, SKU.
	Spec infrav1.AzureBastion
	// Subnet references the AzureBastionSubnet of the cluster's virtual network.
	Subnet *genruntime.ResourceReference
}

// BastionHost returns an Azure Bastion host in the cluster's resource group with one IP configuration,
// "<name>-bastionIP" as in CAPZ: its public IP (the PublicIPAddress object of spec.publicIP.name) and the bastion
// subnet, with a dynamic private IP; its DNS name is "<name>-bastion", lower case, as CAPZ sends it.
func BastionHost(c azure.Cluster, in BastionHostInput) *asonetwork.BastionHost {
	sku := in.Spec.Sku
	if sku == "" {
		sku = infrav1.BasicBastionHostSku
	}
	publicIP := objectReference("PublicIPAddress", azure.ObjectName(in.Spec.PublicIP.Name))
	return &asonetwork.BastionHost{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Spec.Name)},
		Spec: asonetwork.BastionHost_Spec{
			AzureName:       in.Spec.Name,
			Owner:           ownerGroup(c, c.ResourceGroup),
			Location:        ptr.To(c.Location),
			Sku:             &asonetwork.Sku{Name: ptr.To(asonetwork.Sku_Name(sku))},
			EnableTunneling: ptr.To(in.Spec.EnableTunneling),
			DnsName:         ptr.To(strings.ToLower(in.Spec.Name) + "-bastion"),
			IpConfigurations: []asonetwork.BastionHostIPConfiguration{{
				Name:                      ptr.To(in.Spec.Name + "-bastionIP"),
				PublicIPAddress:           &asonetwork.SubResource{Reference: publicIP},
				Subnet:                    &asonetwork.SubResource{Reference: in.Subnet},
				PrivateIPAllocationMethod: ptr.To(asonetwork.IPAllocationMethod_Dynamic),
			}},
			Tags: c.NamedTags(in.Spec.Name, azure.RoleBastion),
		},
	}
}
