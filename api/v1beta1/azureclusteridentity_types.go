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
)

// IdentityType is the kind of Azure credential an AzureClusterIdentity holds.
// +kubebuilder:validation:Enum=ServicePrincipal;UserAssignedMSI;ManualServicePrincipal;ServicePrincipalCertificate;WorkloadIdentity;UserAssignedIdentityCredential
type IdentityType string

const (
	// ServicePrincipal is a service principal with a client secret.
	ServicePrincipal IdentityType = "ServicePrincipal"
	// UserAssignedMSI is a user-assigned managed identity of the management cluster's nodes.
	UserAssignedMSI IdentityType = "UserAssignedMSI"
	// ManualServicePrincipal is a service principal with a client secret, managed by hand.
	ManualServicePrincipal IdentityType = "ManualServicePrincipal"
	// ServicePrincipalCertificate is a service principal with a client certificate.
	ServicePrincipalCertificate IdentityType = "ServicePrincipalCertificate"
	// WorkloadIdentity is a federated workload identity.
	WorkloadIdentity IdentityType = "WorkloadIdentity"
	// UserAssignedIdentityCredential is a user-assigned identity credentials file (Azure Arc and the like).
	UserAssignedIdentityCredential IdentityType = "UserAssignedIdentityCredential"
)

// AllowedIdentitiesAnnotation on a Secret lets AzureClusterIdentities of other namespaces use it as their
// clientSecret: a comma-separated list of <namespace>/<name>. The owner of the Secret opts in, per identity.
const AllowedIdentitiesAnnotation = "azure.infrastructure.cluster.x-k8s.io/allowed-identities"

// AzureClusterIdentitySpec is the desired state of an AzureClusterIdentity.
type AzureClusterIdentitySpec struct {
	// type of the credential.
	// +required
	Type IdentityType `json:"type"`

	// resourceID is not used; kept for compatibility.
	//
	// Deprecated: has no effect.
	// +optional
	ResourceID string `json:"resourceID,omitempty"`

	// clientID is the client (application) ID of the service principal or managed identity.
	// +required
	ClientID string `json:"clientID"`

	// clientSecret references the Secret holding the service principal's secret under the key clientSecret
	// (ServicePrincipal, ManualServicePrincipal), or its certificate under certificate and password
	// (ServicePrincipalCertificate). A Secret in another namespace than the identity's is used only if it names
	// the identity in its azure.infrastructure.cluster.x-k8s.io/allowed-identities annotation.
	// +optional
	ClientSecret corev1.SecretReference `json:"clientSecret,omitempty,omitzero"`

	// certPath is the path of a certificate file mounted into the manager's pod (ServicePrincipalCertificate). The
	// manager reads it only inside the directories of its --identity-cert-dirs flag (none by default, which refuses
	// certPath); prefer clientSecret.
	// +optional
	CertPath string `json:"certPath,omitempty"`

	// userAssignedIdentityCredentialsPath is the path of a user-assigned identity credentials file.
	// +optional
	UserAssignedIdentityCredentialsPath string `json:"userAssignedIdentityCredentialsPath,omitempty"`

	// userAssignedIdentityCredentialsCloudType is the cloud of the credentials file: public, usgovernment or china.
	// +optional
	UserAssignedIdentityCredentialsCloudType string `json:"userAssignedIdentityCredentialsCloudType,omitempty"`

	// tenantID is the Azure AD tenant of the identity.
	// +required
	TenantID string `json:"tenantID"`

	// allowedNamespaces says which namespaces may use this identity. Unset: none. Empty ({}): all. A list wins
	// over a selector; an empty selector matches no namespace.
	// +optional
	AllowedNamespaces *AllowedNamespaces `json:"allowedNamespaces,omitempty"`
}

// AllowedNamespaces selects the namespaces that may use an identity.
type AllowedNamespaces struct {
	// list of namespace names.
	// +nullable
	// +optional
	NamespaceList []string `json:"list"`

	// selector selects namespaces by label.
	// +optional
	Selector *metav1.LabelSelector `json:"selector"`
}

// AzureClusterIdentityStatus is the observed state of an AzureClusterIdentity.
type AzureClusterIdentityStatus struct {
	// conditions of the AzureClusterIdentity.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=azureclusteridentities,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta1"
// +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy=true"
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Type",type="string",JSONPath=".spec.type"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"

// AzureClusterIdentity holds Azure credentials and the namespaces allowed to use them. Clusters reference it
// with identityRef; the provider turns it into an ASO credential secret per cluster.
type AzureClusterIdentity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the identity.
	// +required
	Spec AzureClusterIdentitySpec `json:"spec"`

	// status is the observed state of the identity.
	// +optional
	Status AzureClusterIdentityStatus `json:"status,omitempty,omitzero"`
}

// +kubebuilder:object:root=true

// AzureClusterIdentityList is a list of AzureClusterIdentities.
type AzureClusterIdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzureClusterIdentity `json:"items"`
}

// GetConditions returns the conditions of the AzureClusterIdentity.
func (c *AzureClusterIdentity) GetConditions() []metav1.Condition { return c.Status.Conditions }

// SetConditions sets the conditions of the AzureClusterIdentity.
func (c *AzureClusterIdentity) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

func init() {
	objectTypes = append(objectTypes, &AzureClusterIdentity{}, &AzureClusterIdentityList{})
}
