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

package fuzzing

import (
	"errors"
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

func TestASOWebhookFor_EveryKind(t *testing.T) {
	g := NewWithT(t)
	for _, obj := range aso.Kinds() {
		g.Expect(asoWebhookFor(obj)).NotTo(BeNil(), "%T", obj)
	}
	// A kind the switch lacks has none, so a registry row without a case fails the loop above.
	g.Expect(asoWebhookFor(&asocontainerservice.TrustedAccessRoleBinding{})).To(BeNil())
}

func TestCheckRejection(t *testing.T) {
	gk := schema.GroupKind{Group: "g", Kind: "K"}
	tests := []struct {
		name  string
		err   error
		valid bool
	}{
		{name: "admitted", err: nil, valid: true},
		{name: "field errors", err: apierrors.NewInvalid(gk, "x", field.ErrorList{field.Required(field.NewPath("spec", "a"), "needed")}), valid: true},
		{name: "metadata", err: apierrors.NewInvalid(gk, "x", field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "x", "bad")}), valid: true},
		{name: "not an API error", err: errors.New("no")},
		{name: "forbidden", err: apierrors.NewForbidden(schema.GroupResource{}, "x", errors.New("no"))},
		{name: "no causes", err: apierrors.NewInvalid(gk, "x", nil)},
		{name: "no field", err: apierrors.NewInvalid(gk, "x", field.ErrorList{field.Required(nil, "needed")})},
		{name: "field of the status", err: apierrors.NewInvalid(gk, "x", field.ErrorList{field.Required(field.NewPath("status"), "needed")})},
		{name: "internal error", err: apierrors.NewInvalid(gk, "x", field.ErrorList{field.InternalError(field.NewPath("spec"), errors.New("oops"))})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.valid {
				g.Expect(CheckRejection(tt.err)).To(Succeed())
			} else {
				g.Expect(CheckRejection(tt.err)).NotTo(Succeed())
			}
		})
	}
}

func TestCheckResources(t *testing.T) {
	rg := func(name string) *asoresources.ResourceGroup {
		return &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")}}
	}
	vnet := func(owner genruntime.KnownResourceReference) *asonetwork.VirtualNetwork {
		return &asonetwork.VirtualNetwork{ObjectMeta: metav1.ObjectMeta{Name: "vnet"}, Spec: asonetwork.VirtualNetwork_Spec{Owner: &owner}}
	}
	inNamespace := rg("rg")
	inNamespace.Namespace = "default"
	tests := []struct {
		name      string
		resources []azure.Resource
		valid     bool
	}{
		{name: "valid", valid: true, resources: []azure.Resource{
			{Object: rg("rg"), Family: "ResourceGroup"},
			{Object: vnet(genruntime.KnownResourceReference{Name: "rg"}), Family: "VNet"},
			{Object: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "secret"}}},
		}},
		{name: "owner by ARM ID", valid: true, resources: []azure.Resource{{Object: vnet(genruntime.KnownResourceReference{
			ARMID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg",
		}), Family: "VNet"}}},
		{name: "invalid name", resources: []azure.Resource{{Object: rg("My_RG"), Family: "ResourceGroup"}}},
		{name: "namespace set", resources: []azure.Resource{{Object: inNamespace, Family: "ResourceGroup"}}},
		{name: "twice", resources: []azure.Resource{{Object: rg("rg"), Family: "ResourceGroup"}, {Object: rg("rg"), Family: "ResourceGroup"}}},
		{name: "no family", resources: []azure.Resource{{Object: rg("rg")}}},
		{name: "owner ID that is no resource group", resources: []azure.Resource{{Object: vnet(genruntime.KnownResourceReference{
			ARMID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/x",
		}), Family: "VNet"}}},
		{name: "owner ID that does not parse", resources: []azure.Resource{{Object: vnet(genruntime.KnownResourceReference{ARMID: "/subscriptions//x"}), Family: "VNet"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.valid {
				g.Expect(CheckResources(tt.resources)).To(Succeed())
			} else {
				g.Expect(CheckResources(tt.resources)).NotTo(Succeed())
			}
		})
	}
}

func TestManifests(t *testing.T) {
	g := NewWithT(t)
	manifests := Manifests(t)
	g.Expect(manifests["AzureCluster"]).NotTo(BeEmpty())
	g.Expect(manifests["AzureMachineTemplate"]).NotTo(BeEmpty())
	g.Expect(manifests).NotTo(HaveKey("Cluster"), "only the provider's kinds")
	for _, m := range manifests["AzureCluster"] {
		g.Expect(string(m)).NotTo(ContainSubstring("${"), "variables are set")
	}
}

func TestDecode(t *testing.T) {
	g := NewWithT(t)
	ac := &infrav1.AzureCluster{}
	g.Expect(Decode(ac, false, []byte(`{"spec": {"location": "eastus"}}`))).To(BeTrue())
	g.Expect(ac.Spec.Location).To(Equal("eastus"))
	g.Expect(Decode(ac, false, []byte(`{"Spec": {"Location": "westus"}}`))).To(BeTrue())
	g.Expect(ac.Spec.Location).To(Equal("eastus"), "field names are case-sensitive")
	g.Expect(Decode(ac, false, []byte(`{`))).To(BeFalse())

	first, second := &infrav1.AzureCluster{}, &infrav1.AzureCluster{}
	g.Expect(Decode(first, true, []byte("some fuzz data"))).To(BeTrue())
	g.Expect(Decode(second, true, []byte("some fuzz data"))).To(BeTrue())
	g.Expect(first).To(Equal(second), "the same data fills the same object")
	g.Expect(first).NotTo(Equal(&infrav1.AzureCluster{}))
}

func TestCheckAdmission(t *testing.T) {
	g := NewWithT(t)
	adm := infrav1.AdmissionFor(&infrav1.AzureCluster{})
	valid := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}, Spec: infrav1.AzureClusterSpec{
		AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus"}}}
	admitted, err := CheckAdmission(adm, valid, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(admitted).NotTo(BeNil())
	g.Expect(admitted.(*infrav1.AzureCluster).Spec.ResourceGroup).To(Equal("c"), "defaulted")

	invalid := valid.DeepCopy()
	invalid.Spec.Location = ""
	admitted, err = CheckAdmission(adm, invalid, admitted)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(admitted).To(BeNil())
}
