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
	"os"
	"path/filepath"
	"strings"
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
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
	certDir, outside := t.TempDir(), t.TempDir()
	certFile := filepath.Join(certDir, "cert.pem")
	tokenFile := filepath.Join(outside, "token")
	escape := filepath.Join(certDir, "escape.pem")
	if err := os.WriteFile(certFile, []byte("PEM FROM FILE"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte("the manager's service account token"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tokenFile, escape); err != nil {
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
		{name: "certificate file outside the allowed directories", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, CertPath: tokenFile},
			wantReason: aso.IdentitySecretInvalidReason},
		{name: "certificate file linked out of the allowed directories", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, CertPath: escape},
			wantReason: aso.IdentitySecretInvalidReason},
		{name: "certificate path climbing out of the allowed directories", identity: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, CertPath: certDir + "/../" + filepath.Base(outside) + "/token"},
			wantReason: aso.IdentitySecretInvalidReason},
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
			e.IdentityCertDirs = []string{certDir}
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
				g.Expect(creds.Message).NotTo(ContainSubstring("service account token"), "the message shows no file content")
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

func TestEnsureCredentials_CertPathRefusedByDefault(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	certFile := filepath.Join(t.TempDir(), "cert.pem")
	g.Expect(os.WriteFile(certFile, []byte("PEM"), 0o600)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, CertPath: certFile, TenantID: "t", ClientID: "c",
			AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	})).To(Succeed())
	creds, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: "cluster", SubscriptionID: "s",
		IdentityRef: &corev1.ObjectReference{Name: "identity"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentitySecretInvalidReason),
		HaveField("Message", ContainSubstring("--identity-cert-dirs"))))
}

func TestEnsureCredentials_SecretOfAnotherNamespace(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	platform, err := env.Env.CreateNamespace(ctx, "platform")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), platform) })
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sp", Namespace: platform.Name}, StringData: map[string]string{"clientSecret": "platform's"}}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: "t", ClientID: "c",
			ClientSecret: corev1.SecretReference{Name: "sp", Namespace: platform.Name}, AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	})).To(Succeed())
	in := aso.CredentialsInput{ClusterName: "cluster", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "identity"}}
	credentialSecret := client.ObjectKey{Namespace: owner.Namespace, Name: "cluster-aso-secret"}

	// The secret's owner has not opted in: a tenant's identity cannot copy it into the tenant's namespace.
	creds, err := e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", aso.IdentitySecretInvalidReason),
		HaveField("Message", ContainSubstring(infrav1.AllowedIdentitiesAnnotation))))
	g.Expect(env.Env.GetAPIReader().Get(ctx, credentialSecret, &corev1.Secret{})).NotTo(Succeed())

	// It names the identity: the identity may use it.
	secret.Annotations = map[string]string{infrav1.AllowedIdentitiesAnnotation: "someone/else, " + owner.Namespace + "/identity"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	creds, err = e.EnsureCredentials(ctx, owner, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds.Ready).To(BeTrue())
	written := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, credentialSecret, written)).To(Succeed())
	g.Expect(written.Data).To(HaveKeyWithValue("AZURE_CLIENT_SECRET", []byte("platform's")))
}

// TestCredentials_TenancyMatrix tries every shape of allowedNamespaces with every identity type from every kind of
// owner, cluster-level (which write the credential secret) and machine-level (which name it): an owner gets a
// credential exactly when the identity allows its namespace. An escape is a credential secret written, or a
// credential named, for a namespace the identity does not allow.
func TestCredentials_TenancyMatrix(t *testing.T) {
	g := NewWithT(t)
	ctx, cluster := setup(t, g)
	e := newEngine(t)
	certDir := t.TempDir()
	e.IdentityCertDirs = []string{certDir}
	g.Expect(os.WriteFile(filepath.Join(certDir, "cert.pem"), []byte("PEM"), 0o600)).To(Succeed())
	ns := &corev1.Namespace{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Name: cluster.Namespace}, ns)).To(Succeed())
	ns.Labels["team"] = "a"
	g.Expect(env.Env.Update(ctx, ns)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "identity-secret", Namespace: ns.Name},
		StringData: map[string]string{"clientSecret": "s", "certificate": "PEM"}})).To(Succeed())

	allowed := map[string]*infrav1.AllowedNamespaces{
		"unset":                      nil,
		"empty":                      {},
		"listed":                     {NamespaceList: []string{ns.Name}},
		"not listed":                 {NamespaceList: []string{"elsewhere"}},
		"selected":                   {Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}},
		"not selected":               {Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}},
		"empty selector":             {Selector: &metav1.LabelSelector{}},
		"listed, selected elsewhere": {NamespaceList: []string{ns.Name}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}},
	}
	identities := map[infrav1.IdentityType]infrav1.AzureClusterIdentitySpec{
		infrav1.ServicePrincipal:               {ClientSecret: corev1.SecretReference{Name: "identity-secret"}},
		infrav1.ManualServicePrincipal:         {ClientSecret: corev1.SecretReference{Name: "identity-secret"}},
		infrav1.ServicePrincipalCertificate:    {CertPath: filepath.Join(certDir, "cert.pem")},
		infrav1.UserAssignedMSI:                {},
		infrav1.WorkloadIdentity:               {},
		infrav1.UserAssignedIdentityCredential: {UserAssignedIdentityCredentialsPath: "/var/run/creds.json"},
	}
	machineOwners := []client.Object{
		&infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{Name: "machine", Namespace: ns.Name}},
		&infrav1exp.AzureMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: ns.Name}},
		&infrav1exp.AzureMachinePoolMachine{ObjectMeta: metav1.ObjectMeta{Name: "instance", Namespace: ns.Name}},
		&infrav1.AzureManagedMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "agentpool", Namespace: ns.Name}},
	}
	// Machine-level owners write nothing: they need not exist. The control plane owns what it writes.
	controlPlane := &infrav1.AzureManagedControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "controlplane", Namespace: ns.Name},
		Spec: infrav1.AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
			Version: "v1.34.1", Location: "eastus", IdentityRef: &corev1.ObjectReference{Name: "identity-1"}}}}
	g.Expect(env.Env.Create(ctx, controlPlane)).To(Succeed())

	var escapes, denials, grants int
	i := 0
	for shape, allowedNamespaces := range allowed {
		for typ, spec := range identities {
			i++
			name := fmt.Sprintf("identity-%d", i)
			spec.Type, spec.TenantID, spec.ClientID, spec.AllowedNamespaces = typ, "t", "c", allowedNamespaces
			g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}, Spec: spec})).To(Succeed())
			want := aso.NamespaceAllowed(allowedNamespaces, ns)
			for _, owner := range []client.Object{cluster, controlPlane} {
				clusterName := fmt.Sprintf("c%d-%s", i, owner.GetName())
				in := aso.CredentialsInput{ClusterName: clusterName, SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: name}}
				creds, err := e.EnsureCredentials(ctx, owner, in)
				g.Expect(err).NotTo(HaveOccurred())
				secretErr := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: aso.CredentialSecretName(clusterName)}, &corev1.Secret{})
				got := creds.Ready && secretErr == nil
				if got != want {
					t.Errorf("allowedNamespaces %s, %s, %T: credentials %v, want %v (%+v)", shape, typ, owner, got, want, creds)
				}
				if !want && (creds.Ready || creds.SecretName != "" || secretErr == nil) {
					escapes++
				}
				// Every machine-level owner of that cluster gets the same answer, and only the cluster's secret name.
				for _, m := range machineOwners {
					mcreds, err := e.ClusterCredentials(ctx, m, in)
					g.Expect(err).NotTo(HaveOccurred())
					if mcreds.Ready != want || (want && mcreds.SecretName != aso.CredentialSecretName(clusterName)) {
						t.Errorf("allowedNamespaces %s, %s, %T: %+v, want ready %v", shape, typ, m, mcreds, want)
					}
					if !want && (mcreds.Ready || mcreds.SecretName != "") {
						escapes++
					}
				}
				if want {
					grants++
				} else {
					denials++
					g.Expect(creds.Reason).To(Equal(infrav1.NamespaceNotAllowedReason))
				}
			}
		}
	}
	t.Logf("tenancy matrix: %d combinations granted, %d refused, %d escapes", grants, denials, escapes)
	g.Expect(escapes).To(BeZero())
	g.Expect(grants).To(BeNumerically(">", 0))
	g.Expect(denials).To(BeNumerically(">", 0))
}

// TestCredentials_Revocation revokes an identity: the machine-level owner's objects name a revoked credential (the
// cluster's secret stays for its owner to delete), then the cluster-level owner's objects do and its secret goes.
// No object loses credential-from, which would hand it to ASO's fallbacks. Nothing is deleted but the secret.
func TestCredentials_Revocation(t *testing.T) {
	g := NewWithT(t)
	ctx, cluster := setup(t, g)
	e := newEngine(t)
	machine := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "machine-like", Namespace: cluster.Namespace}}
	g.Expect(env.Env.Create(ctx, machine)).To(Succeed())
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: cluster.Namespace},
		Spec:       infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: "t", ClientID: "c", AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	in := aso.CredentialsInput{ClusterName: "revoked", SubscriptionID: "s", IdentityRef: &corev1.ObjectReference{Name: "identity"}, Kinds: allKinds}
	creds, err := e.EnsureCredentials(ctx, cluster, in)
	g.Expect(err).NotTo(HaveOccurred())
	opts := options("revoked")
	opts.CredentialSecret = creds.SecretName
	reconcileUntilReady(ctx, g, e, cluster, func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }, opts)
	reconcileUntilReady(ctx, g, e, machine, func() []aso.Resource { return []aso.Resource{securityGroup("nsg")} }, opts)

	identity.Spec.AllowedNamespaces = &infrav1.AllowedNamespaces{NamespaceList: []string{"elsewhere"}}
	g.Expect(env.Env.Update(ctx, identity)).To(Succeed())
	credentialFrom := func(name string, obj client.Object) string {
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: name}, obj)).To(Succeed())
		g.Expect(obj.GetDeletionTimestamp().IsZero()).To(BeTrue(), "revoking deletes no ASO object")
		return obj.GetAnnotations()["serviceoperator.azure.com/credential-from"]
	}
	secretKey := client.ObjectKey{Namespace: cluster.Namespace, Name: creds.SecretName}

	mcreds, err := e.ClusterCredentials(ctx, machine, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mcreds).To(And(HaveField("Ready", false), HaveField("Reason", infrav1.NamespaceNotAllowedReason), HaveField("SecretName", "")))
	g.Expect(credentialFrom("nsg", &asonetwork.NetworkSecurityGroup{})).To(Equal("revoked/" + creds.SecretName))
	g.Expect(credentialFrom("rg", &asoresources.ResourceGroup{})).To(Equal(creds.SecretName), "the cluster's objects are its own controller's")
	g.Expect(env.Env.GetAPIReader().Get(ctx, secretKey, &corev1.Secret{})).To(Succeed(), "a machine does not delete the cluster's secret")

	secretName := creds.SecretName
	creds, err = e.EnsureCredentials(ctx, cluster, in)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Message", ContainSubstring("the credential is revoked"))))
	g.Expect(credentialFrom("rg", &asoresources.ResourceGroup{})).To(Equal("revoked/" + secretName))
	g.Expect(aso.IsRevokedCredential(credentialFrom("rg", &asoresources.ResourceGroup{}))).To(BeTrue())
	g.Expect(env.Env.GetAPIReader().Get(ctx, secretKey, &corev1.Secret{})).To(MatchError(ContainSubstring("not found")))
}

// TestEnsureCredentials_Cloud: an owner in ASO's own cloud needs nothing in its credential; an owner in another
// cloud gets that cloud's three endpoints in its credential (ASO v2.18 takes all or none of them), and without an
// identity it is not ready, with the reason, since ASO's default credential reaches ASO's cloud only.
func TestEnsureCredentials_Cloud(t *testing.T) {
	china := map[string]string{
		"AZURE_RESOURCE_MANAGER_ENDPOINT": "https://management.chinacloudapi.cn",
		"AZURE_RESOURCE_MANAGER_AUDIENCE": "https://management.core.chinacloudapi.cn/",
		"AZURE_AUTHORITY_HOST":            "https://login.chinacloudapi.cn/",
	}
	tests := []struct {
		name, asoCloud, cloud string
		noIdentity            bool
		wantCloudKeys         map[string]string
		wantReason            string
	}{
		{name: "default cloud", wantCloudKeys: map[string]string{}},
		{name: "ASO's cloud named", cloud: "AzurePublicCloud", wantCloudKeys: map[string]string{}},
		{name: "another cloud", cloud: "AzureChinaCloud", wantCloudKeys: china},
		{name: "ASO configured for that cloud", asoCloud: "AzureChinaCloud", cloud: "AzureChinaCloud", wantCloudKeys: map[string]string{}},
		{name: "the public cloud from an ASO of another", asoCloud: "AzureChinaCloud", cloud: "AzurePublicCloud", wantCloudKeys: map[string]string{
			"AZURE_RESOURCE_MANAGER_ENDPOINT": "https://management.azure.com",
			"AZURE_RESOURCE_MANAGER_AUDIENCE": "https://management.core.windows.net/",
			"AZURE_AUTHORITY_HOST":            "https://login.microsoftonline.com/",
		}},
		{name: "unknown cloud", cloud: "AzureStackCloud", wantReason: aso.CloudNotSupportedReason},
		{name: "another cloud without identity", cloud: "AzureUSGovernmentCloud", noIdentity: true, wantReason: aso.CloudNotSupportedReason},
		{name: "ASO's cloud without identity", asoCloud: "AzureUSGovernmentCloud", cloud: "AzureUSGovernmentCloud", noIdentity: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			e.ASOCloud = tt.asoCloud
			g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{
				ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: owner.Namespace},
				Spec:       infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: "t", ClientID: "c", AllowedNamespaces: &infrav1.AllowedNamespaces{}},
			})).To(Succeed())
			in := aso.CredentialsInput{ClusterName: "cluster", SubscriptionID: "s", Cloud: tt.cloud, IdentityRef: &corev1.ObjectReference{Name: "identity"}}
			if tt.noIdentity {
				in.IdentityRef = nil
			}
			creds, err := e.EnsureCredentials(ctx, owner, in)
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantReason != "" {
				g.Expect(creds).To(And(HaveField("Ready", false), HaveField("Reason", tt.wantReason), HaveField("Message", ContainSubstring(tt.cloud))))
				return
			}
			g.Expect(creds.Ready).To(BeTrue())
			if tt.noIdentity {
				g.Expect(creds.SecretName).To(BeEmpty(), "ASO's default credential")
				return
			}
			secret := &corev1.Secret{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: creds.SecretName}, secret)).To(Succeed())
			got := map[string]string{}
			for k, v := range secret.Data {
				if strings.HasPrefix(k, "AZURE_RESOURCE_MANAGER_") || k == "AZURE_AUTHORITY_HOST" {
					got[k] = string(v)
				}
			}
			g.Expect(got).To(Equal(tt.wantCloudKeys))
		})
	}
}
