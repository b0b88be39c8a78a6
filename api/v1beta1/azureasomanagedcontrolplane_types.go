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

// ASOManagedControlPlaneFinalizer lets the AzureASOManagedControlPlane controller release its ASO objects before
// the AzureASOManagedControlPlane goes.
const ASOManagedControlPlaneFinalizer = "azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io"

// AzureASOManagedControlPlaneSpec is the desired state of an AzureASOManagedControlPlane.
type AzureASOManagedControlPlaneSpec struct {
	AzureASOManagedControlPlaneTemplateResourceSpec `json:",inline"`
}

// AzureASOManagedControlPlaneStatus is the observed state of an AzureASOManagedControlPlane (Cluster API v1beta2
// control plane contract).
type AzureASOManagedControlPlaneStatus struct {
	// conditions of the AzureASOManagedControlPlane: Ready, Available (mirrored by Cluster API into the Cluster's
	// ControlPlaneAvailable), Paused and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the control plane has been initialized.
	// +optional
	Initialization AzureASOManagedControlPlaneInitializationStatus `json:"initialization,omitempty,omitzero"`

	// externalManagedControlPlane is always true: AKS runs the control plane, so there are no control plane
	// Machines.
	// +optional
	ExternalManagedControlPlane *bool `json:"externalManagedControlPlane,omitempty"`

	// version is the Kubernetes version of the control plane as AKS reports it.
	//
	// Deprecated: Cluster API v1.14 reads versions; version is kept as its fallback.
	// +optional
	Version string `json:"version,omitempty"`

	// versions are the Kubernetes versions of the control plane, oldest first.
	// +listType=map
	// +listMapKey=version
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +optional
	Versions []clusterv1.StatusVersion `json:"versions,omitempty"`

	// controlPlaneEndpoint is the endpoint of the API server, from the ManagedCluster's FQDN. The
	// AzureASOManagedCluster copies it to its spec for Cluster API.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// resources is the state of every ASO object in spec.resources.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureASOManagedControlPlaneInitializationStatus reports the initialization of an AzureASOManagedControlPlane.
// +kubebuilder:validation:MinProperties=1
type AzureASOManagedControlPlaneInitializationStatus struct {
	// controlPlaneInitialized is true once the ManagedCluster is ready and the kubeconfig secret has been written;
	// it never goes back to false.
	// +optional
	ControlPlaneInitialized *bool `json:"controlPlaneInitialized,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azureasomanagedcontrolplanes,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureASOManagedControlPlane belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".status.version"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".status.controlPlaneEndpoint.host",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedControlPlane is an AKS cluster described by raw ASO objects (a ManagedCluster and related objects
// such as MaintenanceConfigurations), used as a Cluster API control plane. The objects in spec.resources are
// applied as written, except for the ManagedCluster fields Cluster API owns: the Kubernetes version (from
// spec.version), the pod and service CIDRs (from the Cluster) and the kubeconfig secret.
type AzureASOManagedControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureASOManagedControlPlane.
	// +optional
	Spec AzureASOManagedControlPlaneSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the AzureASOManagedControlPlane.
	// +optional
	Status AzureASOManagedControlPlaneStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureASOManagedControlPlaneList is a list of AzureASOManagedControlPlanes.
type AzureASOManagedControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedControlPlane `json:"items"`
}

// GetConditions returns the conditions of the AzureASOManagedControlPlane.
func (c *AzureASOManagedControlPlane) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureASOManagedControlPlane.
func (c *AzureASOManagedControlPlane) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureASOManagedControlPlane's ASO objects (status.resources).
func (c *AzureASOManagedControlPlane) SetResourceStatuses(resources []ResourceStatus) {
	c.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedControlPlane{}, &AzureASOManagedControlPlaneList{})
}
