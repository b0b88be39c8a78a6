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

package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{Scheme: scheme.New(), SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{})}))
}

// manifest is one object of a yaml block of a page.
type manifest struct {
	// where names the page and the line of the block, for messages.
	where string
	obj   *unstructured.Unstructured
}

// manifests returns the Kubernetes objects of every ```yaml block of a page; YAML that is not an object with
// apiVersion and kind (a clusterctl or Tilt settings file) is left out.
func manifests(t *testing.T, page string) []manifest {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest
	var block strings.Builder
	start, inYAML, inOther := 0, false, false
	for i, line := range strings.Split(string(data), "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case fence && inYAML:
			out = append(out, decode(t, fmt.Sprintf("%s:%d", page, start), block.String())...)
			block.Reset()
			inYAML = false
		case fence && inOther:
			inOther = false
		case fence && strings.TrimSpace(line) == "```yaml":
			inYAML, start = true, i+1
		case fence:
			inOther = true
		case inYAML:
			block.WriteString(line + "\n")
		}
	}
	if inYAML || inOther {
		t.Fatalf("%s: a code block is not closed", page)
	}
	return out
}

func decode(t *testing.T, where, text string) []manifest {
	t.Helper()
	var out []manifest
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatalf("%s: not valid YAML: %v", where, err)
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			continue
		}
		out = append(out, manifest{where: where, obj: u})
	}
}

// pages returns the Markdown pages of this folder.
func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pages found: %v", err)
	}
	return files
}

// dryRunCreate creates the object with a server-side dry run: the API server runs the provider's defaulting and
// validating webhooks and every CRD's schema, and returns the object as it would be stored.
func dryRunCreate(ctx context.Context, g Gomega, m manifest) *unstructured.Unstructured {
	obj := m.obj.DeepCopy()
	gvk := obj.GroupVersionKind()
	mapping, err := env.Env.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	g.Expect(err).NotTo(HaveOccurred(), "%s: the API server does not know %s", m.where, gvk)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace && obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	g.Expect(env.Env.Create(ctx, obj, client.DryRunAll)).To(Succeed(), "%s: %s %s", m.where, gvk.Kind, obj.GetName())
	return obj
}

// TestPages_ManifestsAreAccepted creates every object the pages show, as a dry run.
func TestPages_ManifestsAreAccepted(t *testing.T) {
	for _, page := range pages(t) {
		for _, m := range manifests(t, page) {
			t.Run(fmt.Sprintf("%s %s %s", m.where, m.obj.GetKind(), m.obj.GetName()), func(t *testing.T) {
				g := NewWithT(t)
				dryRunCreate(t.Context(), g, m)
			})
		}
	}
}

// generated is what the provider generates for one of the pages' objects, and the patches it applies.
type generated struct {
	resources []azure.Resource
	patches   []aso.Patch
}

// clusterName is the Cluster API cluster an object belongs to: its cluster-name label, or its own name.
func clusterName(obj client.Object) string {
	if name := obj.GetLabels()[clusterv1.ClusterNameLabel]; name != "" {
		return name
	}
	return obj.GetName()
}

// translate runs the translator of an object the way its controller does; nil means the kind has no patches.
func translate(t *testing.T, typed runtime.Object, all []runtime.Object) *generated {
	t.Helper()
	const subscription = "00000000-0000-0000-0000-000000000000"
	switch o := typed.(type) {
	case *infrav1.AzureCluster:
		c := azure.Cluster{Name: clusterName(o), SubscriptionID: o.Spec.SubscriptionID, Location: o.Spec.Location,
			ExtendedLocation: o.Spec.ExtendedLocation, ResourceGroup: o.Spec.ResourceGroup, AdditionalTags: o.Spec.AdditionalTags}
		return &generated{
			resources: network.ClusterResources(network.ClusterInput{Cluster: c, Network: o.Spec.NetworkSpec,
				Bastion: o.Spec.BastionSpec.AzureBastion, ControlPlaneEnabled: ptr.Deref(o.Spec.ControlPlaneEnabled, true),
				VNet: network.VNetOwned}),
			patches: aso.UserPatches(o.Spec.ASOPatches),
		}
	case *infrav1.AzureMachineTemplate:
		// A machine stamped out of the template, as its webhook defaults it.
		machine := &infrav1.AzureMachine{Spec: o.Spec.Template.Spec}
		machine.Name, machine.Namespace = o.Name+"-x7k2p", o.Namespace
		if err := machine.SetDefaults(); err != nil {
			t.Fatal(err)
		}
		return translate(t, machine, all)
	case *infrav1.AzureMachine:
		cluster := "my-cluster"
		in := compute.MachineInput{
			Cluster: azure.Cluster{Name: cluster, SubscriptionID: subscription, Location: "eastus", ResourceGroup: cluster,
				ResourceGroupByID: true},
			Name: o.Name, Spec: o.Spec, Role: azure.RoleNode, VNet: compute.VNetRef{Name: infrav1.VnetName(cluster)},
			DefaultSubnet: infrav1.NodeSubnetName(cluster), KubernetesVersion: "v1.33.2",
		}
		if o.Spec.OSDisk.OSType == "Windows" {
			in.WindowsAdminPassword = "Aa1!not-a-real-password"
		}
		return &generated{resources: compute.MachineResources(in), patches: aso.UserPatches(o.Spec.ASOPatches)}
	case *infrav1.AzureManagedControlPlane:
		in := aks.ControlPlaneInput{
			Cluster: azure.Cluster{Name: clusterName(o), SubscriptionID: o.Spec.SubscriptionID, Location: o.Spec.Location,
				ResourceGroup: o.Spec.ResourceGroupName, AdditionalTags: o.Spec.AdditionalTags},
			Name: o.Name, Spec: o.Spec,
		}
		in.VNetSubnetID = aks.SubnetID(in.Cluster, o.Spec.VirtualNetwork)
		return &generated{
			resources: aks.ControlPlaneResources(in),
			patches: append(aso.MergePatches("ManagedCluster", "asoManagedClusterPatches", o.Spec.ASOManagedClusterPatches),
				aso.UserPatches(o.Spec.ASOPatches)...),
		}
	case *infrav1.AzureManagedMachinePool:
		// The pool belongs to the page's AzureManagedControlPlane.
		var cp *infrav1.AzureManagedControlPlane
		for _, other := range all {
			if c, ok := other.(*infrav1.AzureManagedControlPlane); ok {
				cp = c
			}
		}
		if cp == nil {
			t.Fatalf("AzureManagedMachinePool %s: the page shows no AzureManagedControlPlane", o.Name)
		}
		c := azure.Cluster{Name: clusterName(cp), SubscriptionID: cp.Spec.SubscriptionID, Location: cp.Spec.Location,
			ResourceGroup: cp.Spec.ResourceGroupName}
		in := aks.AgentPoolInput{Cluster: c, ManagedClusterName: cp.Name, Name: o.Name, Spec: o.Spec,
			VNetSubnetID: aks.SubnetID(c, cp.Spec.VirtualNetwork)}
		return &generated{
			resources: aks.MachinePoolResources(in),
			patches: append(aso.MergePatches("ManagedClustersAgentPool", "asoManagedClustersAgentPoolPatches",
				o.Spec.ASOManagedClustersAgentPoolPatches), aso.UserPatches(o.Spec.ASOPatches)...),
		}
	}
	content, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"asoPatches"`, `"asoManagedClusterPatches"`, `"asoManagedClustersAgentPoolPatches"`} {
		if bytes.Contains(content, []byte(field)) {
			t.Fatalf("%T has %s: teach translate how its controller generates its objects", typed, field)
		}
	}
	return nil
}

// TestPages_PatchesApply checks every patch the pages show against what the provider generates for its object:
// it matches at least one object, applies the way the engine applies it (kind and name, CAPZ's strings first), and
// the patched object is a valid ASO object that ASO's CRD accepts.
func TestPages_PatchesApply(t *testing.T) {
	s := scheme.New()
	for _, page := range pages(t) {
		var objs []runtime.Object
		var where []string
		for _, m := range manifests(t, page) {
			defaulted := dryRunCreate(t.Context(), NewWithT(t), m)
			typed, err := s.New(defaulted.GroupVersionKind())
			if err != nil {
				continue // not one of the provider's kinds
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(defaulted.Object, typed); err != nil {
				t.Fatalf("%s: %v", m.where, err)
			}
			objs = append(objs, typed)
			where = append(where, m.where)
		}
		for i, typed := range objs {
			gen := translate(t, typed, objs)
			if gen == nil || len(gen.patches) == 0 {
				continue
			}
			owner := typed.(client.Object)
			t.Run(fmt.Sprintf("%s %T %s", where[i], typed, owner.GetName()), func(t *testing.T) {
				g := NewWithT(t)
				checkPatches(t.Context(), g, s, owner.GetNamespace(), gen)
			})
		}
	}
}

func checkPatches(ctx context.Context, g Gomega, s *runtime.Scheme, namespace string, gen *generated) {
	matched := make([]bool, len(gen.patches))
	for _, r := range gen.resources {
		gvk, err := apiutil.GVKForObject(r.Object, s)
		g.Expect(err).NotTo(HaveOccurred())
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r.Object)
		g.Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{Object: content}
		u.SetGroupVersionKind(gvk)
		u.SetNamespace(namespace)
		delete(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		before := u.DeepCopy()

		for i, p := range gen.patches {
			if p.Kind != gvk.Kind || (p.Name != "" && p.Name != u.GetName()) {
				continue
			}
			matched[i] = true
			parsed, err := patch.Parse(p.Format, p.Text)
			g.Expect(err).NotTo(HaveOccurred(), "%s", p.Source)
			doc, err := json.Marshal(u.Object)
			g.Expect(err).NotTo(HaveOccurred())
			out, err := parsed.Apply(doc)
			g.Expect(err).NotTo(HaveOccurred(), "%s does not apply to %s %s", p.Source, gvk.Kind, u.GetName())
			g.Expect(out).NotTo(MatchJSON(doc), "%s changes nothing in %s %s", p.Source, gvk.Kind, u.GetName())
			u = &unstructured.Unstructured{}
			g.Expect(u.UnmarshalJSON(out)).To(Succeed())
		}
		if reflect.DeepEqual(before.Object, u.Object) {
			continue
		}

		// Every field the patches wrote exists in ASO's Go types ...
		typed, err := s.New(gvk)
		g.Expect(err).NotTo(HaveOccurred())
		doc, err := json.Marshal(u.Object)
		g.Expect(err).NotTo(HaveOccurred())
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.DisallowUnknownFields()
		g.Expect(dec.Decode(typed)).To(Succeed(), "the patched %s %s", gvk.Kind, u.GetName())
		// ... and ASO's CRD accepts the object, applied the way the engine applies it.
		g.Expect(env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(aso.FieldManager),
			client.ForceOwnership, client.DryRunAll)).To(Succeed(), "the patched %s %s", gvk.Kind, u.GetName())
	}
	for i, p := range gen.patches {
		g.Expect(matched[i]).To(BeTrue(), "%s (kind %s, name %q) matches no generated object", p.Source, p.Kind, p.Name)
	}
}
