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

package asocrd_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/asocrd"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const timeout = 30 * time.Second

// haveMoveLabels matches a CRD that carries the labels clusterctl move needs.
func haveMoveLabels() OmegaMatcher {
	return HaveField("ObjectMeta.Labels", SatisfyAll(
		HaveKeyWithValue(clusterctlv1.ClusterctlLabel, ""),
		HaveKeyWithValue(clusterv1.ProviderNameLabel, asocrd.ProviderName),
	))
}

func getCRD(ctx context.Context, g Gomega, name string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
	return crd
}

func TestReconcile_LabelsEveryASOCRD(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	groups, err := asocrd.Groups(env.Env.Scheme())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(groups.UnsortedList()).To(ContainElements("resources.azure.com", "network.azure.com", "compute.azure.com",
		"containerservice.azure.com", "managedidentity.azure.com", "authorization.azure.com"))
	gvks, err := aso.GVKs(env.Env.Scheme(), aso.Kinds()...)
	g.Expect(err).NotTo(HaveOccurred())
	names, err := asocrd.CRDNames(env.Env.Scheme())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(names.Len()).To(Equal(len(gvks)))

	g.Eventually(func(g Gomega) {
		crds := &apiextensionsv1.CustomResourceDefinitionList{}
		g.Expect(env.Env.GetAPIReader().List(ctx, crds)).To(Succeed())
		labelled := map[string]bool{}
		for _, crd := range crds.Items {
			if groups.Has(crd.Spec.Group) && names.Has(crd.Name) {
				g.Expect(crd).To(haveMoveLabels(), crd.Name)
				labelled[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = true
				continue
			}
			if groups.Has(crd.Spec.Group) {
				// test/crd/aso holds every CRD of the groups; the manager's role allows patching those of its kinds.
				g.Expect(crd.Labels).NotTo(HaveKey(clusterctlv1.ClusterctlLabel), crd.Name)
				continue
			}
			// Cluster API's and our own CRDs are clusterctl's business, not this controller's.
			g.Expect(crd.Labels).NotTo(HaveKey(clusterv1.ProviderNameLabel), crd.Name)
			g.Expect(crd.Labels).NotTo(HaveKey(clusterctlv1.ClusterctlLabel), crd.Name)
		}
		for _, gvk := range gvks {
			g.Expect(labelled).To(HaveKey(gvk.Group+"/"+gvk.Kind), "the CRD of %s", gvk)
		}
	}, timeout).Should(Succeed())
}

func TestReconcile_RestoresRemovedLabels(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	const name = "loadbalancers.network.azure.com"
	g.Eventually(func(g Gomega) { g.Expect(getCRD(ctx, g, name)).To(haveMoveLabels()) }, timeout).Should(Succeed())

	// kubectl label crd loadbalancers.network.azure.com clusterctl.cluster.x-k8s.io- cluster.x-k8s.io/provider-
	patch := []byte(`{"metadata":{"labels":{"clusterctl.cluster.x-k8s.io":null,"cluster.x-k8s.io/provider":null}}}`)
	g.Expect(env.Env.Patch(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}},
		client.RawPatch(types.MergePatchType, patch))).To(Succeed())

	g.Eventually(func(g Gomega) { g.Expect(getCRD(ctx, g, name)).To(haveMoveLabels()) }, timeout).Should(Succeed())
}

func TestReconcile_RestoresLabelsAfterASOUpgrade(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	const name = "virtualnetworks.network.azure.com"
	g.Eventually(func(g Gomega) { g.Expect(getCRD(ctx, g, name)).To(haveMoveLabels()) }, timeout).Should(Succeed())

	// ASO's CRD management updates the whole CRD with its own labels, dropping every other one.
	crd := getCRD(ctx, g, name)
	crd.Labels = map[string]string{"app.kubernetes.io/name": "azure-service-operator", "app.kubernetes.io/version": "v2.19.0"}
	g.Expect(env.Env.Update(ctx, crd)).To(Succeed())

	g.Eventually(func(g Gomega) {
		crd := getCRD(ctx, g, name)
		g.Expect(crd).To(haveMoveLabels())
		g.Expect(crd.Labels).To(HaveKeyWithValue("app.kubernetes.io/version", "v2.19.0"), "ASO's labels are kept")
	}, timeout).Should(Succeed())
}

func TestReconcile_LabelsCRDsCreatedLater(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	// ASO creates the CRDs of its CRD pattern when it starts, possibly after the manager; ADDITIONAL_ASO_CRDS adds
	// kinds of the same groups, whose CRDs the manager's role does not name.
	ours := newCRD("network.azure.com")
	other := newCRD("example.com")
	for _, crd := range []*apiextensionsv1.CustomResourceDefinition{ours, other} {
		g.Expect(env.Env.Create(ctx, crd)).To(Succeed())
		t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), crd) })
	}
	g.Consistently(func(g Gomega) {
		g.Expect(getCRD(ctx, g, ours.Name).Labels).NotTo(HaveKey(clusterctlv1.ClusterctlLabel), "the manager's role does not allow it")
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())

	// The ClusterRole the README asks for an additional kind.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "capz-additional-aso-crds"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{apiextensionsv1.GroupName}, Resources: []string{"customresourcedefinitions"},
			ResourceNames: []string{ours.Name}, Verbs: []string{"patch"},
		}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: env.ProviderNamespace, Name: env.ProviderServiceAccount}},
	}
	for _, obj := range []client.Object{role, binding} {
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed())
		t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), obj) })
	}

	// The CRD's next change (or the reconciler's next look, every ten minutes) labels it.
	g.Expect(env.Env.Patch(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: ours.Name}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"example.com/touched":"true"}}}`)))).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(getCRD(ctx, g, ours.Name)).To(haveMoveLabels()) }, timeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(getCRD(ctx, g, other.Name).Labels).NotTo(HaveKey(clusterctlv1.ClusterctlLabel))
	}, 2*time.Second, 200*time.Millisecond).Should(Succeed())
}

// newCRD returns a minimal namespaced CRD of kind Gadget in group.
func newCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets", Singular: "gadget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}
