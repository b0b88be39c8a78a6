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

package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	// credentialPolicyDir is the optional admission policy for credential Secrets (the release asset
	// credential-secrets-policy.yaml), relative to this package.
	credentialPolicyDir  = "policies/credential-secrets"
	credentialPolicyName = "capz-credential-secrets"
	// asoCredential is the Secret ASO takes a namespace's credential from when an object names none.
	asoCredential = "aso-credential"
)

// documentedAdminGroupOverlay returns the patches of the kustomization that docs/security.md gives to exempt an
// administrators' group (platform-admins), so that the test checks what the page tells users to do.
func documentedAdminGroupOverlay(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if _, patches, ok := strings.Cut(block, "\npatches:\n"); ok && strings.Contains(block, credentialPolicyName) {
			return "patches:\n" + patches
		}
	}
	t.Fatal("docs/security.md shows no kustomization that patches the credential Secrets policy")
	return ""
}

// credentialPolicy returns the policy and its binding, built with the pinned kustomize from config/.
func credentialPolicy(t *testing.T, dir string) (policy, binding *unstructured.Unstructured) {
	t.Helper()
	kustomize, err := env.Tool("kustomize")
	if err != nil {
		t.Fatal(err)
	}
	data, err := kustomizeBuild(kustomize, dir)
	if err != nil {
		t.Fatal(err)
	}
	objs := decode(t, data)
	if len(objs) != 2 {
		t.Fatalf("%s holds %d objects, want the policy and its binding", dir, len(objs))
	}
	policy = find(objs, "ValidatingAdmissionPolicy", credentialPolicyName)
	binding = find(objs, "ValidatingAdmissionPolicyBinding", credentialPolicyName)
	if policy == nil || binding == nil {
		t.Fatalf("%s lacks the policy or the binding %s", dir, credentialPolicyName)
	}
	return policy, binding
}

// TestCredentialSecretsPolicy_Exemptions: the policy is optional (config/default does not hold it), and the
// ServiceAccount it exempts is the one the release manifests run the manager as, which the tests' provider user
// plays.
func TestCredentialSecretsPolicy_Exemptions(t *testing.T) {
	g := NewWithT(t)
	components := decode(t, componentsYAML(t))
	for _, o := range components {
		g.Expect(o.GetKind()).NotTo(HavePrefix("ValidatingAdmissionPolicy"), "the credential Secrets policy is optional")
	}

	var managerUser string
	for _, b := range objectsOfKind[rbacv1.ClusterRoleBinding](t, components, "ClusterRoleBinding") {
		if b.RoleRef.Name != managerRole {
			continue
		}
		g.Expect(b.Subjects).To(HaveLen(1))
		managerUser = "system:serviceaccount:" + b.Subjects[0].Namespace + ":" + b.Subjects[0].Name
	}
	g.Expect(managerUser).To(Equal(env.ProviderUser))

	policy, _ := credentialPolicy(t, credentialPolicyDir)
	vap := convert[admissionregistrationv1.ValidatingAdmissionPolicy](t, policy)
	g.Expect(vap.Spec.Variables).NotTo(BeEmpty())
	g.Expect(vap.Spec.Variables[0].Name).To(Equal("exemptUsers"))
	g.Expect(vap.Spec.Variables[0].Expression).To(ContainSubstring("'" + managerUser + "'"))
	g.Expect(vap.Spec.Variables[1].Name).To(Equal("adminGroups"), "docs/security.md patches /spec/variables/1")
	g.Expect(vap.Spec.FailurePolicy).To(HaveValue(Equal(admissionregistrationv1.Fail)))
}

// TestCredentialSecretsPolicy_Admission installs the policy on a real API server and writes Secrets as a tenant
// who may write every Secret of one namespace, as the provider, as administrators and as the garbage collector.
func TestCredentialSecretsPolicy_Admission(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	policy, binding := credentialPolicy(t, credentialPolicyDir)

	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("failed to stop the control plane: %v", err)
		}
	})
	g.Expect(cp.InstallProviderRBAC(ctx)).To(Succeed())
	admin, err := client.New(cp.Config, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	apply := func(o *unstructured.Unstructured) error {
		return admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner("test"), client.ForceOwnership)
	}

	// A namespace whose Secrets the tenant, an impostor ServiceAccount named like the provider's, a member of
	// an administrators' group the policy does not know yet, and the garbage collector may all write.
	const ns = "team-a"
	const (
		tenantUser   = "tenant"
		impostorUser = "system:serviceaccount:" + ns + ":capz-manager"
		gcUser       = "system:serviceaccount:kube-system:generic-garbage-collector"
		adminGroup   = "platform-admins"
	)
	g.Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	g.Expect(admin.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "secrets", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}}}})).To(Succeed())
	g.Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "secrets", Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "secrets"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: tenantUser},
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: impostorUser},
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: gcUser},
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: adminGroup},
		}})).To(Succeed())
	userClient := func(name string, groups ...string) client.Client {
		au, err := cp.AddUser(envtest.User{Name: name, Groups: groups}, &rest.Config{})
		g.Expect(err).NotTo(HaveOccurred())
		c, err := client.New(au.Config(), client.Options{})
		g.Expect(err).NotTo(HaveOccurred())
		return c
	}
	providerConfig, err := env.ProviderConfig(cp.Config)
	g.Expect(err).NotTo(HaveOccurred())
	provider, err := client.New(providerConfig, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	clients := map[string]client.Client{
		"tenant":        userClient(tenantUser, "tenants"),
		"impostor":      userClient(impostorUser, "system:serviceaccounts", "system:serviceaccounts:"+ns),
		"platformAdmin": userClient("alice", adminGroup),
		"gc":            userClient(gcUser, "system:serviceaccounts", "system:serviceaccounts:kube-system"),
		"provider":      provider,
		"admin":         admin,
	}

	// What the provider writes: <cluster>-aso-secret, labelled and controlled by its owner (writeCredentialSecret).
	controllerRef := metav1.OwnerReference{APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: "c1",
		UID: types.UID("00000000-0000-0000-0000-000000000001"), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	providerSecret := func(name string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
				Labels:          map[string]string{infrav1.ClusterNameLabel: "c1", infrav1.OwnedByLabel: "c1"},
				OwnerReferences: []metav1.OwnerReference{controllerRef}},
			Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"AZURE_CLIENT_ID": []byte("platform"), "AZURE_TENANT_ID": []byte("t")},
		}
	}
	createProviderSecret := func(g Gomega, name string) *corev1.Secret {
		s := providerSecret(name)
		g.Expect(provider.Create(ctx, s)).To(Succeed(), "the provider writes its Secrets")
		return s
	}
	tenantCredential := func() *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: asoCredential, Namespace: ns},
			StringData: map[string]string{"AZURE_CLIENT_ID": "platform", "AZURE_TENANT_ID": "t", "AZURE_SUBSCRIPTION_ID": "s"}}
	}
	denied := func(g Gomega, err error) {
		g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want the policy's denial, got %v", err)
		g.Expect(err.Error()).To(ContainSubstring(credentialPolicyName))
	}
	tenant := clients["tenant"]

	// Negative control: with the policy but no binding, nothing is enforced, so the checks below would notice a
	// policy that allows everything.
	g.Expect(apply(policy)).To(Succeed())
	control := createProviderSecret(g, "control-aso-secret")
	g.Expect(tenant.Create(ctx, tenantCredential(), client.DryRunAll)).To(Succeed())
	control.Labels = nil
	control.Data = map[string][]byte{"AZURE_CLIENT_ID": []byte("mine")}
	g.Expect(tenant.Update(ctx, control, client.DryRunAll)).To(Succeed())

	// Enforced once the API server has loaded the binding.
	g.Expect(apply(binding)).To(Succeed())
	g.Eventually(func(g Gomega) {
		denied(g, tenant.Create(ctx, tenantCredential(), client.DryRunAll))
	}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())

	tests := []struct {
		name string
		as   string
		// target is the Secret the action works on: "provider" (a fresh Secret of the provider's), "credential"
		// (an aso-credential the administrator wrote, deleted after the case), or "" (the action creates its own).
		target  string
		do      func(ctx context.Context, c client.Client, target *corev1.Secret) error
		allowed bool
	}{
		{name: "tenant creates aso-credential", as: "tenant",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.Create(ctx, tenantCredential())
			}},
		{name: "tenant updates aso-credential", as: "tenant", target: "credential",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				s.Data["AZURE_CLIENT_ID"] = []byte("mine")
				return c.Update(ctx, s)
			}},
		{name: "tenant deletes aso-credential", as: "tenant", target: "credential",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error { return c.Delete(ctx, s) }},
		{name: "ServiceAccount named like the provider's in the tenant's namespace creates aso-credential", as: "impostor",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.Create(ctx, tenantCredential())
			}},
		{name: "member of a group the policy does not list creates aso-credential", as: "platformAdmin",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.Create(ctx, tenantCredential(), client.DryRunAll)
			}},
		{name: "tenant rewrites the provider's Secret", as: "tenant", target: "provider",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				s.Data["AZURE_CLIENT_ID"] = []byte("mine")
				return c.Update(ctx, s)
			}},
		{name: "tenant removes the label and the owner and rewrites the Secret in one update", as: "tenant", target: "provider",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				s.Labels, s.OwnerReferences = nil, nil
				s.Data["AZURE_CLIENT_ID"] = []byte("mine")
				return c.Update(ctx, s)
			}},
		{name: "tenant patches the ownership label away", as: "tenant", target: "provider",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				return c.Patch(ctx, s, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+infrav1.OwnedByLabel+`":null}}}`)))
			}},
		{name: "tenant deletes the provider's Secret", as: "tenant", target: "provider",
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error { return c.Delete(ctx, s) }},
		{name: "tenant deletes the provider's Secrets as a collection", as: "tenant", target: "provider",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(ns), client.HasLabels{infrav1.OwnedByLabel})
			}},
		{name: "tenant creates a Secret with the ownership label", as: "tenant",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				s := providerSecret("labelled")
				s.OwnerReferences = nil
				return c.Create(ctx, s)
			}},
		{name: "tenant creates a Secret controlled by an AzureCluster", as: "tenant",
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				s := providerSecret("controlled")
				s.Labels = nil
				return c.Create(ctx, s)
			}},
		{name: "tenant writes and deletes an ordinary Secret", as: "tenant", allowed: true,
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ordinary", Namespace: ns}, StringData: map[string]string{"a": "b"}}
				if err := c.Create(ctx, s); err != nil {
					return err
				}
				s.StringData = map[string]string{"a": "c"}
				if err := c.Update(ctx, s); err != nil {
					return err
				}
				return c.Delete(ctx, s)
			}},
		{name: "provider rewrites, relabels and deletes its Secret", as: "provider", target: "provider", allowed: true,
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				if err := c.Patch(ctx, s, client.RawPatch(types.MergePatchType,
					[]byte(`{"metadata":{"labels":{"`+infrav1.OwnedByLabel+`":null}},"data":{"AZURE_CLIENT_ID":"b3RoZXI="}}`))); err != nil {
					return err
				}
				return c.Delete(ctx, s)
			}},
		{name: "provider creates aso-credential", as: "provider", allowed: true,
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.Create(ctx, tenantCredential(), client.DryRunAll)
			}},
		{name: "administrator creates aso-credential", as: "admin", allowed: true,
			do: func(ctx context.Context, c client.Client, _ *corev1.Secret) error {
				return c.Create(ctx, tenantCredential(), client.DryRunAll)
			}},
		{name: "administrator relabels and deletes the provider's Secret", as: "admin", target: "provider", allowed: true,
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error {
				s.Labels = nil
				if err := c.Update(ctx, s); err != nil {
					return err
				}
				return c.Delete(ctx, s)
			}},
		{name: "garbage collector deletes the provider's Secret", as: "gc", target: "provider", allowed: true,
			do: func(ctx context.Context, c client.Client, s *corev1.Secret) error { return c.Delete(ctx, s) }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var target, before *corev1.Secret
			switch tt.target {
			case "provider":
				target = createProviderSecret(g, fmt.Sprintf("c%d-aso-secret", i))
			case "credential":
				target = tenantCredential()
				g.Expect(admin.Create(ctx, target)).To(Succeed())
				defer func() { g.Expect(admin.Delete(ctx, tenantCredential())).To(Succeed()) }()
			}
			if target != nil {
				before = target.DeepCopy()
			}

			err := tt.do(ctx, clients[tt.as], target)
			if tt.allowed {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			denied(g, err)
			if before != nil {
				after := &corev1.Secret{}
				g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(before), after)).To(Succeed(), "the Secret is still there")
				g.Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "the Secret is unchanged")
			}
		})
	}

	// An administrators' group added as docs/security.md says is exempt.
	overlay := t.TempDir()
	base, err := filepath.Abs(credentialPolicyDir)
	g.Expect(err).NotTo(HaveOccurred())
	rel, err := filepath.Rel(overlay, base)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"),
		[]byte("resources:\n- "+filepath.ToSlash(rel)+"\n"+documentedAdminGroupOverlay(t)), 0o600)).To(Succeed())
	patched, _ := credentialPolicy(t, overlay)
	g.Expect(apply(patched)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(clients["platformAdmin"].Create(ctx, tenantCredential(), client.DryRunAll)).To(Succeed())
	}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	denied(g, tenant.Create(ctx, tenantCredential(), client.DryRunAll))
}
