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
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// AzureASOManagedClusterTemplateSpec is the spec of an AzureASOManagedClusterTemplate.
type AzureASOManagedClusterTemplateSpec struct {
	// template is the AzureASOManagedCluster created from this template.
	// +required
	Template AzureASOManagedClusterTemplateResource `json:"template"`
}

// AzureASOManagedClusterTemplateResource is the AzureASOManagedCluster created from a template.
type AzureASOManagedClusterTemplateResource struct {
	// metadata is applied to the AzureASOManagedCluster.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureASOManagedCluster.
	// +optional
	Spec AzureASOManagedClusterTemplateResourceSpec `json:"spec,omitempty,omitzero"`
}

// AzureASOManagedClusterTemplateResourceSpec is the AzureASOManagedCluster spec of a template.
type AzureASOManagedClusterTemplateResourceSpec struct {
	// resources are the ASO objects of the cluster's infrastructure (typically its ResourceGroup), as complete
	// manifests with apiVersion, kind, metadata.name and spec. The provider applies them as written, with
	// server-side apply, in this object's namespace, with this object as their controller owner; it deletes the
	// objects it owns that leave the list. Unknown fields are kept, so any ASO kind and version may be used.
	// +listType=atomic
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Resources []runtime.RawExtension `json:"resources,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azureasomanagedclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedClusterTemplate is a template for AzureASOManagedClusters, used by ClusterClass.
type AzureASOManagedClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureASOManagedClusterTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureASOManagedClusterTemplateList is a list of AzureASOManagedClusterTemplates.
type AzureASOManagedClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedClusterTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedClusterTemplate{}, &AzureASOManagedClusterTemplateList{})
}
