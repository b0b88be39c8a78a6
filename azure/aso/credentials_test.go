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
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestNamespaceAllowed(t *testing.T) {
	team := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}}
	other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"team": "b"}}}
	selectA := &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	tests := []struct {
		name    string
		allowed *infrav1.AllowedNamespaces
		ns      *corev1.Namespace
		want    bool
	}{
		{"nil allows no namespace", nil, team, false},
		{"{} allows every namespace", &infrav1.AllowedNamespaces{}, team, true},
		{"{} allows every namespace (other)", &infrav1.AllowedNamespaces{}, other, true},
		{"list allows a listed namespace", &infrav1.AllowedNamespaces{NamespaceList: []string{"team-a"}}, team, true},
		{"list refuses an unlisted namespace", &infrav1.AllowedNamespaces{NamespaceList: []string{"team-a"}}, other, false},
		{"selector allows a matching namespace", &infrav1.AllowedNamespaces{Selector: selectA}, team, true},
		{"selector refuses another namespace", &infrav1.AllowedNamespaces{Selector: selectA}, other, false},
		{"empty selector matches nothing", &infrav1.AllowedNamespaces{Selector: &metav1.LabelSelector{}}, team, false},
		{"list wins over selector: listed", &infrav1.AllowedNamespaces{NamespaceList: []string{"team-b"}, Selector: selectA}, other, true},
		{"list wins over selector: selected but not listed", &infrav1.AllowedNamespaces{NamespaceList: []string{"team-b"}, Selector: selectA}, team, false},
		{"empty list and no selector allows nothing", &infrav1.AllowedNamespaces{NamespaceList: []string{}}, team, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(aso.NamespaceAllowed(tt.allowed, tt.ns)).To(Equal(tt.want))
		})
	}
}

func TestEnsureCredentials(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(certFile, []byte("PEM FROM FILE"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{
		"AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
		"AZURE_TENANT_ID":       "00000000-0000-0000-0000-000000000002",
		"AZURE_CLIENT_ID":       "00000000-0000-0000-0000-000000000003",
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name       string
		identity   infrav1.AzureClusterIdentitySpec
		secretData map[string]string
		wantKeys   map[string]string
		wantReason string
	}{
		{name: "service principal", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal},
			secretData: map[string]string{"clientSecret": "s3cr3t"}, wantKeys: with(map[string]string{"AZURE_CLIENT_SECRET": "s3cr3t"})},
		{name: "manual service principal", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ManualServicePrincipal},
			secretData: map[string]string{"clientSecret": "manual"}, wantKeys: with(map[string]string{"AZURE_CLIENT_SECRET": "manual"})},
		{name: "certificate from a secret", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate},
			secretData: map[string]string{"certificate": "PEM", "password": "pw"},
			wantKeys:   with(map[string]string{"AZURE_CLIENT_CERTIFICATE": "PEM", "AZURE_CLIENT_CERTIFICATE_PASSWORD": "pw"})},
		{name: "certificate from a file", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, CertPath: certFile},
			wantKeys: with(map[string]string{"AZURE_CLIENT_CERTIFICATE": "PEM FROM FILE"})},
		{name: "user-assigned managed identity", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.UserAssignedMSI},
			wantKeys: with(map[string]string{"AUTH_MODE": "podidentity"})},
		{name: "workload identity", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity},
			wantKeys: with(map[string]string{"AUTH_MODE": "workloadidentity"})},
		{name: "user-assigned identity credentials", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.UserAssignedIdentityCredential, UserAssignedIdentityCredentialsPath: "/var/run/creds.json"},
			wantKeys: with(map[string]string{"AZURE_USER_ASSIGNED_IDENTITY_CREDENTIALS": "/var/run/creds.json"})},
		{name: "service principal without its secret", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal},
			wantReason: aso.IdentitySecretInvalidReason},
		{name: "service principal secret without the key", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal},
			secretData: map[string]string{"password": "x"}, wantReason: aso.IdentitySecretInvalidReason},
		{name: "namespace not allowed", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{"elsewhere"}}},
			wantReason: infrav1.NamespaceNotAllowedReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			identity := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace}, Spec: tt.identity}
			identity.Spec.TenantID, identity.Spec.ClientID = base["AZURE_TENANT_ID"], base["AZURE_CLIENT_ID"]
			if identity.Spec.AllowedNamespaces == nil {
				identity.Spec.AllowedNamespaces = &infrav1.AllowedNamespaces{}
			}
			if tt.identity.Type == infrav1.ServicePrincipal || tt.identity.Type == infrav1.ManualServicePrincipal || (tt.identity.Type == infrav1.ServicePrincipalCertificate && tt.identity.CertPath == "") {
				identity.Spec.ClientSecret = corev1.SecretReference{Name: "identity-secret", Namespace: owner.Namespace}
			}
			g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
			if tt.secretData != nil {
				g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "identity-secret", Namespace: owner.Namespace}, StringData: tt.secretData})).To(Succeed())
			}

			creds, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{
				ClusterName: "cluster", SubscriptionID: base["AZURE_SUBSCRIPTION_ID"],
				IdentityRef: &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "identity"},
			})
			g.Expect(err).NotTo(HaveOccurred())
			secret := &corev1.Secret{}
			getErr := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "cluster-aso-secret"}, secret)
			if tt.wantReason != "" {
				g.Expect(creds.Ready).To(BeFalse())
				g.Expect(creds.Reason).To(Equal(tt.wantReason))
				g.Expect(creds.Message).NotTo(BeEmpty())
				g.Expect(getErr).To(HaveOccurred(), "no secret is written for an identity that cannot be used")
				return
			}
			g.Expect(creds).To(Equal(aso.Credentials{SecretName: "cluster-aso-secret", Ready: true, Reason: aso.CredentialsReadyReason}))
			g.Expect(getErr).NotTo(HaveOccurred())
			got := map[string]string{}
			for k, v := range secret.Data {
				got[k] = string(v)
			}
			g.Expect(got).To(Equal(tt.wantKeys))
			g.Expect(metav1.IsControlledBy(secret, owner)).To(BeTrue())
			g.Expect(secret.Labels).To(HaveKeyWithValue(infrav1.ClusterNameLabel, "cluster"))

			// A second pass with nothing changed writes nothing.
			before := writes.Load()
			_, err = e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: "cluster", SubscriptionID: base["AZURE_SUBSCRIPTION_ID"],
				IdentityRef: &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "identity"}})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(writes.Load()).To(Equal(before))
		})
	}
}

func TestEnsureCredentials_LeavesTheUsersSecretAlone(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace},
		Spec:       infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: "t", ClientID: "c", AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	})).To(Succeed())
	mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cluster-aso-secret", Namespace: owner.Namespace}, StringData: map[string]string{"AZURE_CLIENT_ID": "mine"}}
	g.Expect(env.Env.Create(ctx, mine)).To(Succeed())

	creds, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: "cluster", SubscriptionID: "s",
		IdentityRef: &corev1.ObjectReference{Name: "identity"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds.SecretName).To(Equal("cluster-aso-secret"))
	live := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(mine), live)).To(Succeed())
	g.Expect(live.Data).To(Equal(map[string][]byte{"AZURE_CLIENT_ID": []byte("mine")}))
	g.Expect(live.OwnerReferences).To(BeEmpty())
}

func TestReconcile_CredentialAnnotation(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	opts := options("c10")
	opts.CredentialSecret = aso.CredentialSecretName("c10")
	_, err := e.Reconcile(ctx, owner, []aso.Resource{resourceGroup("rg")}, opts)
	g.Expect(err).NotTo(HaveOccurred())
	rg := resourceGroup("rg").Object
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}, rg)).To(Succeed())
	g.Expect(rg.GetAnnotations()).To(HaveKeyWithValue("serviceoperator.azure.com/credential-from", "c10-aso-secret"))
}
