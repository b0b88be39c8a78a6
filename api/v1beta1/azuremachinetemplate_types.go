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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// AzureMachineTemplateSpec is the spec of an AzureMachineTemplate.
type AzureMachineTemplateSpec struct {
	// template is the AzureMachine created from this template.
	// +required
	Template AzureMachineTemplateResource `json:"template"`
}

// AzureMachineTemplateResource is the AzureMachine created from a template.
type AzureMachineTemplateResource struct {
	// metadata is applied to the AzureMachine.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec of the AzureMachine.
	// +required
	Spec AzureMachineSpec `json:"spec"`
}

// AzureMachineTemplateStatus reports what a machine of the template offers, for autoscaling from zero.
type AzureMachineTemplateStatus struct {
	// conditions of the AzureMachineTemplate: Paused, while the Cluster or the template is paused (its azure.json
	// Secret then changes only to lose a revoked identity's credentials).
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// capacity is the resources of a machine of this template, e.g. cpu and memory.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`

	// nodeInfo describes the node of a machine of this template.
	// +optional
	NodeInfo *NodeInfo `json:"nodeInfo,omitempty"`
}

// NodeInfo describes the node of a machine.
type NodeInfo struct {
	// architecture of the node, e.g. amd64 or arm64.
	// +kubebuilder:validation:Enum=amd64;arm64;s390x;ppc64le
	// +optional
	Architecture string `json:"architecture,omitempty"`

	// operatingSystem of the node, e.g. linux or windows.
	// +kubebuilder:validation:Enum=linux;windows
	// +optional
	OperatingSystem string `json:"operatingSystem,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureMachineTemplate is a template for AzureMachines. Its spec is immutable: roll out a change by creating a
// new template.
type AzureMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the template.
	// +required
	Spec AzureMachineTemplateSpec `json:"spec"`

	// status reports what a machine of this template offers.
	// +optional
	Status AzureMachineTemplateStatus `json:"status,omitempty,omitzero"`
}

// GetConditions returns the conditions of the AzureMachineTemplate.
func (t *AzureMachineTemplate) GetConditions() []metav1.Condition { return t.Status.Conditions }

// SetConditions sets the conditions of the AzureMachineTemplate.
func (t *AzureMachineTemplate) SetConditions(conditions []metav1.Condition) {
	t.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// AzureMachineTemplateList is a list of AzureMachineTemplates.
type AzureMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureMachineTemplate `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AzureMachineTemplate{}, &AzureMachineTemplateList{})
}
