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

package switchback_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/switchback"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// k8s is an admin client of a real API server with the provider's CRDs, Cluster API's, and ASO's CRDs and webhooks.
var k8s client.Client

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	cp, err := env.StartControlPlane(context.Background(), env.ControlPlaneOptions{Scheme: scheme.New()})
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to start the control plane: %v\n", err)
		os.Exit(1)
	}
	code := func() int {
		if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme.New()}); err != nil {
			fmt.Fprintf(os.Stderr, "failed to create a client: %v\n", err)
			return 1
		}
		return m.Run()
	}()
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "failed to stop the control plane: %v\n", err)
	}
	os.Exit(code)
}

// namespace makes a namespace of its own for a test.
func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "switch-back-"}}
	NewWithT(t).Expect(k8s.Create(t.Context(), ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	return ns.Name
}

// apply server-side-applies a YAML object as a field manager, as CAPZ and the provider do (forcing conflicts).
func apply(ctx context.Context, ns, manager, manifest string) error {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		return err
	}
	u.SetNamespace(ns)
	return k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(manager), client.ForceOwnership)
}

// specOwners returns the field managers that own part of an object's spec.
func specOwners(ctx context.Context, obj client.Object) ([]string, error) {
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range obj.GetManagedFields() {
		if m.FieldsV1 != nil && strings.Contains(m.FieldsV1.GetRawString(), `"f:spec"`) {
			out = append(out, m.Manager)
		}
	}
	return out, nil
}

const (
	// providerManagedCluster is an AKS cluster as the provider applied it after taking it over from CAPZ: its own
	// admin kubeconfig Secret, the key CAPZ uses too.
	providerManagedCluster = `
apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
metadata:
  name: aks
  annotations:
    serviceoperator.azure.com/reconcile-policy: manage
spec:
  location: westeurope
  dnsPrefix: aks
  owner: {name: aks-rg}
  operatorSpec:
    secrets:
      adminCredentials: {name: aks-aso-kubeconfig, key: value}
`
	// capzReconcile is CAPZ's apply of the same cluster after the way back: spec.resources with its default admin
	// kubeconfig Secret added (pkg/mutators, setManagedClusterCredentials).
	capzReconcile = `
apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
metadata:
  name: aks
  annotations:
    serviceoperator.azure.com/reconcile-policy: manage
spec:
  location: westeurope
  dnsPrefix: aks
  owner: {name: aks-rg}
  operatorSpec:
    secrets:
      adminCredentials: {name: aks-kubeconfig, key: value}
`
	// capzPause is CAPZ's pause of the cluster before the next switch: spec.resources again, as the user wrote it,
	// with reconcile-policy skip (controllers/resource_reconciler.go, Pause).
	capzPause = `
apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
metadata:
  name: aks
  annotations:
    serviceoperator.azure.com/reconcile-policy: skip
spec:
  location: westeurope
  dnsPrefix: aks
  owner: {name: aks-rg}
`
)

// TestBeforeInit_LetsCAPZPauseAfterTheWayBack plays an aks-aso cluster's way back: the provider applied its
// ManagedCluster (and paused it), CAPZ applies it again and, before the next switch, pauses it. Without the step
// between, the key the provider applied with CAPZ's value stays shared, CAPZ's pause drops only the name, and the
// API server refuses the pause; with it, CAPZ alone owns what it applies and its pause goes through.
func TestBeforeInit_LetsCAPZPauseAfterTheWayBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	for _, tc := range []struct {
		name        string
		prepare     bool
		pauseRefuse string
	}{
		{name: "without the step between, CAPZ's pause is refused", pauseRefuse: "adminCredentials.name: Required value"},
		{name: "with it, CAPZ pauses the cluster", prepare: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := t.Context()
			ns := namespace(t)
			g.Expect(apply(ctx, ns, aso.FieldManager, providerManagedCluster)).To(Succeed())
			paused := fmt.Sprintf(`{"metadata":{"annotations":{%q:"manage"}}}`, aso.PrePauseAnnotation)
			mc := &unstructured.Unstructured{}
			mc.SetAPIVersion("containerservice.azure.com/v1api20250801")
			mc.SetKind("ManagedCluster")
			mc.SetNamespace(ns)
			mc.SetName("aks")
			g.Expect(k8s.Patch(ctx, mc, client.RawPatch(types.MergePatchType, []byte(paused)), client.FieldOwner(aso.FieldManager+"-pause"))).To(Succeed())
			g.Expect(specOwners(ctx, mc)).To(ContainElement(aso.FieldManager))

			if tc.prepare {
				report, err := switchback.BeforeInit(ctx, k8s, switchback.Options{Namespace: ns})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(report).To(Equal(switchback.Report{FieldsReleased: 1}))
				g.Expect(specOwners(ctx, mc)).To(BeEmpty())
				g.Expect(mc.GetAnnotations()).To(HaveKeyWithValue(aso.PrePauseAnnotation, "manage"), "the values stay")
				g.Expect(mc.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("operatorSpec", HaveKey("secrets"))), "the values stay")
				again, err := switchback.BeforeInit(ctx, k8s, switchback.Options{Namespace: ns})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(again).To(Equal(switchback.Report{}), "a second run changes nothing")
			}

			g.Expect(apply(ctx, ns, "capz-manager", capzReconcile)).To(Succeed())
			err := apply(ctx, ns, "capz-manager", capzPause)
			if tc.pauseRefuse != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.pauseRefuse)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
			g.Expect(mc.GetAnnotations()).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "skip"))
			_, found, _ := unstructured.NestedFieldNoCopy(mc.Object, "spec", "operatorSpec", "secrets", "adminCredentials")
			g.Expect(found).To(BeFalse(), "CAPZ's pause drops what CAPZ alone added")
		})
	}
}

// TestSwitchBack_KeepsFailureDomainsAndReleasesOnlyTheProvider plays both parts of the step. Before clusterctl init,
// the provider's list of failure domains is recorded in CAPZ's form, and the provider's spec fields released: an
// object whose only field manager was the provider keeps its values with no owner; another manager's entry stays.
// After it, under CAPZ's schema, the record becomes the AzureCluster's status, every failure domain kept, and a list
// with no record goes. Each part refuses to run on the other side of clusterctl init and then changes nothing;
// another namespace is left alone.
func TestSwitchBack_KeepsFailureDomainsAndReleasesOnlyTheProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	g := NewWithT(t)
	ctx := t.Context()
	ns, other := namespace(t), namespace(t)
	for _, n := range []string{ns, other} {
		g.Expect(apply(ctx, n, "capz-manager", `
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata: {name: workload}
spec: {location: westeurope}
`)).To(Succeed())
		ac := &unstructured.Unstructured{}
		ac.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
		ac.SetKind("AzureCluster")
		ac.SetNamespace(n)
		ac.SetName("workload")
		g.Expect(k8s.Status().Patch(ctx, ac, client.RawPatch(types.MergePatchType, []byte(`{"status":{"failureDomains":[{"name":"1","controlPlane":true,"attributes":{"zone":"1"}},{"name":"2"}]}}`)))).To(Succeed())
		g.Expect(apply(ctx, n, aso.FieldManager, `
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: ours, labels: {team: a}}
spec: {location: westeurope}
`)).To(Succeed())
		g.Expect(apply(ctx, n, aso.FieldManager, `
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: shared}
spec: {location: westeurope}
`)).To(Succeed())
		g.Expect(apply(ctx, n, "someone-else", `
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: shared, labels: {team: b}}
`)).To(Succeed())
	}

	providerList := []any{
		map[string]any{"name": "1", "controlPlane": true, "attributes": map[string]any{"zone": "1"}},
		map[string]any{"name": "2"},
	}
	capzMap := map[string]any{
		"1": map[string]any{"controlPlane": true, "attributes": map[string]any{"zone": "1"}},
		"2": map[string]any{},
	}
	azureCluster := func(n string) *unstructured.Unstructured {
		ac := &unstructured.Unstructured{}
		ac.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
		ac.SetKind("AzureCluster")
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: n, Name: "workload"}, ac)).To(Succeed())
		return ac
	}
	failureDomains := func(n string) any {
		field, _, _ := unstructured.NestedFieldCopy(azureCluster(n).Object, "status", "failureDomains")
		return field
	}

	report, err := switchback.BeforeInit(ctx, k8s, switchback.Options{Namespace: ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(report).To(Equal(switchback.Report{FailureDomainsKept: 1, FieldsReleased: 2}))
	g.Expect(azureCluster(ns).GetAnnotations()).To(HaveKeyWithValue(switchback.FailureDomainsAnnotation, MatchJSON(`{"1":{"controlPlane":true,"attributes":{"zone":"1"}},"2":{}}`)))
	g.Expect(azureCluster(other).GetAnnotations()).NotTo(HaveKey(switchback.FailureDomainsAnnotation))
	again, err := switchback.BeforeInit(ctx, k8s, switchback.Options{Namespace: ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(Equal(switchback.Report{}), "a second run changes nothing")

	_, err = switchback.AfterInit(ctx, k8s, switchback.Options{Namespace: ns})
	g.Expect(err).To(MatchError(ContainSubstring("are CAPZ's CRDs installed?")), "the provider's CRDs take no map")
	g.Expect(failureDomains(ns)).To(Equal(providerList), "nothing is lost when it refuses")

	useCAPZFailureDomainsSchema(t)
	g.Eventually(func() any { return failureDomains(other) }).Should(Equal([]any{map[string]any{}, map[string]any{}}),
		"CAPZ's schema prunes the list's items on read")
	_, err = switchback.BeforeInit(ctx, k8s, switchback.Options{Namespace: other})
	g.Expect(err).To(MatchError(ContainSubstring("this part runs before clusterctl init")))
	g.Expect(azureCluster(other).GetAnnotations()).NotTo(HaveKey(switchback.FailureDomainsAnnotation))
	report, err = switchback.AfterInit(ctx, k8s, switchback.Options{Namespace: ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(report).To(Equal(switchback.Report{FailureDomainsRestored: 1}))
	g.Expect(failureDomains(ns)).To(Equal(capzMap))
	g.Expect(azureCluster(ns).GetAnnotations()).NotTo(HaveKey(switchback.FailureDomainsAnnotation), "the record goes")
	again, err = switchback.AfterInit(ctx, k8s, switchback.Options{Namespace: ns})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(Equal(switchback.Report{}), "a second run changes nothing")
	g.Expect(failureDomains(other)).To(HaveLen(2), "another namespace is left alone")

	report, err = switchback.AfterInit(ctx, k8s, switchback.Options{Namespace: other})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(report).To(Equal(switchback.Report{FailureDomainsDropped: 1}), "a list with no record goes, so that CAPZ can start")
	g.Expect(failureDomains(other)).To(BeNil())

	for n, cleared := range map[string]bool{ns: true, other: false} {
		rg := &unstructured.Unstructured{}
		rg.SetAPIVersion("resources.azure.com/v1api20200601")
		rg.SetKind("ResourceGroup")
		rg.SetNamespace(n)
		rg.SetName("ours")
		owners, err := specOwners(ctx, rg)
		g.Expect(err).NotTo(HaveOccurred())
		if cleared {
			g.Expect(owners).To(BeEmpty(), n)
			g.Expect(rg.GetManagedFields()).To(ConsistOf(HaveField("Manager", aso.FieldManager)), "the provider keeps its label")
		} else {
			g.Expect(owners).To(ConsistOf(aso.FieldManager), n)
		}
		g.Expect(rg.GetLabels()).To(HaveKeyWithValue("team", "a"), "the values stay")
		g.Expect(rg.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("location", "westeurope")), "the values stay")
		rg.SetName("shared")
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(rg), rg)).To(Succeed())
		g.Expect(rg.GetManagedFields()).To(ContainElement(HaveField("Manager", "someone-else")), n)
	}
}

// useCAPZFailureDomainsSchema gives the AzureCluster CRD's status.failureDomains the schema of CAPZ v1.26.0's CRD (a
// map of failure domains by name), as `clusterctl init --infrastructure azure:v1.26.0` does, until the test ends.
func useCAPZFailureDomainsSchema(t *testing.T) {
	t.Helper()
	g := NewWithT(t)
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	g.Expect(k8s.Get(t.Context(), client.ObjectKey{Name: "azureclusters.infrastructure.cluster.x-k8s.io"}, crd)).To(Succeed())
	original := crd.DeepCopy()
	capzSchema := map[string]any{
		"type": "object",
		"additionalProperties": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"controlPlane": map[string]any{"type": "boolean"},
				"attributes":   map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			},
		},
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	g.Expect(versions).NotTo(BeEmpty())
	for _, v := range versions {
		path := []string{"schema", "openAPIV3Schema", "properties", "status", "properties", "failureDomains"}
		g.Expect(unstructured.SetNestedField(v.(map[string]any), capzSchema, path...)).To(Succeed())
	}
	g.Expect(unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")).To(Succeed())
	g.Expect(k8s.Update(t.Context(), crd)).To(Succeed())
	t.Cleanup(func() {
		restored := &unstructured.Unstructured{}
		restored.SetGroupVersionKind(original.GroupVersionKind())
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(original), restored); err != nil {
			t.Errorf("failed to read the AzureCluster CRD: %v", err)
			return
		}
		original.SetResourceVersion(restored.GetResourceVersion())
		if err := k8s.Update(context.Background(), original); err != nil {
			t.Errorf("failed to restore the AzureCluster CRD: %v", err)
		}
	})
}
