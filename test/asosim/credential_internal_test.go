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
	"testing"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestReconciler_Credential: the simulator looks for an object's credential in ASO v2.18's order and stops where ASO
// stops: the credential-from annotation (a '/' refused, a missing or incomplete Secret an error, never a fallback),
// else the namespace's aso-credential Secret (only its absence falls through; an incomplete one is an error), else
// the global credential, or ASO's error when none is configured.
func TestReconciler_Credential(t *testing.T) {
	const ns = "tenant"
	secret := func(name, clientID string, drop ...string) *corev1.Secret {
		data := map[string][]byte{
			"AZURE_SUBSCRIPTION_ID": []byte("11111111-1111-1111-1111-111111111111"),
			"AZURE_TENANT_ID":       []byte("22222222-2222-2222-2222-222222222222"),
			"AZURE_CLIENT_ID":       []byte(clientID),
			"AZURE_CLIENT_SECRET":   []byte("not-a-secret"),
		}
		for _, k := range drop {
			delete(data, k)
		}
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	}
	fromSecret := func(source CredentialSource, name, clientID string) CredentialRef {
		return CredentialRef{
			Source: source, Secret: types.NamespacedName{Namespace: ns, Name: name}, ClientID: clientID,
			TenantID: "22222222-2222-2222-2222-222222222222", SubscriptionID: "11111111-1111-1111-1111-111111111111",
		}
	}
	global := CredentialRef{Source: FromGlobal, ClientID: DefaultClientID, TenantID: DefaultTenantID, SubscriptionID: "00000000-0000-0000-0000-000000000000"}
	tests := []struct {
		name        string
		annotation  *string
		secrets     []*corev1.Secret
		noGlobal    bool
		want        CredentialRef
		wantProblem string
	}{
		{
			name: "the annotation's Secret, though aso-credential exists", annotation: ptr.To("cred"),
			secrets: []*corev1.Secret{secret("cred", "annotation-client"), secret(NamespaceCredentialSecret, "namespace-client")},
			want:    fromSecret(FromAnnotation, "cred", "annotation-client"),
		},
		{
			name: "a '/' in the annotation is refused, without falling back to aso-credential", annotation: ptr.To("other/cred"),
			secrets:     []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client")},
			wantProblem: "tenant/other/cred does not exist (serviceoperator.azure.com/credential-from cannot contain '/'. Secret must be in same namespace as resource.)",
		},
		{
			name: "a '/' is refused without a global credential either", annotation: ptr.To("/"), noGlobal: true,
			wantProblem: "cannot contain '/'",
		},
		{
			name: "the annotation's missing Secret is an error, without falling back", annotation: ptr.To("missing"),
			secrets:     []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client")},
			wantProblem: "tenant/missing does not exist (credential secret not found",
		},
		{
			name: "an empty annotation names a Secret too", annotation: ptr.To(""),
			secrets:     []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client")},
			wantProblem: "credential secret not found",
		},
		{
			name: "the annotation's incomplete Secret is an error, without falling back", annotation: ptr.To("cred"),
			secrets:     []*corev1.Secret{secret("cred", "annotation-client", "AZURE_TENANT_ID"), secret(NamespaceCredentialSecret, "namespace-client")},
			wantProblem: `does not contain key "AZURE_TENANT_ID"`,
		},
		{
			name:    "the namespace's aso-credential, not the global credential",
			secrets: []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client"), secret("cred", "annotation-client")},
			want:    fromSecret(FromNamespace, NamespaceCredentialSecret, "namespace-client"),
		},
		{
			name: "the namespace's aso-credential without a global credential", noGlobal: true,
			secrets: []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client")},
			want:    fromSecret(FromNamespace, NamespaceCredentialSecret, "namespace-client"),
		},
		{
			name:        "an incomplete aso-credential is an error, without falling back to the global credential",
			secrets:     []*corev1.Secret{secret(NamespaceCredentialSecret, "namespace-client", "AZURE_CLIENT_ID")},
			wantProblem: `tenant/aso-credential does not exist (credential Secret "tenant/aso-credential" does not contain key "AZURE_CLIENT_ID")`,
		},
		{
			name: "aso-credential with some of a cloud's endpoints is an error",
			secrets: []*corev1.Secret{func() *corev1.Secret {
				s := secret(NamespaceCredentialSecret, "namespace-client")
				s.Data["AZURE_AUTHORITY_HOST"] = []byte("https://login.example/")
				return s
			}()},
			wantProblem: "must specify ALL or NONE of",
		},
		{
			name: "another namespace's aso-credential is not this one's",
			secrets: []*corev1.Secret{func() *corev1.Secret {
				s := secret(NamespaceCredentialSecret, "elsewhere")
				s.Namespace = "other"
				return s
			}()},
			want: global,
		},
		{
			name: "the global credential",
			want: global,
		},
		{
			name: "no credential at all", noGlobal: true,
			wantProblem: "global credential not configured, you must use either namespaced or per-resource credentials",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			scheme := runtime.NewScheme()
			g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
			objs := make([]client.Object, 0, len(tt.secrets))
			for _, s := range tt.secrets {
				objs = append(objs, s)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
			r := &reconciler{sim: &Simulator{client: c, opts: Options{
				SubscriptionID: "00000000-0000-0000-0000-000000000000", ClientID: DefaultClientID, TenantID: DefaultTenantID,
				NoGlobalCredential: tt.noGlobal,
			}}}
			rg := &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rg"}}
			if tt.annotation != nil {
				rg.Annotations = map[string]string{asoannotations.PerResourceSecret: *tt.annotation}
			}

			got, problem, err := r.credential(t.Context(), rg)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantProblem != "" {
				g.Expect(problem).To(ContainSubstring(tt.wantProblem))
				g.Expect(got).To(BeZero(), "no credential where ASO makes none")
				return
			}
			g.Expect(problem).To(BeEmpty())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
