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

package azuremachinetemplate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/cloudconfig"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
)

const (
	timeout      = 30 * time.Second
	subscription = "22222222-2222-2222-2222-222222222222"
	tenant       = "11111111-1111-1111-1111-111111111111"
	clientID     = "33333333-3333-3333-3333-333333333333"
)

// fixture is a Cluster whose AzureCluster is provisioned and managed by someone else, so that only the
// templates' Secrets are reconciled.
type fixture struct {
	ctx          context.Context
	namespace    string
	cluster      *clusterv1.Cluster
	azureCluster *infrav1.AzureCluster
}

func newFixture(t *testing.T, g *WithT, identityRef *corev1.ObjectReference) *fixture {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "azuremachinetemplate")
	g.Expect(err).NotTo(HaveOccurred())
	ac := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: ns.Name, Annotations: map[string]string{clusterv1.ManagedByAnnotation: "test"}},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
			Location: "eastus", SubscriptionID: subscription, IdentityRef: identityRef,
		}},
	}
	g.Expect(env.Env.Create(ctx, ac)).To(Succeed())
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: ac.Name,
		}},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	g.Expect(env.Env.Status().Update(ctx, cluster)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), cluster, ns) })
	return &fixture{ctx: ctx, namespace: ns.Name, cluster: cluster, azureCluster: ac}
}

// newTemplate creates an AzureMachineTemplate owned by the Cluster, as Cluster API makes it.
func (f *fixture) newTemplate(g *WithT, name string, spec infrav1.AzureMachineSpec) *infrav1.AzureMachineTemplate {
	if spec.VMSize == "" {
		spec.VMSize = "Standard_D2s_v3"
	}
	tmpl := &infrav1.AzureMachineTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: f.cluster.Name, UID: f.cluster.UID,
		}}},
		Spec: infrav1.AzureMachineTemplateSpec{Template: infrav1.AzureMachineTemplateResource{Spec: spec}},
	}
	g.Expect(env.Env.Create(f.ctx, tmpl)).To(Succeed())
	return tmpl
}

// azureJSON waits for the template's Secret and returns it with its control plane file.
func (f *fixture) azureJSON(g *WithT, tmpl *infrav1.AzureMachineTemplate, check func(g Gomega, file map[string]any)) *corev1.Secret {
	secret := &corev1.Secret{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: tmpl.Name + "-azure-json"}, secret)).To(Succeed())
		file := map[string]any{}
		g.Expect(json.Unmarshal(secret.Data[cloudconfig.ControlPlaneKey], &file)).To(Succeed())
		check(g, file)
	}, timeout).Should(Succeed())
	return secret
}

func TestReconcile_WritesOwnedSecret(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	tmpl := f.newTemplate(g, "workload-md-0", infrav1.AzureMachineSpec{Identity: infrav1.VMIdentitySystemAssigned})

	secret := f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).To(HaveKeyWithValue("vnetName", "workload-vnet"))
		g.Expect(file).To(HaveKeyWithValue("subscriptionId", subscription))
		g.Expect(file).To(HaveKeyWithValue("location", "eastus"))
		g.Expect(file).To(HaveKeyWithValue("useManagedIdentityExtension", true))
		g.Expect(file).NotTo(HaveKey("aadClientSecret"))
	})
	g.Expect(secret.Data).To(HaveKeyWithValue(cloudconfig.WorkerNodeKey, secret.Data[cloudconfig.ControlPlaneKey]))
	g.Expect(secret.Data).To(HaveKey(cloudconfig.LegacyKey))
	g.Expect(secret.Labels).To(HaveKeyWithValue("workload", "owned"), "CAPZ's label, so that CAPZ would take it over too")
	g.Expect(metav1.GetControllerOf(secret)).To(PointTo(MatchFields(IgnoreExtras, Fields{
		"Kind": Equal("AzureMachineTemplate"), "Name": Equal(tmpl.Name), "UID": Equal(tmpl.UID),
	})), "garbage collection removes it with its template")

	// Drift is re-asserted.
	secret.Data[cloudconfig.ControlPlaneKey] = []byte("{}")
	g.Expect(env.Env.Update(f.ctx, secret)).To(Succeed())
	f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).To(HaveKeyWithValue("vnetName", "workload-vnet"))
	})
}

// TestReconcile_OverridesFollowTheCluster changes the AzureCluster's cloudProviderConfigOverrides: the Secret
// follows.
func TestReconcile_OverridesFollowTheCluster(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	tmpl := f.newTemplate(g, "workload-control-plane", infrav1.AzureMachineSpec{Identity: infrav1.VMIdentitySystemAssigned})
	f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).NotTo(HaveKey("cloudProviderBackoff"))
	})

	ac := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(f.azureCluster), ac)).To(Succeed())
	ac.Spec.CloudProviderConfigOverrides = &infrav1.CloudProviderConfigOverrides{
		RateLimits: []infrav1.RateLimitSpec{{Name: infrav1.LoadBalancerRateLimit, Config: infrav1.RateLimitConfig{
			CloudProviderRateLimit: true, CloudProviderRateLimitQPS: ptr.To(resource.MustParse("1.5")), CloudProviderRateLimitBucket: 9,
		}}},
		BackOffs: infrav1.BackOffConfig{CloudProviderBackoff: true, CloudProviderBackoffRetries: 4},
	}
	g.Expect(env.Env.Update(f.ctx, ac)).To(Succeed())
	f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).To(HaveKeyWithValue("cloudProviderBackoff", true))
		g.Expect(file).To(HaveKeyWithValue("cloudProviderBackoffRetries", BeNumerically("==", 4)))
		g.Expect(file).To(HaveKeyWithValue("loadBalancerRateLimit", And(
			HaveKeyWithValue("cloudProviderRateLimitQPS", BeNumerically("==", 1.5)),
			HaveKeyWithValue("cloudProviderRateLimitBucket", BeNumerically("==", 9)),
		)))
	})
}

// TestReconcile_UsersSecretLeftAlone: a Secret of that name without the provider's (or CAPZ's) label is the
// user's own azure.json, as in CAPZ.
func TestReconcile_UsersSecretLeftAlone(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	users := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "workload-md-1-azure-json", Namespace: f.namespace},
		Data:       map[string][]byte{cloudconfig.ControlPlaneKey: []byte(`{"cloud":"mine"}`)},
	}
	g.Expect(env.Env.Create(f.ctx, users)).To(Succeed())
	f.newTemplate(g, "workload-md-1", infrav1.AzureMachineSpec{Identity: infrav1.VMIdentitySystemAssigned})

	// The controller says when it has seen the Secret and left it alone.
	g.Eventually(func(g Gomega) {
		g.Expect(strings.Split(logs.Logged(), "\n")).To(ContainElement(And(
			ContainSubstring("Leaving the user's azure.json Secret alone"), ContainSubstring(f.namespace), ContainSubstring(users.Name))))
	}, timeout).Should(Succeed())
	live := &corev1.Secret{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(users), live)).To(Succeed())
	g.Expect(live.Data).To(Equal(users.Data))
	g.Expect(live.OwnerReferences).To(BeEmpty())
	g.Expect(live.Labels).To(BeEmpty())
}

// TestReconcile_ServicePrincipalTenancy: machines without a VM identity get the service principal's secret, as
// in CAPZ, from the cluster's credential secret in their own namespace; when the identity stops allowing the
// namespace, the Secret loses every credential of it. The secret's value is never logged.
func TestReconcile_ServicePrincipalTenancy(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	spSecret := []byte("sp-secret-value-7f3a")
	logs.Watch(spSecret)
	identityNS, err := env.Env.CreateNamespace(ctx, "identities")
	g.Expect(err).NotTo(HaveOccurred())
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "sp", Namespace: identityNS.Name},
		Spec: infrav1.AzureClusterIdentitySpec{
			Type: infrav1.ServicePrincipal, TenantID: tenant, ClientID: clientID,
			ClientSecret:      corev1.SecretReference{Name: "sp-secret", Namespace: identityNS.Name},
			AllowedNamespaces: &infrav1.AllowedNamespaces{},
		},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), identity, identityNS) })
	f := newFixture(t, g, &corev1.ObjectReference{Name: identity.Name, Namespace: identityNS.Name})
	// The cluster's controller would write the credential secret; the test's AzureCluster is managed elsewhere.
	creds := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: aso.CredentialSecretName(f.cluster.Name), Namespace: f.namespace,
			Labels: map[string]string{infrav1.ClusterNameLabel: f.cluster.Name, infrav1.OwnedByLabel: f.cluster.Name}},
		Data: map[string][]byte{"AZURE_CLIENT_SECRET": spSecret},
	}
	g.Expect(env.Env.Create(ctx, creds)).To(Succeed())
	tmpl := f.newTemplate(g, "workload-md-0", infrav1.AzureMachineSpec{Identity: infrav1.VMIdentityNone})
	f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).To(HaveKeyWithValue("aadClientId", clientID))
		g.Expect(file).To(HaveKeyWithValue("aadClientSecret", string(spSecret)))
		g.Expect(file).To(HaveKeyWithValue("tenantId", tenant))
		g.Expect(file).To(HaveKeyWithValue("useManagedIdentityExtension", false))
	})

	g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(identity), identity)).To(Succeed())
	identity.Spec.AllowedNamespaces = &infrav1.AllowedNamespaces{NamespaceList: []string{"someone-else"}}
	g.Expect(env.Env.Update(ctx, identity)).To(Succeed())
	secret := f.azureJSON(g, tmpl, func(g Gomega, file map[string]any) {
		g.Expect(file).NotTo(HaveKey("aadClientSecret"))
		g.Expect(file).NotTo(HaveKey("aadClientId"))
		g.Expect(file).To(HaveKeyWithValue("tenantId", ""))
	})
	for key, value := range secret.Data {
		g.Expect(string(value)).NotTo(ContainSubstring(string(spSecret)), key)
	}
	g.Expect(logcapture.Leaks(logs.Logged(), spSecret)).To(BeEmpty())
	g.Expect(logs.SeenUncapped(spSecret)).To(BeTrue(), "an uncapped logger sees it, so the check above can fail")
}

// TestReconcile_CapacityForScaleFromZero checks what cluster-autoscaler reads to scale a MachineDeployment of the
// template from zero: status.nodeInfo from the spec at once, and status.capacity once a machine of the template
// has a Node in the workload cluster, as Cluster API clones and links them.
func TestReconcile_CapacityForScaleFromZero(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	kubeconfig := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secret.Name(f.cluster.Name, secret.Kubeconfig), Namespace: f.namespace, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Type:       clusterv1.ClusterSecretType,
		Data:       map[string][]byte{secret.KubeconfigDataName: workload.KubeConfig},
	}
	g.Expect(env.Env.Create(f.ctx, kubeconfig)).To(Succeed())
	tmpl := f.newTemplate(g, "arm", infrav1.AzureMachineSpec{VMSize: "Standard_D4ps_v5"})
	other := f.newTemplate(g, "windows", infrav1.AzureMachineSpec{OSDisk: infrav1.OSDisk{OSType: "Windows", DiskSizeGB: ptr.To[int32](128)}})
	status := func(tmpl *infrav1.AzureMachineTemplate) func(g Gomega) infrav1.AzureMachineTemplateStatus {
		return func(g Gomega) infrav1.AzureMachineTemplateStatus {
			live := &infrav1.AzureMachineTemplate{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(tmpl), live)).To(Succeed())
			// What the autoscaler reads; the template's Paused condition is checked below.
			st := live.Status
			st.Conditions, st.ObservedGeneration = nil, 0
			return st
		}
	}
	g.Eventually(status(tmpl), timeout).Should(Equal(infrav1.AzureMachineTemplateStatus{
		NodeInfo: &infrav1.NodeInfo{Architecture: "arm64", OperatingSystem: "linux"},
	}), "no machine has joined yet: no capacity")
	g.Eventually(status(other), timeout).Should(HaveField("NodeInfo", Equal(&infrav1.NodeInfo{Architecture: "amd64", OperatingSystem: "windows"})))
	// The lifecycle gives the template Cluster API's Paused condition, and observedGeneration with it.
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureMachineTemplate{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(tmpl), live)).To(Succeed())
		g.Expect(conditions.Get(live, clusterv1.PausedCondition)).To(HaveField("Status", metav1.ConditionFalse))
		g.Expect(live.Status.ObservedGeneration).To(Equal(live.Generation))
	}, timeout).Should(Succeed())

	// Cluster API clones an AzureMachine from the template for a Machine; its Node joins.
	machine := &infrav1.AzureMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "arm-1", Namespace: f.namespace, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name},
			Annotations: map[string]string{
				clusterv1.TemplateClonedFromNameAnnotation:      tmpl.Name,
				clusterv1.TemplateClonedFromGroupKindAnnotation: "AzureMachineTemplate." + infrav1.GroupVersion.Group,
			}},
		Spec: infrav1.AzureMachineSpec{VMSize: "Standard_D4ps_v5"},
	}
	g.Expect(env.Env.Create(f.ctx, machine)).To(Succeed())
	nodeName := f.namespace + "-arm-1"
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}
	g.Expect(workloadClient.Create(f.ctx, node)).To(Succeed())
	t.Cleanup(func() { _ = workloadClient.Delete(context.Background(), node) })
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16365852Ki"),
		corev1.ResourceEphemeralStorage: resource.MustParse("129886128Ki"), corev1.ResourcePods: resource.MustParse("110"),
	}
	node.Status.Capacity = capacity
	g.Expect(workloadClient.Status().Update(f.ctx, node)).To(Succeed())
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "arm-1", Namespace: f.namespace, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec: clusterv1.MachineSpec{
			ClusterName: f.cluster.Name,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "arm-1",
			}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureMachine", Name: machine.Name},
		},
	}
	g.Expect(env.Env.Create(f.ctx, m)).To(Succeed())
	m.Status.NodeRef = clusterv1.MachineNodeReference{Name: nodeName}
	g.Expect(env.Env.Status().Update(f.ctx, m)).To(Succeed())

	g.Eventually(status(tmpl), timeout).Should(Equal(infrav1.AzureMachineTemplateStatus{
		NodeInfo: &infrav1.NodeInfo{Architecture: "arm64", OperatingSystem: "linux"},
		Capacity: capacity,
	}))
	g.Consistently(status(other), 2*time.Second).Should(HaveField("Capacity", BeEmpty()), "not a machine of this template")
}
