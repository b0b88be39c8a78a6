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

// Package asosim plays Azure Service Operator for tests and the local management plane: it runs its own controller
// manager that watches the ASO kinds the provider produces and, instead of calling Azure, keeps a fake Azure (a map of
// ARM IDs) and reports back the way ASO does: a finalizer, the Ready condition with observedGeneration, status.id,
// provisioningState, the status fields the provider reads (IP addresses, FQDNs, agent pool counts) and, for managed
// clusters, the kubeconfig secrets asked for in operatorSpec.secrets; like ASO, it never overwrites a Secret the
// managed cluster does not own (Ready false, severity Error, reason FailedWritingAdditionalKubernetesObjects). Like
// ASO, it claims a resource (its finalizer and resource-id) only once its owner is Ready (WaitingForOwner until then),
// its credential is complete and its references resolve. Like ASO, it resolves the references of a spec before the
// resource goes to Azure: a Kubernetes reference to an ASO object that exists and is claimed (else ReferenceNotFound),
// Secrets and ConfigMaps that have the key (else SecretNotFound, ConfigMapNotFound), all retried Warnings. A Ready
// resource exports what its operatorSpec asks to ConfigMaps: configMapExpressions (CEL over the resource) and a managed
// cluster's OIDC issuer URL; VMs and scale sets with a system-assigned identity report its principal. While a resource
// waits or fails, it keeps the status last read from Azure and changes only the Ready condition. It takes a
// resource's credential where ASO v2.18 does, in ASO's order: the Secret its credential-from annotation names (a name
// with '/' refused), else its namespace's aso-credential Secret, else the global credential (none with
// Options.NoGlobalCredential); a credential that is refused (missing, incomplete, a '/', no global credential) keeps
// a resource unclaimed (Failed, a Warning) with no fallback, and so does one of another subscription than the
// resource group's (Failed, an Error). It resolves the credential again to delete, and a refused one holds the
// deletion (Failed, a Warning). CredentialUsed and CredentialUses tell which credential reached Azure for each
// object, and when. Azure errors injected with Fail are classified as ASO
// classifies them: Error for the few fatal codes, Warning for the rest. ASO's post-reconciliation check of private
// endpoints holds one with a manual connection awaiting approval (PostReconciliationFailure). Its own tests show what
// it does where ASO does so, and test/contract checks the same scenarios against ASO's own controllers.
//
// It honours the reconcile-policy annotation (skip: only reads; detach-on-delete: never deletes in Azure) and
// records every Azure-side create, update (a PUT of a changed spec) and delete for tests to assert on. Tests can
// make an object fail with a severity and reason, lag, or stay Reconciling. Simulators on several API servers can
// share one fake Azure (Options.Azure), as the management clusters on both sides of a clusterctl move do.
package asosim
