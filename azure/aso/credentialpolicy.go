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

package aso

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// CredentialPolicy decides which credentials the ASO objects the provider writes may name (--credential-policy).
type CredentialPolicy string

const (
	// PermissivePolicy, the default, keeps CAPZ's behaviour: an owner without an identity leaves its objects to
	// ASO's default credential, and a raw object of an AzureASOManaged* kind may name any credential Secret of its
	// namespace. A credential without a secret of its own that no AzureClusterIdentity vouches for is applied, with
	// a warning (condition CredentialsVouched false, and an event).
	PermissivePolicy CredentialPolicy = "permissive"
	// StrictPolicy is for management clusters shared by tenants: every ASO object the provider writes names a
	// credential Secret, either the provider's own for an identity that allows the namespace, or, for a raw object,
	// one that holds a secret of its own or that such an identity vouches for. An owner without identityRef gets
	// no ASO object, and identities may use certificate files, credential files and federated client IDs only as
	// the platform bound them (IdentityBindings).
	StrictPolicy CredentialPolicy = "strict"
)

// Reasons of credentials the policy refuses or warns about.
const (
	// IdentityRequiredReason means the manager's strict credential policy needs an identityRef.
	IdentityRequiredReason = "IdentityRequired"
	// IdentityNotBoundReason means the identity uses a certificate file, a credential file or a federated client
	// ID that the platform did not bind to it.
	IdentityNotBoundReason = "IdentityNotBound"
	// CredentialNotAllowedReason means an ASO object names a credential the strict policy refuses.
	CredentialNotAllowedReason = "CredentialNotAllowed"
	// CredentialNotVouchedReason means an ASO object names a credential without a secret of its own that no
	// identity vouches for; ASO then acts with its own workload or managed identity for that client ID.
	CredentialNotVouchedReason = "CredentialNotVouched"
)

// CredentialsVouchedCondition is false, with CredentialNotVouchedReason, while an owner's ASO objects name a
// credential without a secret of its own that no AzureClusterIdentity allowing the namespace vouches for. It is a
// warning: under the permissive policy such objects are applied.
const CredentialsVouchedCondition = "CredentialsVouched"

// ParseCredentialPolicy reads the --credential-policy flag; empty is the permissive default.
func ParseCredentialPolicy(value string) (CredentialPolicy, error) {
	switch CredentialPolicy(value) {
	case "", PermissivePolicy:
		return PermissivePolicy, nil
	case StrictPolicy:
		return StrictPolicy, nil
	}
	return "", fmt.Errorf("unknown credential policy %q: use %s or %s", value, PermissivePolicy, StrictPolicy)
}

func (e *Engine) strict() bool { return e.CredentialPolicy == StrictPolicy }

// credentialVerdict is what the policy says of the credential Secret an object names.
type credentialVerdict struct {
	// refused is why the object may not be applied; empty when it may.
	refused string
	// warning is why the credential deserves attention although it is applied.
	warning string
	// secret is the credential Secret as it was vetted (nil when the object names none, or it does not exist).
	secret *corev1.Secret
	// snapshot is the name of the owner's snapshot of secret that the object names in its place (strict policy, a
	// Secret the provider does not control); set by checkCredential.
	snapshot string
}

// vetCredential judges the credential Secret an ASO object of namespace names in credential-from (empty: ASO's
// default credential). A Secret that holds a client secret or certificate of its own is the tenant's own
// credential; any other (workload identity, ASO's managed identity, a credential file in ASO's pod) makes ASO act
// with its own identity, and is acceptable only when an AzureClusterIdentity that allows the namespace, of the
// matching type, vouches for that client ID or file (and, under the strict policy, is bound to it).
func (e *Engine) vetCredential(ctx context.Context, namespace, name string) (credentialVerdict, error) {
	if name == "" {
		if e.strict() {
			return credentialVerdict{refused: "it names no credential (annotation " + asoannotations.PerResourceSecret + "); the manager's credential " +
				"policy is strict, so ASO's default credential may not be used: name a credential Secret that holds its own client secret " +
				"or certificate, or one an AzureClusterIdentity allowing namespace " + namespace + " vouches for"}, nil
		}
		return credentialVerdict{}, nil
	}
	secret := &corev1.Secret{}
	if err := e.APIReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) && !e.strict() {
			return credentialVerdict{}, nil // ASO reports the missing Secret on the object
		}
		return credentialVerdict{}, fmt.Errorf("failed to get the credential Secret %s/%s: %w", namespace, name, err)
	}
	kind, value := secretlessCredential(secret)
	if kind == "" {
		return credentialVerdict{secret: secret}, nil
	}
	vouched, err := e.vouchedFor(ctx, namespace, kind, value, string(secret.Data[asoconfig.AzureTenantID]))
	if err != nil || vouched {
		return credentialVerdict{secret: secret}, err
	}
	why := fmt.Sprintf("credential Secret %s/%s holds no client secret or certificate: ASO would act with its own %s for %s, "+
		"and no AzureClusterIdentity that allows namespace %s vouches for it", namespace, name, kind, value, namespace)
	if e.strict() {
		return credentialVerdict{refused: why, secret: secret}, nil
	}
	return credentialVerdict{warning: why, secret: secret}, nil
}

// snapshotName is the name of an owner's snapshot of a credential Secret: the Secret's name and a hash of the
// owner's kind and name, so that owners of one namespace that name the same Secret keep snapshots of their own.
func snapshotName(owner client.Object, ownerKind, name string) string {
	sum := sha256.Sum256([]byte(ownerKind + "/" + owner.GetName() + "/" + name))
	const maxPrefix = 253 - len("-vetted-") - 10
	if len(name) > maxPrefix {
		name = strings.TrimRight(name[:maxPrefix], "-.")
	}
	return fmt.Sprintf("%s-vetted-%s", name, hex.EncodeToString(sum[:5]))
}

// providerSecret reports whether a Secret is one the provider writes: its controller is an object of the
// provider's group. The optional admission policy (config/policies/credential-secrets) keeps everyone else from
// writing such Secrets, so ASO reads them as they were written; any other Secret its user may rewrite at any time.
func providerSecret(secret *corev1.Secret) bool {
	return controlledByProvider(secret)
}

// snapshotCredential writes the owner's snapshot of a vetted credential Secret the provider does not control, with
// exactly the data that was vetted, and returns its name; problem says why there is none. ASO reads a credential
// every time it reconciles, and a user may rewrite their own Secret between the vetting and ASO's read (to a
// secretless one that makes ASO act with its own identity): naming the snapshot, which only the provider writes,
// closes that window. The snapshot is rewritten, as the cluster's credential Secret is, whenever it differs.
func (e *Engine) snapshotCredential(ctx context.Context, owner client.Object, clusterName string, secret *corev1.Secret) (name, problem string, err error) {
	ownerGVK, err := apiutil.GVKForObject(owner, e.Client.Scheme())
	if err != nil {
		return "", "", err
	}
	name = snapshotName(owner, ownerGVK.Kind, secret.Name)
	users, err := e.writeCredentialSecret(ctx, owner, clusterName, name, maps.Clone(secret.Data))
	switch {
	case err != nil:
		return "", "", err
	case users:
		return "", fmt.Sprintf("Secret %s/%s, where the provider keeps its vetted copy of credential Secret %s, was not written by the provider",
			owner.GetNamespace(), name, secret.Name), nil
	}
	return name, "", nil
}

// The credentials without a secret of their own, in the order ASO v2.18 picks them for a credential Secret (after
// a client secret and a client certificate).
const (
	credentialFile     = "user-assigned identity credential file"
	managedIdentity    = "managed identity"
	federatedIdentity  = "workload identity"
	noSecretCredential = ""
)

// secretlessCredential returns how ASO authenticates with a Secret that holds no secret of its own, and the
// client ID (or file) it would use; "" when the Secret holds a client secret or certificate.
func secretlessCredential(secret *corev1.Secret) (kind, value string) {
	if _, ok := secret.Data[asoconfig.AzureClientSecret]; ok {
		return noSecretCredential, ""
	}
	if _, ok := secret.Data[asoconfig.AzureClientCertificate]; ok {
		return noSecretCredential, ""
	}
	if path, ok := secret.Data[asoconfig.AzureUserAssignedIdentityCredentials]; ok {
		return credentialFile, string(path)
	}
	clientID := string(secret.Data[asoconfig.AzureClientID])
	if string(secret.Data[asoconfig.AuthMode]) == string(asoconfig.PodIdentityAuthMode) {
		return managedIdentity, clientID
	}
	return federatedIdentity, clientID
}

// vouchedFor reports whether an AzureClusterIdentity that allows the namespace, of the type that uses this kind of
// credential, names the client ID or file (and the tenant, when given), and may use it under the bindings.
func (e *Engine) vouchedFor(ctx context.Context, namespace, kind, value, tenant string) (bool, error) {
	if value == "" {
		return false, nil
	}
	identities := &infrav1.AzureClusterIdentityList{}
	if err := e.Client.List(ctx, identities); err != nil {
		return false, fmt.Errorf("failed to list AzureClusterIdentities: %w", err)
	}
	ns := &corev1.Namespace{}
	if err := e.APIReader.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("failed to get Namespace %s: %w", namespace, err)
	}
	for i := range identities.Items {
		identity := &identities.Items[i]
		spec := identity.Spec
		var matches bool
		switch kind {
		case credentialFile:
			matches = spec.Type == infrav1.UserAssignedIdentityCredential &&
				normalised(credentialsPathField, spec.UserAssignedIdentityCredentialsPath) == normalised(credentialsPathField, value)
		case managedIdentity:
			matches = spec.Type == infrav1.UserAssignedMSI && normalised(clientIDField, spec.ClientID) == normalised(clientIDField, value)
		case federatedIdentity:
			matches = spec.Type == infrav1.WorkloadIdentity && normalised(clientIDField, spec.ClientID) == normalised(clientIDField, value)
		}
		if !matches || (tenant != "" && !strings.EqualFold(strings.TrimSpace(spec.TenantID), strings.TrimSpace(tenant))) || !NamespaceAllowed(spec.AllowedNamespaces, ns) {
			continue
		}
		problem, err := e.bindingProblem(identity)
		if err != nil {
			return false, err
		}
		if problem == "" {
			return true, nil
		}
	}
	return false, nil
}
