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

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// MachinePoolMachineFinalizer lets the AzureMachinePoolMachine controller delete the instance from the scale set
// before the AzureMachinePoolMachine goes.
const MachinePoolMachineFinalizer = "azuremachinepoolmachine.infrastructure.cluster.x-k8s.io"

// AzureMachinePoolMachineSpec is the desired state of one instance of a virtual machine scale set.
type AzureMachinePoolMachineSpec struct {
	// providerID is the provider ID of the instance, as on its Node.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +required
	ProviderID string `json:"providerID"`

	// instanceID is the ID Azure gave the instance in its scale set, as CAPZ records it: a Uniform scale set
	// instance's number, a Flexible one's VM name. The provider leaves it empty.
	// +optional
	InstanceID string `json:"instanceID,omitempty"`

	// model is what the instance's VM is made of: the AzureMachinePool's settings when the instance was created.
	// The AzureMachinePool controller sets it when it creates the instance (of a Flexible scale set) and never
	// changes it, so that a changed AzureMachinePool rolls its instances instead of changing them in place.
	// An extension beyond CAPZ. Immutable.
	// +optional
	Model *AzureMachinePoolMachineModel `json:"model,omitempty"`
}

// AzureMachinePoolMachineModel is the model of an instance of a Flexible scale set: the settings of its VM,
// taken from its AzureMachinePool and MachinePool.
type AzureMachinePoolMachineModel struct {
	// template is the AzureMachinePool's spec.template.
	// +required
	Template AzureMachinePoolMachineTemplate `json:"template"`

	// additionalTags are the AzureMachinePool's spec.additionalTags.
	// +optional
	AdditionalTags infrav1.Tags `json:"additionalTags,omitempty"`

	// identity is the AzureMachinePool's spec.identity.
	// +optional
	Identity infrav1.VMIdentity `json:"identity,omitempty"`

	// systemAssignedIdentityRole is the AzureMachinePool's spec.systemAssignedIdentityRole. The role assignment of
	// each instance is named after it and the instance.
	// +optional
	SystemAssignedIdentityRole *infrav1.SystemAssignedIdentityRole `json:"systemAssignedIdentityRole,omitempty"`

	// userAssignedIdentities are the AzureMachinePool's spec.userAssignedIdentities.
	// +optional
	UserAssignedIdentities []infrav1.UserAssignedIdentity `json:"userAssignedIdentities,omitempty"`

	// version is the MachinePool's Kubernetes version, which selects the default image.
	// +optional
	Version string `json:"version,omitempty"`

	// failureDomain is the availability zone of the instance; empty for none.
	// +optional
	FailureDomain string `json:"failureDomain,omitempty"`
}

// AzureMachinePoolMachineStatus is the observed state of an AzureMachinePoolMachine (Cluster API v1beta2
// contract).
type AzureMachinePoolMachineStatus struct {
	// conditions of the AzureMachinePoolMachine: Ready (mirrored by Cluster API into the Machine's
	// InfrastructureReady) and Paused.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the instance has been provisioned.
	// +optional
	Initialization AzureMachinePoolMachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// ready is true when the instance is provisioned and runs the scale set's latest model.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// nodeRef references the instance's Node in the workload cluster.
	// +optional
	NodeRef *corev1.ObjectReference `json:"nodeRef,omitempty"`

	// version is the Kubernetes version of the instance's Node.
	// +optional
	Version string `json:"version,omitempty"`

	// provisioningState is the provisioning state of the instance.
	// +optional
	ProvisioningState string `json:"provisioningState,omitempty"`

	// instanceName is the name of the instance (its computer name).
	// +optional
	InstanceName string `json:"instanceName,omitempty"`

	// latestModelApplied is true when the instance runs the scale set's latest model.
	// +optional
	LatestModelApplied bool `json:"latestModelApplied,omitempty"`

	// resources is the state of every ASO object of the instance.
	// +optional
	Resources []infrav1.ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureMachinePoolMachineInitializationStatus reports the provisioning of a scale set instance.
// +kubebuilder:validation:MinProperties=1
type AzureMachinePoolMachineInitializationStatus struct {
	// provisioned is true once the instance is provisioned; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremachinepoolmachines,scope=Namespaced,categories=cluster-api,shortName=ampm
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureMachinePoolMachine belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".status.version"
// +kubebuilder:printcolumn:name="State",type="string",JSONPath=".status.provisioningState"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureMachinePoolMachine is one instance of an AzureMachinePool's scale set. The AzureMachinePool creates it, and
// Cluster API creates a Machine for it (MachinePool Machines).
type AzureMachinePoolMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureMachinePoolMachine.
	// +required
	Spec AzureMachinePoolMachineSpec `json:"spec"`

	// status is the observed state of the AzureMachinePoolMachine.
	// +optional
	Status AzureMachinePoolMachineStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureMachinePoolMachineList is a list of AzureMachinePoolMachines.
type AzureMachinePoolMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureMachinePoolMachine `json:"items"`
}

// GetConditions returns the conditions of the AzureMachinePoolMachine.
func (m *AzureMachinePoolMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions sets the conditions of the AzureMachinePoolMachine.
func (m *AzureMachinePoolMachine) SetConditions(conditions []metav1.Condition) {
	m.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureMachinePoolMachine's ASO objects (status.resources).
func (m *AzureMachinePoolMachine) SetResourceStatuses(resources []infrav1.ResourceStatus) {
	m.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureMachinePoolMachine{}, &AzureMachinePoolMachineList{})
}
