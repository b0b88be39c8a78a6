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

package aso_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestEnsureCredentials_RewritesTamperedSecret: the provider's credential Secret is recognised by its controller
// reference, not by its label. Whoever removes the label and rewrites the client ID, and adds a key of their own,
// gets the Secret rewritten whole on the next pass: no key of theirs stays.
func TestEnsureCredentials_RewritesTamperedSecret(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	clientID := clientIDFor(owner.Namespace)
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "wi", Namespace: owner.Namespace},
		Spec: *workloadIdentity(clientID, &infrav1.AllowedNamespaces{})})).To(Succeed())
	in := aso.CredentialsInput{ClusterName: "tampered", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "wi"}, Kinds: allKinds}
	creds, err := e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds.Ready).To(BeTrue())
	key := client.ObjectKey{Namespace: owner.Namespace, Name: creds.SecretName}
	written := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, written)).To(Succeed())
	original := written.DeepCopy()

	tampered := written.DeepCopy()
	delete(tampered.Labels, infrav1.OwnedByLabel)
	tampered.Data["AZURE_CLIENT_ID"] = []byte("99999999-9999-9999-9999-999999999999")
	tampered.Data["AZURE_CLIENT_SECRET"] = []byte("the tenant's")
	g.Expect(env.Env.Update(ctx, tampered)).To(Succeed())

	creds, err = e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds.Ready).To(BeTrue())
	rewritten := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, rewritten)).To(Succeed())
	g.Expect(rewritten.Data).To(Equal(original.Data), "the Secret holds what the identity gives, and nothing else")
	g.Expect(rewritten.Labels).To(HaveKeyWithValue(infrav1.OwnedByLabel, "tampered"))

	// Deleted and made again by someone else, without the controller reference: the user's own, which the policy
	// judges (the strict policy refuses a secretless one nobody vouches for), never the provider's.
	g.Expect(env.Env.Delete(ctx, rewritten)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		StringData: workloadSecret("99999999-9999-9999-9999-999999999999")})).To(Succeed())
	e.CredentialPolicy = aso.StrictPolicy
	e.Bindings = bindingsFor(t, g, owner.Namespace+"/wi", clientID)
	creds, err = e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.CredentialNotAllowedReason)))
}

// bindingsFor writes a bindings file that binds one client ID to one identity.
func bindingsFor(t *testing.T, g *WithT, identity, clientID string) *aso.BindingsFile {
	path := filepath.Join(t.TempDir(), "bindings.yaml")
	g.Expect(os.WriteFile(path, []byte("bindings:\n- identity: "+identity+"\n  clientID: "+clientID+"\n"), 0o600)).To(Succeed())
	return &aso.BindingsFile{Path: path}
}

// TestReconcile_RefusedCredentialIsRevokedNotRemoved: when the policy refuses the credential a raw object names
// (its identity stopped vouching for it), the object applied before keeps credential-from, pointed at a revoked
// credential that ASO refuses outright; removing the annotation would hand it to the namespace's aso-credential
// Secret or ASO's global credential.
func TestReconcile_RefusedCredentialIsRevokedNotRemoved(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	e.CredentialPolicy = aso.StrictPolicy
	clientID := clientIDFor(owner.Namespace)
	e.Bindings = bindingsFor(t, g, owner.Namespace+"/vouching", clientID)
	identity := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "vouching", Namespace: owner.Namespace},
		Spec: *workloadIdentity(clientID, &infrav1.AllowedNamespaces{})}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "team", Namespace: owner.Namespace},
		StringData: workloadSecret(clientID)})).To(Succeed())
	raw := func() []aso.Resource { return []aso.Resource{rawResourceGroup("raw", "team", nil)} }
	opts := options("refused")
	reconcileUntilReady(ctx, g, e, owner, raw, opts)
	g.Expect(live(ctx, g, owner.Namespace, "raw", &asoresources.ResourceGroup{}).GetAnnotations()).To(HaveKeyWithValue(credentialFrom, HavePrefix("team-vetted-")))

	g.Expect(env.Env.Delete(ctx, identity)).To(Succeed())
	g.Eventually(func(g Gomega) {
		result, err := e.Reconcile(ctx, owner, raw(), opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.Resource("ResourceGroup", "raw")).To(HaveField("Reason", aso.CredentialNotAllowedReason))
		rg := &asoresources.ResourceGroup{}
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "raw"}, rg)).To(Succeed())
		g.Expect(rg.Annotations).To(HaveKeyWithValue(credentialFrom, HavePrefix("revoked/team-vetted-")))
	}, timeout).Should(Succeed())
	g.Expect(aso.IsRevokedCredential("revoked/team")).To(BeTrue())
	g.Expect(aso.IsRevokedCredential("team")).To(BeFalse())
}

// TestReconcile_StrictNamesASnapshotOfTheUsersCredential: ASO reads a credential every time it reconciles, and a
// user may rewrite their own Secret at any time. Under the strict policy an object names the provider's snapshot of
// the Secret as it was vetted: a rewrite (here to a secretless credential no identity vouches for, which would make
// ASO act with its own identity) never reaches ASO; the next pass refuses it and revokes the snapshot.
func TestReconcile_StrictNamesASnapshotOfTheUsersCredential(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	e.CredentialPolicy = aso.StrictPolicy
	e.Bindings = bindingsFor(t, g, owner.Namespace+"/nobody", clientIDFor(owner.Namespace))
	own := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: owner.Namespace}, StringData: map[string]string{
		"AZURE_SUBSCRIPTION_ID": sim.SubscriptionID(), "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": "c", "AZURE_CLIENT_SECRET": "s"}}
	g.Expect(env.Env.Create(ctx, own)).To(Succeed())
	raw := func() []aso.Resource { return []aso.Resource{rawResourceGroup("raw", "own", nil)} }
	opts := options("snapshot")
	reconcileUntilReady(ctx, g, e, owner, raw, opts)
	snapshot := live(ctx, g, owner.Namespace, "raw", &asoresources.ResourceGroup{}).GetAnnotations()[credentialFrom]
	g.Expect(snapshot).To(HavePrefix("own-vetted-"))
	expectSnapshot(ctx, g, owner, "own", snapshot)

	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(own), own)).To(Succeed())
	vetted := own.Data
	own.Data = map[string][]byte{"AZURE_SUBSCRIPTION_ID": vetted["AZURE_SUBSCRIPTION_ID"], "AZURE_TENANT_ID": []byte(tenantID),
		"AZURE_CLIENT_ID": []byte(clientIDFor(owner.Namespace)), "AUTH_MODE": []byte("podidentity")}
	g.Expect(env.Env.Update(ctx, own)).To(Succeed())
	copied := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: snapshot}, copied)).To(Succeed())
	g.Expect(copied.Data).To(Equal(vetted), "what ASO reads until the next pass is what was vetted")

	result, err := e.Reconcile(ctx, owner, raw(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Resource("ResourceGroup", "raw")).To(HaveField("Reason", aso.CredentialNotAllowedReason))
	g.Expect(live(ctx, g, owner.Namespace, "raw", &asoresources.ResourceGroup{}).GetAnnotations()).To(HaveKeyWithValue(credentialFrom, "revoked/"+snapshot))
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: snapshot}, copied)).To(Succeed())
	g.Expect(copied.Data).To(Equal(vetted), "the rewrite is never copied")

	// A Secret of the snapshot's name that the provider did not write is refused, not used.
	g.Expect(env.Env.Delete(ctx, copied)).To(Succeed())
	own.Data = vetted
	g.Expect(env.Env.Update(ctx, own)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: snapshot, Namespace: owner.Namespace},
		StringData: workloadSecret(clientIDFor(owner.Namespace))})).To(Succeed())
	result, err = e.Reconcile(ctx, owner, raw(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Resource("ResourceGroup", "raw")).To(And(HaveField("Reason", aso.CredentialNotAllowedReason), HaveField("Message", ContainSubstring("was not written by the provider"))))
}

// expectSnapshot checks that a credential snapshot is the owner's and holds the user's Secret's data.
func expectSnapshot(ctx context.Context, g *WithT, owner client.Object, user, snapshot string) {
	original, copied := &corev1.Secret{}, &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: user}, original)).To(Succeed())
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: snapshot}, copied)).To(Succeed())
	g.Expect(metav1.IsControlledBy(copied, owner)).To(BeTrue(), "the owner controls the snapshot")
	g.Expect(copied.Data).To(Equal(original.Data))
}

// TestDelete_VetsCredentials: ASO deletes a resource with the credential its object names, read again on every
// try, so the engine vets it before every delete: an object is deleted only with the owner's credentials that the
// pass vetted, or one the policy accepts. A revoked credential, or owner credentials that may not be used, hold
// the deletion (the object stays, and says why); vetted ones let it go.
func TestDelete_VetsCredentials(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	ready := &aso.Credentials{SecretName: "vetted-aso-secret", Ready: true, Reason: aso.CredentialsReadyReason}
	notReady := &aso.Credentials{SecretName: "vetted-aso-secret", Reason: infrav1.NamespaceNotAllowedReason, Message: "AzureClusterIdentity x does not allow namespace y"}
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ready.SecretName, Namespace: owner.Namespace},
		StringData: map[string]string{"AZURE_SUBSCRIPTION_ID": sim.SubscriptionID(), "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": "c", "AZURE_CLIENT_SECRET": "s"}})).To(Succeed())
	opts := options("vetted")
	opts.CredentialSecret = ready.SecretName
	reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }, opts)
	deleteOpts := aso.DeleteOptions{ClusterName: "vetted", Kinds: allKinds}
	exists := func() bool {
		rg := &asoresources.ResourceGroup{}
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}, rg)).To(Succeed())
		return rg.DeletionTimestamp.IsZero()
	}

	// The owner's credentials may not be used: nothing is deleted, and the object says why.
	deleteOpts.Credentials = notReady
	done, result, err := e.Delete(ctx, owner, deleteOpts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(done).To(BeFalse())
	g.Expect(result.Resource("ResourceGroup", "rg")).To(And(HaveField("Reason", aso.CredentialNotAllowedReason), HaveField("Message", ContainSubstring("does not allow namespace"))))
	g.Expect(exists()).To(BeTrue())

	// A revoked credential holds it too while the owner's credentials may not be used.
	rg := live(ctx, g, owner.Namespace, "rg", &asoresources.ResourceGroup{})
	revoke := []byte(`{"metadata":{"annotations":{"serviceoperator.azure.com/credential-from":"revoked/vetted-aso-secret"}}}`)
	g.Expect(env.Env.Patch(ctx, rg, client.RawPatch(types.MergePatchType, revoke))).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, result, err := e.Delete(ctx, owner, deleteOpts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Message", And(ContainSubstring("its credential is revoked"), ContainSubstring("does not allow namespace"))))
	}, timeout).Should(Succeed())
	g.Expect(exists()).To(BeTrue())

	// Under the strict policy, a credential that is not the owner's vetted one and that nobody vouches for.
	e.CredentialPolicy = aso.StrictPolicy
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "planted", Namespace: owner.Namespace},
		StringData: workloadSecret("99999999-9999-9999-9999-999999999999")})).To(Succeed())
	planted := []byte(`{"metadata":{"annotations":{"serviceoperator.azure.com/credential-from":"planted"}}}`)
	g.Expect(env.Env.Patch(ctx, rg, client.RawPatch(types.MergePatchType, planted))).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, result, err := e.Delete(ctx, owner, deleteOpts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Message", ContainSubstring("no AzureClusterIdentity that allows namespace")))
	}, timeout).Should(Succeed())
	g.Expect(exists()).To(BeTrue())

	// Revoked before, and the owner's credentials may be used again (access given back): the object names them
	// again, and ASO deletes the resource with them.
	g.Expect(env.Env.Patch(ctx, rg, client.RawPatch(types.MergePatchType, revoke))).To(Succeed())
	deleteOpts.Credentials = ready
	g.Eventually(func(g Gomega) {
		_, _, err := e.Delete(ctx, owner, deleteOpts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(exists()).To(BeFalse())
	}, timeout).Should(Succeed())
	g.Expect(deleteAll(ctx, g, e, owner, deleteOpts)).To(BeTrue())
	var deletes []asosim.CredentialUse
	for _, use := range sim.CredentialUses() {
		if use.Kind == "ResourceGroup" && use.Namespace == owner.Namespace && use.Name == "rg" && use.Op == asosim.OpDelete {
			deletes = append(deletes, use)
		}
	}
	g.Expect(deletes).To(ConsistOf(HaveField("Credential.Secret.Name", "vetted-aso-secret")), "ASO deleted the resource with the vetted credential, once")
}

// TestBindings_CompareNormalisedValues: a certificate file reached through its Secret volume's ..data link, or a
// client ID in upper case, is the same file or client ID as the one a binding gives to another identity.
func TestBindings_CompareNormalisedValues(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	// A Secret volume, as the kubelet lays it out: the files are links through ..data to a timestamped directory.
	certDir := t.TempDir()
	g.Expect(os.MkdirAll(filepath.Join(certDir, "..2026_12_01"), 0o700)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(certDir, "..2026_12_01", "platform.pem"), []byte("PLATFORM PEM"), 0o600)).To(Succeed())
	g.Expect(os.Symlink("..2026_12_01", filepath.Join(certDir, "..data"))).To(Succeed())
	g.Expect(os.Symlink(filepath.Join("..data", "platform.pem"), filepath.Join(certDir, "platform.pem"))).To(Succeed())
	ns := owner.Namespace
	clientID := "abcdef" + clientIDFor(ns)[6:] // letters, which upper case changes
	bindings := filepath.Join(t.TempDir(), "bindings.yaml")
	g.Expect(os.WriteFile(bindings, []byte("bindings:\n- identity: "+ns+"/platform\n  clientID: "+clientID+"\n"+
		"- identity: "+ns+"/platform-cert\n  certPath: "+filepath.Join(certDir, "platform.pem")+"\n"), 0o600)).To(Succeed())
	e := newEngine(t)
	e.IdentityCertDirs = []string{certDir}
	e.Bindings = &aso.BindingsFile{Path: bindings}

	for name, spec := range map[string]infrav1.AzureClusterIdentitySpec{
		"upper-case": *workloadIdentity(strings.ToUpper(clientID), &infrav1.AllowedNamespaces{}),
		"data-link": {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: "c",
			CertPath: filepath.Join(certDir, "..data", "platform.pem"), AllowedNamespaces: &infrav1.AllowedNamespaces{}},
		"dotted": {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: "c",
			CertPath: filepath.Join(certDir, ".", "..2026_12_01", "..", "platform.pem"), AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	} {
		g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec})).To(Succeed())
		creds, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: "c-" + name, SubscriptionID: "s",
			IdentityRef: &corev1.ObjectReference{Name: name}, Kinds: allKinds})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentityNotBoundReason)), name)
	}
}
