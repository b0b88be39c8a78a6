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

package asosim_test

import (
	"testing"
	"time"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestCredentialFrom: like ASO, the simulator neither claims nor creates a resource whose credential-from Secret
// is missing or incomplete (Ready false, Warning, reason Failed, ASO's message), and goes on once it is complete.
func TestCredentialFrom(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "credential")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg", Annotations: map[string]string{asoannotations.PerResourceSecret: "cred"}},
		Spec:       asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	failedWith := func(message string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			readyCondition(ctx, g, rg, And(HaveField("Status", metav1.ConditionFalse), HaveField("Severity", conditions.ConditionSeverityWarning),
				HaveField("Reason", "Failed"), HaveField("Message", ContainSubstring(message))))
			g.Expect(genruntime.GetResourceIDOrDefault(rg)).To(BeEmpty(), "ASO claims nothing without a credential")
		}, timeout).Should(Succeed())
	}
	failedWith("credential secret not found")

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "cred"}, StringData: map[string]string{
		"AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000", "AZURE_TENANT_ID": "tenant",
		"AZURE_RESOURCE_MANAGER_ENDPOINT": "https://management.chinacloudapi.cn/",
	}}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	failedWith(`does not contain key "AZURE_CLIENT_ID"`)

	secret.StringData = map[string]string{"AZURE_CLIENT_ID": "client"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	failedWith("must specify ALL or NONE of")

	secret.StringData = map[string]string{"AZURE_RESOURCE_MANAGER_AUDIENCE": "https://management.core.chinacloudapi.cn/", "AZURE_AUTHORITY_HOST": "https://login.chinacloudapi.cn/"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, rg, HaveField("Status", metav1.ConditionTrue))
		g.Expect(genruntime.GetResourceIDOrDefault(rg)).NotTo(BeEmpty())
	}, timeout).Should(Succeed())
}

// TestCredentialLookupOrder: the simulator uses the credential ASO would, and says which (CredentialUsed,
// CredentialUses), on creation and on deletion: the credential-from annotation's Secret though the namespace has an
// aso-credential Secret; a credential-from with a '/' is refused (Failed, a Warning) and nothing reaches Azure,
// though aso-credential exists; without the annotation, the namespace's aso-credential, not the global credential;
// an incomplete aso-credential is refused, without falling back; else the global credential.
func TestCredentialLookupOrder(t *testing.T) {
	const (
		annotationClient = "00000000-0000-0000-0000-0000000000a1"
		namespaceClient  = "00000000-0000-0000-0000-0000000000b2"
	)
	credentialSecret := func(ns, name, clientID string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{
			"AZURE_SUBSCRIPTION_ID": sim.SubscriptionID(), "AZURE_TENANT_ID": asosim.DefaultTenantID,
			"AZURE_CLIENT_ID": clientID, "AZURE_CLIENT_SECRET": "not-a-secret",
		}}
	}
	ref := func(source asosim.CredentialSource, ns, name, clientID string) asosim.CredentialRef {
		return asosim.CredentialRef{
			Source: source, Secret: types.NamespacedName{Namespace: ns, Name: name},
			ClientID: clientID, TenantID: asosim.DefaultTenantID, SubscriptionID: sim.SubscriptionID(),
		}
	}
	tests := []struct {
		name       string
		annotation string // credential-from, if not empty
		// secrets are the credential Secrets of the namespace: name → client ID ("" for one without AZURE_CLIENT_ID).
		secrets     map[string]string
		want        func(ns string) asosim.CredentialRef
		wantMessage string
	}{
		{
			name: "annotation", annotation: "cred",
			secrets: map[string]string{"cred": annotationClient, asosim.NamespaceCredentialSecret: namespaceClient},
			want:    func(ns string) asosim.CredentialRef { return ref(asosim.FromAnnotation, ns, "cred", annotationClient) },
		},
		{
			name: "a slash in the annotation is refused without falling back", annotation: "other/cred",
			secrets:     map[string]string{asosim.NamespaceCredentialSecret: namespaceClient},
			wantMessage: "cannot contain '/'",
		},
		{
			name:    "the namespace's aso-credential",
			secrets: map[string]string{asosim.NamespaceCredentialSecret: namespaceClient, "cred": annotationClient},
			want: func(ns string) asosim.CredentialRef {
				return ref(asosim.FromNamespace, ns, asosim.NamespaceCredentialSecret, namespaceClient)
			},
		},
		{
			name:        "an incomplete aso-credential is refused without falling back",
			secrets:     map[string]string{asosim.NamespaceCredentialSecret: ""},
			wantMessage: `does not contain key "AZURE_CLIENT_ID"`,
		},
		{
			name: "global",
			want: func(string) asosim.CredentialRef {
				return asosim.CredentialRef{Source: asosim.FromGlobal, ClientID: sim.ClientID(), TenantID: asosim.DefaultTenantID, SubscriptionID: sim.SubscriptionID()}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			ns, err := env.Env.CreateNamespace(ctx, "credential-order")
			g.Expect(err).NotTo(HaveOccurred())
			t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })
			for name, clientID := range tt.secrets {
				secret := credentialSecret(ns.Name, name, clientID)
				if clientID == "" {
					delete(secret.StringData, "AZURE_CLIENT_ID")
				}
				g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
			}
			// ASO reads Secrets from its informer's cache, as the simulator does: let it see them first.
			time.Sleep(time.Second)

			rg := &asoresources.ResourceGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg"},
				// Azure names of their own: the tests of the package share one fake Azure.
				Spec: asoresources.ResourceGroup_Spec{AzureName: ns.Name, Location: ptr.To("eastus")},
			}
			if tt.annotation != "" {
				rg.Annotations = map[string]string{asoannotations.PerResourceSecret: tt.annotation}
			}
			g.Expect(env.Env.Create(ctx, rg)).To(Succeed())

			if tt.wantMessage != "" {
				g.Eventually(func(g Gomega) {
					readyCondition(ctx, g, rg, And(HaveField("Status", metav1.ConditionFalse), HaveField("Severity", conditions.ConditionSeverityWarning),
						HaveField("Reason", "Failed"), HaveField("Message", ContainSubstring(tt.wantMessage))))
				}, timeout).Should(Succeed())
				g.Consistently(func(g Gomega) {
					_, used := sim.CredentialUsed("ResourceGroup", ns.Name, "rg")
					g.Expect(used).To(BeFalse(), "nothing reaches Azure without a credential")
					readyCondition(ctx, g, rg, HaveField("Status", metav1.ConditionFalse))
					g.Expect(genruntime.GetResourceIDOrDefault(rg)).To(BeEmpty(), "ASO claims nothing without a credential")
				}, 3*time.Second, 250*time.Millisecond).Should(Succeed())
				return
			}

			want := tt.want(ns.Name)
			g.Eventually(func(g Gomega) { readyCondition(ctx, g, rg, HaveField("Status", metav1.ConditionTrue)) }, timeout).Should(Succeed())
			used, ok := sim.CredentialUsed("ResourceGroup", ns.Name, "rg")
			g.Expect(ok).To(BeTrue())
			g.Expect(used).To(Equal(want))
			if tt.secrets[asosim.NamespaceCredentialSecret] != "" && tt.annotation == "" {
				// The judge tells a fallback: the global credential is not the namespace's.
				g.Expect(used.Source).NotTo(Equal(asosim.FromGlobal))
				g.Expect(used.ClientID).NotTo(Equal(sim.ClientID()))
			}

			// ASO resolves the credential again to delete, and deletes with it.
			id := genruntime.GetResourceIDOrDefault(rg)
			g.Expect(env.Env.Delete(ctx, rg)).To(Succeed())
			g.Eventually(func() bool { return sim.ExistsInAzure(id) }, timeout).Should(BeFalse())
			var ops []string
			for _, use := range sim.CredentialUses() {
				if use.Kind == "ResourceGroup" && use.Namespace == ns.Name && use.Name == "rg" {
					g.Expect(use.Credential).To(Equal(want), "%s of %s", use.Op, use.ID)
					g.Expect(use.ID).To(Equal(id))
					if use.Op != asosim.OpSync {
						ops = append(ops, use.Op)
					}
				}
			}
			g.Expect(ops).To(HaveExactElements(asosim.OpCreate, asosim.OpDelete), "the writes of the resource: %+v", sim.CredentialUses())
		})
	}
}

// TestCredentialOnDelete: like ASO, the simulator resolves the credential again to delete; while ASO can make none
// (here a credential-from changed to a name with '/'), the object keeps its finalizer and says why, and nothing is
// deleted in Azure; once the credential is good again, the deletion goes on with it.
func TestCredentialOnDelete(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "credential-delete")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg"},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: ns.Name, Location: ptr.To("eastus")},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	g.Eventually(func(g Gomega) { readyCondition(ctx, g, rg, HaveField("Status", metav1.ConditionTrue)) }, timeout).Should(Succeed())
	id := genruntime.GetResourceIDOrDefault(rg)

	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(rg), rg)).To(Succeed())
		rg.Annotations[asoannotations.PerResourceSecret] = "revoked/"
		g.Expect(env.Env.Update(ctx, rg)).To(Succeed())
	}, timeout).Should(Succeed())
	g.Expect(env.Env.Delete(ctx, rg)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, rg, And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", "Failed"),
			HaveField("Message", ContainSubstring("cannot contain '/'"))))
	}, timeout).Should(Succeed())
	g.Consistently(func() bool { return sim.ExistsInAzure(id) }, 2*time.Second, 250*time.Millisecond).Should(BeTrue(), "nothing is deleted without a credential")

	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(rg), rg)).To(Succeed())
		delete(rg.Annotations, asoannotations.PerResourceSecret)
		g.Expect(env.Env.Update(ctx, rg)).To(Succeed())
	}, timeout).Should(Succeed())
	g.Eventually(func(g Gomega) {
		err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(rg), rg)
		g.Expect(sim.ExistsInAzure(id)).To(BeFalse(), "%v %+v %+v", err, rg.Annotations, rg.Status.Conditions)
	}, timeout).Should(Succeed())
	used, ok := sim.CredentialUsed("ResourceGroup", ns.Name, "rg")
	g.Expect(ok).To(BeTrue())
	g.Expect(used.Source).To(Equal(asosim.FromGlobal))
}
