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

// AzureASOManagedMachinePoolTemplateSpec is the spec of an AzureASOManagedMachinePoolTemplate.
type AzureASOManagedMachinePoolTemplateSpec struct {
	// template is the AzureASOManagedMachinePool created from this template.
	// +required
	Template AzureASOManagedMachinePoolTemplateResource `json:"template"`
}

// AzureASOManagedMachinePoolTemplateResource is the AzureASOManagedMachinePool created from a template.
type AzureASOManagedMachinePoolTemplateResource struct {
	// metadata is applied to the AzureASOManagedMachinePool.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureASOManagedMachinePool.
	// +optional
	Spec AzureASOManagedMachinePoolTemplateResourceSpec `json:"spec,omitempty,omitzero"`
}

// AzureASOManagedMachinePoolTemplateResourceSpec is the AzureASOManagedMachinePool spec of a template.
type AzureASOManagedMachinePoolTemplateResourceSpec struct {
	// version is accepted because CAPZ's schema of this template has it (CAPZ gives the machine pool template the
	// control plane template's shape); an AzureASOManagedMachinePool has no version field, so it must stay empty.
	// The agent pool's version comes from the MachinePool.
	// +optional
	Version string `json:"version,omitempty"`

	// resources are the ASO objects of the machine pool (a ManagedClustersAgentPool), as complete manifests with
	// apiVersion, kind, metadata.name and spec. The provider applies them with server-side apply, in this object's
	// namespace, with this object as their controller owner; it deletes the objects it owns that leave the list.
	// Unknown fields are kept, so any ASO kind and version may be used.
	// +listType=atomic
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Resources []runtime.RawExtension `json:"resources,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azureasomanagedmachinepooltemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedMachinePoolTemplate is a template for AzureASOManagedMachinePools, used by ClusterClass.
type AzureASOManagedMachinePoolTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureASOManagedMachinePoolTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureASOManagedMachinePoolTemplateList is a list of AzureASOManagedMachinePoolTemplates.
type AzureASOManagedMachinePoolTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedMachinePoolTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedMachinePoolTemplate{}, &AzureASOManagedMachinePoolTemplateList{})
}
