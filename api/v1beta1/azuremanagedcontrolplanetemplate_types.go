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

// AzureManagedControlPlaneTemplateSpec is the spec of an AzureManagedControlPlaneTemplate.
type AzureManagedControlPlaneTemplateSpec struct {
	// template is the AzureManagedControlPlane created from this template.
	// +required
	Template AzureManagedControlPlaneTemplateResource `json:"template"`
}

// AzureManagedControlPlaneTemplateResource is the AzureManagedControlPlane created from a template.
type AzureManagedControlPlaneTemplateResource struct {
	// metadata is applied to the AzureManagedControlPlane.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureManagedControlPlane.
	// +required
	Spec AzureManagedControlPlaneTemplateResourceSpec `json:"spec"`
}

// AzureManagedControlPlaneTemplateResourceSpec is the AzureManagedControlPlane spec of a template. It has no
// cluster-specific fields (DNS prefix, node resource group, endpoint, SSH key, fleet member name).
type AzureManagedControlPlaneTemplateResourceSpec struct {
	AzureManagedControlPlaneClassSpec `json:",inline"`

	// fleetsMember makes the cluster a member of an Azure Kubernetes Fleet; the member is named after the cluster.
	// +optional
	FleetsMember *FleetsMemberClassSpec `json:"fleetsMember,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azuremanagedcontrolplanetemplates,scope=Namespaced,categories=cluster-api,shortName=amcpt
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedControlPlaneTemplate is a template for AzureManagedControlPlanes, used by ClusterClass. Its spec is
// immutable. AzureASOManagedControlPlaneTemplate is the flexible alternative, which takes raw ASO objects.
type AzureManagedControlPlaneTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureManagedControlPlaneTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureManagedControlPlaneTemplateList is a list of AzureManagedControlPlaneTemplates.
type AzureManagedControlPlaneTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedControlPlaneTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedControlPlaneTemplate{}, &AzureManagedControlPlaneTemplateList{})
}
