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

// AzureASOManagedControlPlaneTemplateSpec is the spec of an AzureASOManagedControlPlaneTemplate.
type AzureASOManagedControlPlaneTemplateSpec struct {
	// template is the AzureASOManagedControlPlane created from this template.
	// +required
	Template AzureASOManagedControlPlaneTemplateResource `json:"template"`
}

// AzureASOManagedControlPlaneTemplateResource is the AzureASOManagedControlPlane created from a template.
type AzureASOManagedControlPlaneTemplateResource struct {
	// metadata is applied to the AzureASOManagedControlPlane.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureASOManagedControlPlane.
	// +optional
	Spec AzureASOManagedControlPlaneTemplateResourceSpec `json:"spec,omitempty,omitzero"`
}

// AzureASOManagedControlPlaneTemplateResourceSpec is the AzureASOManagedControlPlane spec of a template.
type AzureASOManagedControlPlaneTemplateResourceSpec struct {
	// version is the Kubernetes version of the cluster, e.g. v1.33.2. The provider sets the ManagedCluster's
	// kubernetesVersion from it; Cluster API topology sets it from the Cluster.
	// +optional
	Version string `json:"version,omitempty"`

	// resources are the ASO objects of the control plane (a ManagedCluster and related objects), as complete
	// manifests with apiVersion, kind, metadata.name and spec. The provider applies them with server-side apply,
	// in this object's namespace, with this object as their controller owner; it deletes the objects it owns that
	// leave the list. Unknown fields are kept, so any ASO kind and version may be used.
	// +listType=atomic
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Resources []runtime.RawExtension `json:"resources,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azureasomanagedcontrolplanetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedControlPlaneTemplate is a template for AzureASOManagedControlPlanes, used by ClusterClass.
type AzureASOManagedControlPlaneTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureASOManagedControlPlaneTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureASOManagedControlPlaneTemplateList is a list of AzureASOManagedControlPlaneTemplates.
type AzureASOManagedControlPlaneTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedControlPlaneTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedControlPlaneTemplate{}, &AzureASOManagedControlPlaneTemplateList{})
}
