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

// AzureManagedClusterSpec is the desired state of an AzureManagedCluster.
type AzureManagedClusterSpec struct {
	// controlPlaneEndpoint is the endpoint of the API server. The provider copies it from the
	// AzureManagedControlPlane; users do not set it.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// AzureManagedClusterStatus is the observed state of an AzureManagedCluster (Cluster API v1beta2 contract).
type AzureManagedClusterStatus struct {
	// conditions of the AzureManagedCluster: Ready (mirrored by Cluster API into the Cluster's InfrastructureReady)
	// and Paused.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the infrastructure has been provisioned.
	// +optional
	Initialization AzureManagedClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureManagedClusterInitializationStatus reports the provisioning of a managed cluster's infrastructure.
// +kubebuilder:validation:MinProperties=1
type AzureManagedClusterInitializationStatus struct {
	// provisioned is true once the control plane endpoint is known; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azuremanagedclusters,scope=Namespaced,categories=cluster-api,shortName=amc
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureManagedCluster belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureManagedCluster is the infrastructure cluster of an AKS cluster. It creates nothing in Azure: it carries the
// control plane endpoint of its AzureManagedControlPlane, which owns all Azure resources. AzureASOManagedCluster is
// the flexible alternative, which takes raw ASO objects.
type AzureManagedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureManagedCluster.
	// +optional
	Spec AzureManagedClusterSpec `json:"spec,omitempty,omitzero"`

	// status is the observed state of the AzureManagedCluster.
	// +optional
	Status AzureManagedClusterStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureManagedClusterList is a list of AzureManagedClusters.
type AzureManagedClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureManagedCluster `json:"items"`
}

// GetConditions returns the conditions of the AzureManagedCluster.
func (c *AzureManagedCluster) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureManagedCluster.
func (c *AzureManagedCluster) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

func init() {
	objectTypes = append(objectTypes, &AzureManagedCluster{}, &AzureManagedClusterList{})
}
