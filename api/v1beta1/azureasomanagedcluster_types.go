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

// ASOManagedClusterFinalizer lets the AzureASOManagedCluster controller release its ASO objects before the
// AzureASOManagedCluster goes.
const ASOManagedClusterFinalizer = "azureasomanagedcluster.infrastructure.cluster.x-k8s.io"

// AzureASOManagedClusterSpec is the desired state of an AzureASOManagedCluster.
type AzureASOManagedClusterSpec struct {
	AzureASOManagedClusterTemplateResourceSpec `json:",inline"`

	// controlPlaneEndpoint is the endpoint of the API server. The provider copies it from the
	// AzureASOManagedControlPlane's status; users do not set it.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// AzureASOManagedClusterStatus is the observed state of an AzureASOManagedCluster (Cluster API v1beta2 contract).
type AzureASOManagedClusterStatus struct {
	// conditions of the AzureASOManagedCluster: Ready (mirrored by Cluster API into the Cluster's
	// InfrastructureReady), Paused and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the infrastructure has been provisioned.
	// +optional
	Initialization AzureASOManagedClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// resources is the state of every ASO object in spec.resources.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureASOManagedClusterInitializationStatus reports the provisioning of an AzureASOManagedCluster.
// +kubebuilder:validation:MinProperties=1
type AzureASOManagedClusterInitializationStatus struct {
	// provisioned is true once every resource is ready and the control plane endpoint is known; it never goes back
	// to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azureasomanagedclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureASOManagedCluster belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureASOManagedCluster is the infrastructure cluster of an AKS cluster described by raw ASO objects, typically
// its ResourceGroup. The objects in spec.resources are applied as written; the AzureASOManagedControlPlane holds
// the ManagedCluster.
type AzureASOManagedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureASOManagedCluster.
	// +optional
	Spec AzureASOManagedClusterSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the AzureASOManagedCluster.
	// +optional
	Status AzureASOManagedClusterStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureASOManagedClusterList is a list of AzureASOManagedClusters.
type AzureASOManagedClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureASOManagedCluster `json:"items"`
}

// GetConditions returns the conditions of the AzureASOManagedCluster.
func (c *AzureASOManagedCluster) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureASOManagedCluster.
func (c *AzureASOManagedCluster) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// SetResourceStatuses sets the state of the AzureASOManagedCluster's ASO objects (status.resources).
func (c *AzureASOManagedCluster) SetResourceStatuses(resources []ResourceStatus) {
	c.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureASOManagedCluster{}, &AzureASOManagedClusterList{})
}
