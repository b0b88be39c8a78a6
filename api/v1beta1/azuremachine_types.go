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

// MachineFinalizer lets the AzureMachine controller release the machine's ASO objects before the AzureMachine goes.
const MachineFinalizer = "azuremachine.infrastructure.cluster.x-k8s.io"

// VMIDAnnotation records on an AzureMachine the unique ID Azure gave its VM (properties.vmId, as ASO reports it),
// when the provider first reads it. Azure gives a VM created again under the same name another one: ASO sends its
// PUT again after its sync period, without reading first, and so creates a VM deleted outside Cluster API again,
// without the machine's bootstrap data (VMDeletedReason).
const VMIDAnnotation = "infrastructure.cluster.x-k8s.io/vm-id"

// VMDeletedReason is the reason of the Ready and VirtualMachineReady conditions of a machine whose VM was deleted
// outside Cluster API after it was provisioned: the machine is failed, as CAPZ marks it (VMDeletedError), for a
// MachineHealthCheck to replace it (docs/troubleshooting.md); the provider never creates the VM again.
const VMDeletedReason = "VMDeleted"

// VMStateDeleted is the status.vmState of a machine whose VM was deleted outside Cluster API (VMDeletedReason), as
// CAPZ reports it.
const VMStateDeleted = "Deleted"

// AzureMachineSpec is the desired state of an Azure virtual machine.
type AzureMachineSpec struct {
	// providerID is set by the provider: azure:// followed by the VM's resource ID, as on the Node.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +optional
	ProviderID *string `json:"providerID,omitempty"`

	// vmSize is the size of the VM, e.g. Standard_D2s_v3. Required on an AzureMachine; a template may leave it to
	// a ClusterClass patch.
	// +optional
	VMSize string `json:"vmSize,omitempty"`

	// failureDomain is the availability zone of the VM.
	//
	// Deprecated: use the Machine's failureDomain, which takes precedence.
	// +optional
	FailureDomain *string `json:"failureDomain,omitempty"`

	// image is the OS image of the VM. Defaults to an image for the Machine's Kubernetes version.
	// +optional
	Image *Image `json:"image,omitempty"`

	// identity is the kind of managed identity of the VM.
	// +kubebuilder:default=None
	// +optional
	Identity VMIdentity `json:"identity,omitempty"`

	// userAssignedIdentities are the identities of a VM with identity UserAssigned.
	// +optional
	UserAssignedIdentities []UserAssignedIdentity `json:"userAssignedIdentities,omitempty"`

	// systemAssignedIdentityRole is the role given to the system-assigned identity.
	// +optional
	SystemAssignedIdentityRole *SystemAssignedIdentityRole `json:"systemAssignedIdentityRole,omitempty"`

	// roleAssignmentName is the name of the system-assigned identity's role assignment.
	//
	// Deprecated: use systemAssignedIdentityRole.name.
	// +optional
	RoleAssignmentName string `json:"roleAssignmentName,omitempty"`

	// osDisk is the OS disk of the VM.
	// +required
	OSDisk OSDisk `json:"osDisk"`

	// dataDisks are the data disks of the VM.
	// +optional
	DataDisks []DataDisk `json:"dataDisks,omitempty"`

	// sshPublicKey is the base64-encoded OpenSSH public key of the VM's admin user. Defaults to a generated key.
	// +optional
	SSHPublicKey string `json:"sshPublicKey,omitempty"`

	// additionalTags are added to the VM's Azure resources, on top of the cluster's.
	// +optional
	AdditionalTags Tags `json:"additionalTags,omitempty"`

	// additionalCapabilities are optional capabilities of the VM.
	// +optional
	AdditionalCapabilities *AdditionalCapabilities `json:"additionalCapabilities,omitempty"`

	// allocatePublicIP gives the VM a public IP address.
	// +optional
	AllocatePublicIP bool `json:"allocatePublicIP,omitempty"`

	// enableIPForwarding turns on IP forwarding on the VM's network interfaces.
	// +optional
	EnableIPForwarding bool `json:"enableIPForwarding,omitempty"`

	// acceleratedNetworking turns on accelerated networking.
	//
	// Deprecated: use networkInterfaces[].acceleratedNetworking.
	// +optional
	AcceleratedNetworking *bool `json:"acceleratedNetworking,omitempty"`

	// diagnostics configures the VM's diagnostics.
	// +optional
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`

	// spotVMOptions makes the VM a spot instance.
	// +optional
	SpotVMOptions *SpotVMOptions `json:"spotVMOptions,omitempty"`

	// securityProfile is the security profile of the VM.
	// +optional
	SecurityProfile *SecurityProfile `json:"securityProfile,omitempty"`

	// subnetName is the subnet of the VM's network interface.
	//
	// Deprecated: use networkInterfaces[].subnetName.
	// +optional
	SubnetName string `json:"subnetName,omitempty"`

	// dnsServers are DNS servers of the VM's network interfaces.
	// +optional
	DNSServers []string `json:"dnsServers,omitempty"`

	// disableExtensionOperations prevents extensions from being installed on the VM.
	// +optional
	DisableExtensionOperations *bool `json:"disableExtensionOperations,omitempty"`

	// disableVMBootstrapExtension skips the extension that reports bootstrap success. As in CAPZ since v1.25, the
	// extension is installed only when this is false: unset means true.
	// +optional
	DisableVMBootstrapExtension *bool `json:"disableVMBootstrapExtension,omitempty"`

	// vmExtensions are extensions installed on the VM.
	// +optional
	VMExtensions []VMExtension `json:"vmExtensions,omitempty"`

	// networkInterfaces are the network interfaces of the VM; the first one is primary.
	// +optional
	NetworkInterfaces []NetworkInterface `json:"networkInterfaces,omitempty"`

	// capacityReservationGroupID places the VM in a capacity reservation group.
	// +optional
	CapacityReservationGroupID *string `json:"capacityReservationGroupID,omitempty"`

	// virtualMachineScaleSetID attaches the VM to an existing Flexible scale set.
	// +optional
	VirtualMachineScaleSetID string `json:"virtualMachineScaleSetID,omitempty"`

	// asoPatches are patches applied to the ASO objects generated for the machine (see ASOPatch).
	// +optional
	ASOPatches []ASOPatch `json:"asoPatches,omitempty"`
}

// AzureMachineStatus is the observed state of an AzureMachine (Cluster API v1beta2 contract).
type AzureMachineStatus struct {
	// conditions of the AzureMachine: Ready (mirrored by Cluster API into the Machine's InfrastructureReady),
	// Paused, one condition per resource family and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the VM has been provisioned.
	// +optional
	Initialization AzureMachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// addresses of the VM: InternalIP, ExternalIP and Hostname.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Addresses []clusterv1.MachineAddress `json:"addresses,omitempty"`

	// failureDomain is the availability zone the VM runs in.
	// +optional
	FailureDomain string `json:"failureDomain,omitempty"`

	// vmState is the provisioning state of the VM as ASO reports it.
	// +optional
	VMState string `json:"vmState,omitempty"`

	// resources is the state of every ASO object of the machine.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureMachineInitializationStatus reports the provisioning of a machine.
// +kubebuilder:validation:MinProperties=1
type AzureMachineInitializationStatus struct {
	// provisioned is true once the VM and its resources are ready; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureMachine belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="State",type="string",JSONPath=".status.vmState"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureMachine is an Azure virtual machine for a Cluster API Machine, with its network interfaces, disks,
// public IP, extensions and role assignment, all created as ASO objects.
type AzureMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureMachine.
	// +required
	Spec AzureMachineSpec `json:"spec"`

	// status is the observed state of the AzureMachine.
	// +optional
	Status AzureMachineStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureMachineList is a list of AzureMachines.
type AzureMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureMachine `json:"items"`
}

// GetConditions returns the conditions of the AzureMachine.
func (m *AzureMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions sets the conditions of the AzureMachine.
func (m *AzureMachine) SetConditions(conditions []metav1.Condition) { m.Status.Conditions = conditions }

// SetResourceStatuses sets the state of the AzureMachine's ASO objects (status.resources).
func (m *AzureMachine) SetResourceStatuses(resources []ResourceStatus) {
	m.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureMachine{}, &AzureMachineList{})
}
