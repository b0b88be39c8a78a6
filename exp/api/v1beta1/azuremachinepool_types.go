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
	"k8s.io/apimachinery/pkg/util/intstr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// MachinePoolFinalizer lets the AzureMachinePool controller release the scale set's ASO objects before the
// AzureMachinePool goes.
const MachinePoolFinalizer = "azuremachinepool.infrastructure.cluster.x-k8s.io"

// AzureMachinePoolMachineKind is the kind of the objects an AzureMachinePool creates for its instances; it is
// reported in status.infrastructureMachineKind.
const AzureMachinePoolMachineKind = "AzureMachinePoolMachine"

// AzureMachinePoolSpec is the desired state of a virtual machine scale set.
type AzureMachinePoolSpec struct {
	// location is the Azure region of the scale set, e.g. eastus.
	// +required
	Location string `json:"location"`

	// template describes the scale set's virtual machines.
	// +required
	Template AzureMachinePoolMachineTemplate `json:"template"`

	// additionalTags are added to the scale set's Azure resources, on top of the cluster's.
	// +optional
	AdditionalTags infrav1.Tags `json:"additionalTags,omitempty"`

	// providerID is set by the provider: azure:// followed by the scale set's resource ID.
	// +optional
	ProviderID string `json:"providerID,omitempty"`

	// providerIDList are the provider IDs of the scale set's instances, as on the Nodes. The provider sets it.
	// +listType=atomic
	// +optional
	ProviderIDList []string `json:"providerIDList,omitempty"`

	// identity is the kind of managed identity of the scale set.
	// +kubebuilder:default=None
	// +optional
	Identity infrav1.VMIdentity `json:"identity,omitempty"`

	// systemAssignedIdentityRole is the role given to the system-assigned identity.
	// +optional
	SystemAssignedIdentityRole *infrav1.SystemAssignedIdentityRole `json:"systemAssignedIdentityRole,omitempty"`

	// userAssignedIdentities are the identities of a scale set with identity UserAssigned.
	// +optional
	UserAssignedIdentities []infrav1.UserAssignedIdentity `json:"userAssignedIdentities,omitempty"`

	// roleAssignmentName is the name of the system-assigned identity's role assignment.
	//
	// Deprecated: use systemAssignedIdentityRole.name.
	// +optional
	RoleAssignmentName string `json:"roleAssignmentName,omitempty"`

	// strategy is how instances are replaced when the template changes.
	// +kubebuilder:default={type: "RollingUpdate", rollingUpdate: {maxSurge: 1, maxUnavailable: 0, deletePolicy: Oldest}}
	// +optional
	Strategy AzureMachinePoolDeploymentStrategy `json:"strategy,omitempty,omitzero"`

	// orchestrationMode is the orchestration mode of the scale set. Immutable.
	// Flexible: one VM per instance, each an AzureMachinePoolMachine with a Cluster API Machine. Uniform: Azure
	// makes the instances; ASO cannot act on one of them, so a Uniform pool has no AzureMachinePoolMachines, scales in
	// by capacity with Azure's scale-in policy for deletePolicy (the provider drains the Nodes of the instances Azure
	// will remove first) and rolls by capacity (see docs/machine-pools.md).
	// +kubebuilder:default=Uniform
	// +optional
	OrchestrationMode OrchestrationModeType `json:"orchestrationMode,omitempty"`

	// platformFaultDomainCount is the number of fault domains of each placement group of the scale set.
	// +optional
	PlatformFaultDomainCount *int32 `json:"platformFaultDomainCount,omitempty"`

	// zoneBalance spreads the instances evenly across the availability zones.
	// +optional
	ZoneBalance *bool `json:"zoneBalance,omitempty"`

	// asoPatches are patches applied to the ASO objects generated for the scale set (see ASOPatch).
	// +optional
	ASOPatches []infrav1.ASOPatch `json:"asoPatches,omitempty"`
}

// AzureMachinePoolMachineTemplate describes the virtual machines of a scale set.
type AzureMachinePoolMachineTemplate struct {
	// vmSize is the size of the VMs, e.g. Standard_D2s_v3.
	// +required
	VMSize string `json:"vmSize"`

	// image is the OS image of the VMs. Defaults to an image for the MachinePool's Kubernetes version.
	// +optional
	Image *infrav1.Image `json:"image,omitempty"`

	// osDisk is the OS disk of the VMs.
	// +required
	OSDisk infrav1.OSDisk `json:"osDisk"`

	// dataDisks are the data disks of the VMs.
	// +optional
	DataDisks []infrav1.DataDisk `json:"dataDisks,omitempty"`

	// sshPublicKey is the base64-encoded OpenSSH public key of the VMs' admin user. Defaults to a generated key.
	// +optional
	SSHPublicKey string `json:"sshPublicKey,omitempty"`

	// acceleratedNetworking turns on accelerated networking.
	//
	// Deprecated: use networkInterfaces[].acceleratedNetworking.
	// +optional
	AcceleratedNetworking *bool `json:"acceleratedNetworking,omitempty"`

	// additionalCapabilities are optional capabilities of the VMs.
	// +optional
	AdditionalCapabilities *infrav1.AdditionalCapabilities `json:"additionalCapabilities,omitempty"`

	// diagnostics configures the VMs' diagnostics.
	// +optional
	Diagnostics *infrav1.Diagnostics `json:"diagnostics,omitempty"`

	// terminateNotificationTimeout turns on terminate notifications: the time, in minutes (5–15), an instance is
	// kept after Azure announces its deletion.
	// +optional
	TerminateNotificationTimeout *int32 `json:"terminateNotificationTimeout,omitempty"`

	// securityProfile is the security profile of the VMs.
	// +optional
	SecurityProfile *infrav1.SecurityProfile `json:"securityProfile,omitempty"`

	// spotVMOptions makes the VMs spot instances.
	// +optional
	SpotVMOptions *infrav1.SpotVMOptions `json:"spotVMOptions,omitempty"`

	// subnetName is the subnet of the VMs' network interface.
	//
	// Deprecated: use networkInterfaces[].subnetName.
	// +optional
	SubnetName string `json:"subnetName,omitempty"`

	// vmExtensions are extensions installed on the VMs.
	// +optional
	VMExtensions []infrav1.VMExtension `json:"vmExtensions,omitempty"`

	// disableVMBootstrapExtension skips the extension that reports bootstrap success. As in CAPZ since v1.25, the
	// extension is installed only when this is false: unset means true.
	// +optional
	DisableVMBootstrapExtension *bool `json:"disableVMBootstrapExtension,omitempty"`

	// networkInterfaces are the network interfaces of the VMs; the first one is primary.
	// +optional
	NetworkInterfaces []infrav1.NetworkInterface `json:"networkInterfaces,omitempty"`
}

// AzureMachinePoolDeploymentStrategyType is how the instances of a scale set are replaced.
// +kubebuilder:validation:Enum=RollingUpdate
type AzureMachinePoolDeploymentStrategyType string

// RollingUpdateAzureMachinePoolDeploymentStrategyType replaces instances a few at a time.
const RollingUpdateAzureMachinePoolDeploymentStrategyType AzureMachinePoolDeploymentStrategyType = "RollingUpdate"

// AzureMachinePoolDeploymentStrategy is how the instances of a scale set are replaced when its template changes.
type AzureMachinePoolDeploymentStrategy struct {
	// type of the strategy; only RollingUpdate.
	// +kubebuilder:default=RollingUpdate
	// +optional
	Type AzureMachinePoolDeploymentStrategyType `json:"type,omitempty"`

	// rollingUpdate configures the rolling update.
	// +optional
	RollingUpdate *MachineRollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// AzureMachinePoolDeletePolicyType is the order in which instances are deleted.
// +kubebuilder:validation:Enum=Random;Newest;Oldest
type AzureMachinePoolDeletePolicyType string

const (
	// RandomDeletePolicyType deletes instances in no particular order.
	RandomDeletePolicyType AzureMachinePoolDeletePolicyType = "Random"
	// NewestDeletePolicyType deletes the newest instances first.
	NewestDeletePolicyType AzureMachinePoolDeletePolicyType = "Newest"
	// OldestDeletePolicyType deletes the oldest instances first.
	OldestDeletePolicyType AzureMachinePoolDeletePolicyType = "Oldest"
)

// MachineRollingUpdateDeployment configures the rolling update of a scale set.
type MachineRollingUpdateDeployment struct {
	// maxUnavailable is the number or percentage of instances that may be unavailable during the update.
	// +kubebuilder:default=0
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is the number or percentage of instances that may be created above the desired count during the
	// update.
	// +kubebuilder:default=1
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// deletePolicy is the order in which instances are deleted. A Uniform scale set's scale-in policy: Oldest is
	// OldestVM, Newest NewestVM, Random Azure's Default policy (zones and fault domains balanced, then the newest);
	// while a Uniform pool rolls out, its scale-in removes the oldest (outdated) instances.
	// +kubebuilder:default=Oldest
	// +optional
	DeletePolicy AzureMachinePoolDeletePolicyType `json:"deletePolicy,omitempty"`
}

// OrchestrationModeType is the orchestration mode of a virtual machine scale set.
// +kubebuilder:validation:Enum=Flexible;Uniform
type OrchestrationModeType string

const (
	// FlexibleOrchestrationMode is a Flexible scale set.
	FlexibleOrchestrationMode OrchestrationModeType = "Flexible"
	// UniformOrchestrationMode is a Uniform scale set.
	UniformOrchestrationMode OrchestrationModeType = "Uniform"
)

// AzureMachinePoolStatus is the observed state of an AzureMachinePool (Cluster API v1beta2 contract, plus
// status.ready, which Cluster API v1.14 still reads for machine pools).
type AzureMachinePoolStatus struct {
	// conditions of the AzureMachinePool: Ready, Paused, one condition per resource family and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the scale set has been provisioned.
	// +optional
	Initialization AzureMachinePoolInitializationStatus `json:"initialization,omitempty,omitzero"`

	// ready mirrors initialization.provisioned; Cluster API v1.14 reads it for machine pools.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// replicas is the number of instances of the scale set.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// instances are the instances of the scale set.
	// +optional
	Instances []AzureMachinePoolInstanceStatus `json:"instances,omitempty"`

	// infrastructureMachineKind is AzureMachinePoolMachine: Cluster API creates a Machine for each
	// AzureMachinePoolMachine of the pool.
	// +optional
	InfrastructureMachineKind string `json:"infrastructureMachineKind,omitempty"`

	// image is the image the scale set's model uses, after defaulting.
	// +optional
	Image *infrav1.Image `json:"image,omitempty"`

	// version is the Kubernetes version of the scale set's model.
	// +optional
	Version string `json:"version,omitempty"`

	// provisioningState is the provisioning state of the scale set as ASO reports it.
	// +optional
	ProvisioningState string `json:"provisioningState,omitempty"`

	// resources is the state of every ASO object of the scale set.
	// +optional
	Resources []infrav1.ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureMachinePoolInitializationStatus reports the provisioning of a scale set.
// +kubebuilder:validation:MinProperties=1
type AzureMachinePoolInitializationStatus struct {
	// provisioned is true once the scale set and its resources are ready; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// AzureMachinePoolInstanceStatus is the state of one instance of a scale set.
type AzureMachinePoolInstanceStatus struct {
	// version is the Kubernetes version of the instance.
	// +optional
	Version string `json:"version,omitempty"`

	// provisioningState is the provisioning state of the instance.
	// +optional
	ProvisioningState string `json:"provisioningState,omitempty"`

	// providerID is the provider ID of the instance, as on its Node.
	// +optional
	ProviderID string `json:"providerID,omitempty"`

	// instanceID is the ID of the instance in the scale set.
	// +optional
	InstanceID string `json:"instanceID,omitempty"`

	// instanceName is the name of the instance (its computer name).
	// +optional
	InstanceName string `json:"instanceName,omitempty"`

	// latestModelApplied is true when the instance runs the scale set's latest model.
	// +required
	LatestModelApplied bool `json:"latestModelApplied"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremachinepools,scope=Namespaced,categories=cluster-api,shortName=amp
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureMachinePool belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas"
// +kubebuilder:printcolumn:name="State",type="string",JSONPath=".status.provisioningState"
// +kubebuilder:printcolumn:name="VM Size",type="string",JSONPath=".spec.template.vmSize",priority=1
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureMachinePool is an Azure virtual machine scale set for a Cluster API MachinePool, created as ASO objects.
// Each instance is represented by an AzureMachinePoolMachine.
type AzureMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureMachinePool.
	// +required
	Spec AzureMachinePoolSpec `json:"spec"`

	// status is the observed state of the AzureMachinePool.
	// +optional
	Status AzureMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureMachinePoolList is a list of AzureMachinePools.
type AzureMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureMachinePool `json:"items"`
}

// GetConditions returns the conditions of the AzureMachinePool.
func (p *AzureMachinePool) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions sets the conditions of the AzureMachinePool.
func (p *AzureMachinePool) SetConditions(conditions []metav1.Condition) {
	p.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureMachinePool's ASO objects (status.resources).
func (p *AzureMachinePool) SetResourceStatuses(resources []infrav1.ResourceStatus) {
	p.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureMachinePool{}, &AzureMachinePoolList{})
}
