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

// ManagedControlPlaneFinalizer lets the AzureManagedControlPlane controller release the cluster's ASO objects before
// the AzureManagedControlPlane goes.
const ManagedControlPlaneFinalizer = "azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io"

// AzureManagedControlPlaneSpec is the desired state of an AKS cluster.
type AzureManagedControlPlaneSpec struct {
	AzureManagedControlPlaneClassSpec `json:",inline"`

	// nodeResourceGroupName is the resource group AKS creates for the cluster's nodes. Defaults to
	// MC_<resourceGroupName>_<cluster>_<location>. Immutable.
	// +optional
	NodeResourceGroupName string `json:"nodeResourceGroupName,omitempty"`

	// controlPlaneEndpoint is the endpoint of the API server. The provider sets it from the AKS cluster's FQDN.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// sshPublicKey is the base64-encoded OpenSSH public key of the Linux nodes' admin user. When empty the nodes get
	// no SSH key. Immutable.
	// +optional
	SSHPublicKey *string `json:"sshPublicKey,omitempty"`

	// dnsPrefix is the DNS prefix of the API server's FQDN. Defaults to the cluster name. Immutable.
	// +optional
	DNSPrefix *string `json:"dnsPrefix,omitempty"`

	// fleetsMember makes the cluster a member of an Azure Kubernetes Fleet.
	// +optional
	FleetsMember *FleetsMember `json:"fleetsMember,omitempty"`
}

// AzureManagedControlPlaneStatus is the observed state of an AzureManagedControlPlane (Cluster API v1beta2
// control plane contract).
type AzureManagedControlPlaneStatus struct {
	// conditions of the AzureManagedControlPlane: Ready, Available (mirrored by Cluster API into the Cluster's
	// ControlPlaneAvailable), Paused, one condition per resource family and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the control plane has been initialized.
	// +optional
	Initialization AzureManagedControlPlaneInitializationStatus `json:"initialization,omitempty,omitzero"`

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

	// oidcIssuerProfile reports the cluster's OIDC issuer.
	// +optional
	OIDCIssuerProfile *OIDCIssuerProfileStatus `json:"oidcIssuerProfile,omitempty"`

	// autoUpgradeVersion is the version AKS upgraded the cluster to through its auto-upgrade channel, when that is
	// newer than spec.version.
	// +optional
	AutoUpgradeVersion string `json:"autoUpgradeVersion,omitempty"`

	// resources is the state of every ASO object of the control plane.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureManagedControlPlaneInitializationStatus reports the initialization of a managed control plane.
// +kubebuilder:validation:MinProperties=1
type AzureManagedControlPlaneInitializationStatus struct {
	// controlPlaneInitialized is true once the AKS cluster is ready and its kubeconfig secret has been written; it
	// never goes back to false.
	// +optional
	ControlPlaneInitialized *bool `json:"controlPlaneInitialized,omitempty"`
}

// OIDCIssuerProfileStatus reports the OIDC issuer of an AKS cluster.
type OIDCIssuerProfileStatus struct {
	// issuerURL is the URL of the cluster's OIDC issuer.
	// +optional
	IssuerURL *string `json:"issuerURL,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremanagedcontrolplanes,scope=Namespaced,categories=cluster-api,shortName=amcp
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureManagedControlPlane belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".status.version"
// +kubebuilder:printcolumn:name="Location",type="string",JSONPath=".spec.location",priority=1
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedControlPlane is an AKS cluster (an ASO ManagedCluster with its resource group, virtual network,
// subnet, fleet membership and extensions) used as a Cluster API control plane. Its spec is typed; the
// AzureASOManagedControlPlane kind is the flexible alternative, which takes raw ASO objects.
type AzureManagedControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureManagedControlPlane.
	// +required
	Spec AzureManagedControlPlaneSpec `json:"spec"`

	// status is the observed state of the AzureManagedControlPlane.
	// +optional
	Status AzureManagedControlPlaneStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureManagedControlPlaneList is a list of AzureManagedControlPlanes.
type AzureManagedControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedControlPlane `json:"items"`
}

// GetConditions returns the conditions of the AzureManagedControlPlane.
func (c *AzureManagedControlPlane) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureManagedControlPlane.
func (c *AzureManagedControlPlane) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureManagedControlPlane's ASO objects (status.resources).
func (c *AzureManagedControlPlane) SetResourceStatuses(resources []ResourceStatus) {
	c.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedControlPlane{}, &AzureManagedControlPlaneList{})
}
