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

// Condition types shared by the kinds of this API. Every kind also carries the Cluster API Ready and Paused
// conditions (clusterv1.ReadyCondition, clusterv1.PausedCondition).
const (
	// ResourcesReadyCondition summarizes the ASO objects of a kind: True when all of them are ready.
	ResourcesReadyCondition = "ResourcesReady"

	// CredentialsReadyCondition is True when the identity referenced by the object may be used from its namespace
	// and the ASO credential secret has been written.
	CredentialsReadyCondition = "CredentialsReady"

	// PatchesAppliedCondition is False when a user patch could not be applied to a generated ASO object.
	PatchesAppliedCondition = "PatchesApplied"

	// CAPZDifferencesAppliedCondition is set on an object whose Azure resources the provider took over from CAPZ
	// (docs/migrating-from-capz.md): False, with the reason AwaitingOptIn and the differences in its message, while
	// deliberate differences from CAPZ (docs/capz-parity.md) wait for ApplyCAPZDifferencesAnnotation; True once none
	// does.
	CAPZDifferencesAppliedCondition = "CAPZDifferencesApplied"
)

// ApplyCAPZDifferencesAnnotation ("true") on an object taken over from CAPZ opts into the provider's values where
// they differ from CAPZ's on purpose (CAPZDifferencesAppliedCondition). Without it, the provider keeps CAPZ's.
const ApplyCAPZDifferencesAnnotation = "infrastructure.cluster.x-k8s.io/apply-capz-differences"

// Condition reasons shared by the kinds of this API.
const (
	// ProvisioningReason means ASO is still creating or updating a resource.
	ProvisioningReason = "Provisioning"
	// FailedReason means ASO reported a terminal error for a resource.
	FailedReason = "Failed"
	// DeletingReason means resources are being deleted.
	DeletingReason = "Deleting"
	// ReadyReason means everything is ready.
	ReadyReason = "Ready"
	// AwaitingOptInReason means a change waits for the user's opt-in (ApplyCAPZDifferencesAnnotation).
	AwaitingOptInReason = "AwaitingOptIn"
	// WaitingForClusterInfrastructureReason means the object waits for the Cluster's infrastructure.
	WaitingForClusterInfrastructureReason = "WaitingForClusterInfrastructure"
	// WaitingForBootstrapDataReason means the object waits for the Machine's bootstrap data secret.
	WaitingForBootstrapDataReason = "WaitingForBootstrapData"
	// NamespaceNotAllowedReason means the identity may not be used from the object's namespace.
	NamespaceNotAllowedReason = "NamespaceNotAllowed"
	// InvalidPatchReason means a user patch is invalid or does not apply.
	InvalidPatchReason = "InvalidPatch"
	// PatchTargetNotFoundReason means a user patch selects no generated object, so it has no effect.
	PatchTargetNotFoundReason = "PatchTargetNotFound"
	// APIErrorReason means a request to the API server failed without a reason of its own (e.g. the connection
	// broke); the message has the error.
	APIErrorReason = "APIError"
	// DeletionHeldReason means an object is no longer desired but is kept: something else in the same pass
	// failed, and the provider deletes only after a pass that handled everything.
	DeletionHeldReason = "DeletionHeld"
	// InternalErrorReason means the controller failed; details are in its logs.
	InternalErrorReason = "InternalError"
)

// Annotations and labels of the provider.
const (
	// ClusterNameLabel is the Cluster API label carrying the cluster name; every ASO object gets it.
	ClusterNameLabel = "cluster.x-k8s.io/cluster-name"

	// OwnedByLabel marks the objects (ASO objects, credential secrets) created by this provider. Its value is the
	// name of the owning Cluster API cluster.
	OwnedByLabel = "infrastructure.cluster.x-k8s.io/owned-by-azure-provider"

	// ClusterTagPrefix prefixes the Azure tag that marks resources of a cluster:
	// sigs.k8s.io_cluster-api-provider-azure_cluster_<cluster> = owned | shared.
	ClusterTagPrefix = "sigs.k8s.io_cluster-api-provider-azure_cluster_"

	// RoleTagKey is the Azure tag carrying a resource's role in the cluster.
	RoleTagKey = "sigs.k8s.io_cluster-api-provider-azure_role"

	// ResourceLifecycleOwned is the tag value for resources created by the provider.
	ResourceLifecycleOwned = "owned"

	// ResourceLifecycleShared is the tag value for resources shared with the provider.
	ResourceLifecycleShared = "shared"
)
