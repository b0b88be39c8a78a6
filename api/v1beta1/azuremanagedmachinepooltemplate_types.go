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

// AzureManagedMachinePoolTemplateSpec is the spec of an AzureManagedMachinePoolTemplate.
type AzureManagedMachinePoolTemplateSpec struct {
	// template is the AzureManagedMachinePool created from this template.
	// +required
	Template AzureManagedMachinePoolTemplateResource `json:"template"`
}

// AzureManagedMachinePoolTemplateResource is the AzureManagedMachinePool created from a template.
type AzureManagedMachinePoolTemplateResource struct {
	// metadata is applied to the AzureManagedMachinePool.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureManagedMachinePool.
	// +required
	Spec AzureManagedMachinePoolTemplateResourceSpec `json:"spec"`
}

// AzureManagedMachinePoolTemplateResourceSpec is the AzureManagedMachinePool spec of a template.
type AzureManagedMachinePoolTemplateResourceSpec struct {
	AzureManagedMachinePoolClassSpec `json:",inline"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azuremanagedmachinepooltemplates,scope=Namespaced,categories=cluster-api,shortName=ammpt
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedMachinePoolTemplate is a template for AzureManagedMachinePools, used by ClusterClass. Its spec is
// immutable. AzureASOManagedMachinePoolTemplate is the flexible alternative, which takes raw ASO objects.
type AzureManagedMachinePoolTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureManagedMachinePoolTemplateSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AzureManagedMachinePoolTemplateList is a list of AzureManagedMachinePoolTemplates.
type AzureManagedMachinePoolTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedMachinePoolTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedMachinePoolTemplate{}, &AzureManagedMachinePoolTemplateList{})
}
