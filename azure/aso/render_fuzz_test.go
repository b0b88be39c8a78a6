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

package aso

import (
	"errors"
	"reflect"
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// FuzzRender renders translated objects with an arbitrary user patch, as the engine does before it applies them.
// Rendering never panics; it fails only with a patch error naming the patch; what it renders keeps the object's
// apiVersion, kind, name, namespace and spec.owner, and carries the provider's labels, the hash and one controller
// reference to the owner, whatever the patch did to the metadata.
func FuzzRender(f *testing.F) {
	for _, seed := range []struct {
		json bool
		text string
	}{
		{false, "spec: {tags: {team: fuzz}}"},
		{false, "metadata: {labels: null, annotations: {a: b}, ownerReferences: [{name: x}]}"},
		{false, "metadata: {labels: 5}"},
		{true, `[{"op":"replace","path":"/metadata/labels","value":[1]}]`},
		{true, `[{"op":"remove","path":"/spec/location"}]`},
		{true, `[{"op":"add","path":"/metadata/annotations","value":{"infrastructure.cluster.x-k8s.io/desired-hash":"x"}}]`},
		{true, `[{"op":"add","path":"/spec/owner/armId","value":"x"}]`},
	} {
		f.Add(seed.json, seed.text)
	}
	owner := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "ns", UID: "uid"}}
	ownerGVK := infrav1.GroupVersion.WithKind("AzureCluster")

	f.Fuzz(func(t *testing.T, jsonPatch bool, text string) {
		format := patch.Merge
		if jsonPatch {
			format = patch.JSON
		}
		for _, r := range []struct {
			obj client.Object
			gvk schema.GroupVersionKind
		}{
			{&asonetwork.VirtualNetwork{
				ObjectMeta: metav1.ObjectMeta{Name: "vnet", Namespace: "ns"},
				Spec: asonetwork.VirtualNetwork_Spec{
					AzureName: "vnet", Location: ptr.To("eastus"), Owner: &genruntime.KnownResourceReference{Name: "rg"},
					Tags: map[string]string{"a": "b"},
				},
			}, asonetwork.GroupVersion.WithKind("VirtualNetwork")},
			{&asoresources.ResourceGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "rg", Namespace: "ns"},
				Spec:       asoresources.ResourceGroup_Spec{AzureName: "rg", Location: ptr.To("eastus")},
			}, asoresources.GroupVersion.WithKind("ResourceGroup")},
		} {
			obj, gvk := r.obj, r.gvk
			before, err := toUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			before.SetGroupVersionKind(gvk)
			opts := Options{ClusterName: "fuzz", CredentialSecret: "fuzz-aso-secret", Patches: []Patch{
				{Kind: gvk.Kind, Source: "spec.asoPatches[0]", Format: format, Text: text},
			}}
			r := Resource{Object: obj, Family: "F"}
			u, err := (&Engine{}).render(owner, ownerGVK, gvk, r, opts, "", desiredPolicy(r, nil))
			if err != nil {
				var pe *patchError
				if !errors.As(err, &pe) || pe.source != "spec.asoPatches[0]" {
					t.Fatalf("%s %q: render failed without naming the patch: %v", format, text, err)
				}
				continue
			}
			checkRendered(t, text, gvk.Kind, before, u)
		}
	})
}

// checkRendered checks a rendered object against the translator's object.
func checkRendered(t *testing.T, text, kind string, before, u *unstructured.Unstructured) {
	t.Helper()
	if u.GetAPIVersion() != before.GetAPIVersion() || u.GetKind() != kind || u.GetName() != before.GetName() ||
		u.GetNamespace() != before.GetNamespace() {
		t.Fatalf("patch %q changed the identity of %s %s to %s %s %s/%s", text, kind, before.GetName(),
			u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
	}
	wantOwner, _, _ := unstructured.NestedFieldNoCopy(before.Object, "spec", "owner")
	gotOwner, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "owner")
	if !reflect.DeepEqual(wantOwner, gotOwner) {
		t.Fatalf("patch %q changed spec.owner of %s from %v to %v", text, kind, wantOwner, gotOwner)
	}
	labels := u.GetLabels()
	if labels[infrav1.ClusterNameLabel] != "fuzz" || labels[infrav1.OwnedByLabel] != "fuzz" {
		t.Fatalf("patch %q: %s lacks the provider's labels: %v", text, kind, labels)
	}
	if u.GetAnnotations()[HashAnnotation] == "" {
		t.Fatalf("patch %q: %s has no hash", text, kind)
	}
	if policy := u.GetAnnotations()[asoannotations.ReconcilePolicy]; policy != string(asoannotations.ReconcilePolicyManage) {
		t.Fatalf("patch %q: %s has reconcile-policy %q, not the engine's manage", text, kind, policy)
	}
	refs := u.GetOwnerReferences()
	if len(refs) != 1 || refs[0].UID != "uid" || !ptr.Deref(refs[0].Controller, false) {
		t.Fatalf("patch %q: %s has owner references %v", text, kind, refs)
	}
}
