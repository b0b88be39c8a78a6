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

package azurecluster_test

import (
	"context"
	"testing"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	capzTenantID = "11111111-2222-3333-4444-555555555555"
	capzClientID = "66666666-7777-8888-9999-000000000000"
)

// switchedCluster is a cluster CAPZ made with a service principal identity, paused so that the test can put
// CAPZ's objects in place before the provider's first pass.
type switchedCluster struct {
	cluster        *clusterv1.Cluster
	azureCluster   *infrav1.AzureCluster
	identity       *infrav1.AzureClusterIdentity
	identitySecret *corev1.Secret
	credentials    client.ObjectKey
}

// newSwitchedCluster creates the cluster, the identity and its Secret (client secret "current"), and waits until a
// paused pass has seen the identity: from then on no pass revokes, so whatever the test creates stays until the
// first live pass.
func newSwitchedCluster(t *testing.T, g *WithT, name string) (context.Context, *switchedCluster) {
	t.Helper()
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.IdentityRef = &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: name + "-identity"}
	ctx, cluster, ac := newCluster(t, g, name, spec, map[string]string{clusterv1.PausedAnnotation: ""})
	c := &switchedCluster{cluster: cluster, azureCluster: ac, credentials: client.ObjectKey{Namespace: ac.Namespace, Name: aso.CredentialSecretName(name)}}
	c.identitySecret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-identity-secret", Namespace: ac.Namespace},
		Data: map[string][]byte{"clientSecret": []byte("current")}}
	g.Expect(env.Env.Create(ctx, c.identitySecret)).To(Succeed())
	c.identity = &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-identity", Namespace: ac.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: capzTenantID, ClientID: capzClientID,
			ClientSecret: corev1.SecretReference{Name: c.identitySecret.Name}, AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	}
	g.Expect(env.Env.Create(ctx, c.identity)).To(Succeed())
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.PausedCondition)).To(BeTrue())
		g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", aso.CredentialsReadyReason))
	}, timeout).Should(Succeed())
	return ctx, c
}

// unpause removes the paused annotation: the provider's first live pass follows.
func (c *switchedCluster) unpause(ctx context.Context, g *WithT) {
	g.Eventually(func() error {
		live := &infrav1.AzureCluster{}
		if err := env.Env.Get(ctx, client.ObjectKeyFromObject(c.azureCluster), live); err != nil {
			return err
		}
		delete(live.Annotations, clusterv1.PausedAnnotation)
		return env.Env.Update(ctx, live)
	}, timeout).Should(Succeed())
}

// setAllowed sets the identity's allowedNamespaces.
func (c *switchedCluster) setAllowed(ctx context.Context, g *WithT, allowed *infrav1.AllowedNamespaces) {
	g.Eventually(func() error {
		live := &infrav1.AzureClusterIdentity{}
		if err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(c.identity), live); err != nil {
			return err
		}
		live.Spec.AllowedNamespaces = allowed
		return env.Env.Update(ctx, live)
	}, timeout).Should(Succeed())
}

// expectRevoked waits until every ASO object of the cluster names the revoked credential and the AzureCluster says
// the namespace is not allowed.
func (c *switchedCluster) expectRevoked(ctx context.Context, g *WithT) {
	g.Eventually(func(g Gomega) {
		objs := asoObjects(ctx, g, c.azureCluster.Namespace)
		g.Expect(objs).NotTo(BeEmpty(), "revoking deletes no ASO object")
		for _, o := range objs {
			g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, "revoked/"+c.credentials.Name), "%T %s", o, o.GetName())
		}
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(c.azureCluster), live)).To(Succeed())
		g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", infrav1.NamespaceNotAllowedReason))
	}, timeout).Should(Succeed())
}

// capzCredentialSecret is the <cluster>-aso-secret as CAPZ v1.26.0 writes it for a service principal
// (controllers/asosecret_controller.go): CAPZ's label, a controller reference without blockOwnerDeletion, and the
// client secret of the time.
func capzCredentialSecret(key client.ObjectKey, clusterName string, owner metav1.OwnerReference, clientSecret string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace,
			Labels: map[string]string{clusterName: "owned"}, OwnerReferences: []metav1.OwnerReference{owner}},
		Data: map[string][]byte{
			"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()),
			"AZURE_TENANT_ID":       []byte(capzTenantID),
			"AZURE_CLIENT_ID":       []byte(capzClientID),
			"AZURE_CLIENT_SECRET":   []byte(clientSecret),
		},
	}
}

// TestReconcile_CAPZCredentialSecretTakenOver: the <cluster>-aso-secret CAPZ wrote is controlled by the same
// AzureCluster (its UID survives the switch), so the provider's first pass rewrites it in place into exactly the
// Secret the provider writes; the identity's rotation then reaches it, and revoking the identity deletes it, as
// for a Secret the provider made.
func TestReconcile_CAPZCredentialSecretTakenOver(t *testing.T) {
	g := NewWithT(t)
	ctx, c := newSwitchedCluster(t, g, "capzsecret")
	capz := capzCredentialSecret(c.credentials, c.cluster.Name, metav1.OwnerReference{
		APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: c.azureCluster.Name, UID: c.azureCluster.UID,
		Controller: ptr.To(true),
	}, "outdated")
	g.Expect(env.Env.Create(ctx, capz)).To(Succeed())

	c.unpause(ctx, g)
	want := func(clientID, clientSecret string) map[string][]byte {
		return map[string][]byte{
			"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()), "AZURE_TENANT_ID": []byte(capzTenantID),
			"AZURE_CLIENT_ID": []byte(clientID), "AZURE_CLIENT_SECRET": []byte(clientSecret),
		}
	}
	expectSecret := func(data map[string][]byte) {
		g.Eventually(func(g Gomega) {
			live := &corev1.Secret{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, c.credentials, live)).To(Succeed())
			g.Expect(live.UID).To(Equal(capz.UID), "rewritten in place")
			g.Expect(live.Data).To(Equal(data))
			g.Expect(live.Type).To(Equal(corev1.SecretTypeOpaque))
			g.Expect(live.Labels).To(Equal(map[string]string{
				infrav1.ClusterNameLabel: c.cluster.Name, infrav1.OwnedByLabel: c.cluster.Name, c.cluster.Name: "owned",
			}), "the provider's labels, and CAPZ's, which the provider writes too")
			g.Expect(metav1.GetControllerOf(live)).To(HaveField("UID", c.azureCluster.UID))
		}, timeout).Should(Succeed())
	}
	expectSecret(want(capzClientID, "current"))
	waitReady(ctx, g, c.azureCluster)
	for _, o := range asoObjects(ctx, g, c.azureCluster.Namespace) {
		g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, c.credentials.Name), "%T %s", o, o.GetName())
	}

	// Rotating the service principal's secret, then its client ID, reaches the Secret.
	c.identitySecret.Data["clientSecret"] = []byte("rotated")
	g.Expect(env.Env.Update(ctx, c.identitySecret)).To(Succeed())
	expectSecret(want(capzClientID, "rotated"))
	const rotatedClientID = "77777777-8888-9999-0000-111111111111"
	g.Eventually(func() error {
		live := &infrav1.AzureClusterIdentity{}
		if err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(c.identity), live); err != nil {
			return err
		}
		live.Spec.ClientID = rotatedClientID
		return env.Env.Update(ctx, live)
	}, timeout).Should(Succeed())
	expectSecret(want(rotatedClientID, "rotated"))

	// Revoking the identity deletes the Secret and points every ASO object at a revoked credential.
	c.setAllowed(ctx, g, &infrav1.AllowedNamespaces{NamespaceList: []string{"other"}})
	c.expectRevoked(ctx, g)
	g.Eventually(func() error {
		return env.Env.GetAPIReader().Get(ctx, c.credentials, &corev1.Secret{})
	}, timeout).Should(MatchError(ContainSubstring("not found")))
}

// TestReconcile_UsersCredentialSecretStaysTheUsers: a <cluster>-aso-secret the AzureCluster does not control is
// the user's, even with CAPZ's label: the provider never rewrites nor deletes it, and the credential policy judges
// it. One without a controller reference holds its own client secret and is used as it is; one controlled by
// another object (the Cluster) is secretless, with a client ID no identity vouches for, and is warned about.
func TestReconcile_UsersCredentialSecretStaysTheUsers(t *testing.T) {
	for _, tc := range []struct {
		name        string
		controller  func(c *switchedCluster) []metav1.OwnerReference
		data        map[string][]byte
		expectVouch func(g Gomega, ac *infrav1.AzureCluster)
	}{{
		name:       "usersecret",
		controller: func(*switchedCluster) []metav1.OwnerReference { return nil },
		data: map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()), "AZURE_TENANT_ID": []byte(capzTenantID),
			"AZURE_CLIENT_ID": []byte(capzClientID), "AZURE_CLIENT_SECRET": []byte("the user's")},
		expectVouch: func(g Gomega, ac *infrav1.AzureCluster) {
			g.Expect(conditions.Has(ac, aso.CredentialsVouchedCondition)).To(BeFalse())
		},
	}, {
		name: "othersecret",
		controller: func(c *switchedCluster) []metav1.OwnerReference {
			return []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.cluster.Name,
				UID: c.cluster.UID, Controller: ptr.To(true)}}
		},
		data: map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()), "AZURE_TENANT_ID": []byte(capzTenantID),
			"AZURE_CLIENT_ID": []byte("99999999-9999-9999-9999-999999999999"), "AUTH_MODE": []byte("workloadidentity")},
		expectVouch: func(g Gomega, ac *infrav1.AzureCluster) {
			g.Expect(conditions.Get(ac, aso.CredentialsVouchedCondition)).To(HaveField("Reason", aso.CredentialNotVouchedReason))
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, c := newSwitchedCluster(t, g, tc.name)
			users := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: c.credentials.Name, Namespace: c.credentials.Namespace,
					Labels: map[string]string{c.cluster.Name: "owned"}, OwnerReferences: tc.controller(c)},
				Data: tc.data,
			}
			g.Expect(env.Env.Create(ctx, users)).To(Succeed())
			expectUntouched := func() {
				live := &corev1.Secret{}
				g.Expect(env.Env.GetAPIReader().Get(ctx, c.credentials, live)).To(Succeed())
				g.Expect(live.ResourceVersion).To(Equal(users.ResourceVersion), "the provider never writes the user's Secret")
			}

			c.unpause(ctx, g)
			live := waitReady(ctx, g, c.azureCluster)
			g.Eventually(func(g Gomega) {
				g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(c.azureCluster), live)).To(Succeed())
				g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", aso.CredentialsReadyReason))
				tc.expectVouch(g, live)
			}, timeout).Should(Succeed())
			for _, o := range asoObjects(ctx, g, c.azureCluster.Namespace) {
				g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, c.credentials.Name), "%T %s", o, o.GetName())
			}
			// Rotating the identity does not reach the user's Secret.
			c.identitySecret.Data["clientSecret"] = []byte("rotated")
			g.Expect(env.Env.Update(ctx, c.identitySecret)).To(Succeed())
			g.Consistently(func(g Gomega) {
				got := &corev1.Secret{}
				g.Expect(env.Env.GetAPIReader().Get(ctx, c.credentials, got)).To(Succeed())
				g.Expect(got.ResourceVersion).To(Equal(users.ResourceVersion))
			}, "3s").Should(Succeed())

			// Revoking the identity revokes the credential of the ASO objects; the user's Secret stays.
			c.setAllowed(ctx, g, &infrav1.AllowedNamespaces{NamespaceList: []string{"other"}})
			c.expectRevoked(ctx, g)
			expectUntouched()
		})
	}
}
