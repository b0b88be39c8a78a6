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

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestDelete_GoWithParent: an object of a kind that goes with its parent is left to it (no DELETE of its own:
// Kubernetes' garbage collector deletes it after its parent's object, through the reference ASO gave it), but only
// when ASO deletes the parent in Azure, by the parent's reconcile-policy as ASO reads it (its own, else its
// namespace's): a parent that ASO detaches on delete would leave the resource behind, so the object is then deleted
// as any other.
func TestDelete_GoWithParent(t *testing.T) {
	for i, tc := range []struct {
		name                          string
		parentPolicy, namespacePolicy asoannotations.ReconcilePolicyValue
		wantLeft                      bool
	}{
		{name: "the parent goes from Azure", parentPolicy: asoannotations.ReconcilePolicyManage, wantLeft: true},
		{name: "the parent stays in Azure", parentPolicy: asoannotations.ReconcilePolicyDetachOnDelete},
		{name: "a parent without a policy, in a namespace without", wantLeft: true},
		{name: "a parent without a policy takes its namespace's", namespacePolicy: asoannotations.ReconcilePolicyDetachOnDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			cluster, rgName := fmt.Sprintf("gwp%d", i), fmt.Sprintf("gwp-rg-%d", i)
			vnet := &asonetwork.VirtualNetwork{
				ObjectMeta: metav1.ObjectMeta{Name: "vnet"},
				Spec: asonetwork.VirtualNetwork_Spec{AzureName: "vnet", Location: ptr.To("eastus"),
					Owner: &genruntime.KnownResourceReference{Name: rgName}, AddressSpace: &asonetwork.AddressSpace{AddressPrefixes: []string{"10.0.0.0/8"}}},
			}
			subnet := &asonetwork.VirtualNetworksSubnet{
				ObjectMeta: metav1.ObjectMeta{Name: "vnet-subnet"},
				Spec: asonetwork.VirtualNetworksSubnet_Spec{AzureName: "subnet", AddressPrefix: ptr.To("10.0.0.0/16"),
					Owner: &genruntime.KnownResourceReference{Name: "vnet"}},
			}
			desired := func() []aso.Resource {
				return []aso.Resource{resourceGroup(rgName), {Object: vnet.DeepCopy(), Family: "VNet"}, {Object: subnet.DeepCopy(), Family: "Subnets"}}
			}
			reconcileUntilReady(ctx, g, e, owner, desired, options(cluster))
			vnetLive, subnetLive := &asonetwork.VirtualNetwork{}, &asonetwork.VirtualNetworksSubnet{}
			key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: owner.Namespace, Name: name} }
			g.Expect(env.Env.GetAPIReader().Get(ctx, key("vnet"), vnetLive)).To(Succeed())
			if tc.parentPolicy != asoannotations.ReconcilePolicyManage {
				// A user's edit after the provider's last apply ("": none, as on a raw object the user wrote whole).
				policy := "null"
				if tc.parentPolicy != "" {
					policy = fmt.Sprintf("%q", tc.parentPolicy)
				}
				g.Expect(env.Env.Patch(ctx, vnetLive, client.RawPatch(types.MergePatchType,
					fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%s}}}`, asoannotations.ReconcilePolicy, policy)))).To(Succeed())
			}
			if tc.namespacePolicy != "" {
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: owner.Namespace}}
				g.Expect(env.Env.Patch(ctx, ns, client.RawPatch(types.MergePatchType,
					fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, asoannotations.ReconcilePolicy, tc.namespacePolicy)))).To(Succeed())
			}

			opts := aso.DeleteOptions{ClusterName: cluster, Kinds: allKinds, GoWithParent: []schema.GroupKind{subnetGVK.GroupKind()},
				Order: [][]schema.GroupKind{{subnetGVK.GroupKind()}, {vnetGVK.GroupKind()}, {rgGVK.GroupKind()}}}
			_, result, err := e.Delete(ctx, owner, opts)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(env.Env.GetAPIReader().Get(ctx, key("vnet-subnet"), subnetLive)).To(Succeed())
			if !tc.wantLeft {
				g.Expect(subnetLive.DeletionTimestamp).NotTo(BeNil(), "deleted on its own: its parent stays in Azure")
				g.Expect(deleteAll(ctx, g, e, owner, opts)).To(BeTrue())
				g.Expect(sim.ExistsInAzure(genruntime.GetResourceIDOrDefault(subnetLive))).To(BeFalse())
				return
			}
			g.Expect(result.Resource("VirtualNetworksSubnet", "vnet-subnet")).To(HaveField("Message", ContainSubstring("goes with its VirtualNetwork vnet: Azure deletes it with its parent")))
			g.Expect(subnetLive.DeletionTimestamp).To(BeNil(), "left to its parent")
			g.Expect(subnetLive.OwnerReferences).To(ConsistOf(HaveField("UID", vnetLive.UID)), "only ASO's reference to its parent remains")
			g.Expect(subnetLive.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicyDetachOnDelete)),
				"ASO sends no DELETE of what goes with its parent, and needs no credential for it")

			g.Expect(deleteAll(ctx, g, e, owner, opts)).To(BeTrue(), "the owner is done once the left object is no longer its own")
			subnetID := genruntime.GetResourceIDOrDefault(subnetLive)
			g.Expect(sim.ExistsInAzure(subnetID)).To(BeFalse(), "gone from Azure with its parent")
			for _, event := range sim.Events() {
				g.Expect(event).NotTo(And(HaveField("Op", "Delete"), HaveField("ID", subnetID)), "no DELETE of its own")
			}
			// The garbage collector's deletion, once the parent's object is gone: ASO lets it go without a DELETE.
			g.Expect(env.Env.Delete(ctx, subnetLive)).To(Succeed())
			g.Eventually(func() bool {
				return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, key("vnet-subnet"), subnetLive))
			}, timeout).Should(BeTrue())
			for _, event := range sim.Events() {
				g.Expect(event).NotTo(And(HaveField("Op", "Delete"), HaveField("ID", subnetID)))
			}
		})
	}
}
