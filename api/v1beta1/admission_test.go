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
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{Scheme: scheme.New(), SetupWebhooks: setup.Webhooks}))
}

const samplesDir = "../../config/samples"

// readSamples returns the provider's objects of every sample file, by kind, and the other objects (Secrets).
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
	samples, others := readSamples(t)
	ns, err := env.Env.CreateNamespace(ctx, "updates")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Env.Cleanup(context.Background(), ns) }()
	for _, o := range others {
		o = o.DeepCopy()
		o.SetNamespace(ns.Name)
		NewWithT(t).Expect(env.Env.Create(ctx, o)).To(Succeed())
	}
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
