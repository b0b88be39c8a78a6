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
	"fmt"
	"testing"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestReconcile_AdoptableResources(t *testing.T) {
	tests := []struct {
		name           string
		seedTags       map[string]string // nil: the resource does not exist in Azure
		wantManagement infrav1.ResourceManagement
		wantSkip       bool
		wantTakenOver  bool
	}{
		{name: "a new resource is created and managed", wantManagement: infrav1.ResourceManaged},
		{name: "an existing resource of the user's is only referenced", seedTags: map[string]string{"team": "network"},
			wantManagement: infrav1.ResourceReferenced, wantSkip: true},
		{name: "an existing resource tagged for the cluster (made by CAPZ) is taken over and managed", seedTags: map[string]string{azure.ClusterTagKey("adopt"): "owned"},
			wantManagement: infrav1.ResourceManaged, wantTakenOver: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			name := fmt.Sprintf("adopt-rg-%d", i)
			id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", sim.SubscriptionID(), name)
			if tt.seedTags != nil {
				sim.SeedAzure("ResourceGroup", id, tt.seedTags)
			}
			rg := resourceGroup(name)
			rg.Adoptable = true
			result := reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource { return []aso.Resource{rg} }, options("adopt"))
			g.Expect(result.Resource("ResourceGroup", name)).To(HaveField("Management", tt.wantManagement))

			live := &asoresources.ResourceGroup{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: name}, live)).To(Succeed())
			if tt.wantSkip {
				g.Expect(live.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"))
			} else {
				g.Expect(live.Annotations).NotTo(HaveKey(asoannotations.ReconcilePolicy))
			}
			g.Expect(aso.TakenOver(live)).To(Equal(tt.wantTakenOver))

			g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "adopt", Kinds: allKinds})).To(BeTrue())
			g.Expect(sim.ExistsInAzure(id)).To(Equal(tt.wantSkip), "only the user's own resource survives the cluster")
		})
	}
}

func TestReconcile_SupportingSecrets(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "settings"},
		Data:       map[string][]byte{"key": []byte("value")},
	}
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg"), {Object: secret.DeepCopy()}} }
	result := reconcileUntilReady(ctx, g, e, owner, desired, options("support"))
	g.Expect(result.Statuses()).To(HaveLen(1), "supporting secrets are not reported as Azure resources")
	live := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "settings"}, live)).To(Succeed())
	g.Expect(live.Data).To(HaveKeyWithValue("key", []byte("value")))
	g.Expect(metav1.IsControlledBy(live, owner)).To(BeTrue())
}
