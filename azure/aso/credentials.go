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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// The engine reads an owner's Namespace (for the identity's allowedNamespaces) and the identity's Secret, and
// writes with server-side apply (and deletes on revocation) the cluster's credential secret and the Secrets that ASO
// objects read (extension settings, kubeconfigs).
//
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;patch;delete
//
// It records warnings about credentials on their owners as events.
//
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reasons of the CredentialsReady condition.
const (
	// IdentityNotFoundReason means the referenced AzureClusterIdentity does not exist.
	IdentityNotFoundReason = "IdentityNotFound"
	// IdentitySecretInvalidReason means the identity's secret is missing or lacks a key.
	IdentitySecretInvalidReason = "IdentitySecretInvalid"
	// SubscriptionMissingReason means the owner names no subscription, which ASO credentials require.
	SubscriptionMissingReason = "SubscriptionMissing"
	// CloudNotSupportedReason means the owner's azureEnvironment cannot be reached: it is not ASO's cloud and the
	// owner has no identity whose credential could point ASO at it, or it is unknown.
	CloudNotSupportedReason = "CloudNotSupported"
	// CredentialsReadyReason means the credential secret is in place.
	CredentialsReadyReason = "CredentialsReady"
)

// CredentialSecretName is the name of a cluster's ASO credential secret.
func CredentialSecretName(cluster string) string { return cluster + "-aso-secret" }

// Credentials is the outcome of resolving an owner's identity.
type Credentials struct {
	// SecretName is the credential secret to name in ASO's credential-from annotation; empty means ASO's default.
	SecretName string
	// Ready is false when the identity cannot be used; Reason and Message say why, for the CredentialsReady
	// condition. Nothing may be applied for the owner then.
	Ready           bool
	Reason, Message string
	// Warning is set, with Ready, when the credential secret is the user's own and holds no secret of its own that an
	// identity vouches for (CredentialsVouchedCondition).
	Warning string
}

// CredentialsInput names what EnsureCredentials and ClusterCredentials need from the owner.
type CredentialsInput struct {
	ClusterName    string
	SubscriptionID string
	IdentityRef    *corev1.ObjectReference
	// Cloud is the owner's azureEnvironment (empty: the public cloud).
	Cloud string
	// Kinds are the ASO kinds the owner may own: when the identity no longer allows the owner's namespace, their
	// credential-from annotation is removed.
	Kinds []schema.GroupVersionKind
}

// EnsureCredentials turns the owner's AzureClusterIdentity into the secret ASO reads, <cluster>-aso-secret in the
// owner's namespace, owned by the owner. The identity may only be used from the namespaces it allows, and only with
// the certificate file, credential file or federated client ID the platform bound to it (IdentityBindings): when it
// may not be used, or no longer exists, the secret the provider wrote is deleted and credential-from is removed from
// the owner's ASO objects (revocation). A secret of that name the user created (without the owner's controller
// reference) is used as it is, once the credential policy accepts it; one the owner controls, such as CAPZ's of a
// cluster taken over from CAPZ, is rewritten. Secret values are never logged.
func (e *Engine) EnsureCredentials(ctx context.Context, owner client.Object, in CredentialsInput) (Credentials, error) {
	creds, identity, err := e.resolveIdentity(ctx, owner, in)
	if err != nil || !creds.Ready {
		return creds, err
	}
	if identity == nil {
		if e.isOtherCloud(in.Cloud) {
			return Credentials{Reason: CloudNotSupportedReason, Message: fmt.Sprintf("azureEnvironment %s is not the cloud ASO is "+
				"configured for: set identityRef, whose credential then points ASO at %s (ASO needs ALLOW_MULTI_ENV_MANAGEMENT=true)", in.Cloud, in.Cloud)}, nil
		}
		return creds, nil
	}
	if in.SubscriptionID == "" {
		return Credentials{Reason: SubscriptionMissingReason, Message: "spec.subscriptionID is required to use an AzureClusterIdentity"}, nil
	}
	data, problem, err := e.credentialData(ctx, identity, in.SubscriptionID)
	if err != nil {
		return Credentials{}, err
	}
	if problem != "" {
		return Credentials{Reason: IdentitySecretInvalidReason, Message: problem}, nil
	}
	cloudData, err := e.cloudData(in.Cloud)
	if err != nil {
		return Credentials{Reason: CloudNotSupportedReason, Message: err.Error()}, nil
	}
	maps.Copy(data, cloudData)
	users, err := e.writeCredentialSecret(ctx, owner, in.ClusterName, creds.SecretName, data)
	if err != nil || !users {
		return creds, err
	}
	verdict, err := e.vetCredential(ctx, owner.GetNamespace(), creds.SecretName)
	switch {
	case err != nil:
		return Credentials{}, err
	case verdict.refused != "":
		e.warn(owner, CredentialNotAllowedReason, verdict.refused)
		if err := e.revokeCredentials(ctx, owner, in); err != nil {
			return Credentials{}, err
		}
		return Credentials{Reason: CredentialNotAllowedReason, Message: "the user's " + verdict.refused + "; the credential is revoked: " +
			"ASO's credential-from annotations name a revoked credential"}, nil
	case verdict.warning != "":
		e.warn(owner, CredentialNotVouchedReason, verdict.warning)
		creds.Warning = verdict.warning
	}
	return creds, nil
}

// ClusterCredentials is EnsureCredentials for the owners of a cluster's machines: it checks that the cluster's
// identity may be used from the owner's namespace and names the cluster's credential secret (which the cluster's
// controller writes). When the identity may not be used there, or no longer exists, credential-from is removed from
// the owner's ASO objects. Controllers also call it while their Cluster is paused, so that revocation never waits.
func (e *Engine) ClusterCredentials(ctx context.Context, owner client.Object, in CredentialsInput) (Credentials, error) {
	creds, _, err := e.resolveIdentity(ctx, owner, in)
	return creds, err
}

// resolveIdentity reads the owner's identity and checks that it allows the owner's namespace and may use what it
// names, revoking the credentials when it does not or no longer exists. A nil identity with ready credentials
// means ASO's default credential, which the strict policy refuses.
func (e *Engine) resolveIdentity(ctx context.Context, owner client.Object, in CredentialsInput) (Credentials, *infrav1.AzureClusterIdentity, error) {
	if in.IdentityRef == nil {
		if e.strict() {
			return Credentials{Reason: IdentityRequiredReason, Message: "the manager's credential policy is strict: set spec.identityRef " +
				"to an AzureClusterIdentity that allows namespace " + owner.GetNamespace() + "; ASO's default credential may not be used"}, nil, nil
		}
		return Credentials{Ready: true, Reason: CredentialsReadyReason}, nil, nil
	}
	identity := &infrav1.AzureClusterIdentity{}
	key := client.ObjectKey{Namespace: in.IdentityRef.Namespace, Name: in.IdentityRef.Name}
	if key.Namespace == "" {
		key.Namespace = owner.GetNamespace()
	}
	// The messages say what holds after every pass, not what this pass changed: they stay the same until the
	// identity may be used again.
	const revoked = "; the credential is revoked: ASO's credential-from annotations and the cluster's credential secret are removed"
	if err := e.APIReader.Get(ctx, key, identity); err != nil {
		if !apierrors.IsNotFound(err) {
			return Credentials{}, nil, fmt.Errorf("failed to get AzureClusterIdentity %s: %w", key, err)
		}
		if err := e.revokeCredentials(ctx, owner, in); err != nil {
			return Credentials{}, nil, err
		}
		return Credentials{Reason: IdentityNotFoundReason, Message: fmt.Sprintf("AzureClusterIdentity %s not found", key) + revoked}, nil, nil
	}
	ns := &corev1.Namespace{}
	if err := e.APIReader.Get(ctx, client.ObjectKey{Name: owner.GetNamespace()}, ns); err != nil {
		return Credentials{}, nil, fmt.Errorf("failed to get Namespace %s: %w", owner.GetNamespace(), err)
	}
	reason, message := "", ""
	if !NamespaceAllowed(identity.Spec.AllowedNamespaces, ns) {
		reason = infrav1.NamespaceNotAllowedReason
		message = fmt.Sprintf("AzureClusterIdentity %s does not allow namespace %s in spec.allowedNamespaces", key, ns.Name)
	} else if problem, err := e.bindingProblem(identity); err != nil {
		return Credentials{}, nil, err
	} else if problem != "" {
		reason, message = IdentityNotBoundReason, problem
	}
	if reason != "" {
		if err := e.revokeCredentials(ctx, owner, in); err != nil {
			return Credentials{}, nil, err
		}
		return Credentials{Reason: reason, Message: message + revoked}, nil, nil
	}
	return Credentials{SecretName: CredentialSecretName(in.ClusterName), Ready: true, Reason: CredentialsReadyReason}, identity, nil
}

// RevokedCredentialPrefix starts the credential-from value of an object whose credential is revoked or refused.
// ASO v2.18 refuses a credential-from that contains "/" outright (internal/identity/credential_provider.go,
// getCredentialFromAnnotation), without falling back to the namespace's aso-credential Secret or to its global
// credential, so such an object reaches Azure with no identity at all. Removing the annotation instead would hand
// the object to those fallbacks.
const RevokedCredentialPrefix = "revoked/"

// revokedCredential is the credential-from value that revokes the credential an object named (name; empty for
// ASO's default credential, which is never named again).
func revokedCredential(name string) string { return RevokedCredentialPrefix + name }

// IsRevokedCredential reports whether a credential-from value is one the engine wrote to revoke a credential.
func IsRevokedCredential(value string) bool { return strings.HasPrefix(value, RevokedCredentialPrefix) }

// revokeCredentials points every ASO object the owner controls at a revoked credential (RevokedCredentialPrefix)
// and deletes the cluster's credential secret when the owner controls it (a user's own secret of that name stays).
// It runs on an explicit intent computed from a complete read: the identity was read and may not be used, or the
// credential Secret the objects name was read and is refused.
func (e *Engine) revokeCredentials(ctx context.Context, owner client.Object, in CredentialsInput) error {
	name := CredentialSecretName(in.ClusterName)
	objs, err := e.owned(ctx, owner, in.ClusterName, in.Kinds)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := e.revokeCredential(ctx, obj); err != nil {
			return err
		}
	}
	secret := &corev1.Secret{}
	err = e.APIReader.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, secret)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("failed to get Secret %s/%s: %w", owner.GetNamespace(), name, err)
	case !isControlledBy(secret, owner):
		return nil
	}
	if err := e.Client.Delete(ctx, secret, client.Preconditions{UID: ptr.To(secret.UID)}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}

// revokeCredential points an object's credential-from at a revoked credential, unless it already is. A merge
// patch sets only that annotation: whatever value it replaces, a revoked one is the safe direction.
func (e *Engine) revokeCredential(ctx context.Context, obj client.Object) error {
	current := obj.GetAnnotations()[asoannotations.PerResourceSecret]
	if IsRevokedCredential(current) {
		return nil
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		asoannotations.PerResourceSecret: revokedCredential(current)}}})
	if err != nil {
		return err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body), client.FieldOwner(FieldManager)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to revoke the credential of %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// nameCredential names a credential again in the credential-from annotation of an object whose credential the
// provider revoked, once the pass vetted it (a deleted owner whose identity may be used again): ASO can then delete
// the resource, with that credential.
func (e *Engine) nameCredential(ctx context.Context, obj client.Object, name string) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{asoannotations.PerResourceSecret: name}}})
	if err != nil {
		return err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body), client.FieldOwner(FieldManager)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to name the credential of %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// NamespaceAllowed applies CAPZ's tenancy rules: no allowedNamespaces allows no namespace, an empty one ({})
// allows all, a non-empty list wins over the selector, and an empty selector matches nothing.
func NamespaceAllowed(allowed *infrav1.AllowedNamespaces, ns *corev1.Namespace) bool {
	switch {
	case allowed == nil:
		return false
	case len(allowed.NamespaceList) > 0:
		for _, name := range allowed.NamespaceList {
			if name == ns.Name {
				return true
			}
		}
		return false
	case allowed.Selector == nil:
		// {} — neither a list nor a selector: every namespace.
		return allowed.NamespaceList == nil
	}
	selector, err := metav1.LabelSelectorAsSelector(allowed.Selector)
	if err != nil || selector.Empty() {
		return false
	}
	return selector.Matches(labels.Set(ns.Labels))
}

// credentialData builds the keys ASO expects for the identity's type; problem explains a missing input.
func (e *Engine) credentialData(ctx context.Context, identity *infrav1.AzureClusterIdentity, subscriptionID string) (data map[string][]byte, problem string, err error) {
	data = map[string][]byte{
		asoconfig.AzureSubscriptionID: []byte(subscriptionID),
		asoconfig.AzureTenantID:       []byte(identity.Spec.TenantID),
		asoconfig.AzureClientID:       []byte(identity.Spec.ClientID),
	}
	switch identity.Spec.Type {
	case infrav1.ServicePrincipal, infrav1.ManualServicePrincipal:
		secret, problem, err := e.identitySecret(ctx, identity)
		if problem != "" || err != nil {
			return nil, problem, err
		}
		value, ok := secret.Data["clientSecret"]
		if !ok {
			return nil, fmt.Sprintf("Secret %s/%s has no key clientSecret", secret.Namespace, secret.Name), nil
		}
		data[asoconfig.AzureClientSecret] = value
	case infrav1.ServicePrincipalCertificate:
		if identity.Spec.CertPath != "" {
			cert, problem := e.readCertPath(identity.Spec.CertPath)
			if problem != "" {
				return nil, problem, nil
			}
			data[asoconfig.AzureClientCertificate] = cert
			break
		}
		secret, problem, err := e.identitySecret(ctx, identity)
		if problem != "" || err != nil {
			return nil, problem, err
		}
		cert, ok := secret.Data["certificate"]
		if !ok {
			return nil, fmt.Sprintf("Secret %s/%s has no key certificate", secret.Namespace, secret.Name), nil
		}
		data[asoconfig.AzureClientCertificate] = cert
		if password, ok := secret.Data["password"]; ok {
			data[asoconfig.AzureClientCertificatePassword] = password
		}
	case infrav1.UserAssignedMSI:
		data[asoconfig.AuthMode] = []byte(asoconfig.PodIdentityAuthMode)
	case infrav1.WorkloadIdentity:
		data[asoconfig.AuthMode] = []byte(asoconfig.WorkloadIdentityAuthMode)
	case infrav1.UserAssignedIdentityCredential:
		data[asoconfig.AzureUserAssignedIdentityCredentials] = []byte(identity.Spec.UserAssignedIdentityCredentialsPath)
	default:
		return nil, fmt.Sprintf("unknown identity type %q", identity.Spec.Type), nil
	}
	return data, "", nil
}

// identitySecret reads the Secret an identity references. A Secret in another namespace than the identity's is
// only used when it names the identity in its AllowedIdentitiesAnnotation: whoever can create an identity must not
// be able to copy any Secret of the management cluster into their namespace.
func (e *Engine) identitySecret(ctx context.Context, identity *infrav1.AzureClusterIdentity) (*corev1.Secret, string, error) {
	key := client.ObjectKey{Namespace: identity.Spec.ClientSecret.Namespace, Name: identity.Spec.ClientSecret.Name}
	if key.Namespace == "" {
		key.Namespace = identity.Namespace
	}
	secret := &corev1.Secret{}
	if err := e.APIReader.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("Secret %s referenced by AzureClusterIdentity %s not found", key, identity.Name), nil
		}
		return nil, "", fmt.Errorf("failed to get Secret %s: %w", key, err)
	}
	if key.Namespace != identity.Namespace && !allowsIdentity(secret, identity) {
		return nil, fmt.Sprintf("Secret %s is in another namespace than AzureClusterIdentity %s/%s and does not name it in its %s annotation",
			key, identity.Namespace, identity.Name, infrav1.AllowedIdentitiesAnnotation), nil
	}
	return secret, "", nil
}

// allowsIdentity reports whether a Secret names the identity (namespace/name) in its AllowedIdentitiesAnnotation.
func allowsIdentity(secret *corev1.Secret, identity *infrav1.AzureClusterIdentity) bool {
	for _, entry := range strings.Split(secret.Annotations[infrav1.AllowedIdentitiesAnnotation], ",") {
		if strings.TrimSpace(entry) == identity.Namespace+"/"+identity.Name {
			return true
		}
	}
	return false
}

// maxCertificateSize bounds what readCertPath reads.
const maxCertificateSize = 1 << 20

// readCertPath reads an identity's certPath, a file mounted into the manager's pod. Only files in the directories
// the manager was given (IdentityCertDirs) are read, after resolving links: certPath must not reach the manager's
// own files, such as its service account token.
func (e *Engine) readCertPath(certPath string) ([]byte, string) {
	if len(e.IdentityCertDirs) == 0 {
		return nil, "spec.certPath is refused: the manager reads certificate files only from the directories of its " +
			"--identity-cert-dirs flag, and none is set; put the certificate in the Secret of spec.clientSecret"
	}
	resolved, err := filepath.EvalSymlinks(filepath.Clean(certPath))
	if err != nil || !filepath.IsAbs(certPath) {
		return nil, fmt.Sprintf("cannot read certPath %s: no such file in the manager's pod", certPath)
	}
	inside := false
	for _, dir := range e.IdentityCertDirs {
		if base, err := filepath.EvalSymlinks(dir); err == nil {
			if rel, err := filepath.Rel(base, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				inside = true
				break
			}
		}
	}
	if !inside {
		return nil, fmt.Sprintf("spec.certPath %s is outside the directories the manager may read certificates from (--identity-cert-dirs)", certPath)
	}
	info, err := os.Stat(resolved)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxCertificateSize {
		return nil, fmt.Sprintf("cannot read certPath %s: not a regular file of at most %d bytes", certPath, maxCertificateSize)
	}
	cert, err := os.ReadFile(resolved)
	if err != nil {
		return nil, fmt.Sprintf("cannot read certPath %s: %v", certPath, errors.Unwrap(err))
	}
	return cert, ""
}

// writeCredentialSecret creates the credential secret, or rewrites it whenever it differs from what the identity
// gives (data, type, labels), unless the user owns one of that name (users). The provider's Secret is recognised by
// its controller reference to the owner, not by a label that whoever may edit Secrets can remove: a Secret the
// owner controls is always rewritten, never trusted as it is. One without that reference is the user's, and the
// credential policy judges it (vetCredential).
func (e *Engine) writeCredentialSecret(ctx context.Context, owner client.Object, clusterName, name string, data map[string][]byte) (users bool, err error) {
	existing := &corev1.Secret{}
	err = e.APIReader.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, existing)
	switch {
	case err == nil && !isControlledBy(existing, owner):
		return true, nil // the user's own credential secret
	case err == nil && intactCredentialSecret(existing, clusterName, data):
		return false, nil
	case err != nil && !apierrors.IsNotFound(err):
		return false, fmt.Errorf("failed to get Secret %s/%s: %w", owner.GetNamespace(), name, err)
	case err == nil:
		ctrl.LoggerFrom(ctx).Info("Rewriting the credential Secret: it differs from what the identity gives", "Secret", klog.KObj(existing))
		return false, e.rewriteCredentialSecret(ctx, existing, clusterName, data)
	}
	ownerGVK, err := apiutil.GVKForObject(owner, e.Client.Scheme())
	if err != nil {
		return false, err
	}
	secret := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: owner.GetNamespace(),
			Labels: credentialSecretLabels(clusterName),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: ownerGVK.GroupVersion().String(), Kind: ownerGVK.Kind, Name: owner.GetName(), UID: owner.GetUID(),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
	u, err := toUnstructured(secret)
	if err != nil {
		return false, err
	}
	if err := e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return false, fmt.Errorf("failed to write Secret %s/%s: %w", owner.GetNamespace(), name, err)
	}
	return false, nil
}

// rewriteCredentialSecret replaces the whole data of the provider's credential secret, so that no key someone else
// added stays (server-side apply would keep the keys other managers own), and puts its labels back. A Secret whose
// type or immutability was changed cannot be rewritten in place: it is deleted, and the next pass creates it.
func (e *Engine) rewriteCredentialSecret(ctx context.Context, secret *corev1.Secret, clusterName string, data map[string][]byte) error {
	if secret.Type != corev1.SecretTypeOpaque || ptr.Deref(secret.Immutable, false) {
		if err := e.Client.Delete(ctx, secret, client.Preconditions{UID: ptr.To(secret.UID)}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("failed to delete Secret %s/%s: %w", secret.Namespace, secret.Name, err)
		}
		return fmt.Errorf("deleted Secret %s/%s, whose type or immutability someone else changed, to create it again", secret.Namespace, secret.Name)
	}
	original := secret.DeepCopy()
	secret.Data, secret.StringData = data, nil
	if secret.Labels == nil {
		secret.Labels = map[string]string{}
	}
	maps.Copy(secret.Labels, credentialSecretLabels(clusterName))
	// A merge patch computed from the Secret as read removes every key that is not the identity's (null), and the
	// optimistic lock makes a write the provider did not see fail instead of being overwritten unseen.
	patch := client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})
	if err := e.Client.Patch(ctx, secret, patch, client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("failed to rewrite Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}

// credentialSecretLabels are the labels of the provider's credential secret. Besides the provider's own, it carries
// CAPZ's mark of the Secrets it writes (<cluster>: owned), as CAPZ's own <cluster>-aso-secret does: CAPZ keeps a
// Secret without it as the user's and never rewrites it, so after a way back to CAPZ the identity's rotation would
// no longer reach ASO. A Secret CAPZ wrote is then, once taken over, the same as one the provider made.
func credentialSecretLabels(clusterName string) map[string]string {
	return map[string]string{
		infrav1.ClusterNameLabel: clusterName, infrav1.OwnedByLabel: clusterName,
		clusterName: infrav1.ResourceLifecycleOwned,
	}
}

// intactCredentialSecret reports whether the provider's credential secret holds exactly the data it writes, with
// its labels and type: anything else was changed by someone else, and is rewritten.
func intactCredentialSecret(secret *corev1.Secret, clusterName string, data map[string][]byte) bool {
	for key, value := range credentialSecretLabels(clusterName) {
		if secret.Labels[key] != value {
			return false
		}
	}
	return maps.EqualFunc(secret.Data, data, func(a, b []byte) bool { return string(a) == string(b) }) &&
		secret.Type == corev1.SecretTypeOpaque && len(secret.StringData) == 0
}
