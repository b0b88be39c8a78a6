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

package aso_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_UnstructuredObjects applies raw ASO objects, as the AzureASOManaged kinds hold them: one of a
// kind in the provider's scheme, and one of a kind the provider has never heard of.
func TestReconcile_UnstructuredObjects(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)

	widgetGVK := schema.GroupVersionKind{Group: "network.azure.com", Version: "v1api20990101", Kind: "Widget"}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.network.azure.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGVK.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: widgetGVK.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}},
			}},
		},
	}
	if err := env.Env.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	g.Eventually(func() error {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(widgetGVK.GroupVersion().WithKind("WidgetList"))
		return env.Env.List(ctx, list, client.InNamespace(owner.Namespace))
	}, timeout).Should(Succeed())

	// The manager's role names the kinds of aso.Kinds() only: a user who puts another kind in an AzureASOManaged
	// object grants the manager the engine's verbs on it (docs/security.md, RBAC).
	for _, obj := range []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "capz-widgets"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{widgetGVK.Group},
			Resources: []string{"widgets"}, Verbs: []string{"get", "list", "watch", "create", "patch", "delete"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "capz-widgets"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "capz-widgets"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: env.ProviderNamespace, Name: env.ProviderServiceAccount}}},
	} {
		if err := env.Env.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}

	rg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup",
		"metadata": map[string]any{"name": "raw-rg"},
		"spec":     map[string]any{"location": "eastus", "azureName": "raw-rg"},
	}}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": widgetGVK.GroupVersion().String(), "kind": "Widget",
		"metadata": map[string]any{"name": "w"},
		"spec":     map[string]any{"owner": map[string]any{"name": "raw-rg"}, "size": int64(3)},
	}}
	opts := aso.Options{ClusterName: "raw", Kinds: []schema.GroupVersionKind{rgGVK, widgetGVK}}
	desired := func() []aso.Resource {
		return []aso.Resource{{Object: rg.DeepCopy(), Family: "Resources"}, {Object: widget.DeepCopy(), Family: "Resources"}}
	}
	result, err := e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Writes).To(Equal(2))

	// Nothing plays ASO for widgets: report one Ready, as ASO would.
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(widgetGVK)
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "w"}, live)).To(Succeed())
	g.Expect(unstructured.SetNestedSlice(live.Object, []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Succeeded", "observedGeneration": live.GetGeneration(),
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}}, "status", "conditions")).To(Succeed())
	g.Expect(env.Env.Status().Update(ctx, live)).To(Succeed())

	result = reconcileUntilReady(ctx, g, e, owner, desired, opts)
	g.Expect(result.Resource("Widget", "w")).To(HaveField("Management", infrav1.ResourceManaged))
	before := writes.Load()
	_, err = e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(writes.Load()).To(Equal(before), "unchanged raw objects are not written")

	// A raw object dropped from the owner is deleted, whatever its kind.
	result, err = e.Reconcile(ctx, owner, []aso.Resource{{Object: rg.DeepCopy(), Family: "Resources"}}, opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Resource("Widget", "w")).To(HaveField("Reason", infrav1.DeletingReason))
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "w"}, live))
	}, timeout).Should(BeTrue())
}
