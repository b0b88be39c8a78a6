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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestEnsureCredentials_TakesOverCAPZCertificateSecret: for a certificate identity whose Secret has no password,
// CAPZ v1.26.0 writes an empty AZURE_CLIENT_CERTIFICATE_PASSWORD, which the provider does not write. The owner
// controls CAPZ's Secret, so the first pass rewrites it into exactly what the provider writes for a cluster of its
// own: no key of CAPZ's stays, and the labels are the same (CAPZ's among them).
func TestEnsureCredentials_TakesOverCAPZCertificateSecret(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	clientID := clientIDFor(owner.Namespace)
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cert", Namespace: owner.Namespace},
		Data: map[string][]byte{"certificate": []byte("CURRENT PEM")}})).To(Succeed())
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "cert", Namespace: owner.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: clientID,
			ClientSecret: corev1.SecretReference{Name: "cert"}, AllowedNamespaces: &infrav1.AllowedNamespaces{}}})).To(Succeed())
	capz := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: aso.CredentialSecretName("capz"), Namespace: owner.Namespace,
			Labels: map[string]string{"capz": "owned"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster",
				Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}},
		Data: map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte("s"), "AZURE_TENANT_ID": []byte(tenantID), "AZURE_CLIENT_ID": []byte(clientID),
			"AZURE_CLIENT_CERTIFICATE": []byte("OUTDATED PEM"), "AZURE_CLIENT_CERTIFICATE_PASSWORD": {}},
	}
	g.Expect(env.Env.Create(ctx, capz)).To(Succeed())

	written := func(cluster string) *corev1.Secret {
		creds, err := e.EnsureCredentials(ctx, owner, aso.CredentialsInput{ClusterName: cluster, SubscriptionID: "s",
			IdentityRef: &corev1.ObjectReference{Name: "cert"}, Kinds: allKinds})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(creds.Ready).To(BeTrue(), creds.Message)
		g.Expect(creds.SecretName).To(Equal(aso.CredentialSecretName(cluster)))
		live := &corev1.Secret{}
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: creds.SecretName}, live)).To(Succeed())
		return live
	}
	takenOver := written("capz")
	g.Expect(takenOver.UID).To(Equal(capz.UID), "rewritten in place")
	g.Expect(takenOver.Data).To(Equal(map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte("s"), "AZURE_TENANT_ID": []byte(tenantID),
		"AZURE_CLIENT_ID": []byte(clientID), "AZURE_CLIENT_CERTIFICATE": []byte("CURRENT PEM")}))
	g.Expect(takenOver.Type).To(Equal(corev1.SecretTypeOpaque))
	g.Expect(takenOver.Labels).To(Equal(map[string]string{infrav1.ClusterNameLabel: "capz", infrav1.OwnedByLabel: "capz", "capz": "owned"}))

	made := written("fresh")
	g.Expect(made.Data).To(Equal(takenOver.Data))
	g.Expect(made.Labels).To(Equal(map[string]string{infrav1.ClusterNameLabel: "fresh", infrav1.OwnedByLabel: "fresh", "fresh": "owned"}),
		"the provider's own Secret carries CAPZ's label too: CAPZ, after a way back, keeps it up to date")

	// A second pass finds both as they should be, and writes nothing.
	g.Expect(written("capz").ResourceVersion).To(Equal(takenOver.ResourceVersion))
	g.Expect(written("fresh").ResourceVersion).To(Equal(made.ResourceVersion))
}
