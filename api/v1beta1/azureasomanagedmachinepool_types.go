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
)

// ASOManagedMachinePoolFinalizer lets the AzureASOManagedMachinePool controller release its ASO objects before the
// AzureASOManagedMachinePool goes.
const ASOManagedMachinePoolFinalizer = "azureasomanagedmachinepool.infrastructure.cluster.x-k8s.io"

// AzureASOManagedMachinePoolSpec is the desired state of an AzureASOManagedMachinePool.
type AzureASOManagedMachinePoolSpec struct {
	// providerIDList are the provider IDs of the agent pool's nodes, as on the Nodes. The provider sets it.
	// +listType=atomic
	// +optional
	ProviderIDList []string `json:"providerIDList,omitempty"`

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

// AzureASOManagedMachinePoolStatus is the observed state of an AzureASOManagedMachinePool (Cluster API v1beta2
// contract, plus status.ready, which Cluster API v1.14 still reads for machine pools).
type AzureASOManagedMachinePoolStatus struct {
	// conditions of the AzureASOManagedMachinePool: Ready, Paused and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the machine pool has been provisioned.
	// +optional
	Initialization AzureASOManagedMachinePoolInitializationStatus `json:"initialization,omitempty,omitzero"`

	// ready mirrors initialization.provisioned; Cluster API v1.14 reads it for machine pools.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// replicas is the number of nodes of the agent pool as AKS reports it.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// resources is the state of every ASO object in spec.resources.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureASOManagedMachinePoolInitializationStatus reports the provisioning of an AzureASOManagedMachinePool.
// +kubebuilder:validation:MinProperties=1
type AzureASOManagedMachinePoolInitializationStatus struct {
	// provisioned is true once every resource is ready; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azureasomanagedmachinepools,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureASOManagedMachinePool belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas"
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedMachinePool is an AKS agent pool described by raw ASO objects (a ManagedClustersAgentPool), used
// as the infrastructure of a Cluster API MachinePool. The objects in spec.resources are applied as written, except
// for the agent pool fields Cluster API owns: the orchestrator version and, unless the pool autoscales, the node
// count (both from the MachinePool).
type AzureASOManagedMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureASOManagedMachinePool.
	// +optional
	Spec AzureASOManagedMachinePoolSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the AzureASOManagedMachinePool.
	// +optional
	Status AzureASOManagedMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureASOManagedMachinePoolList is a list of AzureASOManagedMachinePools.
type AzureASOManagedMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedMachinePool `json:"items"`
}

// GetConditions returns the conditions of the AzureASOManagedMachinePool.
func (p *AzureASOManagedMachinePool) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions sets the conditions of the AzureASOManagedMachinePool.
func (p *AzureASOManagedMachinePool) SetConditions(conditions []metav1.Condition) {
	p.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureASOManagedMachinePool's ASO objects (status.resources).
func (p *AzureASOManagedMachinePool) SetResourceStatuses(resources []ResourceStatus) {
	p.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedMachinePool{}, &AzureASOManagedMachinePoolList{})
}
