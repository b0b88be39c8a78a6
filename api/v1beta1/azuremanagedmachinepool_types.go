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
)

// ManagedMachinePoolFinalizer lets the AzureManagedMachinePool controller release the agent pool's ASO object
// before the AzureManagedMachinePool goes.
const ManagedMachinePoolFinalizer = "azuremanagedmachinepool.infrastructure.cluster.x-k8s.io"

// AzureManagedMachinePoolSpec is the desired state of an AKS agent pool.
type AzureManagedMachinePoolSpec struct {
	AzureManagedMachinePoolClassSpec `json:",inline"`

	// providerIDList are the provider IDs of the agent pool's nodes, as on the Nodes. The provider sets it.
	// +listType=atomic
	// +optional
	ProviderIDList []string `json:"providerIDList,omitempty"`
}

// AzureManagedMachinePoolStatus is the observed state of an AzureManagedMachinePool (Cluster API v1beta2 contract,
// plus status.ready, which Cluster API v1.14 still reads for machine pools).
type AzureManagedMachinePoolStatus struct {
	// conditions of the AzureManagedMachinePool: Ready, Paused, one condition per resource family and
	// ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the agent pool has been provisioned.
	// +optional
	Initialization AzureManagedMachinePoolInitializationStatus `json:"initialization,omitempty,omitzero"`

	// ready mirrors initialization.provisioned; Cluster API v1.14 reads it for machine pools.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// replicas is the number of nodes of the agent pool as AKS reports it.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// resources is the state of every ASO object of the agent pool.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureManagedMachinePoolInitializationStatus reports the provisioning of an agent pool.
// +kubebuilder:validation:MinProperties=1
type AzureManagedMachinePoolInitializationStatus struct {
	// provisioned is true once the agent pool is ready; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremanagedmachinepools,scope=Namespaced,categories=cluster-api,shortName=ammp
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureManagedMachinePool belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Mode",type="string",JSONPath=".spec.mode"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas"
// +kubebuilder:printcolumn:name="SKU",type="string",JSONPath=".spec.sku",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedMachinePool is an AKS agent pool (an ASO ManagedClustersAgentPool) used as the infrastructure of a
// Cluster API MachinePool. Its spec is typed; AzureASOManagedMachinePool is the flexible alternative, which takes
// raw ASO objects.
type AzureManagedMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureManagedMachinePool.
	// +required
	Spec AzureManagedMachinePoolSpec `json:"spec"`

	// status is the observed state of the AzureManagedMachinePool.
	// +optional
	Status AzureManagedMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureManagedMachinePoolList is a list of AzureManagedMachinePools.
type AzureManagedMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedMachinePool `json:"items"`
}

// GetConditions returns the conditions of the AzureManagedMachinePool.
func (p *AzureManagedMachinePool) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions sets the conditions of the AzureManagedMachinePool.
func (p *AzureManagedMachinePool) SetConditions(conditions []metav1.Condition) {
	p.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureManagedMachinePool's ASO objects (status.resources).
func (p *AzureManagedMachinePool) SetResourceStatuses(resources []ResourceStatus) {
	p.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedMachinePool{}, &AzureManagedMachinePoolList{})
}
