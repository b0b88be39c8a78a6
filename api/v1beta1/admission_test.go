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

package v1beta1_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{Scheme: scheme.New(), SetupWebhooks: setupWebhooks}))
}

// allowDefaultCredential switches the suite's webhooks of AzureCluster and AzureManagedControlPlane from the
// manager's default to --allow-aso-default-credential, as a restart of the manager with the setting would. Only
// TestAdmission_IdentityRefRequired sets it, and resets it before it ends.
var allowDefaultCredential atomic.Bool

// setupWebhooks registers the provider's webhooks as the manager does by default, and those that
// --allow-aso-default-credential changes a second time with the setting; allowDefaultCredential picks which serve.
func setupWebhooks(mgr ctrl.Manager) error {
	allowing := &recordingServer{Server: mgr.GetWebhookServer(), hooks: map[string]http.Handler{}}
	opts := infrav1.WebhookOptions{AllowASODefaultCredential: true}
	if err := infrav1.SetupAzureClusterWebhookWithManager(withServer{mgr, allowing}, opts); err != nil {
		return err
	}
	if err := infrav1.SetupAzureManagedControlPlaneWebhookWithManager(withServer{mgr, allowing}, opts); err != nil {
		return err
	}
	return setup.Webhooks(withServer{mgr, &switchingServer{Server: mgr.GetWebhookServer(), allowing: allowing.hooks}}, setup.WebhookOptions{})
}

// withServer is a manager with another webhook server.
type withServer struct {
	ctrl.Manager
	server webhook.Server
}

func (m withServer) GetWebhookServer() webhook.Server { return m.server }

// recordingServer keeps the webhooks registered with it.
type recordingServer struct {
	webhook.Server
	hooks map[string]http.Handler
}

func (s *recordingServer) Register(path string, hook http.Handler) { s.hooks[path] = hook }

// switchingServer registers a webhook that has a counterpart in allowing as a handler that serves the counterpart
// while allowDefaultCredential is set.
type switchingServer struct {
	webhook.Server
	allowing map[string]http.Handler
}

func (s *switchingServer) Register(path string, hook http.Handler) {
	allowing, ok := s.allowing[path]
	if !ok {
		s.Server.Register(path, hook)
		return
	}
	s.Server.Register(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allowDefaultCredential.Load() {
			allowing.ServeHTTP(w, r)
			return
		}
		hook.ServeHTTP(w, r)
	}))
}

const samplesDir = "../../config/samples"

// readSamples returns the provider's objects of every sample file, by kind, and the other objects (Secrets).
// samplesNamespace reads the samples and creates a namespace, removed when the test ends, that holds the objects
// the samples of the provider's kinds refer to (the others of readSamples).
func samplesNamespace(t *testing.T, name string) (map[string]*unstructured.Unstructured, *corev1.Namespace) {
	t.Helper()
	ctx := t.Context()
	samples, others := readSamples(t)
	ns, err := env.Env.CreateNamespace(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), ns) })
	for _, o := range others {
		o = o.DeepCopy()
		o.SetNamespace(ns.Name)
		NewWithT(t).Expect(env.Env.Create(ctx, o)).To(Succeed())
	}
	return samples, ns
}

func readSamples(t *testing.T) (map[string]*unstructured.Unstructured, []*unstructured.Unstructured) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(samplesDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in %s: %v", samplesDir, err)
	}
	ours := map[string]*unstructured.Unstructured{}
	var others []*unstructured.Unstructured
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil || len(u.Object) == 0 {
				continue
			}
			if strings.HasPrefix(u.GetAPIVersion(), "infrastructure.cluster.x-k8s.io/") {
				ours[u.GetKind()] = u
			} else {
				others = append(others, u)
			}
		}
	}
	return ours, others
}

// TestSamples_RoundTrip creates every kind from its CAPZ-style sample and reads it back: every field the sample
// sets comes back with the value it had (defaulting may only add fields).
func TestSamples_RoundTrip(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	samples, others := readSamples(t)
	g.Expect(samples).To(HaveLen(19), "one sample per kind, templates included")

	ns, err := env.Env.CreateNamespace(ctx, "samples")
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = env.Env.Cleanup(context.Background(), ns) }()
	for _, o := range others {
		o = o.DeepCopy()
		o.SetNamespace(ns.Name)
		g.Expect(env.Env.Create(ctx, o)).To(Succeed())
	}
	kinds := make([]string, 0, len(samples))
	for kind := range samples {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			g := NewWithT(t)
			sample := samples[kind].DeepCopy()
			sample.SetNamespace(ns.Name)
			obj := sample.DeepCopy()
			g.Expect(env.Env.Create(ctx, obj)).To(Succeed())

			read := &unstructured.Unstructured{}
			read.SetGroupVersionKind(sample.GroupVersionKind())
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(sample), read)).To(Succeed())
			g.Expect(subsetDiff(sample.Object["spec"], read.Object["spec"], "spec")).To(BeEmpty())
			g.Expect(read.GetLabels()).To(Equal(sample.GetLabels()))
		})
	}
}

// subsetDiff lists the paths where got lacks or changes a non-empty value of want.
func subsetDiff(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		var out []string
		for k, v := range w {
			out = append(out, subsetDiff(v, g[k], path+"."+k)...)
		}
		return out
	case []any:
		g, _ := got.([]any)
		if len(g) != len(w) {
			return []string{path + ": list length changed"}
		}
		var out []string
		for i := range w {
			out = append(out, subsetDiff(w[i], g[i], path+"[]")...)
		}
		return out
	case nil:
		return nil
	default:
		if w == "" || w == false {
			return nil
		}
		wj, _ := yaml.Marshal(want)
		gj, _ := yaml.Marshal(got)
		if !bytes.Equal(wj, gj) {
			return []string{path + ": " + strings.TrimSpace(string(wj)) + " became " + strings.TrimSpace(string(gj))}
		}
		return nil
	}
}

// invalid is a sample made invalid by a merge patch; the API server must reject it, naming field.
type invalid struct {
	name  string
	kind  string
	patch string
	field string
}

func TestAdmission_RejectsInvalidManifests(t *testing.T) {
	ctx := t.Context()
	samples, _ := readSamples(t)
	ns, err := env.Env.CreateNamespace(ctx, "invalid")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Env.Cleanup(context.Background(), ns) }()
	g := NewWithT(t)
	g.Expect(len(invalidManifests)).To(BeNumerically(">=", 60))
	covered := map[string]bool{}
	for _, tt := range invalidManifests {
		covered[tt.kind] = true
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			g := NewWithT(t)
			sample, ok := samples[tt.kind]
			g.Expect(ok).To(BeTrue(), "no sample for %s", tt.kind)
			doc, err := sample.MarshalJSON()
			g.Expect(err).NotTo(HaveOccurred())
			patch, err := yaml.YAMLToJSON([]byte(tt.patch))
			g.Expect(err).NotTo(HaveOccurred())
			patched, err := jsonpatch.MergePatch(doc, patch)
			g.Expect(err).NotTo(HaveOccurred())
			obj := &unstructured.Unstructured{}
			g.Expect(obj.UnmarshalJSON(patched)).To(Succeed())
			obj.SetNamespace(ns.Name)
			obj.SetName(strings.ToLower(strings.ReplaceAll(tt.name, " ", "-")))

			err = env.Env.Create(ctx, obj)
			g.Expect(err).To(HaveOccurred(), "the API server admitted it")
			g.Expect(apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err)).To(BeTrue(), err.Error())
			g.Expect(err.Error()).To(ContainSubstring(tt.field))
		})
	}
	g.Expect(covered).To(HaveLen(len(samples)), "every kind has invalid manifests")
}

// TestAdmission_TemplatesAreImmutableExceptTopologyDryRuns changes a template's spec: a plain update is rejected,
// the same update as Cluster API's topology server-side-apply dry run is admitted.
func TestAdmission_TemplatesAreImmutableExceptTopologyDryRuns(t *testing.T) {
	ctx := t.Context()
	samples, _ := readSamples(t)
	ns, err := env.Env.CreateNamespace(ctx, "templates")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Env.Cleanup(context.Background(), ns) }()
	changes := map[string]string{
		"AzureMachineTemplate":                `{"spec":{"template":{"spec":{"vmSize":"Standard_D8s_v3"}}}}`,
		"AzureClusterTemplate":                `{"spec":{"template":{"spec":{"location":"westus"}}}}`,
		"AzureManagedControlPlaneTemplate":    `{"spec":{"template":{"spec":{"location":"westus"}}}}`,
		"AzureManagedMachinePoolTemplate":     `{"spec":{"template":{"spec":{"maxPods":30}}}}`,
		"AzureASOManagedControlPlaneTemplate": `{"spec":{"template":{"spec":{"version":"v1.34.0"}}}}`,
	}
	for kind, change := range changes {
		t.Run(kind, func(t *testing.T) {
			g := NewWithT(t)
			obj := samples[kind].DeepCopy()
			obj.SetNamespace(ns.Name)
			g.Expect(env.Env.Create(ctx, obj)).To(Succeed())

			update := obj.DeepCopy()
			g.Expect(env.Env.Patch(ctx, update, client.RawPatch("application/merge-patch+json", []byte(change)))).
				To(MatchError(ContainSubstring("spec.template.spec")))

			// The topology controller's dry run carries the topology.cluster.x-k8s.io/dry-run annotation.
			withAnnotation := `{"metadata":{"annotations":{"topology.cluster.x-k8s.io/dry-run":""}},` + change[1:]
			dryRun := obj.DeepCopy()
			g.Expect(env.Env.Patch(ctx, dryRun, client.RawPatch("application/merge-patch+json", []byte(withAnnotation)), client.DryRunAll)).To(Succeed())
			// Without dry-run, the annotation alone does not open the door.
			g.Expect(env.Env.Patch(ctx, obj.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(withAnnotation)))).
				To(MatchError(ContainSubstring("spec.template.spec")))
		})
	}
}

// TestAdmission_Updates covers what may not change after creation.
func TestAdmission_Updates(t *testing.T) {
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "updates")
	tests := []struct {
		name, kind, patch, field string
		allowed                  bool
	}{
		{name: "location", kind: "AzureCluster", patch: `{"spec":{"location":"westus"}}`, field: "spec.location"},
		{name: "resource group", kind: "AzureCluster", patch: `{"spec":{"resourceGroup":"other"}}`, field: "spec.resourceGroup"},
		{name: "subscription", kind: "AzureCluster", patch: `{"spec":{"subscriptionID":"00000000-0000-0000-0000-000000000009"}}`, field: "spec.subscriptionID"},
		{name: "tags may change", kind: "AzureCluster", patch: `{"spec":{"additionalTags":{"team":"apps"}}}`, allowed: true},
		{name: "image", kind: "AzureMachine", patch: `{"spec":{"image":{"marketplace":{"sku":"ubuntu-2404"}}}}`, field: "spec.image"},
		{name: "OS disk", kind: "AzureMachine", patch: `{"spec":{"osDisk":{"diskSizeGB":256}}}`, field: "spec.osDisk"},
		{name: "SSH key", kind: "AzureMachine", patch: `{"spec":{"sshPublicKey":null}}`, field: "spec.sshPublicKey"},
		{name: "machine tags may change", kind: "AzureMachine", patch: `{"spec":{"additionalTags":{"role":"etcd"}}}`, allowed: true},
		{name: "provider ID may be set once", kind: "AzureMachine", patch: `{"spec":{"providerID":"azure:///subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm"}}`, allowed: true},
		{name: "version downgrade", kind: "AzureManagedControlPlane", patch: `{"spec":{"version":"v1.32.0"}}`, field: "spec.version"},
		{name: "version skips a minor", kind: "AzureManagedControlPlane", patch: `{"spec":{"version":"v1.35.0"}}`, field: "spec.version"},
		{name: "version upgrade", kind: "AzureManagedControlPlane", patch: `{"spec":{"version":"v1.34.1"}}`, allowed: true},
		{name: "AKS location", kind: "AzureManagedControlPlane", patch: `{"spec":{"location":"westus"}}`, field: "spec.location"},
		{name: "agent pool SKU", kind: "AzureManagedMachinePool", patch: `{"spec":{"sku":"Standard_D8s_v3"}}`, field: "spec.sku"},
		{name: "scale set location", kind: "AzureMachinePool", patch: `{"spec":{"location":"westus"}}`, field: "spec.location"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := samples[tt.kind].DeepCopy()
			obj.SetNamespace(ns.Name)
			obj.SetName(strings.ToLower(strings.ReplaceAll(tt.name, " ", "-")))
			g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
			err := env.Env.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(tt.patch)))
			if tt.allowed {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring(tt.field))
		})
	}
}

// TestAdmission_ExternallyManagedStaysExternal forbids removing cluster.x-k8s.io/managed-by from an AzureCluster.
func TestAdmission_ExternallyManagedStaysExternal(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	samples, _ := readSamples(t)
	ns, err := env.Env.CreateNamespace(ctx, "managed-by")
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = env.Env.Cleanup(context.Background(), ns) }()
	obj := samples["AzureCluster"].DeepCopy()
	obj.SetNamespace(ns.Name)
	obj.SetAnnotations(map[string]string{"cluster.x-k8s.io/managed-by": "crossplane"})
	g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
	err = env.Env.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"cluster.x-k8s.io/managed-by":null}}}`)))
	g.Expect(err).To(MatchError(ContainSubstring("metadata.annotations[cluster.x-k8s.io/managed-by]")))
}

// TestAdmission_IdentityRefRequired covers the rule of docs/security.md ("Clusters without identityRef"): by default
// a cluster without spec.identityRef is refused, when created and when an update removes it, with a message that
// names the setting, the strict policy and the page; --allow-aso-default-credential admits it; and a cluster that
// already has none stays updatable whatever the setting.
func TestAdmission_IdentityRefRequired(t *testing.T) {
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "identityref")
	t.Cleanup(func() { allowDefaultCredential.Store(false) })
	refused := func(g Gomega, err error) {
		g.Expect(err).To(HaveOccurred(), "the API server admitted it")
		g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), err.Error())
		for _, s := range []string{"spec.identityRef: Required value", "--allow-aso-default-credential", "--credential-policy=strict", "docs/security.md"} {
			g.Expect(err.Error()).To(ContainSubstring(s))
		}
	}
	mergePatch := func(p string) client.Patch { return client.RawPatch("application/merge-patch+json", []byte(p)) }
	for _, kind := range []string{"AzureCluster", "AzureManagedControlPlane"} {
		t.Run(kind, func(t *testing.T) {
			newObject := func(g Gomega, name, patch string) *unstructured.Unstructured {
				obj := patched(g, samples[kind], patch)
				obj.SetNamespace(ns.Name)
				obj.SetName(name)
				return obj
			}

			t.Run("by default a new one without identityRef is refused", func(t *testing.T) {
				g := NewWithT(t)
				refused(g, env.Env.Create(ctx, newObject(g, "anonymous", "spec: {identityRef: null}")))
			})

			t.Run("by default an update may not remove identityRef", func(t *testing.T) {
				g := NewWithT(t)
				obj := newObject(g, "named", "{}")
				g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
				refused(g, env.Env.Patch(ctx, obj.DeepCopy(), mergePatch(`{"spec":{"identityRef":null}}`)))
				g.Expect(env.Env.Patch(ctx, obj, mergePatch(`{"metadata":{"labels":{"team":"a"}}}`))).To(Succeed(), "other updates are admitted")
			})

			t.Run("with the setting, a cluster may have no identityRef and stays updatable without it", func(t *testing.T) {
				g := NewWithT(t)
				allowDefaultCredential.Store(true)
				legacy := newObject(g, "legacy", "spec: {identityRef: null}")
				g.Expect(env.Env.Create(ctx, legacy)).To(Succeed())
				named := newObject(g, "named-then-not", "{}")
				g.Expect(env.Env.Create(ctx, named)).To(Succeed())
				g.Expect(env.Env.Patch(ctx, named, mergePatch(`{"spec":{"identityRef":null}}`))).To(Succeed())

				// The manager restarts with its default. What it admitted before stays updatable: finalizers, labels
				// and annotations (the provider's, Cluster API's and clusterctl move's updates).
				allowDefaultCredential.Store(false)
				refused(g, env.Env.Create(ctx, newObject(g, "anonymous-again", "spec: {identityRef: null}")))
				g.Expect(env.Env.Patch(ctx, legacy, mergePatch(`{"metadata":{"labels":{"team":"a"},"finalizers":["example.com/test"]}}`))).To(Succeed())
				g.Expect(env.Env.Patch(ctx, legacy, mergePatch(`{"metadata":{"finalizers":null}}`))).To(Succeed())
				g.Expect(env.Env.Patch(ctx, named, mergePatch(`{"metadata":{"annotations":{"note":"moved"}}}`))).To(Succeed())
				// Once it names an identity, it cannot go back.
				g.Expect(env.Env.Patch(ctx, legacy, mergePatch(`{"spec":{"identityRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1","kind":"AzureClusterIdentity","name":"cluster-identity"}}}`))).To(Succeed())
				refused(g, env.Env.Patch(ctx, legacy, mergePatch(`{"spec":{"identityRef":null}}`)))
			})
		})
	}

	t.Run("an externally managed AzureCluster needs an identityRef too: its machines take their credential from it", func(t *testing.T) {
		g := NewWithT(t)
		obj := patched(g, samples["AzureCluster"], "{metadata: {annotations: {cluster.x-k8s.io/managed-by: terraform}}, spec: {identityRef: null}}")
		obj.SetNamespace(ns.Name)
		obj.SetName("external")
		refused(g, env.Env.Create(ctx, obj))
	})

	t.Run("templates may leave identityRef to ClusterClass patches", func(t *testing.T) {
		g := NewWithT(t)
		for _, kind := range []string{"AzureClusterTemplate", "AzureManagedControlPlaneTemplate"} {
			obj := patched(g, samples[kind], "spec: {template: {spec: {identityRef: null}}}")
			obj.SetNamespace(ns.Name)
			obj.SetName("no-identity")
			g.Expect(env.Env.Create(ctx, obj)).To(Succeed(), kind)
		}
	})
}

// TestAdmission_IncompleteTemplates follows Cluster API's convention for templates: a template may be incomplete,
// leaving fields to ClusterClass patches (CAPZ's clusterclass-rke2 and aks-aso-clusterclass flavors leave out the
// location, the VM size and the ASO resources), and the object made from it is validated in full. For each template
// kind: the template without those fields is admitted by the CRD schema and the webhooks, a wrong value is still
// refused, and the object without the field is refused.
func TestAdmission_IncompleteTemplates(t *testing.T) {
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "incomplete")
	type refused struct{ patch, field string }
	tests := []struct {
		kind       string
		incomplete string
		invalid    refused
		objectKind string
		objects    []refused
	}{
		{
			kind:       "AzureClusterTemplate",
			incomplete: "spec: {template: {spec: {location: null, subscriptionID: null, identityRef: null}}}",
			invalid:    refused{"spec: {template: {spec: {location: null, azureEnvironment: AzureMoonCloud}}}", "spec.template.spec.azureEnvironment"},
			objectKind: "AzureCluster",
			objects:    []refused{{"spec: {location: null}", "spec.location: Required value"}},
		},
		{
			kind:       "AzureMachineTemplate",
			incomplete: "spec: {template: {spec: {vmSize: null}}}",
			invalid:    refused{"spec: {template: {spec: {vmSize: null, osDisk: {diskSizeGB: 5000}}}}", "spec.template.spec.osDisk.diskSizeGB"},
			objectKind: "AzureMachine",
			objects:    []refused{{"spec: {vmSize: null}", "spec.vmSize: Required value"}},
		},
		{
			kind:       "AzureManagedControlPlaneTemplate",
			incomplete: "spec: {template: {spec: {location: null, version: null, resourceGroupName: null, identityRef: null}}}",
			invalid:    refused{"spec: {template: {spec: {location: null, version: latest}}}", "spec.template.spec.version"},
			objectKind: "AzureManagedControlPlane",
			objects: []refused{
				{"spec: {location: null}", "spec.location: Required value"},
				{"spec: {version: null}", "spec.version: Required value"},
				{"spec: {identityRef: null}", "spec.identityRef: Required value"},
				{"spec: {resourceGroupName: null}", "spec.resourceGroupName: Required value"},
			},
		},
		{
			kind:       "AzureManagedMachinePoolTemplate",
			incomplete: "spec: {template: {spec: {mode: null, sku: null}}}",
			invalid:    refused{"spec: {template: {spec: {sku: null, mode: Gateway}}}", "spec.template.spec.mode"},
			objectKind: "AzureManagedMachinePool",
			objects: []refused{
				{"spec: {mode: null}", "spec.mode: Required value"},
				{"spec: {sku: null}", "spec.sku: Required value"},
			},
		},
		{
			kind:       "AzureManagedClusterTemplate",
			incomplete: "spec: {template: {spec: {}}}",
			invalid:    refused{"spec: {template: null}", "spec.template"},
		},
		{
			kind:       "AzureASOManagedClusterTemplate",
			incomplete: "spec: {template: {spec: {resources: null}}}",
			invalid:    refused{"spec: {template: {spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}]}}}", "spec.template.spec.resources[0]"},
		},
		{
			kind:       "AzureASOManagedControlPlaneTemplate",
			incomplete: "spec: {template: {spec: {resources: null, version: null}}}",
			invalid: refused{"spec: {template: {spec: {resources: [" +
				"{apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedCluster, metadata: {name: a}}, " +
				"{apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedCluster, metadata: {name: b}}]}}}", "spec.template.spec.resources[1]"},
			objectKind: "AzureASOManagedControlPlane",
			objects:    []refused{{"spec: {resources: null}", "spec.resources: Required value"}},
		},
		{
			kind:       "AzureASOManagedMachinePoolTemplate",
			incomplete: "spec: {template: {spec: {resources: null}}}",
			invalid: refused{"spec: {template: {spec: {resources: [" +
				"{apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedClustersAgentPool, metadata: {name: a}}, " +
				"{apiVersion: containerservice.azure.com/v1api20250801, kind: ManagedClustersAgentPool, metadata: {name: b}}]}}}", "spec.template.spec.resources[1]"},
			objectKind: "AzureASOManagedMachinePool",
			objects:    []refused{{"spec: {resources: null}", "spec.resources: Required value"}},
		},
	}
	templates := 0
	for kind := range samples {
		if strings.HasSuffix(kind, "Template") {
			templates++
		}
	}
	NewWithT(t).Expect(tests).To(HaveLen(templates), "every template kind is tested")
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			g := NewWithT(t)
			incomplete := patched(g, samples[tt.kind], tt.incomplete)
			incomplete.SetNamespace(ns.Name)
			incomplete.SetName("incomplete")
			g.Expect(env.Env.Create(ctx, incomplete)).To(Succeed(), "the incomplete template is admitted")

			invalid := patched(g, samples[tt.kind], tt.invalid.patch)
			invalid.SetNamespace(ns.Name)
			invalid.SetName("invalid")
			g.Expect(env.Env.Create(ctx, invalid)).To(MatchError(ContainSubstring(tt.invalid.field)), "a wrong value is refused")

			for i, o := range tt.objects {
				obj := patched(g, samples[tt.objectKind], o.patch)
				obj.SetNamespace(ns.Name)
				obj.SetName(fmt.Sprintf("incomplete-%d", i))
				g.Expect(env.Env.Create(ctx, obj)).To(MatchError(ContainSubstring(o.field)), "%s: the object is validated in full", o.patch)
			}
		})
	}
}

// patched returns a copy of a sample with a YAML merge patch applied.
func patched(g Gomega, sample *unstructured.Unstructured, patch string) *unstructured.Unstructured {
	doc, err := sample.MarshalJSON()
	g.Expect(err).NotTo(HaveOccurred())
	p, err := yaml.YAMLToJSON([]byte(patch))
	g.Expect(err).NotTo(HaveOccurred())
	out, err := jsonpatch.MergePatch(doc, p)
	g.Expect(err).NotTo(HaveOccurred())
	obj := &unstructured.Unstructured{}
	g.Expect(obj.UnmarshalJSON(out)).To(Succeed())
	return obj
}
