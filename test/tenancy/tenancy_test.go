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

package tenancy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/tenant"
)

const (
	timeout        = 90 * time.Second
	credentialFrom = "serviceoperator.azure.com/credential-from"
	subscription   = "00000000-0000-0000-0000-000000000000"
)

// azureCluster is an AzureCluster of the tenant's with an identity of the platform's namespace, or none.
func azureCluster(name, identityNamespace, identity string) *infrav1.AzureCluster {
	ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus", SubscriptionID: subscription}}}
	if identity != "" {
		ac.Spec.IdentityRef = &corev1.ObjectReference{Name: identity, Namespace: identityNamespace}
	}
	return ac
}

// secretlessCredential is an ASO credential Secret that holds only IDs: ASO acts with its own workload identity.
func secretlessCredential(namespace, name, clientID string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, StringData: map[string]string{
		"AZURE_SUBSCRIPTION_ID": subscription, "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": clientID, "AUTH_MODE": "workloadidentity",
	}}
}

// rawResourceGroup is a ResourceGroup as a user writes it in spec.resources, naming a credential or none.
func rawResourceGroup(g *WithT, name, credential string) runtime.RawExtension {
	obj := map[string]any{
		"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"location": "eastus"},
	}
	if credential != "" {
		obj["metadata"] = map[string]any{"name": name, "annotations": map[string]any{credentialFrom: credential}}
	}
	data, err := json.Marshal(obj)
	g.Expect(err).NotTo(HaveOccurred())
	return runtime.RawExtension{Raw: data}
}

// condition returns an object's condition as the admin reads it.
func condition(ctx context.Context, g Gomega, obj interface {
	client.Object
	conditions.Getter
}, conditionType string) *metav1.Condition {
	g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	return conditions.Get(obj, conditionType)
}

// asoObjects lists, as the admin, every ASO object of the kinds the provider writes in a namespace.
func asoObjects(ctx context.Context, g Gomega, namespace string) []client.Object {
	var out []client.Object
	for _, kind := range aso.Kinds() {
		gvk, err := apiutil.GVKForObject(kind, env.Env.Scheme())
		g.Expect(err).NotTo(HaveOccurred())
		list, err := env.Env.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(env.Env.List(ctx, list.(client.ObjectList), client.InNamespace(namespace))).To(Succeed())
		items, err := meta.ExtractList(list)
		g.Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			obj := item.(client.Object)
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			out = append(out, obj)
		}
	}
	return out
}

// ofCluster keeps the objects labelled with a cluster's name.
func ofCluster(objs []client.Object, cluster string) []client.Object {
	var out []client.Object
	for _, obj := range objs {
		if obj.GetLabels()[clusterv1.ClusterNameLabel] == cluster {
			out = append(out, obj)
		}
	}
	return out
}

// TestTenancy_Matrix tries every attack of docs/security.md's tenancy table as a tenant, under the strict policy.
func TestTenancy_Matrix(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	tn := tenant.New(ctx, t, g, "team-a")

	// The platform: its identities, which the manager's bindings bind, in a namespace the tenant cannot touch.
	platform := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: platformNamespace}}
	g.Expect(client.IgnoreAlreadyExists(env.Env.Create(ctx, platform))).To(Succeed())
	teamWI := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: teamIdentity, Namespace: platformNamespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: tenantID, ClientID: teamClientID,
			AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{tn.Namespace}}}}
	for _, identity := range []*infrav1.AzureClusterIdentity{
		teamWI,
		{ObjectMeta: metav1.ObjectMeta{Name: platformIdentity, Namespace: platformNamespace},
			Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: tenantID, ClientID: platformClientID,
				AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{"team-b"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: certIdentity, Namespace: platformNamespace},
			Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: platformClientID,
				CertPath: certFile, AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{"team-b"}}}},
	} {
		g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	}

	// The tenant cannot touch the platform's namespace, nor anything cluster-scoped.
	g.Expect(apierrors.IsForbidden(tn.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: platformNamespace}}))).To(BeTrue())
	g.Expect(apierrors.IsForbidden(tn.Get(ctx, client.ObjectKeyFromObject(teamWI), &infrav1.AzureClusterIdentity{}))).To(BeTrue())
	g.Expect(apierrors.IsForbidden(tn.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}))).To(BeTrue())

	t.Run("the identity given to the namespace works", func(t *testing.T) {
		g := NewWithT(t)
		good := azureCluster("good", platformNamespace, teamIdentity)
		tn.Cluster(ctx, g, good)
		g.Eventually(func(g Gomega) {
			ready := condition(ctx, g, good, clusterv1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		}, timeout).Should(Succeed())
		objs := ofCluster(asoObjects(ctx, g, tn.Namespace), "good")
		g.Expect(objs).NotTo(BeEmpty())
		for _, obj := range objs {
			g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue(credentialFrom, "good-aso-secret"), "%T %s", obj, obj.GetName())
		}
	})

	t.Run("an owner without identityRef is refused at admission", func(t *testing.T) {
		g := NewWithT(t)
		anonymous := azureCluster("anonymous", "", "")
		anonymous.SetNamespace(tn.Namespace)
		err := tn.Create(ctx, anonymous)
		g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		g.Expect(err.Error()).To(ContainSubstring("spec.identityRef: Required value"))
		g.Expect(err.Error()).To(ContainSubstring("--credential-policy=strict"))
	})

	t.Run("identities that copy the platform's client ID or certificate file are not bound", func(t *testing.T) {
		g := NewWithT(t)
		for name, spec := range map[string]infrav1.AzureClusterIdentitySpec{
			"copy-wi":   {Type: infrav1.WorkloadIdentity, TenantID: tenantID, ClientID: platformClientID},
			"copy-cert": {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: platformClientID, CertPath: certFile},
			"made-up":   {Type: infrav1.WorkloadIdentity, TenantID: tenantID, ClientID: "44444444-4444-4444-4444-444444444444"},
		} {
			spec.AllowedNamespaces = &infrav1.AllowedNamespaces{}
			g.Expect(tn.Create(ctx, &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tn.Namespace}, Spec: spec})).To(Succeed())
			ac := azureCluster(name, tn.Namespace, name)
			tn.Cluster(ctx, g, ac)
			g.Eventually(func(g Gomega) {
				c := condition(ctx, g, ac, infrav1.CredentialsReadyCondition)
				g.Expect(c).To(And(Not(BeNil()), HaveField("Reason", aso.IdentityNotBoundReason)))
			}, timeout).Should(Succeed(), name)
			g.Expect(ofCluster(asoObjects(ctx, g, tn.Namespace), name)).To(BeEmpty(), name)
			err := env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: aso.CredentialSecretName(name)}, &corev1.Secret{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no credential Secret for %s", name)
		}
	})

	t.Run("a planted secretless credential Secret is refused", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(tn.Create(ctx, secretlessCredential(tn.Namespace, aso.CredentialSecretName("planted"), platformClientID))).To(Succeed())
		planted := azureCluster("planted", platformNamespace, teamIdentity)
		tn.Cluster(ctx, g, planted)
		g.Eventually(func(g Gomega) {
			c := condition(ctx, g, planted, infrav1.CredentialsReadyCondition)
			g.Expect(c).To(And(Not(BeNil()), HaveField("Reason", aso.CredentialNotAllowedReason)))
		}, timeout).Should(Succeed())
		g.Expect(ofCluster(asoObjects(ctx, g, tn.Namespace), "planted")).To(BeEmpty())
	})

	t.Run("raw objects name only credentials of their own or vouched for", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(tn.Create(ctx, secretlessCredential(tn.Namespace, "forged", platformClientID))).To(Succeed())
		g.Expect(tn.Create(ctx, secretlessCredential(tn.Namespace, "team", teamClientID))).To(Succeed())
		g.Expect(tn.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: tn.Namespace}, StringData: map[string]string{
			"AZURE_SUBSCRIPTION_ID": subscription, "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": "55555555-5555-5555-5555-555555555555", "AZURE_CLIENT_SECRET": "the team's own"}})).To(Succeed())
		raw := &infrav1.AzureASOManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "raw"}}
		raw.Spec.Resources = []runtime.RawExtension{
			rawResourceGroup(g, "raw-forged", "forged"), rawResourceGroup(g, "raw-none", ""),
			rawResourceGroup(g, "raw-team", "team"), rawResourceGroup(g, "raw-own", "own"),
		}
		tn.Cluster(ctx, g, raw)
		g.Eventually(func(g Gomega) {
			g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(raw), raw)).To(Succeed())
			g.Expect(raw.Status.Resources).To(ContainElements(
				And(HaveField("Resource.Name", "raw-forged"), HaveField("Reason", aso.CredentialNotAllowedReason)),
				And(HaveField("Resource.Name", "raw-none"), HaveField("Reason", aso.CredentialNotAllowedReason)),
				And(HaveField("Resource.Name", "raw-team"), HaveField("Ready", true)),
				And(HaveField("Resource.Name", "raw-own"), HaveField("Ready", true)),
			))
		}, timeout).Should(Succeed())
		names := []string{}
		for _, obj := range ofCluster(asoObjects(ctx, g, tn.Namespace), "raw") {
			names = append(names, obj.GetName())
		}
		g.Expect(names).To(ConsistOf("raw-team", "raw-own"))
		g.Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(env.Env.List(ctx, events, client.InNamespace(tn.Namespace))).To(Succeed())
			g.Expect(events.Items).To(ContainElement(And(HaveField("Regarding.Name", "raw"), HaveField("Reason", aso.CredentialNotAllowedReason),
				HaveField("Type", corev1.EventTypeWarning))))
		}, timeout).Should(Succeed())

		// The tenant rewrites a vouched credential to the platform's client ID: ASO reads the provider's snapshot of
		// the Secret as vetted, never the rewrite, and the object's credential is revoked at once (never removed,
		// which would hand it to ASO's fallbacks).
		team := &corev1.Secret{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: "team"}, team)).To(Succeed())
		team.Data["AZURE_CLIENT_ID"] = []byte(platformClientID)
		g.Expect(tn.Update(ctx, team)).To(Succeed())
		g.Eventually(func(g Gomega) {
			rg := ofCluster(asoObjects(ctx, g, tn.Namespace), "raw")
			g.Expect(rg).To(ContainElement(And(HaveField("ObjectMeta.Name", "raw-team"), WithTransform(client.Object.GetAnnotations, HaveKeyWithValue(credentialFrom, HavePrefix("revoked/team-vetted-"))))))
		}, timeout).Should(Succeed())
	})

	t.Run("patches cannot pick a credential, reach brought resources, Secrets or bootstrap data", func(t *testing.T) {
		g := NewWithT(t)
		for i, p := range []infrav1.ASOPatch{
			{Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"}, Patch: `{"metadata":{"annotations":{"serviceoperator.azure.com/credential-from":"forged"}}}`},
			{Target: infrav1.ASOPatchTarget{Kind: "VirtualNetwork"}, Type: "JSONPatch", Patch: `[{"op":"add","path":"/metadata/annotations","value":{"serviceoperator.azure.com/reconcile-policy":"manage"}}]`},
			{Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"}, Patch: `{"metadata":{"annotations":{"infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy":"manage"}}}`},
			{Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"}, Patch: `{"metadata":{"labels":{"infrastructure.cluster.x-k8s.io/owned-by-azure-provider":null}}}`},
			{Target: infrav1.ASOPatchTarget{Kind: "Secret"}, Patch: `{"stringData":{"value":"x"}}`},
		} {
			ac := azureCluster(fmt.Sprintf("patched-%d", i), platformNamespace, teamIdentity)
			ac.Spec.ASOPatches = []infrav1.ASOPatch{p}
			ac.Namespace = tn.Namespace
			err := tn.Create(ctx, ac)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "patch %d: %v", i, err)
		}
		machine := &infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{Name: "leaky", Namespace: tn.Namespace},
			Spec: infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", ASOPatches: []infrav1.ASOPatch{{Target: infrav1.ASOPatchTarget{Kind: "VirtualMachine"}, Type: "JSONPatch",
				Patch: `[{"op":"copy","from":"/spec/osProfile/customData","path":"/spec/tags/leak"}]`}}}}
		err := tn.Create(ctx, machine)
		g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		g.Expect(err.Error()).To(ContainSubstring("bootstrap data"))
	})

	t.Run("revocation reaches a paused cluster at once", func(t *testing.T) {
		g := NewWithT(t)
		good := &clusterv1.Cluster{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: "good"}, good)).To(Succeed())
		good.Spec.Paused = ptr.To(true)
		g.Expect(tn.Update(ctx, good)).To(Succeed())
		ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "good", Namespace: tn.Namespace}}
		g.Eventually(func(g Gomega) {
			g.Expect(condition(ctx, g, ac, clusterv1.PausedCondition)).To(HaveField("Status", metav1.ConditionTrue))
		}, timeout).Should(Succeed())

		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(teamWI), teamWI)).To(Succeed())
		teamWI.Spec.AllowedNamespaces = &infrav1.AllowedNamespaces{NamespaceList: []string{"team-b"}}
		g.Expect(env.Env.Update(ctx, teamWI)).To(Succeed())
		g.Eventually(func(g Gomega) {
			c := condition(ctx, g, ac, infrav1.CredentialsReadyCondition)
			g.Expect(c).To(And(Not(BeNil()), HaveField("Reason", infrav1.NamespaceNotAllowedReason), HaveField("Message", ContainSubstring("revoked"))))
			err := env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: "good-aso-secret"}, &corev1.Secret{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
			for _, obj := range ofCluster(asoObjects(ctx, g, tn.Namespace), "good") {
				g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue(credentialFrom, "revoked/good-aso-secret"), "%T %s", obj, obj.GetName())
			}
		}, timeout).Should(Succeed())
	})

	t.Run("every ASO object of the namespace names a credential the policy allows, or a revoked one", func(t *testing.T) {
		g := NewWithT(t)
		// What remains allowed: the tenant's own service principal, through the provider's snapshot of it.
		// Everything the platform's identities gave is revoked, and nothing the tenant forged was ever applied.
		g.Eventually(func(g Gomega) {
			for _, obj := range asoObjects(ctx, g, tn.Namespace) {
				credential, named := obj.GetAnnotations()[credentialFrom]
				g.Expect(named).To(BeTrue(), "%T %s names a credential: without one ASO falls back to the namespace's aso-credential", obj, obj.GetName())
				if aso.IsRevokedCredential(credential) {
					continue
				}
				g.Expect(credential).To(HavePrefix("own-vetted-"), "%T %s", obj, obj.GetName())
			}
		}, timeout).Should(Succeed())
	})
}
