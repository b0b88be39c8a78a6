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

// AzureManagedClusterTemplateSpec is the spec of an AzureManagedClusterTemplate.
type AzureManagedClusterTemplateSpec struct {
	// template is the AzureManagedCluster created from this template.
	// +required
	Template AzureManagedClusterTemplateResource `json:"template"`
}

// AzureManagedClusterTemplateResource is the AzureManagedCluster created from a template.
type AzureManagedClusterTemplateResource struct {
	// metadata is applied to the AzureManagedCluster.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureManagedCluster; it has no fields.
	// +required
	Spec AzureManagedClusterTemplateResourceSpec `json:"spec"`
}

// AzureManagedClusterTemplateResourceSpec is the AzureManagedCluster spec of a template. It is empty: an
// AzureManagedCluster has nothing to configure.
type AzureManagedClusterTemplateResourceSpec struct{}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azuremanagedclustertemplates,scope=Namespaced,categories=cluster-api,shortName=amct
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedClusterTemplate is a template for AzureManagedClusters, used by ClusterClass.
// AzureASOManagedClusterTemplate is the flexible alternative, which takes raw ASO objects.
type AzureManagedClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureManagedClusterTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureManagedClusterTemplateList is a list of AzureManagedClusterTemplates.
type AzureManagedClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedClusterTemplate{}, &AzureManagedClusterTemplateList{})
}
