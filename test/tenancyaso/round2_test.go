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

package tenancyaso

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
	"github.com/capzaso/cluster-api-provider-azure/test/tenant"
)

// Round 2's attacks (test/tenancy's TestTenancy_Matrix) that have an outcome in Azure, replayed on ASO's own
// controllers. Each attack is judged twice: it was attempted and refused where the provider refuses it (a
// condition, an admission error), and no ARM request for the tenant's resources carried another identity than the
// team's (judgeAll, over every request of the run).

// controlPrefix starts the names of the control objects, which reach Azure as the platform on purpose.
const controlPrefix = "control-"

// expectBypassSeen writes, as the platform's administrator, what the provider would have written had its vetting
// been bypassed (a credential Secret with data, and a ResourceGroup that names it), and waits until the judge sees
// ASO reach Azure with the platform's identity: the refusals judged below matter. The ResourceGroup is deleted
// before it returns.
func expectBypassSeen(ctx context.Context, g *WithT, namespace, name string, data map[string][]byte) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: data}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	rg := &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
		Annotations: map[string]string{credentialFrom: name}},
		Spec: asoresources.ResourceGroup_Spec{Location: ptr.To(plane.Location)}}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(unvetted(p.ARM.Requests(), name)).To(ContainElement(ContainSubstring(platformClientID)))
	}, timeout, plane.Interval).Should(Succeed())
	g.Expect(env.Env.Delete(ctx, rg)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	}, timeout, plane.Interval).Should(BeTrue())
	g.Expect(env.Env.Delete(ctx, secret)).To(Succeed())
}

// certificateCredential is the credential Secret the provider writes for a ServicePrincipalCertificate identity of
// the platform's client ID whose certPath is the platform's certificate.
func certificateCredential(g *WithT) map[string][]byte {
	cert, err := os.ReadFile(certFile)
	g.Expect(err).NotTo(HaveOccurred())
	return map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(p.SubscriptionID()), "AZURE_TENANT_ID": []byte(tenantID),
		"AZURE_CLIENT_ID": []byte(platformClientID), "AZURE_CLIENT_CERTIFICATE": cert}
}

// copiedIdentities are identities a tenant writes in its own namespace, allowing every namespace, with what the
// manager's bindings give to the platform's identities: its managed identity's client ID (as written, and in upper
// case) and its certificate file (as written, and through the ..data link of its volume). Each would make ASO act
// as the platform (expectBypassSeen shows it for the managed identity and the certificate).
func copiedIdentities(suffix string) map[string]infrav1.AzureClusterIdentitySpec {
	return map[string]infrav1.AzureClusterIdentitySpec{
		"copy-mi-" + suffix:       {Type: infrav1.UserAssignedMSI, TenantID: tenantID, ClientID: platformClientID},
		"copy-mi-upper-" + suffix: {Type: infrav1.UserAssignedMSI, TenantID: tenantID, ClientID: strings.ToUpper(platformClientID)},
		"copy-cert-" + suffix:     {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: platformClientID, CertPath: certFile},
		"copy-cert-data-" + suffix: {Type: infrav1.ServicePrincipalCertificate, TenantID: tenantID, ClientID: platformClientID,
			CertPath: filepath.Join(filepath.Dir(certFile), "..data", filepath.Base(certFile))},
	}
}

// attackCopiedIdentities creates, as the tenant, each copied identity and a cluster that uses it, adding the
// cluster's name to attacked (which the judge reads whatever happens next), and waits until the provider refuses each
// for the binding of the platform's identity.
func attackCopiedIdentities(ctx context.Context, g *WithT, tn *tenant.Tenant, suffix string, attacked *[]string) {
	var names []string
	for name, spec := range copiedIdentities(suffix) {
		spec.AllowedNamespaces = &infrav1.AllowedNamespaces{}
		identity := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tn.Namespace}, Spec: spec}
		g.Expect(tn.Create(ctx, identity)).To(Succeed())
		*attacked = append(*attacked, name)
		tn.Cluster(ctx, g, azureCluster(name, identity))
		names = append(names, name)
	}
	for _, name := range names {
		bound := boundNamespace + "/" + boundManagedIdentity
		if strings.HasPrefix(name, "copy-cert") {
			bound = boundNamespace + "/" + boundCertificate
		}
		expectCredentials(ctx, g, tn.Namespace, name, aso.IdentityNotBoundReason, "is bound to AzureClusterIdentity "+bound)
	}
}

// expectCredentials waits until a cluster's CredentialsReady condition has a reason and a message, then checks that
// the provider wrote no ASO object for it, nor a credential Secret of its own.
func expectCredentials(ctx context.Context, g *WithT, namespace, name, reason, message string) {
	ac := &infrav1.AzureCluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, ac)).To(Succeed())
		g.Expect(conditions.Get(ac, infrav1.CredentialsReadyCondition)).To(And(Not(BeNil()),
			HaveField("Reason", reason), HaveField("Message", ContainSubstring(message))), name)
	}, timeout, plane.Interval).Should(Succeed())
	for _, o := range plane.ListASOObjects(ctx, g, namespace) {
		g.Expect(o.Object.GetLabels()).NotTo(HaveKeyWithValue(clusterv1.ClusterNameLabel, name), "%s", o)
	}
	secret := &corev1.Secret{}
	err := env.Env.Get(ctx, client.ObjectKey{Namespace: namespace, Name: aso.CredentialSecretName(name)}, secret)
	if err == nil {
		g.Expect(metav1.IsControlledBy(secret, ac)).To(BeFalse(), "the provider wrote no credential Secret for %s", name)
	} else {
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
	}
}

// reservedPatches are patches of the generated ASO objects that set a key ASO obeys, each with the key the
// admission error names: the credential, the Azure resource the object is (and deletes), the operator that
// reconciles it, its reconcile policy, and any other key of ASO's prefix.
func reservedPatches(brought string) map[string]infrav1.ASOPatch {
	return map[string]infrav1.ASOPatch{
		credentialFrom: {Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"},
			Patch: `{"metadata":{"annotations":{"serviceoperator.azure.com/credential-from":"aso-credential"}}}`},
		"serviceoperator.azure.com/resource-id": {Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"},
			Patch: fmt.Sprintf(`{"metadata":{"annotations":{"serviceoperator.azure.com/resource-id":%q}}}`, brought)},
		"serviceoperator.azure.com/child-resource-id-override": {Target: infrav1.ASOPatchTarget{Kind: "VirtualNetwork"}, Type: infrav1.JSONPatchType,
			Patch: fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations/serviceoperator.azure.com~1child-resource-id-override","value":%q}]`, brought+"/providers/Microsoft.Network/virtualNetworks/vnet")},
		"serviceoperator.azure.com/operator-namespace": {Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"},
			Patch: `{"metadata":{"annotations":{"serviceoperator.azure.com/operator-namespace":"elsewhere"}}}`},
		"serviceoperator.azure.com/reconcile-policy": {Target: infrav1.ASOPatchTarget{Kind: "VirtualNetwork"}, Type: infrav1.JSONPatchType,
			Patch: `[{"op":"replace","path":"/metadata/annotations","value":{"serviceoperator.azure.com/reconcile-policy":"detach-on-delete"}}]`},
		"serviceoperator.azure.com/anything": {Target: infrav1.ASOPatchTarget{Kind: "ResourceGroup"},
			Patch: `{"metadata":{"labels":{"serviceoperator.azure.com/anything":"x"}}}`},
	}
}

// expectPatchRefused checks that an admission error refuses a patch for the key it sets.
func expectPatchRefused(g *WithT, err error, key string) {
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: %v", key, err)
	g.Expect(err.Error()).To(ContainSubstring(key), "the error names the key")
	g.Expect(err.Error()).To(ContainSubstring("ASO obeys every serviceoperator.azure.com/ key"), "the error says why")
}

// attackWithPatches tries every reserved patch on a new AzureCluster, on a running one (running, whose ASO objects
// ASO reconciles) and on an AzureMachine, as the tenant; each is refused at admission, and the running cluster's
// objects still name its credential.
func attackWithPatches(ctx context.Context, g *WithT, tn *tenant.Tenant, running string, identity *infrav1.AzureClusterIdentity, suffix, brought string) {
	patches := reservedPatches(p.ResourceGroupID(brought))
	for key, patch := range patches {
		ac := azureCluster("patched-"+suffix, identity)
		ac.Namespace = tn.Namespace
		ac.Spec.ASOPatches = []infrav1.ASOPatch{patch}
		expectPatchRefused(g, tn.Create(ctx, ac), key)

		live := &infrav1.AzureCluster{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: running}, live)).To(Succeed())
		live.Spec.ASOPatches = append(live.Spec.ASOPatches, patch)
		expectPatchRefused(g, tn.Update(ctx, live), key)

		machine := &infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{Name: "patched-" + suffix, Namespace: tn.Namespace},
			Spec: infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", ASOPatches: []infrav1.ASOPatch{patch}}}
		machine.Spec.ASOPatches[0].Target.Kind = "VirtualMachine"
		expectPatchRefused(g, tn.Create(ctx, machine), key)
	}
	live := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: running}, live)).To(Succeed())
	g.Expect(live.Spec.ASOPatches).To(BeEmpty())
	objs := 0
	for _, o := range plane.ListASOObjects(ctx, g, tn.Namespace) {
		if o.Object.GetLabels()[clusterv1.ClusterNameLabel] != running {
			continue
		}
		objs++
		// ASO writes some of these keys itself (resource-id, operator-namespace): none holds a patch's value.
		annotations := o.Object.GetAnnotations()
		g.Expect(annotations).To(HaveKeyWithValue(credentialFrom, aso.CredentialSecretName(running)), "%s", o)
		g.Expect(strings.ToLower(annotations["serviceoperator.azure.com/resource-id"])).NotTo(HavePrefix(strings.ToLower(p.ResourceGroupID(brought))), "%s", o)
		g.Expect(annotations).NotTo(HaveKey("serviceoperator.azure.com/child-resource-id-override"), "%s", o)
		g.Expect(annotations).NotTo(HaveKeyWithValue("serviceoperator.azure.com/operator-namespace", "elsewhere"), "%s", o)
		g.Expect(annotations).NotTo(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "detach-on-delete"), "%s", o)
		g.Expect(o.Object.GetLabels()).NotTo(HaveKey("serviceoperator.azure.com/anything"), "%s", o)
	}
	g.Expect(objs).To(BeNumerically(">", 0), "the running cluster has ASO objects")
}

// attackPlantedCredential plants, as the tenant, a secretless credential Secret with the platform's client ID under
// the name of a cluster's credential Secret before the cluster exists, then creates the cluster with the namespace's
// identity: the provider finds a Secret it does not control, judges it as the user's, and refuses it. The cluster's
// name is added to attacked.
func attackPlantedCredential(ctx context.Context, g *WithT, tn *tenant.Tenant, identity *infrav1.AzureClusterIdentity, suffix string, attacked *[]string) {
	name := "planted-" + suffix
	g.Expect(tn.Create(ctx, managedIdentityCredential(tn.Namespace, aso.CredentialSecretName(name), platformClientID))).To(Succeed())
	*attacked = append(*attacked, name)
	tn.Cluster(ctx, g, azureCluster(name, identity))
	expectCredentials(ctx, g, tn.Namespace, name, aso.CredentialNotAllowedReason, "holds no client secret or certificate: ASO would act with its own managed identity for "+platformClientID)
}

// attackWithoutIdentity creates, as the tenant, an AzureCluster without identityRef, which ASO's global credential
// would serve: it is refused at admission.
func attackWithoutIdentity(ctx context.Context, g *WithT, tn *tenant.Tenant, suffix string) {
	anonymous := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "anonymous-" + suffix, Namespace: tn.Namespace},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: plane.Location, SubscriptionID: p.SubscriptionID()}}}
	err := tn.Create(ctx, anonymous)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
	g.Expect(err.Error()).To(And(ContainSubstring("spec.identityRef: Required value"), ContainSubstring("--credential-policy=strict")))
}

// deleteClusters deletes, as the tenant, the clusters of the attacks, and waits until they are gone.
func deleteClusters(ctx context.Context, g *WithT, tn *tenant.Tenant, names []string) {
	for _, name := range names {
		g.Expect(client.IgnoreNotFound(tn.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tn.Namespace}}))).To(Succeed())
	}
	g.Eventually(func(g Gomega) {
		for _, name := range names {
			err := env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: name}, &clusterv1.Cluster{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "Cluster %s is deleted: %v", name, err)
		}
	}, timeout, plane.Interval).Should(Succeed())
}

// The tenant's own service principal, whose secret the tenant holds: the strict policy lets raw objects name it.
const (
	ownClientID = "55555555-5555-5555-5555-555555555555"
	ownSecret   = "the team's own secret"
)

// attackRewrittenOwnCredential makes a raw ResourceGroup name the tenant's own credential Secret (a service
// principal with its secret, which the policy accepts) and, once ASO made it, rewrites the Secret again and again
// for a while, in turn to a secretless one with the platform's client ID (ASO would act with its own managed
// identity) and back. The provider vets the Secret when it applies, and ASO reads its credential when it reconciles,
// which the provider's apply triggers: a rewrite between the two would reach Azure as the platform, unless ASO reads
// what was vetted. It returns how many rewrites the API server took, and the last error of one it did not; the
// caller judges, then deletes the cluster (ownCluster).
func attackRewrittenOwnCredential(ctx context.Context, g *WithT, tn *tenant.Tenant, suffix string) (rewrites int, lastErr error) {
	p.ARM.RegisterClientSecret(ownClientID, ownSecret)
	credential, cluster, rg := "own-"+suffix, ownCluster(suffix), ownResourceGroup(suffix)
	own := map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(p.SubscriptionID()), "AZURE_TENANT_ID": []byte(tenantID),
		"AZURE_CLIENT_ID": []byte(ownClientID), "AZURE_CLIENT_SECRET": []byte(ownSecret)}
	platform := map[string][]byte{"AZURE_SUBSCRIPTION_ID": []byte(p.SubscriptionID()), "AZURE_TENANT_ID": []byte(tenantID),
		"AZURE_CLIENT_ID": []byte(platformClientID), "AUTH_MODE": []byte("podidentity")}
	g.Expect(tn.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credential, Namespace: tn.Namespace}, Data: own})).To(Succeed())
	raw := &infrav1.AzureASOManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
	raw.Spec.Resources = []runtime.RawExtension{rawResourceGroup(g, rg, credential)}
	tn.Cluster(ctx, g, raw)
	ready := func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(raw), raw)).To(Succeed())
		g.Expect(raw.Status.Resources).To(ContainElement(And(HaveField("Resource.Name", rg), HaveField("Ready", true))))
	}
	g.Eventually(ready, timeout, plane.Interval).Should(Succeed())

	start := len(p.ARM.Requests())
	for end := time.Now().Add(rewriteFor); time.Now().Before(end); time.Sleep(time.Duration(20+rand.IntN(300)) * time.Millisecond) {
		secret := &corev1.Secret{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: credential}, secret)).To(Succeed())
		secret.Data = own
		if rewrites%2 == 0 {
			secret.Data = platform
		}
		if lastErr = tn.Update(ctx, secret); lastErr == nil {
			rewrites++
		}
	}
	if rewrites%2 == 1 {
		secret := &corev1.Secret{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: credential}, secret)).To(Succeed())
		secret.Data = own
		g.Expect(tn.Update(ctx, secret)).To(Succeed())
	}
	g.Eventually(ready, timeout, plane.Interval).Should(Succeed())
	g.Expect(requestsFor(p.ARM.Requests()[start:], rg)).NotTo(BeEmpty(), "ASO reconciled the ResourceGroup while its credential was rewritten")
	return rewrites, lastErr
}

// ownCluster and ownResourceGroup name the cluster and the raw ResourceGroup of attackRewrittenOwnCredential.
func ownCluster(suffix string) string       { return "raw-own-cluster-" + suffix }
func ownResourceGroup(suffix string) string { return "raw-own-" + suffix }

// rewriteFor is how long attackRewrittenOwnCredential rewrites the credential: without snapshots, a first run saw
// three PUTs as the platform in thirty seconds.
const rewriteFor = 20 * time.Second

// judgeAll describes every ARM request, of the whole run, for a resource group whose name ends with the test's
// suffix (every resource group of the tenant's) that carried another identity than those vetted for it: the team's,
// or the tenant's own service principal for the raw objects that name it. The controls, which reach Azure as the
// platform on purpose, are left out.
func judgeAll(suffix string, own ...string) []string {
	var out []string
	for _, r := range p.ARM.Requests() {
		path := strings.ToLower(r.Path)
		_, rest, ok := strings.Cut(path, "/resourcegroups/")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if !strings.HasSuffix(name, "-"+strings.ToLower(suffix)) || strings.HasPrefix(name, controlPrefix) || r.ClientID == teamClientID {
			continue
		}
		if r.ClientID == ownClientID && slices.Contains(own, name) {
			continue
		}
		out = append(out, describe([]fakearm.Request{r})...)
	}
	return out
}
