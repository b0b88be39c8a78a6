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
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	credentialFrom  = "serviceoperator.azure.com/credential-from"
	reconcilePolicy = "serviceoperator.azure.com/reconcile-policy"
	tenantID        = "00000000-0000-0000-0000-0000000000aa"
)

// live reads an object of the test's namespace from the API server.
func live(ctx context.Context, g *WithT, namespace, name string, obj client.Object) client.Object {
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
	return obj
}

// TestReconcile_BroughtResourceStaysTheUsers is the escape of a patch that turned a brought resource into a
// managed one: a patch may not set the engine's pause record or the reconcile policy, and a record left on a
// referenced object by an older version (or anyone) never makes the engine restore a policy other than skip; the
// engine reads the object back after resuming, so it sees and re-applies skip in the same pass.
func TestReconcile_BroughtResourceStaysTheUsers(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	rgID := fmt.Sprintf("/subscriptions/%s/resourceGroups/users-rg", sim.SubscriptionID())
	sim.SeedAzure("ResourceGroup", rgID, map[string]string{"owner": "the user"})
	brought := func() []aso.Resource {
		rg := resourceGroup("users-rg")
		rg.Referenced = true
		return []aso.Resource{rg}
	}
	opts := options("byo")
	reconcileUntilReady(ctx, g, e, owner, brought, opts)
	policy := func() map[string]string {
		return live(ctx, g, owner.Namespace, "users-rg", &asoresources.ResourceGroup{}).GetAnnotations()
	}
	g.Expect(policy()).To(HaveKeyWithValue(reconcilePolicy, "skip"))

	for _, p := range []aso.Patch{
		{Kind: "ResourceGroup", Source: "spec.asoPatches[0]", Format: patch.Merge,
			Text: `{"metadata":{"annotations":{"infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy":"manage"}}}`},
		{Kind: "ResourceGroup", Source: "spec.asoPatches[0]", Format: patch.JSON,
			Text: `[{"op":"add","path":"/metadata/annotations","value":{"serviceoperator.azure.com/reconcile-policy":"manage"}}]`},
		{Kind: "ResourceGroup", Source: "spec.asoPatches[0]", Format: patch.Merge,
			Text: `{"metadata":{"annotations":{"infrastructure.cluster.x-k8s.io/adoption":"created"}}}`},
	} {
		patched := opts
		patched.Patches = []aso.Patch{p}
		result, err := e.Reconcile(ctx, owner, brought(), patched)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.PatchErrors).To(ConsistOf(ContainSubstring("may not set or remove the annotation")))
		g.Expect(policy()).To(HaveKeyWithValue(reconcilePolicy, "skip"))
	}

	// A pause record on the referenced object, written by someone else: resuming removes it and keeps skip.
	record := []byte(`{"metadata":{"annotations":{"infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy":"manage"}}}`)
	g.Expect(env.Env.Patch(ctx, live(ctx, g, owner.Namespace, "users-rg", &asoresources.ResourceGroup{}), client.RawPatch(types.MergePatchType, record))).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, err := e.Reconcile(ctx, owner, brought(), opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(policy()).To(And(HaveKeyWithValue(reconcilePolicy, "skip"), Not(HaveKey(aso.PrePauseAnnotation))))
	}, timeout).Should(Succeed())
	// A pause and a resume of the engine's own keep it too.
	g.Eventually(func(g Gomega) {
		done, _, err := e.Pause(ctx, owner, "byo", allKinds)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(done).To(BeTrue())
	}, timeout).Should(Succeed())
	reconcileUntilReady(ctx, g, e, owner, brought, opts)
	g.Expect(policy()).To(HaveKeyWithValue(reconcilePolicy, "skip"))

	g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "byo", Kinds: allKinds})).To(BeTrue())
	g.Expect(sim.ExistsInAzure(rgID)).To(BeTrue(), "deleting the cluster leaves the user's resource group in Azure")
	for _, event := range sim.Events() {
		g.Expect(event.ID).NotTo(Equal(rgID), "ASO never wrote the user's resource group")
	}
}

// TestReconcile_PatchTargets: a patch that selects no generated object says so in PatchesApplied; one whose kind
// another owner makes from the same patches, or one of an incomplete pass, does not; no patch reaches the Secrets
// the engine writes.
func TestReconcile_PatchTargets(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, StringData: map[string]string{"k": "v"}}
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg"), {Object: secret.DeepCopy()}} }
	opts := options("targets")
	opts.Patches = []aso.Patch{
		{Kind: "ResourceGroup", Source: "spec.asoPatches[0]", Format: patch.Merge, Text: `{"spec":{"tags":{"team":"a"}}}`},
		{Kind: "NetworkSecurityGroup", Name: "missing", Source: "spec.asoPatches[1]", Format: patch.Merge, Text: `{"spec":{"tags":{"x":"y"}}}`},
		{Kind: "Secret", Source: "spec.asoPatches[2]", Format: patch.Merge, Text: `{"stringData":{"k":"patched"}}`},
		{Kind: "VirtualMachine", Source: "spec.asoPatches[3]", Format: patch.Merge, Text: `{"spec":{"tags":{"x":"y"}}}`},
	}
	result, err := e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.PatchErrors).To(BeEmpty())
	g.Expect(result.UnmatchedPatches).To(ConsistOf(
		ContainSubstring("spec.asoPatches[1] matches no generated object (target NetworkSecurityGroup missing)"),
		ContainSubstring("spec.asoPatches[2] matches no generated object (target Secret)"),
		ContainSubstring("spec.asoPatches[3] matches no generated object (target VirtualMachine)"),
	))
	g.Expect(result.Conditions()).To(ContainElement(And(HaveField("Type", infrav1.PatchesAppliedCondition),
		HaveField("Status", metav1.ConditionFalse), HaveField("Reason", infrav1.PatchTargetNotFoundReason),
		HaveField("Message", ContainSubstring("(and 2 more)")))))
	g.Expect(live(ctx, g, owner.Namespace, "settings", &corev1.Secret{}).(*corev1.Secret).Data).To(HaveKeyWithValue("k", []byte("v")))
	g.Expect(live(ctx, g, owner.Namespace, "rg", &asoresources.ResourceGroup{}).(*asoresources.ResourceGroup).Spec.Tags).To(HaveKeyWithValue("team", "a"))

	opts.PatchTargets = []schema.GroupVersionKind{nsgGVK, asoresources.GroupVersion.WithKind("Secret"), {Group: "compute.azure.com", Kind: "VirtualMachine"}}
	result, err = e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.UnmatchedPatches).To(BeEmpty())

	opts.PatchTargets, opts.Incomplete = nil, true
	result, err = e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.UnmatchedPatches).To(BeEmpty(), "an incomplete pass may not have translated the target yet")
}

// rawResourceGroup is a resource group as a user writes it in an AzureASOManaged* spec.resources.
func rawResourceGroup(name, credential string, annotations map[string]string) aso.Resource {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(rgGVK)
	u.SetName(name)
	all := map[string]string{}
	for k, v := range annotations {
		all[k] = v
	}
	if credential != "" {
		all[credentialFrom] = credential
	}
	u.SetAnnotations(all)
	_ = unstructured.SetNestedField(u.Object, "eastus", "spec", "location")
	return aso.Resource{Object: u, Family: "Resources", Raw: true}
}

// TestReconcile_CredentialPolicy: which credential a raw object (or, under the strict policy, any object) may
// name. A credential with a secret of its own is the tenant's; one without (ASO would act with its own workload or
// managed identity for a client ID) needs an identity that allows the namespace to vouch for it, and under the
// strict policy the identity must be bound to that client ID.
func TestReconcile_CredentialPolicy(t *testing.T) {
	bindings := filepath.Join(t.TempDir(), "bindings.yaml")
	tests := []struct {
		name         string
		policy       aso.CredentialPolicy
		secret       map[string]string // nil: no Secret
		identity     *infrav1.AzureClusterIdentitySpec
		bound        bool
		noCredential bool
		generated    bool // the object is generated, the credential the owner's
		wantApplied  bool
		wantWarning  bool
	}{
		{name: "permissive: a client secret of its own", policy: aso.PermissivePolicy,
			secret: map[string]string{"AZURE_CLIENT_ID": tableClient, "AZURE_CLIENT_SECRET": "s"}, wantApplied: true},
		{name: "permissive: the platform's client ID without a secret, vouched by no one", policy: aso.PermissivePolicy,
			secret: workloadSecret(tableClient), wantApplied: true, wantWarning: true},
		{name: "permissive: vouched by a workload identity that allows the namespace", policy: aso.PermissivePolicy,
			secret: workloadSecret(tableClient), identity: workloadIdentity(tableClient, &infrav1.AllowedNamespaces{}), wantApplied: true},
		{name: "permissive: an identity that does not allow the namespace vouches for nothing", policy: aso.PermissivePolicy,
			secret: workloadSecret(tableClient), identity: workloadIdentity(tableClient, &infrav1.AllowedNamespaces{NamespaceList: []string{"platform"}}), wantApplied: true, wantWarning: true},
		{name: "permissive: no credential is ASO's default", policy: aso.PermissivePolicy, noCredential: true, wantApplied: true},
		{name: "strict: a client certificate of its own", policy: aso.StrictPolicy,
			secret: map[string]string{"AZURE_CLIENT_ID": tableClient, "AZURE_CLIENT_CERTIFICATE": "PEM"}, wantApplied: true},
		{name: "strict: vouched by no one", policy: aso.StrictPolicy, secret: workloadSecret(tableClient)},
		{name: "strict: managed identity mode, vouched by a workload identity of the same client ID", policy: aso.StrictPolicy,
			secret:   map[string]string{"AZURE_CLIENT_ID": tableClient, "AZURE_TENANT_ID": tenantID, "AUTH_MODE": "podidentity"},
			identity: workloadIdentity(tableClient, &infrav1.AllowedNamespaces{}), bound: true},
		{name: "strict: vouched by an identity not bound to the client ID", policy: aso.StrictPolicy,
			secret: workloadSecret(tableClient), identity: workloadIdentity(tableClient, &infrav1.AllowedNamespaces{})},
		{name: "strict: vouched by a bound identity", policy: aso.StrictPolicy,
			secret: workloadSecret(tableClient), identity: workloadIdentity(tableClient, &infrav1.AllowedNamespaces{}), bound: true, wantApplied: true},
		{name: "strict: no credential", policy: aso.StrictPolicy, noCredential: true},
		{name: "strict: a missing credential Secret", policy: aso.StrictPolicy},
		{name: "strict: a generated object with the owner's unvouched credential", policy: aso.StrictPolicy, secret: workloadSecret(tableClient), generated: true},
		{name: "strict: a generated object with a credential of its own", policy: aso.StrictPolicy,
			secret: map[string]string{"AZURE_CLIENT_ID": tableClient, "AZURE_CLIENT_SECRET": "s"}, generated: true, wantApplied: true},
		{name: "permissive: a generated object's credential is the owner's, checked by EnsureCredentials", policy: aso.PermissivePolicy,
			secret: workloadSecret(tableClient), generated: true, wantApplied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			clientID := clientIDFor(owner.Namespace)
			e.CredentialPolicy = tt.policy
			e.Bindings = &aso.BindingsFile{Path: bindings}
			identityName := "platform-" + owner.Namespace
			content := "bindings: []\n"
			if tt.bound {
				content = "bindings:\n- identity: " + owner.Namespace + "/" + identityName + "\n  clientID: " + clientID + "\n"
			}
			g.Expect(os.WriteFile(bindings, []byte(content), 0o600)).To(Succeed())
			if tt.identity != nil {
				spec := *tt.identity
				spec.ClientID = clientID
				g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: identityName, Namespace: owner.Namespace}, Spec: spec})).To(Succeed())
				g.Eventually(func() error { // vouching reads identities from the manager's cache
					return e.Client.Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: identityName}, &infrav1.AzureClusterIdentity{})
				}, timeout).Should(Succeed())
			}
			if tt.secret != nil {
				data := map[string]string{}
				for k, v := range tt.secret {
					data[k] = strings.ReplaceAll(v, tableClient, clientID)
				}
				g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "team-credential", Namespace: owner.Namespace}, StringData: data})).To(Succeed())
			}
			credential := "team-credential"
			if tt.noCredential {
				credential = ""
			}
			opts := options("policy")
			desired := rawResourceGroup("rg", credential, map[string]string{aso.PrePauseAnnotation: "manage"})
			if tt.generated {
				desired, opts.CredentialSecret = resourceGroup("rg"), credential
			}
			result, err := e.Reconcile(ctx, owner, []aso.Resource{desired}, opts)
			if tt.policy == aso.StrictPolicy && tt.secret == nil && !tt.noCredential {
				g.Expect(err).To(MatchError(ContainSubstring("failed to get the credential Secret")))
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
			rg := &asoresources.ResourceGroup{}
			getErr := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}, rg)
			if !tt.wantApplied {
				g.Expect(apierrors.IsNotFound(getErr)).To(BeTrue(), "a refused object is not applied")
				if err == nil {
					g.Expect(result.Resource("ResourceGroup", "rg")).To(And(HaveField("Ready", false), HaveField("Reason", aso.CredentialNotAllowedReason)))
				}
				return
			}
			g.Expect(getErr).NotTo(HaveOccurred())
			if tt.policy == aso.StrictPolicy {
				// ASO reads the provider's snapshot of the user's Secret, as vetted, never the Secret itself.
				g.Expect(rg.Annotations[credentialFrom]).To(HavePrefix(credential + "-vetted-"))
				expectSnapshot(ctx, g, owner, credential, rg.Annotations[credentialFrom])
			} else {
				g.Expect(rg.Annotations[credentialFrom]).To(Equal(credential))
			}
			g.Expect(rg.Annotations).NotTo(HaveKey(aso.PrePauseAnnotation), "the engine's records are never the user's")
			if tt.wantWarning {
				g.Expect(result.CredentialWarnings).To(ConsistOf(ContainSubstring("holds no client secret or certificate")))
			} else {
				g.Expect(result.CredentialWarnings).To(BeEmpty())
			}
		})
	}
}

// Every test has a client ID of its own: identities that allow every namespace outlive their test's namespace for a
// while, and would vouch for another test's Secret.
// clientIDFor is a client ID of a test's own.
func clientIDFor(namespace string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(namespace))
	return fmt.Sprintf("00000000-0000-0000-0000-%012x", h.Sum64()&0xffffffffffff)
}

// tableClient stands for the test's own client ID in a table.
const tableClient = "the-test's-client-id"

func workloadSecret(clientID string) map[string]string {
	return map[string]string{"AZURE_SUBSCRIPTION_ID": "s", "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": clientID, "AUTH_MODE": "workloadidentity"}
}

func workloadIdentity(clientID string, allowed *infrav1.AllowedNamespaces) *infrav1.AzureClusterIdentitySpec {
	return &infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: tenantID, ClientID: clientID, AllowedNamespaces: allowed}
}

// TestEnsureCredentials_PolicyAndBindings: the strict policy needs an identity, and an identity that uses a
// federated client ID or a certificate file only what the platform bound to it; a binding to another identity
// refuses it under either policy. Refusing revokes what was written.
func TestEnsureCredentials_PolicyAndBindings(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	certDir := t.TempDir()
	certFile := filepath.Join(certDir, "platform.pem")
	g.Expect(os.WriteFile(certFile, []byte("PLATFORM PEM"), 0o600)).To(Succeed())
	bindings := filepath.Join(t.TempDir(), "bindings.yaml")
	e := newEngine(t)
	clientID := clientIDFor(owner.Namespace)
	e.IdentityCertDirs = []string{certDir}
	e.Bindings = &aso.BindingsFile{Path: bindings}
	writeBindings := func(content string) {
		g.Expect(os.WriteFile(bindings, []byte(content), 0o600)).To(Succeed())
		g.Expect(os.Chtimes(bindings, time.Time{}, time.Now().Add(time.Duration(len(content))*time.Second))).To(Succeed())
	}
	ns := owner.Namespace
	for name, spec := range map[string]infrav1.AzureClusterIdentitySpec{
		"platform":      *workloadIdentity(clientID, &infrav1.AllowedNamespaces{}),
		"copycat":       *workloadIdentity(clientID, &infrav1.AllowedNamespaces{}),
		"platform-cert": {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: "c", CertPath: certFile, AllowedNamespaces: &infrav1.AllowedNamespaces{}},
		"cert-copycat":  {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: "c", CertPath: certFile, AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	} {
		g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec})).To(Succeed())
	}
	ensure := func(identity string) aso.Credentials {
		in := aso.CredentialsInput{ClusterName: "c-" + identity, SubscriptionID: "s", Kinds: allKinds}
		if identity != "" {
			in.IdentityRef = &corev1.ObjectReference{Name: identity}
		}
		creds, err := e.EnsureCredentials(ctx, owner, in)
		g.Expect(err).NotTo(HaveOccurred())
		return creds
	}
	secretExists := func(identity string) bool {
		err := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: aso.CredentialSecretName("c-" + identity)}, &corev1.Secret{})
		return err == nil
	}

	// Permissive, no bindings: as CAPZ.
	writeBindings("bindings: []\n")
	g.Expect(ensure("")).To(HaveField("Ready", true))
	for _, identity := range []string{"platform", "copycat", "platform-cert", "cert-copycat"} {
		g.Expect(ensure(identity)).To(HaveField("Ready", true), identity)
		g.Expect(secretExists(identity)).To(BeTrue())
	}

	// Bindings give the client ID and the file to their identities: the copies lose them, under either policy.
	writeBindings("bindings:\n- identity: " + ns + "/platform\n  clientID: " + clientID + "\n- identity: " + ns + "/platform-cert\n  certPath: " + certFile + "\n")
	for _, identity := range []string{"copycat", "cert-copycat"} {
		creds := ensure(identity)
		g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentityNotBoundReason),
			HaveField("Message", And(ContainSubstring("is bound to AzureClusterIdentity "+ns+"/platform"), ContainSubstring("the credential is revoked")))))
		g.Expect(secretExists(identity)).To(BeFalse(), "refusing revokes the secret written before")
	}
	g.Expect(ensure("platform")).To(HaveField("Ready", true))
	g.Expect(ensure("platform-cert")).To(HaveField("Ready", true))

	// Strict: an owner needs an identity, and an identity a binding.
	e.CredentialPolicy = aso.StrictPolicy
	g.Expect(ensure("")).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentityRequiredReason)))
	g.Expect(ensure("platform")).To(HaveField("Ready", true))
	writeBindings("bindings:\n- identity: " + ns + "/platform-cert\n  certPath: " + certFile + "\n")
	g.Expect(ensure("platform")).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentityNotBoundReason),
		HaveField("Message", ContainSubstring("not bound to it"))))
	g.Expect(secretExists("platform")).To(BeFalse())

	// A broken bindings file fails closed.
	writeBindings("bindings: [{identity: nope}]\n")
	_, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: "c-platform-cert", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "platform-cert"}})
	g.Expect(err).To(MatchError(ContainSubstring("is not <namespace>/<name>")))
}

// TestEnsureCredentials_UsersOwnSecret: a <cluster>-aso-secret the user made stays the user's, but the policy
// judges it: without a secret of its own and unvouched it is a warning, and the strict policy refuses it.
func TestEnsureCredentials_UsersOwnSecret(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	clientID := clientIDFor(owner.Namespace)
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "team", Namespace: owner.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: tenantID, ClientID: "team-client",
			ClientSecret: corev1.SecretReference{Name: "team-sp"}, AllowedNamespaces: &infrav1.AllowedNamespaces{}}})).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "team-sp", Namespace: owner.Namespace}, StringData: map[string]string{"clientSecret": "s"}})).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "planted-aso-secret", Namespace: owner.Namespace}, StringData: workloadSecret(clientID)})).To(Succeed())
	in := aso.CredentialsInput{ClusterName: "planted", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "team"}}

	creds, err := e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", true), HaveField("Warning", ContainSubstring("no AzureClusterIdentity that allows namespace"))))

	e.CredentialPolicy = aso.StrictPolicy
	creds, err = e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.CredentialNotAllowedReason), HaveField("SecretName", "")))
}

// TestCredentials_IdentityDeletedRevokes: deleting the identity revokes the credential it gave, as refusing the
// namespace does.
func TestCredentials_IdentityDeletedRevokes(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	clientID := clientIDFor(owner.Namespace)
	identity := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace}, Spec: *workloadIdentity(clientID, &infrav1.AllowedNamespaces{})}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	in := aso.CredentialsInput{ClusterName: "gone", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "identity"}, Kinds: allKinds}
	creds, err := e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	opts := options("gone")
	opts.CredentialSecret = creds.SecretName
	reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }, opts)
	g.Expect(live(ctx, g, owner.Namespace, "rg", &asoresources.ResourceGroup{}).GetAnnotations()).To(HaveKeyWithValue(credentialFrom, creds.SecretName))

	g.Expect(env.Env.Delete(ctx, identity)).To(Succeed())
	creds, err = e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentityNotFoundReason), HaveField("Message", ContainSubstring("the credential is revoked"))))
	g.Expect(live(ctx, g, owner.Namespace, "rg", &asoresources.ResourceGroup{}).GetAnnotations()).To(HaveKeyWithValue(credentialFrom, "revoked/"+aso.CredentialSecretName("gone")))
	err = env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: aso.CredentialSecretName("gone")}, &corev1.Secret{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
}

// TestBindingsFile: the bindings are read again when the file changes, and a file that cannot be read or parsed
// is an error, never "no bindings".
func TestBindingsFile(t *testing.T) {
	g := NewWithT(t)
	const clientID = "00000000-0000-0000-0000-0000000000bb"
	path := filepath.Join(t.TempDir(), "bindings.yaml")
	f := &aso.BindingsFile{Path: path}
	_, err := f.Load()
	g.Expect(err).To(HaveOccurred(), "a missing file")

	write := func(content string, at time.Time) {
		g.Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
		g.Expect(os.Chtimes(path, at, at)).To(Succeed())
	}
	now := time.Now()
	write("bindings:\n- identity: platform/wi\n  clientID: "+clientID+"\n", now)
	got, err := f.Load()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(ConsistOf(aso.IdentityBinding{Identity: "platform/wi", ClientID: clientID}))

	write("bindings:\n- identity: platform/cert\n  certPath: /etc/capz/certs/platform.pem\n", now.Add(time.Second))
	got, err = f.Load()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(ConsistOf(aso.IdentityBinding{Identity: "platform/cert", CertPath: "/etc/capz/certs/platform.pem"}))

	for content, problem := range map[string]string{
		"bindings:\n- identity: wi\n  clientID: c\n":                   "is not <namespace>/<name>",
		"bindings:\n- identity: p/wi\n":                                "set exactly one",
		"bindings:\n- identity: p/wi\n  clientID: c\n  certPath: /x\n": "set exactly one",
		"bindings:\n- identity: p/wi\n  clientSecret: c\n":             "unknown field",
		"bindings: {}\n": "cannot unmarshal",
	} {
		now = now.Add(time.Second)
		write(content, now)
		_, err := f.Load()
		g.Expect(err).To(MatchError(ContainSubstring(problem)), content)
	}
}
