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

package asosim

import (
	"context"
	"fmt"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CredentialSource is where ASO v2.18 found the credential it used for an object. Its credential provider
// (internal/identity/credential_provider.go, GetCredential) looks in this order and takes the first that exists.
type CredentialSource string

const (
	// FromAnnotation is the Secret that the object's serviceoperator.azure.com/credential-from annotation names, in
	// the object's namespace. A name with a '/', a missing Secret or an incomplete one is an error: ASO looks no
	// further.
	FromAnnotation CredentialSource = "annotation"
	// FromNamespace is the Secret aso-credential of the object's namespace, for an object without the annotation.
	// Only its absence lets ASO look further; an incomplete one is an error.
	FromNamespace CredentialSource = "namespace"
	// FromGlobal is ASO's global credential (aso-controller-settings): the simulator's subscription, with
	// Options.ClientID and Options.TenantID. Without one (Options.NoGlobalCredential) an object with neither of the
	// above fails.
	FromGlobal CredentialSource = "global"
)

// NamespaceCredentialSecret is the name of the Secret ASO takes as the credential of every object of its namespace
// that has no credential-from annotation (ASO's identity.NamespacedSecretName).
const NamespaceCredentialSecret = "aso-credential"

// noGlobalCredential is ASO's error for an object with no credential when no global credential is configured.
const noGlobalCredential = "global credential not configured, you must use either namespaced or per-resource credentials"

// CredentialRef is the credential ASO uses for an object.
type CredentialRef struct {
	// Source is where ASO found it.
	Source CredentialSource
	// Secret is the Secret it was read from; empty for FromGlobal.
	Secret types.NamespacedName
	// ClientID, TenantID and SubscriptionID are the Secret's AZURE_CLIENT_ID, AZURE_TENANT_ID and
	// AZURE_SUBSCRIPTION_ID: the identity ASO authenticates as, and the subscription of the resource groups it
	// creates. For FromGlobal, Options.ClientID, Options.TenantID and Options.SubscriptionID.
	ClientID, TenantID, SubscriptionID string
}

// credential resolves the credential ASO uses for obj, in ASO's order: the Secret that its credential-from annotation
// names (in its namespace; a name with '/' is refused), else its namespace's aso-credential Secret, else the global
// credential. A Secret must hold the subscription, tenant and client IDs and all or none of a cloud's endpoints. It
// returns the credential, or why ASO could make none (ASO reports that as Ready false, severity Warning, reason
// Failed, with this message, and retries), or an error reading the API.
func (r *reconciler) credential(ctx context.Context, obj client.Object) (cred CredentialRef, problem string, err error) {
	if name, ok := obj.GetAnnotations()[asoannotations.PerResourceSecret]; ok {
		key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}
		if strings.Contains(name, "/") {
			return CredentialRef{}, fmt.Sprintf("%s does not exist (%s cannot contain '/'. Secret must be in same namespace as resource.)", key, asoannotations.PerResourceSecret), nil
		}
		secret := &corev1.Secret{}
		if err := r.sim.client.Get(ctx, key, secret); err != nil {
			if apierrors.IsNotFound(err) {
				return CredentialRef{}, fmt.Sprintf("%s does not exist (credential secret not found: %v)", key, err), nil
			}
			return CredentialRef{}, "", err
		}
		return fromSecret(FromAnnotation, secret)
	}
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: NamespaceCredentialSecret}
	secret := &corev1.Secret{}
	switch err := r.sim.client.Get(ctx, key, secret); {
	case err == nil:
		return fromSecret(FromNamespace, secret)
	case !apierrors.IsNotFound(err):
		return CredentialRef{}, "", err
	}
	if r.sim.opts.NoGlobalCredential {
		return CredentialRef{}, noGlobalCredential, nil
	}
	o := r.sim.opts
	return CredentialRef{Source: FromGlobal, ClientID: o.ClientID, TenantID: o.TenantID, SubscriptionID: o.SubscriptionID}, "", nil
}

// fromSecret is the credential of a Secret, or why ASO refuses it: a missing subscription, tenant or client ID, or
// some but not all of a cloud's endpoints.
func fromSecret(source CredentialSource, secret *corev1.Secret) (CredentialRef, string, error) {
	key := client.ObjectKeyFromObject(secret)
	for _, field := range []string{asoconfig.AzureSubscriptionID, asoconfig.AzureTenantID, asoconfig.AzureClientID} {
		if _, ok := secret.Data[field]; !ok {
			return CredentialRef{}, fmt.Sprintf("%s does not exist (credential Secret %q does not contain key %q)", key, key, field), nil
		}
	}
	cloud := 0
	for _, field := range []string{asoconfig.ResourceManagerEndpoint, asoconfig.ResourceManagerAudience, asoconfig.AzureAuthorityHost} {
		if _, ok := secret.Data[field]; ok {
			cloud++
		}
	}
	if cloud != 0 && cloud != 3 {
		return CredentialRef{}, fmt.Sprintf("%s does not exist (credential Secret %q must specify ALL or NONE of %q, %q, and %q (found %d of 3))", key, key,
			asoconfig.ResourceManagerEndpoint, asoconfig.ResourceManagerAudience, asoconfig.AzureAuthorityHost, cloud), nil
	}
	return CredentialRef{
		Source: source, Secret: key,
		ClientID:       string(secret.Data[asoconfig.AzureClientID]),
		TenantID:       string(secret.Data[asoconfig.AzureTenantID]),
		SubscriptionID: string(secret.Data[asoconfig.AzureSubscriptionID]),
	}, "", nil
}

// subscriptionMismatch is why ASO refuses a resource in a resource group of another subscription than its
// credential's (Ready false, severity Error, reason Failed), or "".
func subscriptionMismatch(id, subscription string) string {
	parts := strings.Split(id, "/")
	if len(parts) > 4 && strings.EqualFold(parts[1], "subscriptions") && strings.EqualFold(parts[3], "resourceGroups") &&
		!strings.EqualFold(parts[2], subscription) {
		return fmt.Sprintf("resource subscription %q does not match parent subscription %q", subscription, parts[2])
	}
	return ""
}

// The operations of a CredentialUse.
const (
	// OpCreate: ASO created the resource in Azure.
	OpCreate = "Create"
	// OpUpdate: ASO PUT a changed spec.
	OpUpdate = "Update"
	// OpSync: ASO reached Azure and changed nothing there: a read under reconcile-policy skip, a PUT of an
	// unchanged spec, or a PUT that Azure refused or keeps in progress (Fail, StayReconciling).
	OpSync = "Sync"
	// OpDelete: ASO deleted the resource in Azure (whether Azure still had it or not).
	OpDelete = "Delete"
)

// CredentialUse is one time the simulator reached Azure for an object, as ASO would have: with which credential.
type CredentialUse struct {
	// Kind, Namespace and Name are the ASO object's.
	Kind, Namespace, Name string
	// ID is the resource's ARM ID.
	ID string
	// Op is OpCreate, OpUpdate, OpSync or OpDelete.
	Op string
	// Credential is the credential used.
	Credential CredentialRef
}

// recordUse logs a use of a credential, unless it repeats the object's last one. The caller holds a.mu.
func (a *Azure) recordUse(use CredentialUse) {
	key := objectKey{use.Kind, use.Namespace, use.Name}
	if last, ok := a.lastUse[key]; ok && last == use {
		return
	}
	a.lastUse[key] = use
	a.uses = append(a.uses, use)
}

// CredentialUses lists, in order, every time a simulator sharing the simulator's Azure reached Azure for an object,
// with the credential ASO would have used: creates, updates, deletes and the passes that changed nothing (OpSync).
// A use that repeats the object's previous one (same ID, operation and credential) is listed once. An object whose
// credential ASO refuses never reaches Azure, so it is not listed.
func (s *Simulator) CredentialUses() []CredentialUse {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	return append([]CredentialUse(nil), s.azure.uses...)
}

// CredentialUsed is the credential of the last time the simulator reached Azure for an object (of this kind, e.g.
// "ResourceGroup"), its deletion included; false if it never did.
func (s *Simulator) CredentialUsed(kind, namespace, name string) (CredentialRef, bool) {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	use, ok := s.azure.lastUse[objectKey{kind, namespace, name}]
	return use.Credential, ok
}
