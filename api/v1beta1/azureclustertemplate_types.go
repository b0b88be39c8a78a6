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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// AzureClusterTemplateSpec is the spec of an AzureClusterTemplate.
type AzureClusterTemplateSpec struct {
	// template is the AzureCluster created from this template.
	// +required
	Template AzureClusterTemplateResource `json:"template"`
}

// AzureClusterTemplateResource is the AzureCluster created from a template.
type AzureClusterTemplateResource struct {
	// metadata is applied to the AzureCluster.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureCluster.
	// +required
	Spec AzureClusterTemplateResourceSpec `json:"spec"`
}

// AzureClusterTemplateResourceSpec is the AzureCluster spec of a template. It has no names or IDs of Azure
// resources: those are derived from each cluster's name.
type AzureClusterTemplateResourceSpec struct {
	AzureClusterClassSpec `json:",inline"`

	// networkSpec describes the cluster's network.
	// +optional
	NetworkSpec NetworkTemplateSpec `json:"networkSpec,omitempty,omitzero"`

	// bastionSpec describes an optional bastion host.
	// +optional
	BastionSpec BastionTemplateSpec `json:"bastionSpec,omitempty,omitzero"`
}

// NetworkTemplateSpec is the network of a cluster template.
type NetworkTemplateSpec struct {
	NetworkClassSpec `json:",inline"`

	// vnet is the virtual network of the cluster.
	// +optional
	Vnet VnetTemplateSpec `json:"vnet,omitempty,omitzero"`

	// subnets are the subnets of the virtual network.
	// +optional
	Subnets SubnetTemplatesSpec `json:"subnets,omitempty"`

	// apiServerLB is the load balancer in front of the API server.
	// +optional
	APIServerLB *LoadBalancerClassSpec `json:"apiServerLB,omitempty"`

	// nodeOutboundLB is the outbound load balancer of worker nodes.
	// +optional
	NodeOutboundLB *LoadBalancerClassSpec `json:"nodeOutboundLB,omitempty"`

	// controlPlaneOutboundLB is the outbound load balancer of control-plane nodes.
	// +optional
	ControlPlaneOutboundLB *LoadBalancerClassSpec `json:"controlPlaneOutboundLB,omitempty"`

	// additionalAPIServerLBPorts are extra ports opened on the API server load balancer.
	// +optional
	AdditionalAPIServerLBPorts []LoadBalancerPort `json:"additionalAPIServerLBPorts,omitempty"`
}

// VnetTemplateSpec is the virtual network of a cluster template.
type VnetTemplateSpec struct {
	VnetClassSpec `json:",inline"`

	// peerings are peerings with other virtual networks.
	// +optional
	Peerings VnetPeeringsTemplateSpec `json:"peerings,omitempty"`
}

// VnetPeeringsTemplateSpec is a list of peerings of a cluster template.
type VnetPeeringsTemplateSpec []VnetPeeringClassSpec

// SubnetTemplatesSpec is a list of subnets of a cluster template.
type SubnetTemplatesSpec []SubnetTemplateSpec

// SubnetTemplateSpec is a subnet of a cluster template.
type SubnetTemplateSpec struct {
	SubnetClassSpec `json:",inline"`

	// securityGroup is the network security group of the subnet.
	// +optional
	SecurityGroup SecurityGroupClass `json:"securityGroup,omitempty,omitzero"`

	// natGateway is the NAT gateway of the subnet.
	// +optional
	NatGateway NatGatewayClassSpec `json:"natGateway,omitempty,omitzero"`
}

// BastionTemplateSpec is the bastion host of a cluster template.
type BastionTemplateSpec struct {
	// azureBastion is an Azure Bastion host.
	// +optional
	AzureBastion *AzureBastionTemplateSpec `json:"azureBastion,omitempty"`
}

// AzureBastionTemplateSpec is the Azure Bastion host of a cluster template.
type AzureBastionTemplateSpec struct {
	// subnet of the bastion host.
	// +optional
	Subnet SubnetTemplateSpec `json:"subnet,omitempty,omitzero"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azureclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureClusterTemplate is a template for AzureClusters, used by ClusterClass. Its spec is immutable.
type AzureClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureClusterTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureClusterTemplateList is a list of AzureClusterTemplates.
type AzureClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureClusterTemplate{}, &AzureClusterTemplateList{})
}
