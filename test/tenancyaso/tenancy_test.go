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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
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

const (
	// timeout bounds each wait: ASO backs off while it waits for an owner, and retries failed deletes with backoff.
	timeout = 5 * time.Minute
	// quiet is how long a check that nothing happens watches.
	quiet = 15 * time.Second

	credentialFrom = "serviceoperator.azure.com/credential-from"
	tenantID       = "33333333-3333-3333-3333-333333333333"
	// The team's service principal, which the platform gives to the tenant's namespace.
	teamClientID = "22222222-2222-2222-2222-222222222222"
	teamSecret   = "the secret the platform gave the team"
	// The platform's own identity: a managed identity of ASO's pod that ASO acts as for whatever names its client ID.
	platformClientID = "11111111-1111-1111-1111-111111111111"
)

// TestTenancy_OnlyTheNamespacesIdentityReachesAzure attacks the provider as a tenant of one namespace whose
// namespace holds ASO's aso-credential Secret with the platform's client ID (ASO would act with its own managed
// identity for it), and judges every attack by the identities the fake Azure Resource Manager saw: every request
// for a resource of the tenant carries the team's service principal, the only identity the platform gave to the
// namespace, deletes and their retries included. A first check shows the judge is not blind: an ASO object of the
// namespace that names no credential does reach Azure as the platform.
func TestTenancy_OnlyTheNamespacesIdentityReachesAzure(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	p.ARM.RegisterClientSecret(teamClientID, teamSecret)
	tn := tenant.New(ctx, t, g, "team-a")
	suffix := utilrand.String(5)
	good, revoked := "good-"+suffix, "revoked-"+suffix

	// The platform: the team's identity, allowed in the tenant's namespace only, in a namespace the tenant cannot
	// touch.
	platform, err := env.Env.CreateNamespace(ctx, "platform")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), platform) })
	g.Expect(env.Env.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "team-sp", Namespace: platform.Name},
		StringData: map[string]string{"clientSecret": teamSecret}})).To(Succeed())
	team := &infrav1.AzureClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "team", Namespace: platform.Name},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: tenantID, ClientID: teamClientID,
			ClientSecret:      corev1.SecretReference{Name: "team-sp", Namespace: platform.Name},
			AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{tn.Namespace}}}}
	g.Expect(env.Env.Create(ctx, team)).To(Succeed())
	setAllowed := func(namespaces ...string) {
		plane.UpdateObject(ctx, g, client.ObjectKeyFromObject(team), team, func() {
			team.Spec.AllowedNamespaces = &infrav1.AllowedNamespaces{NamespaceList: namespaces}
		})
	}

	// The tenant's bait: ASO's namespace credential, which ASO uses for any object of the namespace that names no
	// credential.
	g.Expect(tn.Create(ctx, managedIdentityCredential(tn.Namespace, "aso-credential", platformClientID))).To(Succeed())

	t.Run("the judge sees ASO's fallback to the namespace's credential", func(t *testing.T) {
		g := NewWithT(t)
		control := "control-" + suffix
		rg := &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: control, Namespace: tn.Namespace},
			Spec: asoresources.ResourceGroup_Spec{Location: ptr.To(plane.Location)}}
		g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
		g.Eventually(func(g Gomega) {
			g.Expect(unvetted(p.ARM.Requests(), control)).To(ContainElement(ContainSubstring(platformClientID)))
		}, timeout, plane.Interval).Should(Succeed())
		g.Expect(env.Env.Delete(ctx, rg)).To(Succeed())
		g.Eventually(func() bool {
			return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(rg), rg))
		}, timeout, plane.Interval).Should(BeTrue())
	})

	t.Run("the judge sees the platform's certificate, which a copied identity would give ASO", func(t *testing.T) {
		g := NewWithT(t)
		expectBypassSeen(ctx, g, tn.Namespace, controlPrefix+"cert-"+suffix, certificateCredential(g))
	})

	t.Run("a cluster with the namespace's identity reaches Azure with it", func(t *testing.T) {
		g := NewWithT(t)
		tn.Cluster(ctx, g, azureCluster(good, team))
		expectReady(ctx, g, tn.Namespace, good)
		g.Expect(requestsFor(p.ARM.Requests(), good)).NotTo(BeEmpty())
		g.Expect(unvetted(p.ARM.Requests(), good)).To(BeEmpty())
	})

	// Round 2's attacks (round2_test.go), while ASO reconciles the good cluster; their clusters go before the next
	// attacks, and judgeAll judges every request of the run at the end.
	var attacked []string
	t.Run("identities that copy the platform's client ID or certificate file are not bound", func(t *testing.T) {
		attackCopiedIdentities(ctx, NewWithT(t), tn, suffix, &attacked)
	})
	t.Run("a secretless credential Secret planted before its cluster is refused", func(t *testing.T) {
		attackPlantedCredential(ctx, NewWithT(t), tn, team, suffix, &attacked)
	})
	t.Run("an owner without identityRef, which ASO's global credential would serve, is refused at admission", func(t *testing.T) {
		attackWithoutIdentity(ctx, NewWithT(t), tn, suffix)
	})
	brought := "brought-" + suffix
	t.Run("patches cannot set any serviceoperator.azure.com/ key, on a new cluster, a running one or a machine", func(t *testing.T) {
		attackWithPatches(ctx, NewWithT(t), tn, good, team, suffix, brought)
	})
	t.Run("the attacks' clusters are deleted, and nothing reached Azure for them", func(t *testing.T) {
		g := NewWithT(t)
		nothing := func() {
			for _, name := range append([]string{brought}, attacked...) {
				g.Expect(describe(requestsFor(p.ARM.Requests(), name))).To(BeEmpty(), name)
			}
		}
		nothing()
		deleteClusters(ctx, g, tn, attacked)
		nothing()
	})

	t.Run("a relabelled, rewritten credential Secret is rewritten before ASO uses it again", func(t *testing.T) {
		g := NewWithT(t)
		tamper(ctx, g, tn, good)
		ac := &infrav1.AzureCluster{}
		g.Eventually(func() error {
			if err := tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: good}, ac); err != nil {
				return err
			}
			ac.Spec.AdditionalTags = infrav1.Tags{"pass": "after-tampering"}
			return tn.Update(ctx, ac)
		}, timeout, plane.Interval).Should(Succeed())
		g.Eventually(func(g Gomega) {
			var tagged bool
			for _, r := range requestsFor(p.ARM.Requests(), good) {
				tagged = tagged || (r.Method == "PUT" && strings.Contains(string(r.Body), "after-tampering"))
			}
			g.Expect(tagged).To(BeTrue(), "ASO wrote the new tag to Azure")
		}, timeout, plane.Interval).Should(Succeed())
		g.Expect(unvetted(p.ARM.Requests(), good)).To(BeEmpty())
	})

	// The provider rewrites a tampered Secret within moments, but ASO may use it in between: while ASO works on the
	// cluster's objects (a deletion that retries), it does (a first run of this suite saw two GETs as the platform).
	// Only the API server can refuse the write itself: the shipped admission policy, installed from here on.
	installCredentialSecretsPolicy(ctx, g, tn)

	t.Run("a delete that fails, and a Secret the tenant tries to rewrite before ASO retries it", func(t *testing.T) {
		g := NewWithT(t)
		id := strings.ToLower(p.ResourceGroupID(good))
		fault := p.ARM.Inject(fakearm.Fault{Method: "DELETE", ID: regexp.MustCompile("^" + regexp.QuoteMeta(id) + "$"), Status: 500,
			Message: "injected: the first delete fails"})
		g.Expect(tn.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: good, Namespace: tn.Namespace}})).To(Succeed())
		g.Eventually(func() int { return p.ARM.Hits(fault) }, timeout, plane.Interval).Should(BeNumerically(">", 0))
		secret := &corev1.Secret{}
		g.Expect(tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: aso.CredentialSecretName(good)}, secret)).To(Succeed())
		secret.Data["AZURE_CLIENT_ID"] = []byte(platformClientID)
		g.Expect(tn.Update(ctx, secret)).To(MatchError(ContainSubstring(credentialSecretsPolicy)), "the admission policy refuses the rewrite")
		p.ARM.Clear(fault)
		g.Eventually(func() bool {
			return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: good}, &clusterv1.Cluster{}))
		}, timeout, plane.Interval).Should(BeTrue(), "the cluster is deleted")
		deletes := 0
		for _, r := range requestsFor(p.ARM.Requests(), good) {
			if r.Method == "DELETE" {
				deletes++
				g.Expect(r.ClientID).To(Equal(teamClientID), "%s %s", r.Method, r.Path)
			}
		}
		g.Expect(deletes).To(BeNumerically(">", 1), "the failed delete and its retry")
		g.Expect(unvetted(p.ARM.Requests(), good)).To(BeEmpty())
	})

	t.Run("revoking the namespace stops every request, and the deletion waits for access", func(t *testing.T) {
		g := NewWithT(t)
		tn.Cluster(ctx, g, azureCluster(revoked, team))
		expectReady(ctx, g, tn.Namespace, revoked)

		revokedAt := len(p.ARM.Requests())
		setAllowed("elsewhere")
		g.Eventually(func(g Gomega) {
			ac := &infrav1.AzureCluster{}
			g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: revoked}, ac)).To(Succeed())
			g.Expect(conditions.Get(ac, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", infrav1.NamespaceNotAllowedReason))
		}, timeout, plane.Interval).Should(Succeed())
		// ASO reconciles each object whose credential-from changed: judged by what reaches Azure, then by what the
		// provider wrote.
		g.Expect(tn.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: revoked, Namespace: tn.Namespace}})).To(Succeed())
		g.Consistently(func() []string {
			return unvetted(p.ARM.Requests()[revokedAt:], revoked)
		}, quiet, plane.Interval).Should(BeEmpty(), "no other identity reaches Azure for a revoked cluster")
		for _, o := range plane.ListASOObjects(ctx, g, tn.Namespace) {
			if o.Object.GetLabels()[clusterv1.ClusterNameLabel] == revoked {
				g.Expect(aso.IsRevokedCredential(o.Object.GetAnnotations()[credentialFrom])).To(BeTrue(), "%s", o)
			}
		}
		settled := len(p.ARM.Requests())
		g.Consistently(func() []string {
			return describe(requestsFor(p.ARM.Requests()[settled:], revoked))
		}, quiet/3, plane.Interval).Should(BeEmpty(), "nothing reaches Azure for a revoked cluster, not even its deletion")
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: revoked}, &clusterv1.Cluster{})).To(Succeed(), "the deletion waits")

		setAllowed(tn.Namespace)
		g.Eventually(func() bool {
			return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: revoked}, &clusterv1.Cluster{}))
		}, timeout, plane.Interval).Should(BeTrue(), "the cluster is deleted once access is back")
		g.Expect(unvetted(p.ARM.Requests(), revoked)).To(BeEmpty())
	})

	t.Run("raw objects that name a forged credential, the namespace's or none never reach Azure", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(tn.Create(ctx, managedIdentityCredential(tn.Namespace, "forged", platformClientID))).To(Succeed())
		names := map[string]string{"raw-forged-" + suffix: "forged", "raw-namespace-" + suffix: "aso-credential", "raw-none-" + suffix: ""}
		raw := &infrav1.AzureASOManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "raw-" + suffix}}
		for name, credential := range names {
			raw.Spec.Resources = append(raw.Spec.Resources, rawResourceGroup(g, name, credential))
		}
		tn.Cluster(ctx, g, raw)
		g.Eventually(func(g Gomega) {
			g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(raw), raw)).To(Succeed())
			for name := range names {
				g.Expect(raw.Status.Resources).To(ContainElement(And(HaveField("Resource.Name", name), HaveField("Reason", aso.CredentialNotAllowedReason))))
			}
		}, timeout, plane.Interval).Should(Succeed())
		g.Consistently(func() []string {
			var seen []string
			for name := range names {
				seen = append(seen, describe(requestsFor(p.ARM.Requests(), name))...)
			}
			return seen
		}, quiet, plane.Interval).Should(BeEmpty())
	})

	t.Run("a raw object's own credential rewritten again and again never reaches Azure as the platform", func(t *testing.T) {
		g := NewWithT(t)
		rewrites, lastErr := attackRewrittenOwnCredential(ctx, g, tn, suffix)
		g.Expect(judgeAll(suffix, ownResourceGroup(suffix))).To(BeEmpty())
		g.Expect(rewrites).To(BeNumerically(">", 20), "the tenant rewrote its Secret again and again (last refusal: %v)", lastErr)
		deleteClusters(ctx, g, tn, []string{ownCluster(suffix)})
		g.Expect(judgeAll(suffix, ownResourceGroup(suffix))).To(BeEmpty(), "the deletion too")
	})

	t.Run("no request of the run for the namespace's resources carried another identity than those vetted for it", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(judgeAll(suffix, ownResourceGroup(suffix))).To(BeEmpty())
		g.Expect(unvetted(p.ARM.Requests(), "control-"+suffix)).NotTo(BeEmpty(), "the controls, which judgeAll leaves out, are seen")
	})
}

// credentialSecretsPolicy is the admission policy the release ships for credential Secrets (config/policies).
const credentialSecretsPolicy = "capz-credential-secrets"

// installCredentialSecretsPolicy installs the policy and its binding as config/policies/credential-secrets builds
// them, and waits until the API server enforces it on the tenant.
func installCredentialSecretsPolicy(ctx context.Context, g *WithT, tn *tenant.Tenant) {
	kustomize, err := env.Tool("kustomize")
	g.Expect(err).NotTo(HaveOccurred())
	root, err := env.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	out, err := exec.CommandContext(ctx, kustomize, "build", filepath.Join(root, "config", "policies", "credential-secrets")).Output()
	g.Expect(err).NotTo(HaveOccurred())
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			g.Expect(err).To(MatchError(io.EOF))
			break
		}
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	}
	g.Eventually(func() error {
		probe := &corev1.Secret{}
		if err := tn.Get(ctx, client.ObjectKey{Namespace: tn.Namespace, Name: "aso-credential"}, probe); err != nil {
			return err
		}
		probe.Labels = map[string]string{"probe": utilrand.String(5)}
		return tn.Update(ctx, probe)
	}, timeout, plane.Interval).Should(MatchError(ContainSubstring(credentialSecretsPolicy)))
}

// azureCluster is an AzureCluster of the plane's subscription with an identity.
func azureCluster(name string, identity *infrav1.AzureClusterIdentity) *infrav1.AzureCluster {
	return &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
			Location: plane.Location, SubscriptionID: p.SubscriptionID(),
			IdentityRef: &corev1.ObjectReference{Name: identity.Name, Namespace: identity.Namespace},
		}}}
}

// managedIdentityCredential is an ASO credential Secret that holds only IDs and asks for ASO's managed identity.
func managedIdentityCredential(namespace, name, clientID string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, StringData: map[string]string{
		"AZURE_SUBSCRIPTION_ID": p.SubscriptionID(), "AZURE_TENANT_ID": tenantID, "AZURE_CLIENT_ID": clientID, "AUTH_MODE": "podidentity",
	}}
}

// rawResourceGroup is a ResourceGroup as a user writes it in spec.resources, naming a credential or none.
func rawResourceGroup(g *WithT, name, credential string) runtime.RawExtension {
	metadata := map[string]any{"name": name}
	if credential != "" {
		metadata["annotations"] = map[string]any{credentialFrom: credential}
	}
	data, err := json.Marshal(map[string]any{
		"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
		"metadata": metadata, "spec": map[string]any{"location": plane.Location},
	})
	g.Expect(err).NotTo(HaveOccurred())
	return runtime.RawExtension{Raw: data}
}

// tamper rewrites, as the tenant, the cluster's credential Secret to ask for ASO's managed identity as the
// platform, and removes the provider's label from it; then it waits until the provider has rewritten it.
func tamper(ctx context.Context, g *WithT, tn *tenant.Tenant, cluster string) {
	key := client.ObjectKey{Namespace: tn.Namespace, Name: aso.CredentialSecretName(cluster)}
	g.Eventually(func() error {
		secret := &corev1.Secret{}
		if err := tn.Get(ctx, key, secret); err != nil {
			return err
		}
		delete(secret.Labels, infrav1.OwnedByLabel)
		delete(secret.Data, "AZURE_CLIENT_SECRET")
		secret.Data["AZURE_CLIENT_ID"] = []byte(platformClientID)
		secret.Data["AUTH_MODE"] = []byte("podidentity")
		return tn.Update(ctx, secret)
	}, timeout, plane.Interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		secret := &corev1.Secret{}
		g.Expect(env.Env.Get(ctx, key, secret)).To(Succeed())
		g.Expect(secret.Data).To(And(HaveKeyWithValue("AZURE_CLIENT_ID", []byte(teamClientID)), HaveKey("AZURE_CLIENT_SECRET"), Not(HaveKey("AUTH_MODE"))))
	}, timeout, plane.Interval).Should(Succeed(), "the provider rewrote its credential Secret")
}

// expectReady waits until an AzureCluster is Ready.
func expectReady(ctx context.Context, g *WithT, namespace, name string) {
	g.Eventually(func(g Gomega) {
		ac := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, ac)).To(Succeed())
		g.Expect(conditions.IsTrue(ac, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(ac, clusterv1.ReadyCondition))
	}, timeout, plane.Interval).Should(Succeed())
}

// requestsFor keeps the ARM requests for a resource group and what it holds.
func requestsFor(requests []fakearm.Request, resourceGroup string) []fakearm.Request {
	var out []fakearm.Request
	prefix := "/resourcegroups/" + strings.ToLower(resourceGroup)
	for _, r := range requests {
		path := strings.ToLower(r.Path)
		if i := strings.Index(path, prefix); i >= 0 && (len(path) == i+len(prefix) || path[i+len(prefix)] == '/') {
			out = append(out, r)
		}
	}
	return out
}

// unvetted describes the requests for a resource group that carried another identity than the team's.
func unvetted(requests []fakearm.Request, resourceGroup string) []string {
	var out []fakearm.Request
	for _, r := range requestsFor(requests, resourceGroup) {
		if r.ClientID != teamClientID {
			out = append(out, r)
		}
	}
	return describe(out)
}

// describe is one line per request: its method, path and identity.
func describe(requests []fakearm.Request) []string {
	out := make([]string, 0, len(requests))
	for _, r := range requests {
		out = append(out, fmt.Sprintf("%s %s as %q", r.Method, r.Path, r.ClientID))
	}
	return out
}
