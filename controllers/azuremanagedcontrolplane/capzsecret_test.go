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

package azuremanagedcontrolplane_test

import (
	"context"
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremanagedcontrolplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_CAPZCredentialSecretTakenOver: CAPZ wrote the AKS cluster's <cluster>-aso-secret with a controller
// reference to the AzureManagedControlPlane, whose UID survives the switch. The provider's first pass rewrites it in
// place into exactly the Secret the provider writes; the identity's rotation then reaches it, and revoking the
// identity deletes it, as for a Secret the provider made.
func TestReconcile_CAPZCredentialSecretTakenOver(t *testing.T) {
	g := NewWithT(t)
	const (
		name     = "capzsecret"
		tenantID = "11111111-2222-3333-4444-555555555555"
		clientID = "66666666-7777-8888-9999-000000000000"
	)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "aks")
	g.Expect(err).NotTo(HaveOccurred())
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedCluster", Name: name},
			ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedControlPlane", Name: name + "-cp"},
		},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	identitySecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sp-secret", Namespace: ns.Name},
		Data: map[string][]byte{"clientSecret": []byte("current")}}
	g.Expect(env.Env.Create(ctx, identitySecret)).To(Succeed())
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "sp", Namespace: ns.Name},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: tenantID, ClientID: clientID,
			ClientSecret: corev1.SecretReference{Name: identitySecret.Name}, AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	labels := map[string]string{clusterv1.ClusterNameLabel: name}
	amc := &infrav1.AzureManagedCluster{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns.Name, Labels: labels, OwnerReferences: ownerRef("Cluster", cluster),
	}}
	g.Expect(env.Env.Create(ctx, amc)).To(Succeed())
	// Paused, so that CAPZ's Secret is in place before the provider's first live pass.
	cp := &infrav1.AzureManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-cp", Namespace: ns.Name, Labels: labels, OwnerReferences: ownerRef("Cluster", cluster),
			Annotations: map[string]string{clusterv1.PausedAnnotation: ""}},
		Spec: infrav1.AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
			ResourceGroupName: name + "-rg", Location: "westeurope", Version: "v1.33.2", SubscriptionID: sim.SubscriptionID(),
			IdentityRef: &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: identity.Name},
		}},
	}
	g.Expect(env.Env.Create(ctx, cp)).To(Succeed())
	t.Cleanup(func() {
		ctx := context.Background()
		_ = env.Env.Delete(ctx, cp)
		_ = env.Env.Cleanup(ctx, amc, cluster, identity, identitySecret, ns)
	})
	// Once a paused pass has seen the identity, no pass revokes before the first live one.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns.Name, cp.Name, cp)
		g.Expect(conditions.IsTrue(cp, clusterv1.PausedCondition)).To(BeTrue())
		g.Expect(conditions.Get(cp, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", aso.CredentialsReadyReason))
	}, timeout).Should(Succeed())

	// As CAPZ v1.26.0 writes it (controllers/asosecret_controller.go), with the client secret of its time.
	key := client.ObjectKey{Namespace: ns.Name, Name: aso.CredentialSecretName(name)}
	capz := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: map[string]string{name: "owned"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: infrav1.GroupVersion.String(), Kind: "AzureManagedControlPlane",
				Name: cp.Name, UID: cp.UID, Controller: ptr.To(true)}}},
		Data: map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()), "AZURE_TENANT_ID": []byte(tenantID),
			"AZURE_CLIENT_ID": []byte(clientID), "AZURE_CLIENT_SECRET": []byte("outdated")},
	}
	g.Expect(env.Env.Create(ctx, capz)).To(Succeed())
	g.Eventually(func() error {
		live := &infrav1.AzureManagedControlPlane{}
		if err := env.Env.Get(ctx, client.ObjectKeyFromObject(cp), live); err != nil {
			return err
		}
		delete(live.Annotations, clusterv1.PausedAnnotation)
		return env.Env.Update(ctx, live)
	}, timeout).Should(Succeed())

	expectSecret := func(clientID, clientSecret string) {
		g.Eventually(func(g Gomega) {
			live := &corev1.Secret{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
			g.Expect(live.UID).To(Equal(capz.UID), "rewritten in place")
			g.Expect(live.Data).To(Equal(map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(sim.SubscriptionID()), "AZURE_TENANT_ID": []byte(tenantID),
				"AZURE_CLIENT_ID": []byte(clientID), "AZURE_CLIENT_SECRET": []byte(clientSecret)}))
			g.Expect(live.Type).To(Equal(corev1.SecretTypeOpaque))
			g.Expect(live.Labels).To(Equal(map[string]string{infrav1.ClusterNameLabel: name, infrav1.OwnedByLabel: name, name: "owned"}))
			g.Expect(metav1.GetControllerOf(live)).To(HaveField("UID", cp.UID))
		}, timeout).Should(Succeed())
	}
	expectCredentialFrom := func(value string) {
		g.Eventually(func(g Gomega) {
			var objs []client.Object
			for _, list := range []client.ObjectList{&asoresources.ResourceGroupList{}, &asonetwork.VirtualNetworkList{}, &asonetwork.VirtualNetworksSubnetList{}} {
				g.Expect(env.Env.GetAPIReader().List(ctx, list, client.InNamespace(ns.Name))).To(Succeed())
				items, err := meta.ExtractList(list)
				g.Expect(err).NotTo(HaveOccurred())
				for _, item := range items {
					objs = append(objs, item.(client.Object))
				}
			}
			g.Expect(objs).To(HaveLen(3), "the resource group, the network and its subnet")
			for _, o := range objs {
				g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, value), "%T %s", o, o.GetName())
			}
		}, timeout).Should(Succeed())
	}
	expectSecret(clientID, "current")
	// Without a machine pool, the network is all there is to make.
	g.Eventually(func(g Gomega) {
		get(ctx, g, ns.Name, cp.Name, cp)
		g.Expect(readyCondition(cp)).To(HaveField("Reason", azuremanagedcontrolplane.WaitingForMachinePoolsReason))
	}, timeout).Should(Succeed())
	expectCredentialFrom(key.Name)

	// Rotating the service principal's secret, then its client ID, reaches the Secret.
	identitySecret.Data["clientSecret"] = []byte("rotated")
	g.Expect(env.Env.Update(ctx, identitySecret)).To(Succeed())
	expectSecret(clientID, "rotated")
	const rotatedClientID = "77777777-8888-9999-0000-111111111111"
	g.Eventually(func() error {
		live := &infrav1.AzureClusterIdentity{}
		if err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(identity), live); err != nil {
			return err
		}
		live.Spec.ClientID = rotatedClientID
		return env.Env.Update(ctx, live)
	}, timeout).Should(Succeed())
	expectSecret(rotatedClientID, "rotated")

	// Deleting the identity revokes: the Secret goes, and every ASO object names a revoked credential.
	g.Expect(env.Env.Delete(ctx, identity)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, key, &corev1.Secret{})).To(MatchError(ContainSubstring("not found")))
		get(ctx, g, ns.Name, cp.Name, cp)
		g.Expect(conditions.Get(cp, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", aso.IdentityNotFoundReason))
	}, timeout).Should(Succeed())
	expectCredentialFrom("revoked/" + key.Name)
}
