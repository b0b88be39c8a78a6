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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
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
				g.Expect(live.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "manage"))
			}
			g.Expect(aso.TakenOver(live)).To(Equal(tt.wantTakenOver))

			g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "adopt", Kinds: allKinds})).To(BeTrue())
			g.Expect(sim.ExistsInAzure(id)).To(Equal(tt.wantSkip), "only the user's own resource survives the cluster")
		})
	}
}

// TestReconcile_CAPZBroughtResourcesStayTheUsers switches from CAPZ: ASO objects CAPZ made for the same owner,
// written by CAPZ's field manager with updates and without the engine's adoption record. CAPZ keeps
// reconcile-policy skip on a resource that existed before the cluster (one it only references); the engine must
// reference it too, keep skip, and leave it in Azure when the cluster goes. A skip CAPZ's pause set is not one of
// its own: the policy CAPZ recorded before the pause decides.
func TestReconcile_CAPZBroughtResourcesStayTheUsers(t *testing.T) {
	const cluster = "switch"
	users := map[string]string{"owner": "the user"}
	owned := map[string]string{azure.ClusterTagKey(cluster): "owned"}
	tests := []struct {
		name        string
		azureTags   map[string]string
		annotations map[string]string
		adoptable   bool
		// wantAdoption is the engine's record; "" for a resource that is not adoptable.
		wantAdoption string
		wantSkip     bool
	}{
		{name: "a resource group CAPZ references is referenced", azureTags: users, adoptable: true,
			annotations: map[string]string{reconcilePolicy: "skip"}, wantAdoption: "referenced", wantSkip: true},
		{name: "one CAPZ references and paused is referenced", azureTags: users, adoptable: true,
			annotations:  map[string]string{reconcilePolicy: "skip", aso.CAPZPrePauseAnnotation: "skip"},
			wantAdoption: "referenced", wantSkip: true},
		{name: "one CAPZ manages and paused is managed", azureTags: owned, adoptable: true,
			annotations:  map[string]string{reconcilePolicy: "skip", aso.CAPZPrePauseAnnotation: "manage"},
			wantAdoption: "created"},
		{name: "one CAPZ manages is managed", azureTags: owned, adoptable: true,
			annotations: map[string]string{reconcilePolicy: "manage"}, wantAdoption: "created"},
		{name: "the takeover leaves skip to CAPZ on a resource that is not adoptable", azureTags: users,
			annotations: map[string]string{reconcilePolicy: "skip"}, wantSkip: true},
		{name: "one CAPZ made at skip that ASO found missing is created and managed, as CAPZ would", adoptable: true,
			annotations: map[string]string{reconcilePolicy: "skip"}, wantAdoption: "created"},
		{name: "one that is not adoptable and that ASO found missing is created too",
			annotations: map[string]string{reconcilePolicy: "skip"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			name := fmt.Sprintf("capz-rg-%d", i)
			id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", sim.SubscriptionID(), name)
			if tt.azureTags != nil {
				sim.SeedAzure("ResourceGroup", id, tt.azureTags)
			}

			// CAPZ's object, as CAPZ v1.26.0 leaves it: created and patched by its manager (updates), controlled by
			// the AzureCluster, which keeps its UID across the switch.
			capz := client.WithFieldOwner(env.Env, "manager")
			theirs := &asoresources.ResourceGroup{
				ObjectMeta: metav1.ObjectMeta{
					Name: name, Namespace: owner.Namespace,
					Labels:      map[string]string{clusterv1.ClusterNameLabel: cluster},
					Annotations: tt.annotations,
					OwnerReferences: []metav1.OwnerReference{{
						APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: owner.Name, UID: owner.UID,
						Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
					}},
				},
				Spec: asoresources.ResourceGroup_Spec{AzureName: name, Location: ptr.To("eastus"), Tags: tt.azureTags},
			}
			g.Expect(capz.Create(ctx, theirs)).To(Succeed())
			g.Eventually(func(g Gomega) {
				g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())
				g.Expect(theirs.Status.Conditions).To(ContainElement(Or(HaveField("Status", metav1.ConditionTrue),
					HaveField("Reason", "AzureResourceNotFound"))), "ASO has looked it up")
			}, timeout).Should(Succeed())
			before := len(sim.Events())

			rg := resourceGroup(name)
			rg.Adoptable = tt.adoptable
			desired := func() []aso.Resource { return []aso.Resource{rg} }
			result := reconcileUntilReady(ctx, g, e, owner, desired, options(cluster))
			if tt.adoptable {
				want := infrav1.ResourceManaged
				if tt.wantSkip {
					want = infrav1.ResourceReferenced
				}
				g.Expect(result.Resource("ResourceGroup", name)).To(HaveField("Management", want))
			}
			live := &asoresources.ResourceGroup{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
			g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel), "the engine applied it")
			g.Expect(live.Annotations).NotTo(HaveKey(aso.CAPZPrePauseAnnotation), "CAPZ's pause record went with the takeover")
			if tt.wantAdoption != "" {
				g.Expect(live.Annotations).To(HaveKeyWithValue(aso.AdoptionAnnotation, tt.wantAdoption))
			}
			if tt.wantSkip {
				g.Expect(live.Annotations).To(HaveKeyWithValue(reconcilePolicy, "skip"))
				g.Expect(aso.IsManaged(live, owner)).To(BeFalse())
				for _, event := range sim.Events()[before:] {
					g.Expect(event.ID).NotTo(Equal(id), "ASO never wrote the user's resource group")
				}
			} else {
				g.Expect(live.Annotations).NotTo(HaveKeyWithValue(reconcilePolicy, "skip"))
				g.Expect(aso.IsManaged(live, owner)).To(BeTrue())
			}
			if !tt.adoptable && tt.wantSkip {
				// The engine does not set the policy of a resource that is not adoptable: CAPZ's manager keeps it.
				g.Expect(live.ManagedFields).To(ContainElement(And(HaveField("Manager", "manager"),
					HaveField("FieldsV1.Raw", MatchJSON(`{"f:metadata":{"f:annotations":{"f:serviceoperator.azure.com/reconcile-policy":{}}}}`)))))
			}
			for _, p := range []string{"spec", "labels", "ownerReferences"} {
				g.Expect(live.ManagedFields).NotTo(ContainElement(And(HaveField("Manager", "manager"),
					HaveField("FieldsV1.Raw", ContainSubstring(`"f:`+p+`"`)))), "the engine took over CAPZ's other fields")
			}

			g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: cluster, Kinds: allKinds})).To(BeTrue())
			g.Eventually(func(g Gomega) {
				err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), &asoresources.ResourceGroup{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the ASO object is gone")
			}, timeout).Should(Succeed())
			g.Expect(sim.ExistsInAzure(id)).To(Equal(tt.wantSkip), "deleting the cluster deletes only what it manages")
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
	g.Expect(live.Annotations).NotTo(HaveKey(reconcilePolicy), "ASO's annotations are for ASO's objects")
}

// A switch from CAPZ: CAPZ owns a brought network by its ResourceGroup object of the network's resource group, the
// provider names that group by ARM ID. ASO refuses to change an object's owner, so the object keeps CAPZ's.
func TestReconcile_TakenOverObjectKeepsItsOwner(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	const group = "capz-netrg"

	capz := client.WithFieldOwner(env.Env, "manager")
	theirs := &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{
			Name: "brought-vnet", Namespace: owner.Namespace,
			Annotations: map[string]string{reconcilePolicy: "skip"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: owner.Name, UID: owner.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: asonetwork.VirtualNetwork_Spec{AzureName: "brought-vnet", Location: ptr.To("eastus"),
			Owner: &genruntime.KnownResourceReference{Name: group}},
	}
	g.Expect(capz.Create(ctx, theirs)).To(Succeed())

	ours := &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: "brought-vnet"},
		Spec: asonetwork.VirtualNetwork_Spec{AzureName: "brought-vnet", Location: ptr.To("eastus"),
			Owner: &genruntime.KnownResourceReference{ARMID: "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/" + group}},
	}
	desired := []aso.Resource{{Family: "VirtualNetwork", Object: ours, Referenced: true}}
	g.Eventually(func() error {
		// ASO writes the object's status meanwhile: a conflict is retried, as the controller would.
		_, err := e.Reconcile(ctx, owner, desired, options("switch"))
		return err
	}, timeout).Should(Succeed())

	live := &asonetwork.VirtualNetwork{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
	g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel), "the engine applied it")
	g.Expect(live.Spec.Owner).To(Equal(&genruntime.KnownResourceReference{Name: group}), "CAPZ's owner stays")
}

// After a switch, an ASO object CAPZ made for the cluster that the provider does not desire (CAPZ's NAT gateway of a
// brought network) is the owner's to delete, with the reconcile-policy CAPZ's pause kept: deleting the owner deletes
// in Azure what CAPZ managed, and keeps what CAPZ only referenced.
func TestDelete_CAPZLeftoversGoAsCAPZWouldDeleteThem(t *testing.T) {
	const cluster = "switch"
	for _, tt := range []struct {
		name       string
		prePause   string
		wantExists bool
	}{
		{name: "one CAPZ managed is deleted in Azure", prePause: "manage"},
		{name: "one CAPZ referenced stays in Azure", prePause: "skip", wantExists: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			name := "capz-leftover-" + tt.prePause
			id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", sim.SubscriptionID(), name)
			sim.SeedAzure("ResourceGroup", id, map[string]string{azure.ClusterTagKey(cluster): "owned"})

			theirs := &asoresources.ResourceGroup{
				ObjectMeta: metav1.ObjectMeta{
					Name: name, Namespace: owner.Namespace,
					Labels:      map[string]string{clusterv1.ClusterNameLabel: cluster},
					Annotations: map[string]string{reconcilePolicy: "skip", aso.CAPZPrePauseAnnotation: tt.prePause},
					OwnerReferences: []metav1.OwnerReference{{
						APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: owner.Name, UID: owner.UID,
						Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
					}},
				},
				Spec: asoresources.ResourceGroup_Spec{AzureName: name, Location: ptr.To("eastus")},
			}
			g.Expect(client.WithFieldOwner(env.Env, "manager").Create(ctx, theirs)).To(Succeed())
			// As CAPZ's objects are after a switch, ASO has long claimed it: an object ASO never claimed goes at once.
			g.Eventually(func(g Gomega) {
				live := &asoresources.ResourceGroup{}
				g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
				g.Expect(genruntime.GetResourceIDOrDefault(live)).NotTo(BeEmpty())
			}, timeout).Should(Succeed())

			g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: cluster, Kinds: allKinds})).To(BeTrue())
			g.Eventually(func(g Gomega) {
				err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), &asoresources.ResourceGroup{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the owner's deletion deleted CAPZ's object")
			}, timeout).Should(Succeed())
			g.Expect(sim.ExistsInAzure(id)).To(Equal(tt.wantExists))
		})
	}
}

// CAPZ v1.26.0's field managers: its typed services create and merge-patch ASO objects without a field owner, so the
// API server names the manager after CAPZ's User-Agent (main.go) and records updates; the raw resources of the
// AzureASOManaged kinds it server-side applies as capz-manager (controllers/resource_reconciler.go).
const (
	capzUpdateManager = "cluster-api-provider-azure-manager"
	capzApplyManager  = "capz-manager"
)

// TestReconcile_TakesOverCAPZReferencesAfterTheWayBack switches from CAPZ a second time (issue 37): the provider made
// the subnet and labelled it; after the way back CAPZ's manager wrote its security group reference again as an ARM
// ID. The provider's next apply must leave only its reference by name, which ASO's webhook accepts; with both, ASO
// refuses the object.
func TestReconcile_TakesOverCAPZReferencesAfterTheWayBack(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	vnet := &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: "vnet"},
		Spec: asonetwork.VirtualNetwork_Spec{AzureName: "vnet", Location: ptr.To("eastus"),
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, AddressSpace: &asonetwork.AddressSpace{AddressPrefixes: []string{"10.0.0.0/8"}}},
	}
	subnet := &asonetwork.VirtualNetworksSubnet{
		ObjectMeta: metav1.ObjectMeta{Name: "vnet-subnet"},
		Spec: asonetwork.VirtualNetworksSubnet_Spec{AzureName: "subnet", AddressPrefix: ptr.To("10.0.0.0/16"),
			Owner: &genruntime.KnownResourceReference{Name: "vnet"},
			NetworkSecurityGroup: &asonetwork.NetworkSecurityGroupSpec_VirtualNetworks_Subnet_SubResourceEmbedded{
				Reference: &genruntime.ResourceReference{Group: asonetwork.GroupVersion.Group, Kind: "NetworkSecurityGroup", Name: "nsg"},
			}},
	}
	desired := func() []aso.Resource {
		return []aso.Resource{resourceGroup("rg"), securityGroup("nsg"), {Object: vnet.DeepCopy(), Family: "VNet"}, {Object: subnet.DeepCopy(), Family: "Subnets"}}
	}
	reconcileUntilReady(ctx, g, e, owner, desired, options("back"))

	// The way back: CAPZ's manager patches the subnet with its reference by ARM ID (azure/services/subnets/spec.go),
	// at the older ASO version CAPZ v1.26.0 writes subnets in, and then pauses it for the next switch.
	key := client.ObjectKeyFromObject(subnet)
	key.Namespace = owner.Namespace
	live := &asonetwork.VirtualNetworksSubnet{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel), "the provider made it")
	nsgID := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg", sim.SubscriptionID())
	capzSubnet := &unstructured.Unstructured{}
	capzSubnet.SetGroupVersionKind(schema.GroupVersionKind{Group: asonetwork.GroupVersion.Group, Version: "v1api20201101", Kind: "VirtualNetworksSubnet"})
	capzSubnet.SetNamespace(key.Namespace)
	capzSubnet.SetName(key.Name)
	capz := client.WithFieldOwner(env.Env, capzUpdateManager)
	g.Expect(capz.Patch(ctx, capzSubnet, client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"spec":{"networkSecurityGroup":{"reference":{"armId":%q,"group":null,"kind":null,"name":null}}}}`, nsgID)))).To(Succeed())
	g.Expect(capz.Patch(ctx, capzSubnet, client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"manage",%q:"skip"}}}`, aso.CAPZPrePauseAnnotation, asoannotations.ReconcilePolicy)))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Spec.NetworkSecurityGroup.Reference.ARMID).To(Equal(nsgID))
	}, timeout).Should(Succeed())

	// The switch forward again.
	result := reconcileUntilReady(ctx, g, e, owner, desired, options("back"))
	g.Expect(result.Resource("VirtualNetworksSubnet", "vnet-subnet")).To(HaveField("Ready", BeTrue()), "ASO accepted the subnet")
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Spec.NetworkSecurityGroup.Reference).To(Equal(subnet.Spec.NetworkSecurityGroup.Reference), "only the provider's reference, no ARM ID beside it")
	for _, m := range live.ManagedFields {
		g.Expect(m.Manager).NotTo(Equal(capzUpdateManager), "CAPZ's manager owns nothing any more")
	}
}

// TestReconcile_TakesOverCAPZAppliedFields: CAPZ server-side applies the raw resources of the AzureASOManaged kinds.
// After the way back its apply entry owns fields of an object the provider owns; the provider's next apply must own
// them alone, dropping what only CAPZ set, without deleting the object.
func TestReconcile_TakesOverCAPZAppliedFields(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }
	reconcileUntilReady(ctx, g, e, owner, desired, options("applied"))

	key := client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}
	capz := &unstructured.Unstructured{}
	capz.SetGroupVersionKind(rgGVK)
	capz.SetNamespace(key.Namespace)
	capz.SetName(key.Name)
	g.Expect(unstructured.SetNestedMap(capz.Object, map[string]any{
		"azureName": "rg", "location": "eastus", "tags": map[string]any{"a": "capz", "capz-only": "x"},
	}, "spec")).To(Succeed())
	g.Expect(env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(capz), client.FieldOwner(capzApplyManager), client.ForceOwnership)).To(Succeed())
	live := &asoresources.ResourceGroup{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Spec.Tags).To(HaveKeyWithValue("capz-only", "x"))
	}, timeout).Should(Succeed())

	reconcileUntilReady(ctx, g, e, owner, desired, options("applied"))
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Spec.Tags).To(Equal(map[string]string{"a": "b"}), "the provider's tags only")
	g.Expect(live.Spec.AzureName).To(Equal("rg"))
	g.Expect(live.ManagedFields).NotTo(ContainElement(HaveField("Manager", capzApplyManager)))
}

// TestReconcile_UsersLaterUpdatesStayTheirs: a user's update of an object the provider owns is not a former owner's;
// the provider's later applies keep the user's field.
func TestReconcile_UsersLaterUpdatesStayTheirs(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	rg := resourceGroup("rg")
	desired := func() []aso.Resource { return []aso.Resource{rg} }
	reconcileUntilReady(ctx, g, e, owner, desired, options("user"))

	key := client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}
	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	before := live.DeepCopy()
	live.Spec.Tags["team"] = "network"
	g.Expect(client.WithFieldOwner(env.Env, "kubectl-edit").Patch(ctx, live, client.MergeFrom(before))).To(Succeed())

	// The provider changes a field of its own: its apply runs, and takes over nothing of the user's.
	rg.Object.(*asoresources.ResourceGroup).Spec.Tags = map[string]string{"a": "c"}
	g.Eventually(func(g Gomega) {
		_, err := e.Reconcile(ctx, owner, desired(), options("user"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Spec.Tags).To(HaveKeyWithValue("a", "c"))
	}, timeout).Should(Succeed())
	g.Expect(live.Spec.Tags).To(HaveKeyWithValue("team", "network"), "the user's field stays")
	g.Expect(live.ManagedFields).To(ContainElement(And(HaveField("Manager", "kubectl-edit"),
		HaveField("FieldsV1.Raw", ContainSubstring(`"f:team"`)))))
}

// TestReconcile_LiftsCAPZPauseAfterTheWayBack: after the way back, pausing the Cluster for the next switch makes CAPZ
// pause the objects the provider made (reconcile-policy skip and its record of the policy before). Nothing the
// provider sets differs; the switch forward must still lift CAPZ's pause, or ASO would leave the resources alone.
func TestReconcile_LiftsCAPZPauseAfterTheWayBack(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }
	reconcileUntilReady(ctx, g, e, owner, desired, options("paused"))

	// CAPZ's PauseResource (azure/services/aso/aso.go): a merge patch of the two annotations.
	key := client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}
	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	before := live.DeepCopy()
	live.Annotations[reconcilePolicy] = "skip"
	live.Annotations[aso.CAPZPrePauseAnnotation] = ""
	g.Expect(client.WithFieldOwner(env.Env, capzUpdateManager).Patch(ctx, live, client.MergeFrom(before))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Annotations).To(HaveKey(aso.CAPZPrePauseAnnotation))
	}, timeout).Should(Succeed())

	g.Eventually(func(g Gomega) {
		_, err := e.Reconcile(ctx, owner, desired(), options("paused"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Annotations).NotTo(HaveKey(aso.CAPZPrePauseAnnotation))
		g.Expect(live.Annotations).To(HaveKeyWithValue(reconcilePolicy, "manage"), "ASO manages the resource group again")
	}, timeout).Should(Succeed())
	g.Expect(aso.IsManaged(live, owner)).To(BeTrue())

	// Lifted once: the next pass writes nothing.
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Annotations).NotTo(HaveKey(aso.CAPZPrePauseAnnotation))
	}, timeout).Should(Succeed())
	writesBefore := writes.Load()
	result, err := e.Reconcile(ctx, owner, desired(), options("paused"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Writes).To(BeZero())
	g.Expect(writes.Load() - writesBefore).To(BeZero())
}

// TestReconcile_LiftsCAPZAppliedPause: CAPZ pauses the resources of the AzureASOManaged kinds by applying the owner's
// spec.resources again with reconcile-policy skip as capz-manager, with no record of the policy from before (issue 37,
// aks-aso). Whether CAPZ made the object (the first switch) or the provider did (the next switch, after the way
// back), the switch must lift that pause. A skip the desired object sets, or one a user wrote, stays.
func TestReconcile_LiftsCAPZAppliedPause(t *testing.T) {
	for _, tt := range []struct {
		name string
		// providerFirst: the provider made the object before CAPZ paused it.
		providerFirst bool
		// pauser writes the skip: CAPZ's apply, or a user's annotate.
		pauser string
		// desiredSkip: the object the provider desires sets skip itself (a raw resource the user wrote with it).
		desiredSkip bool
		wantSkip    bool
	}{
		{name: "CAPZ made it: the first switch", pauser: capzApplyManager},
		{name: "the provider made it: the switch after the way back", providerFirst: true, pauser: capzApplyManager},
		{name: "the desired object skips", providerFirst: true, pauser: capzApplyManager, desiredSkip: true, wantSkip: true},
		{name: "a user's skip", providerFirst: true, pauser: "kubectl-annotate", wantSkip: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			desired := func() []aso.Resource {
				// A resource of an AzureASOManaged kind's spec.resources, written whole by the user.
				rg := resourceGroup("rg")
				rg.Raw = true
				if tt.desiredSkip {
					rg.Object.SetAnnotations(map[string]string{reconcilePolicy: "skip"})
				}
				return []aso.Resource{rg}
			}
			if tt.providerFirst {
				reconcileUntilReady(ctx, g, e, owner, desired, options("applied-pause"))
			}

			key := client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}
			resource := func() *unstructured.Unstructured {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(rgGVK)
				u.SetNamespace(key.Namespace)
				u.SetName(key.Name)
				g.Expect(unstructured.SetNestedMap(u.Object, map[string]any{
					"azureName": "rg", "location": "eastus", "tags": map[string]any{"a": "b"},
				}, "spec")).To(Succeed())
				return u
			}
			if tt.pauser == capzApplyManager {
				// CAPZ's reconcile applies spec.resources[i] with its owner's controller reference; its pause applies
				// it again with skip and without the reference, which the apply drops.
				reconciled := resource()
				reconciled.SetOwnerReferences([]metav1.OwnerReference{{
					APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}})
				g.Expect(env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(reconciled), client.FieldOwner(capzApplyManager), client.ForceOwnership)).To(Succeed())
				paused := resource()
				paused.SetAnnotations(map[string]string{reconcilePolicy: "skip"})
				g.Expect(env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(paused), client.FieldOwner(capzApplyManager))).To(Succeed())
				if !tt.providerFirst {
					// The provider's apply owns the reference too when it made the object; on CAPZ's own object
					// nothing else does.
					g.Expect(env.Env.GetAPIReader().Get(ctx, key, paused)).To(Succeed())
					g.Expect(paused.GetOwnerReferences()).To(BeEmpty(), "CAPZ's pause dropped the controller reference")
				}
			} else {
				paused := &unstructured.Unstructured{}
				paused.SetGroupVersionKind(rgGVK)
				paused.SetNamespace(key.Namespace)
				paused.SetName(key.Name)
				paused.SetAnnotations(map[string]string{reconcilePolicy: "skip"})
				g.Expect(env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(paused), client.FieldOwner(tt.pauser))).To(Succeed())
			}
			live := &asoresources.ResourceGroup{}
			if tt.providerFirst {
				// The cache holds the objects the provider labelled: it must see the pause before the pass does.
				g.Eventually(func(g Gomega) {
					g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
					g.Expect(live.Annotations).To(HaveKeyWithValue(reconcilePolicy, "skip"))
				}, timeout).Should(Succeed())
			}

			g.Eventually(func(g Gomega) {
				_, err := e.Reconcile(ctx, owner, desired(), options("applied-pause"))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
				g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel))
				g.Expect(metav1.IsControlledBy(live, owner)).To(BeTrue(), "the owner took its object back")
			}, timeout).Should(Succeed())
			// The cache sees the pass's writes before the next pass.
			g.Eventually(func(g Gomega) {
				cached := &asoresources.ResourceGroup{}
				g.Expect(env.Env.Manager.GetCache().Get(ctx, key, cached)).To(Succeed())
				g.Expect(cached.ResourceVersion).To(Equal(live.ResourceVersion))
			}, timeout).Should(Succeed())
			_, err := e.Reconcile(ctx, owner, desired(), options("applied-pause"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
			if tt.wantSkip {
				g.Expect(live.Annotations).To(HaveKeyWithValue(reconcilePolicy, "skip"), "the skip stays")
				return
			}
			g.Expect(live.Annotations).NotTo(HaveKey(reconcilePolicy), "ASO manages the resource group again")
			g.Expect(live.ManagedFields).NotTo(ContainElement(HaveField("Manager", capzApplyManager)), "CAPZ's manager owns nothing any more")
			g.Expect(aso.IsManaged(live, owner)).To(BeTrue())

			// Lifted once: the next pass writes nothing.
			g.Eventually(func(g Gomega) {
				cached := &asoresources.ResourceGroup{}
				g.Expect(env.Env.Manager.GetCache().Get(ctx, key, cached)).To(Succeed())
				g.Expect(cached.ResourceVersion).To(Equal(live.ResourceVersion))
			}, timeout).Should(Succeed())
			writesBefore := writes.Load()
			result, err := e.Reconcile(ctx, owner, desired(), options("applied-pause"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(result.Writes).To(BeZero())
			g.Expect(writes.Load() - writesBefore).To(BeZero())
		})
	}
}
