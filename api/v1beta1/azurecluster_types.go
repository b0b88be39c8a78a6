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

// ClusterFinalizer lets the AzureCluster controller release the cluster's ASO objects before the AzureCluster goes.
const ClusterFinalizer = "azurecluster.infrastructure.cluster.x-k8s.io"

// AzureClusterSpec is the desired state of a self-managed cluster's Azure infrastructure.
type AzureClusterSpec struct {
	AzureClusterClassSpec `json:",inline"`

	// networkSpec describes the cluster's network.
	// +optional
	NetworkSpec NetworkSpec `json:"networkSpec,omitempty,omitzero"`

	// resourceGroup is the resource group of the cluster. Defaults to the cluster name. A resource group that
	// exists without the cluster's "owned" tag is brought by the user and never deleted.
	// +optional
	ResourceGroup string `json:"resourceGroup,omitempty"`

	// bastionSpec describes an optional bastion host.
	// +optional
	BastionSpec BastionSpec `json:"bastionSpec,omitempty,omitzero"`

	// controlPlaneEnabled says whether the cluster has a control plane of Azure machines. When false the provider
	// creates no API server load balancer and waits for the user to set controlPlaneEndpoint.
	// +kubebuilder:default=true
	// +optional
	ControlPlaneEnabled *bool `json:"controlPlaneEnabled,omitempty"`

	// controlPlaneEndpoint is the endpoint of the API server. The provider sets it from the API server load balancer.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// AzureClusterStatus is the observed state of an AzureCluster (Cluster API v1beta2 contract).
type AzureClusterStatus struct {
	// conditions of the AzureCluster: Ready (mirrored by Cluster API into the Cluster's InfrastructureReady), Paused,
	// one condition per resource family and ResourcesReady.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// initialization reports when the infrastructure has been provisioned.
	// +optional
	Initialization AzureClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// failureDomains are the failure domains machines can be placed in.
	// +optional
	FailureDomains FailureDomainList `json:"failureDomains,omitempty"`

	// resources is the state of every ASO object of the cluster.
	// +optional
	Resources []ResourceStatus `json:"resources,omitempty"`

	// observedGeneration is the generation last reconciled successfully.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// AzureClusterInitializationStatus reports the provisioning of a cluster's infrastructure.
// +kubebuilder:validation:MinProperties=1
type AzureClusterInitializationStatus struct {
	// provisioned is true once every Azure resource of the cluster is ready; it never goes back to false.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azureclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster to which this AzureCluster belongs"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Location",type="string",JSONPath=".spec.location"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",priority=1
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureCluster is the Azure infrastructure of a self-managed Cluster API cluster: resource group, network,
// load balancers, bastion and private DNS, all created as ASO objects.
type AzureCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the AzureCluster.
	// +required
	Spec AzureClusterSpec `json:"spec"`

	// status is the observed state of the AzureCluster.
	// +optional
	Status AzureClusterStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureClusterList is a list of AzureClusters.
type AzureClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureCluster `json:"items"`
}

// GetConditions returns the conditions of the AzureCluster.
func (c *AzureCluster) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureCluster.
func (c *AzureCluster) SetConditions(conditions []metav1.Condition) { c.Status.Conditions = conditions }

// SetResourceStatuses sets the state of the AzureCluster's ASO objects (status.resources).
func (c *AzureCluster) SetResourceStatuses(resources []ResourceStatus) {
	c.Status.Resources = resources
}

func init() {
	objectTypes = append(objectTypes, &AzureCluster{}, &AzureClusterList{})
}
