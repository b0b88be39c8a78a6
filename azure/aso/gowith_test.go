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
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
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

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestDelete_GoesWith: an object of a kind that goes with an ancestor is left to it (no DELETE of its own:
// Kubernetes' garbage collector deletes it after its parent's object, through the reference ASO gave it), but only
// when ASO deletes the ancestor in Azure: by the ancestor's reconcile-policy as ASO reads it (its own, else its
// namespace's), the ancestor made by the provider, and every object on the way the cluster's. Otherwise the object
// is deleted as any other: an ancestor that stays in Azure would leave the resource behind.
func TestDelete_GoesWith(t *testing.T) {
	withParent := func(kind schema.GroupKind) (schema.GroupKind, bool) {
		return vnetGVK.GroupKind(), kind == subnetGVK.GroupKind()
	}
	withGroup := func(kind schema.GroupKind) (schema.GroupKind, bool) {
		return rgGVK.GroupKind(), kind != rgGVK.GroupKind()
	}
	annotate := func(key, value string) func(obj client.Object) []byte {
		return func(client.Object) []byte {
			if value == "" {
				return fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, key)
			}
			return fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, key, value)
		}
	}
	for i, tc := range []struct {
		name     string
		goesWith func(schema.GroupKind) (schema.GroupKind, bool)
		// edit patches an object before the deletion ("vnet" or "rg"; a user's edit after the provider's last apply),
		// namespacePolicy the namespace.
		edit            map[string]func(client.Object) []byte
		namespacePolicy asoannotations.ReconcilePolicyValue
		// wantLeft is the ancestor the subnet is left to, "" when it is deleted on its own.
		wantLeft string
	}{
		{name: "the parent goes from Azure", goesWith: withParent, wantLeft: "VirtualNetwork vnet"},
		{name: "the parent stays in Azure", goesWith: withParent,
			edit: map[string]func(client.Object) []byte{"vnet": annotate(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicyDetachOnDelete))}},
		{name: "a parent without a policy, in a namespace without", goesWith: withParent, wantLeft: "VirtualNetwork vnet",
			edit: map[string]func(client.Object) []byte{"vnet": annotate(asoannotations.ReconcilePolicy, "")}},
		{name: "a parent without a policy takes its namespace's", goesWith: withParent, namespacePolicy: asoannotations.ReconcilePolicyDetachOnDelete,
			edit: map[string]func(client.Object) []byte{"vnet": annotate(asoannotations.ReconcilePolicy, "")}},
		{name: "the resource group goes, and everything in it", goesWith: withGroup, wantLeft: "ResourceGroup gwp-rg-4"},
		{name: "a network on the way that is not the cluster's", goesWith: withGroup,
			edit: map[string]func(client.Object) []byte{"vnet": func(client.Object) []byte {
				return fmt.Appendf(nil, `{"metadata":{"labels":{%q:"another"}}}`, infrav1.OwnedByLabel)
			}}},
		{name: "a resource group the provider only references", goesWith: withGroup,
			edit: map[string]func(client.Object) []byte{"rg": annotate(aso.AdoptionAnnotation, "referenced")}},
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
			key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: owner.Namespace, Name: name} }
			live := map[string]client.Object{"vnet": &asonetwork.VirtualNetwork{}, "rg": &asoresources.ResourceGroup{}}
			names := map[string]string{"vnet": "vnet", "rg": rgName}
			for which, obj := range live {
				g.Expect(env.Env.GetAPIReader().Get(ctx, key(names[which]), obj)).To(Succeed())
			}
			for which, patch := range tc.edit {
				g.Expect(env.Env.Patch(ctx, live[which], client.RawPatch(types.MergePatchType, patch(live[which])))).To(Succeed())
			}
			if tc.namespacePolicy != "" {
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: owner.Namespace}}
				g.Expect(env.Env.Patch(ctx, ns, client.RawPatch(types.MergePatchType,
					fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, asoannotations.ReconcilePolicy, tc.namespacePolicy)))).To(Succeed())
			}

			opts := aso.DeleteOptions{ClusterName: cluster, Kinds: allKinds, GoesWith: tc.goesWith,
				Order: [][]schema.GroupKind{{subnetGVK.GroupKind()}, {vnetGVK.GroupKind()}, {rgGVK.GroupKind()}}}
			_, result, err := e.Delete(ctx, owner, opts)
			g.Expect(err).NotTo(HaveOccurred())
			subnetLive := &asonetwork.VirtualNetworksSubnet{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, key("vnet-subnet"), subnetLive)).To(Succeed())
			subnetID := genruntime.GetResourceIDOrDefault(subnetLive)
			if tc.wantLeft == "" {
				g.Expect(subnetLive.DeletionTimestamp).NotTo(BeNil(), "deleted on its own: its ancestor's deletion cannot be relied on")
				if _, referenced := tc.edit["rg"]; referenced {
					// The provider made the group after all: let it go, to end the test.
					g.Expect(env.Env.Patch(ctx, live["rg"], client.RawPatch(types.MergePatchType, annotate(aso.AdoptionAnnotation, "")(nil)))).To(Succeed())
				}
				g.Expect(deleteAll(ctx, g, e, owner, opts)).To(BeTrue())
				g.Expect(sim.ExistsInAzure(subnetID)).To(BeFalse())
				g.Expect(sim.Events()).To(ContainElement(And(HaveField("Op", "Delete"), HaveField("ID", subnetID))), "a DELETE of its own")
				return
			}
			g.Expect(result.Resource("VirtualNetworksSubnet", "vnet-subnet")).To(HaveField("Message", ContainSubstring("goes with its "+tc.wantLeft+": Azure deletes it with that resource")))
			g.Expect(subnetLive.DeletionTimestamp).To(BeNil(), "left to its ancestor")
			g.Expect(subnetLive.OwnerReferences).To(ConsistOf(HaveField("UID", live["vnet"].GetUID())), "only ASO's reference to its parent remains")
			g.Expect(subnetLive.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicyDetachOnDelete)),
				"ASO sends no DELETE of what goes with its ancestor, and needs no credential for it")

			g.Expect(deleteAll(ctx, g, e, owner, opts)).To(BeTrue(), "the owner is done once the left objects are no longer its own")
			g.Expect(sim.ExistsInAzure(subnetID)).To(BeFalse(), "gone from Azure with its ancestor")
			left := map[client.Object]string{subnetLive: subnetID}
			if tc.wantLeft == "ResourceGroup "+rgName {
				vnetLive := &asonetwork.VirtualNetwork{}
				g.Expect(env.Env.GetAPIReader().Get(ctx, key("vnet"), vnetLive)).To(Succeed())
				g.Expect(vnetLive.DeletionTimestamp).To(BeNil(), "the network is left to the group too")
				left[vnetLive] = genruntime.GetResourceIDOrDefault(vnetLive)
			}
			// The garbage collector's deletion, once the ancestors' objects are gone: ASO lets them go without a DELETE.
			for obj, id := range left {
				g.Expect(id).NotTo(BeEmpty())
				g.Expect(env.Env.Delete(ctx, obj)).To(Succeed())
				g.Eventually(func() bool {
					return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(obj), obj))
				}, timeout).Should(BeTrue())
				for _, event := range sim.Events() {
					g.Expect(event).NotTo(And(HaveField("Op", "Delete"), HaveField("ID", id)), "no DELETE of its own")
				}
			}
		})
	}
}

// TestDelete_GoesWithGroupByARMID: a resource whose owner is given by ARM ID (as a machine's, in a group that may have
// no object) goes with the cluster's resource group when the group's object holds it, and gets a reference to that
// object for the garbage collector; a group the provider only references is not relied on.
func TestDelete_GoesWithGroupByARMID(t *testing.T) {
	withGroup := func(kind schema.GroupKind) (schema.GroupKind, bool) {
		return rgGVK.GroupKind(), kind != rgGVK.GroupKind()
	}
	for i, referenced := range []bool{false, true} {
		t.Run(fmt.Sprintf("referenced group %t", referenced), func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			cluster, rgName := fmt.Sprintf("gwid%d", i), fmt.Sprintf("gwid-rg-%d", i)
			opts := options(cluster)
			reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource { return []aso.Resource{resourceGroup(rgName)} }, opts)
			rg := &asoresources.ResourceGroup{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: rgName}, rg)).To(Succeed())
			rgID := genruntime.GetResourceIDOrDefault(rg)
			g.Expect(rgID).NotTo(BeEmpty())
			nsg := securityGroup("nsg").Object.(*asonetwork.NetworkSecurityGroup)
			nsg.Spec.Owner = &genruntime.KnownResourceReference{ARMID: rgID}
			reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource {
				return []aso.Resource{resourceGroup(rgName), {Object: nsg.DeepCopy(), Family: "SecurityGroups"}}
			}, opts)
			if referenced {
				g.Expect(env.Env.Patch(ctx, rg, client.RawPatch(types.MergePatchType,
					fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"referenced"}}}`, aso.AdoptionAnnotation)))).To(Succeed())
			}

			del := aso.DeleteOptions{ClusterName: cluster, Kinds: allKinds, GoesWith: withGroup,
				Order: [][]schema.GroupKind{{nsgGVK.GroupKind()}, {rgGVK.GroupKind()}}}
			_, result, err := e.Delete(ctx, owner, del)
			g.Expect(err).NotTo(HaveOccurred())
			live := &asonetwork.NetworkSecurityGroup{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}, live)).To(Succeed())
			nsgID := genruntime.GetResourceIDOrDefault(live)
			if referenced {
				g.Expect(live.DeletionTimestamp).NotTo(BeNil(), "deleted on its own: the group may stay in Azure")
				g.Expect(env.Env.Patch(ctx, rg, client.RawPatch(types.MergePatchType,
					fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, aso.AdoptionAnnotation)))).To(Succeed())
				g.Expect(deleteAll(ctx, g, e, owner, del)).To(BeTrue())
				g.Expect(sim.Events()).To(ContainElement(And(HaveField("Op", "Delete"), HaveField("ID", nsgID))))
				return
			}
			g.Expect(result.Resource("NetworkSecurityGroup", "nsg")).To(HaveField("Message", ContainSubstring("goes with its ResourceGroup "+rgName)))
			g.Expect(live.DeletionTimestamp).To(BeNil())
			g.Expect(live.OwnerReferences).To(ConsistOf(And(HaveField("UID", rg.UID), HaveField("Kind", "ResourceGroup"), HaveField("Controller", BeNil()))),
				"a reference to the group's object, for the garbage collector, in place of the owner's")
			g.Expect(deleteAll(ctx, g, e, owner, del)).To(BeTrue())
			g.Expect(sim.ExistsInAzure(nsgID)).To(BeFalse(), "gone from Azure with the group")
			for _, event := range sim.Events() {
				g.Expect(event).NotTo(And(HaveField("Op", "Delete"), HaveField("ID", nsgID)), "no DELETE of its own")
			}
		})
	}
}
