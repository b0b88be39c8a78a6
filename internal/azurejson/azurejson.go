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

package azurejson

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/cloudconfig"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
)

// capzOwnedValue is the value of the "<cluster>" label with which CAPZ marks the azure.json Secrets it wrote; the
// provider takes those over from a cluster moved from CAPZ.
const capzOwnedValue = "owned"

// Machines is what the Secret's owner says about its machines' identity.
type Machines struct {
	// Identity is the machines' VM identity.
	Identity infrav1.VMIdentity
	// UserAssignedIdentities are the machines' user-assigned identities; cloud-provider-azure uses the first.
	UserAssignedIdentities []infrav1.UserAssignedIdentity
}

// Input resolves the content of a cluster's azure.json for machines with the given identity, given what the
// cluster's AzureClusterIdentity may be used for in the owner's namespace (creds, from aso.Engine.ClusterCredentials,
// which applies the tenancy rules). write reports whether the Secret may be written with in; when it may not,
// waiting explains why, for a log: the cluster's credential secret (which holds the service principal's secret
// machines without a VM identity use) is not written yet. When the identity may not be used (it was revoked,
// deleted or not bound), in carries none of its credentials and write is true, so that a Secret written before
// loses them, as the cluster's credential secret does; waiting then says why. reader reads the identity and the
// credential secret.
func Input(ctx context.Context, reader client.Reader, cluster *clusterv1.Cluster, infra *clusterinfra.Infrastructure, machines Machines, creds aso.Credentials) (in cloudconfig.Input, write bool, waiting string, err error) {
	in = cloudconfig.Input{
		Environment: infra.AzureEnvironment, SubscriptionID: infra.SubscriptionID, Location: infra.Location,
		ExtendedLocation: infra.ExtendedLocation, ResourceGroup: infra.ResourceGroup, Network: infra.Network,
		Overrides: infra.CloudProviderConfigOverrides,
		Identity:  cloudconfig.Identity{VMIdentity: machines.Identity},
	}
	if machines.Identity == infrav1.VMIdentityUserAssigned && len(machines.UserAssignedIdentities) > 0 {
		in.Identity.UserAssignedIdentityID = machines.UserAssignedIdentities[0].ProviderID
	}
	if infra.IdentityRef == nil {
		// ASO's own credential: nothing of it is known here, and machines without a VM identity get none.
		return in, true, "", nil
	}
	if !creds.Ready {
		return in, true, "azure.json carries none of the identity's credentials: " + creds.Message, nil
	}
	identity := &infrav1.AzureClusterIdentity{}
	key := client.ObjectKey{Namespace: infra.IdentityRef.Namespace, Name: infra.IdentityRef.Name}
	if key.Namespace == "" {
		key.Namespace = cluster.Namespace
	}
	if err := reader.Get(ctx, key, identity); err != nil {
		if apierrors.IsNotFound(err) {
			return in, true, fmt.Sprintf("AzureClusterIdentity %s not found: azure.json carries none of its credentials", key), nil
		}
		return in, false, "", fmt.Errorf("failed to get AzureClusterIdentity %s: %w", key, err)
	}
	in.TenantID = identity.Spec.TenantID
	if machines.Identity != infrav1.VMIdentityNone && machines.Identity != "" {
		return in, true, "", nil
	}
	in.Identity.ClientID = identity.Spec.ClientID
	if identity.Spec.Type != infrav1.ServicePrincipal && identity.Spec.Type != infrav1.ManualServicePrincipal {
		// Only a service principal has a secret to give (as CAPZ, which writes it for VMs without an identity).
		return in, true, "", nil
	}
	// The service principal's secret, from the cluster's credential secret in the cluster's own namespace: the
	// cluster's controller copied it there under the tenancy rules, so no Secret is read across namespaces here.
	name := aso.CredentialSecretName(cluster.Name)
	secret := &corev1.Secret{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return in, false, fmt.Sprintf("waiting for the cluster's credential Secret %s", name), nil
		}
		return in, false, "", fmt.Errorf("failed to get Secret %s/%s: %w", cluster.Namespace, name, err)
	}
	in.Identity.ClientSecret = string(secret.Data[asoconfig.AzureClientSecret])
	return in, true, "", nil
}

// Writer writes azure.json Secrets (see Ensure). The manager does not cache Secrets, so it remembers the Secrets
// it found up to date, with their resourceVersion: a pass whose content has not changed then reads the Secret's
// metadata from the manager's cache instead of the whole Secret from the API server. Any change of the Secret
// (a new resourceVersion) or of its content brings the full check back.
type Writer struct {
	Client client.Client
	// APIReader reads the whole Secret.
	APIReader client.Reader
	// Metadata reads Secrets' metadata from the manager's cache.
	Metadata client.Reader

	mu       sync.Mutex
	verified map[client.ObjectKey]verifiedSecret
}

// verifiedSecret is a Secret found up to date: the hash of its desired content and its resourceVersion then.
type verifiedSecret struct {
	hash, resourceVersion string
}

// Ensure writes the azure.json Secret of owner (an AzureMachineTemplate or AzureMachinePool) with the content of
// in, unless a Secret of that name is the user's. It never deletes: the owner reference lets Kubernetes' garbage
// collector remove the Secret with its owner.
func (w *Writer) Ensure(ctx context.Context, owner client.Object, clusterName string, in cloudconfig.Input) error {
	c := w.Client
	desired, err := cloudconfig.Secret(owner.GetName(), in)
	if err != nil {
		return fmt.Errorf("failed to make the azure.json Secret of %s: %w", owner.GetName(), err)
	}
	gvk, err := apiutil.GVKForObject(owner, c.Scheme())
	if err != nil {
		return err
	}
	desired.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}
	desired.Namespace = owner.GetNamespace()
	desired.Labels = map[string]string{
		infrav1.ClusterNameLabel: clusterName, infrav1.OwnedByLabel: clusterName, clusterName: capzOwnedValue,
	}
	desired.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}}

	key := client.ObjectKeyFromObject(desired)
	hash, err := hashOf(desired)
	if err != nil {
		return err
	}
	if w.stillVerified(ctx, key, hash) {
		return nil
	}
	live := &corev1.Secret{}
	err = w.APIReader.Get(ctx, key, live)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("failed to get Secret %s/%s: %w", desired.Namespace, desired.Name, err)
	case live.Labels[infrav1.OwnedByLabel] == "" && live.Labels[clusterName] != capzOwnedValue:
		ctrl.LoggerFrom(ctx).V(4).Info("Leaving the user's azure.json Secret alone", "Secret", klog.KObj(desired))
		return nil
	case controlledByAnother(live, owner):
		// One writer per Secret: an AzureMachineTemplate and an AzureMachinePool of the same name would otherwise
		// take turns.
		return fmt.Errorf("failed to write Secret %s/%s: it belongs to another object of the name %s", desired.Namespace, desired.Name, owner.GetName())
	case upToDate(live, desired):
		w.remember(key, verifiedSecret{hash: hash, resourceVersion: live.ResourceVersion})
		return nil
	}
	w.remember(key, verifiedSecret{})
	ctrl.LoggerFrom(ctx).Info("Writing the azure.json Secret", "Secret", klog.KObj(desired))
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		return err
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: u}), client.FieldOwner(aso.FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to write Secret %s/%s: %w", desired.Namespace, desired.Name, err)
	}
	return nil
}

// stillVerified reports whether the Secret was found up to date with this content and has not changed since, as
// the manager's cache of Secrets' metadata shows it.
func (w *Writer) stillVerified(ctx context.Context, key client.ObjectKey, hash string) bool {
	w.mu.Lock()
	v, ok := w.verified[key]
	w.mu.Unlock()
	if !ok || v.hash != hash {
		return false
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := w.Metadata.Get(ctx, key, meta); err != nil {
		return false
	}
	return meta.ResourceVersion == v.resourceVersion
}

// remember records a Secret found up to date; an empty record forgets it.
func (w *Writer) remember(key client.ObjectKey, v verifiedSecret) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if v.hash == "" {
		delete(w.verified, key)
		return
	}
	if w.verified == nil {
		w.verified = map[client.ObjectKey]verifiedSecret{}
	}
	w.verified[key] = v
}

// hashOf hashes what Ensure checks of a Secret: its data, labels and owner references.
func hashOf(desired *corev1.Secret) (string, error) {
	data, err := json.Marshal([]any{desired.Data, desired.Labels, desired.OwnerReferences})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// controlledByAnother reports whether the Secret has a controller other than owner.
func controlledByAnother(live *corev1.Secret, owner client.Object) bool {
	ref := metav1.GetControllerOf(live)
	return ref != nil && ref.UID != owner.GetUID()
}

// upToDate reports whether the live Secret has the desired data, labels and owner.
func upToDate(live, desired *corev1.Secret) bool {
	if !maps.EqualFunc(live.Data, desired.Data, bytes.Equal) {
		return false
	}
	for k, v := range desired.Labels {
		if live.Labels[k] != v {
			return false
		}
	}
	for _, ref := range live.OwnerReferences {
		if ref.UID == desired.OwnerReferences[0].UID && ptr.Deref(ref.Controller, false) {
			return true
		}
	}
	return false
}
