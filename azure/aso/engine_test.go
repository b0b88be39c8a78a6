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
	"context"
	"fmt"
	"testing"
	"time"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const timeout = 30 * time.Second

var (
	rgGVK     = asoresources.GroupVersion.WithKind("ResourceGroup")
	nsgGVK    = asonetwork.GroupVersion.WithKind("NetworkSecurityGroup")
	vnetGVK   = asonetwork.GroupVersion.WithKind("VirtualNetwork")
	subnetGVK = asonetwork.GroupVersion.WithKind("VirtualNetworksSubnet")
	allKinds  = []schema.GroupVersionKind{rgGVK, nsgGVK, vnetGVK, subnetGVK}
)

// setup creates a namespace and an AzureCluster to own the ASO objects of a test.
func setup(t *testing.T, g *WithT) (context.Context, *infrav1.AzureCluster) {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "engine")
	g.Expect(err).NotTo(HaveOccurred())
	owner := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns.Name},
		Spec:       infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus"}},
	}
	g.Expect(env.Env.Create(ctx, owner)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), owner, ns) })
	return ctx, owner
}

func options(cluster string) aso.Options {
	return aso.Options{ClusterName: cluster, Kinds: allKinds}
}

func resourceGroup(name string) aso.Resource {
	return aso.Resource{Family: "ResourceGroup", Object: &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: name, Location: ptr.To("eastus"), Tags: map[string]string{"a": "b"}},
	}}
}

// securityGroup is a network security group in the resource group "rg" (resourceGroup("rg")).
func securityGroup(name string) aso.Resource {
	return aso.Resource{Family: "SecurityGroups", Object: &asonetwork.NetworkSecurityGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: asonetwork.NetworkSecurityGroup_Spec{
			AzureName: name, Location: ptr.To("eastus"),
			Owner: &genruntime.KnownResourceReference{Name: "rg"},
		},
	}}
}

// reconcileUntilReady runs passes until every object is ready, as the controller would on each watch event.
func reconcileUntilReady(ctx context.Context, g *WithT, e *aso.Engine, owner client.Object, desired func() []aso.Resource, opts aso.Options) *aso.Result {
	var result *aso.Result
	g.Eventually(func(g Gomega) {
		var err error
		result, err = e.Reconcile(ctx, owner, desired(), opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.FirstNotReady()).To(BeNil())
	}, timeout, 100*time.Millisecond).Should(Succeed())
	return result
}

func TestReconcile_NoOpPassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	desired := func() []aso.Resource {
		out := []aso.Resource{resourceGroup("rg")}
		for i := range 49 {
			out = append(out, securityGroup(fmt.Sprintf("nsg-%d", i)))
		}
		return out
	}
	reconcileUntilReady(ctx, g, e, owner, desired, options("c1"))

	before := writes.Load()
	result, err := e.Reconcile(ctx, owner, desired(), options("c1"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(writes.Load()-before).To(BeZero(), "a pass over 50 unchanged objects must not write")
	g.Expect(result.Writes).To(BeZero())
	g.Expect(result.Ready()).To(BeTrue())
	g.Expect(result.Statuses()).To(HaveLen(50))
	g.Expect(result.Conditions()).To(ContainElement(And(
		HaveField("Type", "SecurityGroupsReady"), HaveField("Status", metav1.ConditionTrue))))

	// Every object carries the ownership the engine promises.
	nsg := &asonetwork.NetworkSecurityGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg-0"}, nsg)).To(Succeed())
	g.Expect(nsg.Labels).To(HaveKeyWithValue(infrav1.ClusterNameLabel, "c1"))
	g.Expect(nsg.Labels).To(HaveKeyWithValue(infrav1.OwnedByLabel, "c1"))
	g.Expect(metav1.IsControlledBy(nsg, owner)).To(BeTrue())
	g.Expect(nsg.ManagedFields).To(ContainElement(HaveField("Manager", aso.FieldManager)))
}

func TestReconcile_ReassertsEditsAndReleasesDroppedFields(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	rg := resourceGroup("rg")
	desired := func() []aso.Resource { return []aso.Resource{rg} }
	reconcileUntilReady(ctx, g, e, owner, desired, options("c2"))

	// A user changes a field the engine sets: the next pass puts it back.
	live := &asoresources.ResourceGroup{}
	key := client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	live.Spec.Location = ptr.To("westus")
	g.Expect(env.Env.Update(ctx, live)).To(Succeed())
	// The engine reads through the manager's cache: wait until the edit reached it.
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Manager.GetCache().Get(ctx, key, live)).To(Succeed())
		g.Expect(live.Spec.Location).To(HaveValue(Equal("westus")))
	}, timeout).Should(Succeed())
	before := writes.Load()
	result, err := e.Reconcile(ctx, owner, desired(), options("c2"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Writes).To(Equal(1))
	g.Expect(writes.Load() - before).To(BeNumerically("==", 1))
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Spec.Location).To(HaveValue(Equal("eastus")))

	// The engine stops setting the tags: they are released, not left behind.
	rg.Object.(*asoresources.ResourceGroup).Spec.Tags = nil
	_, err = e.Reconcile(ctx, owner, desired(), options("c2"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, live)).To(Succeed())
	g.Expect(live.Spec.Tags).To(BeEmpty())
}

func TestReconcile_Patches(t *testing.T) {
	tests := []struct {
		name       string
		patches    []aso.Patch
		wantError  string
		assertVNet func(g *WithT, vnet *asonetwork.VirtualNetwork)
	}{
		{
			name: "YAML merge patch sets a field the translator does not",
			patches: []aso.Patch{{Kind: "VirtualNetwork", Source: "spec.asoPatches[0]", Format: patch.Merge,
				Text: "spec:\n  flowTimeoutInMinutes: 10\n"}},
			assertVNet: func(g *WithT, vnet *asonetwork.VirtualNetwork) {
				g.Expect(vnet.Spec.FlowTimeoutInMinutes).To(HaveValue(Equal(10)))
			},
		},
		{
			name: "JSON patch appends to a list, after a merge patch",
			patches: []aso.Patch{
				{Kind: "VirtualNetwork", Source: "spec.asoManagedClusterPatches[0]", Format: patch.Merge, Text: `{"spec":{"tags":{"env":"dev"}}}`},
				{Kind: "VirtualNetwork", Name: "vnet", Source: "spec.asoPatches[0]", Format: patch.JSON,
					Text: "- op: add\n  path: /spec/addressSpace/addressPrefixes/-\n  value: 192.168.0.0/16\n"},
			},
			assertVNet: func(g *WithT, vnet *asonetwork.VirtualNetwork) {
				g.Expect(vnet.Spec.AddressSpace.AddressPrefixes).To(Equal([]string{"10.0.0.0/8", "192.168.0.0/16"}))
				g.Expect(vnet.Spec.Tags).To(HaveKeyWithValue("env", "dev"))
			},
		},
		{
			name:       "a patch for another object's name leaves this one alone",
			patches:    []aso.Patch{{Kind: "VirtualNetwork", Name: "other", Source: "spec.asoPatches[0]", Format: patch.Merge, Text: "spec: {flowTimeoutInMinutes: 7}"}},
			assertVNet: func(g *WithT, vnet *asonetwork.VirtualNetwork) { g.Expect(vnet.Spec.FlowTimeoutInMinutes).To(BeNil()) },
		},
		{
			name:      "forbidden path",
			patches:   []aso.Patch{{Kind: "VirtualNetwork", Source: "spec.asoPatches[2]", Format: patch.Merge, Text: "spec: {owner: {name: other}}"}},
			wantError: "spec.asoPatches[2] could not be applied to VirtualNetwork vnet: a patch may not change spec.owner",
		},
		{
			name:      "unparsable patch",
			patches:   []aso.Patch{{Kind: "VirtualNetwork", Source: "spec.asoPatches[0]", Format: patch.JSON, Text: "[{op: "}},
			wantError: "spec.asoPatches[0] could not be applied to VirtualNetwork vnet: not valid JSON or YAML",
		},
		{
			name:      "patch that does not apply",
			patches:   []aso.Patch{{Kind: "VirtualNetwork", Source: "spec.asoPatches[1]", Format: patch.JSON, Text: `[{"op":"replace","path":"/spec/dhcpOptions/dnsServers/0","value":"1.1.1.1"}]`}},
			wantError: "spec.asoPatches[1] could not be applied to VirtualNetwork vnet",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			e := newEngine(t)
			vnet := &asonetwork.VirtualNetwork{
				ObjectMeta: metav1.ObjectMeta{Name: "vnet"},
				Spec: asonetwork.VirtualNetwork_Spec{
					AzureName: "vnet", Location: ptr.To("eastus"), Owner: &genruntime.KnownResourceReference{Name: "rg"},
					AddressSpace: &asonetwork.AddressSpace{AddressPrefixes: []string{"10.0.0.0/8"}},
				},
			}
			opts := options("c3")
			opts.Patches = tt.patches
			result, err := e.Reconcile(ctx, owner, []aso.Resource{resourceGroup("rg"), {Object: vnet, Family: "VNet"}}, opts)
			g.Expect(err).NotTo(HaveOccurred())

			// The resource group is applied whatever happens to the virtual network's patches.
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}, &asoresources.ResourceGroup{})).To(Succeed())
			live := &asonetwork.VirtualNetwork{}
			err = env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "vnet"}, live)
			if tt.wantError != "" {
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "an object whose patch fails is not applied")
				g.Expect(result.PatchErrors).To(ConsistOf(ContainSubstring(tt.wantError)))
				g.Expect(result.Conditions()).To(ContainElement(And(HaveField("Type", infrav1.PatchesAppliedCondition),
					HaveField("Status", metav1.ConditionFalse), HaveField("Reason", infrav1.InvalidPatchReason),
					HaveField("Message", ContainSubstring(tt.wantError)))))
				g.Expect(result.Resource("VirtualNetwork", "vnet")).To(HaveField("Reason", infrav1.InvalidPatchReason))
				g.Expect(result.Terminal()).To(BeTrue())
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(result.PatchErrors).To(BeEmpty())
			tt.assertVNet(g, live)
		})
	}
}

func TestReconcile_NeverTouchesObjectsOfOthers(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)

	// The user brought their own ASO resource group with the name the provider wants.
	theirs := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "rg", Namespace: owner.Namespace},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: "rg", Location: ptr.To("westeurope")},
	}
	g.Expect(env.Env.Create(ctx, theirs)).To(Succeed())
	rgID := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg", sim.SubscriptionID())
	g.Eventually(func() bool { return sim.ExistsInAzure(rgID) }, timeout).Should(BeTrue())

	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg"), securityGroup("nsg")} }
	result := reconcileUntilReady(ctx, g, e, owner, desired, options("c4"))
	g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Management", infrav1.ResourceExternallyManaged))
	g.Expect(result.Resource("NetworkSecurityGroup", "nsg")).To(HaveField("Management", infrav1.ResourceManaged))

	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
	g.Expect(live.Spec.Location).To(HaveValue(Equal("westeurope")), "someone else's object is never modified")
	g.Expect(live.Labels).NotTo(HaveKey(infrav1.OwnedByLabel))
	g.Expect(live.OwnerReferences).To(BeEmpty())

	done := deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "c4", Kinds: allKinds})
	g.Expect(done).To(BeTrue())
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed(), "someone else's object is never deleted")
	g.Expect(sim.ExistsInAzure(rgID)).To(BeTrue())
	g.Expect(sim.Deleted()).To(ContainElement(rgID + "/providers/Microsoft.Network/networkSecurityGroups/nsg"))
	g.Expect(sim.Deleted()).NotTo(ContainElement(rgID))
}

func TestReconcile_ReferencedResourcesAreOnlyRead(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	rgID := fmt.Sprintf("/subscriptions/%s/resourceGroups/byo-rg", sim.SubscriptionID())
	sim.SeedAzure("ResourceGroup", rgID, map[string]string{"owner": "someone-else"})

	byo := resourceGroup("byo-rg")
	byo.Referenced = true
	result := reconcileUntilReady(ctx, g, e, owner, func() []aso.Resource { return []aso.Resource{byo} }, options("c5"))
	g.Expect(result.Resource("ResourceGroup", "byo-rg")).To(HaveField("Management", infrav1.ResourceReferenced))
	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "byo-rg"}, live)).To(Succeed())
	g.Expect(live.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"))

	g.Expect(deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "c5", Kinds: allKinds})).To(BeTrue())
	g.Expect(sim.ExistsInAzure(rgID)).To(BeTrue(), "deleting a referenced resource's object leaves the resource in Azure")
	for _, event := range sim.Events() {
		g.Expect(event.ID).NotTo(Equal(rgID), "ASO never wrote the referenced resource")
	}
}

func TestDelete_OrderAndFinalizer(t *testing.T) {
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
			Owner: &genruntime.KnownResourceReference{Name: "vnet"}},
	}
	desired := func() []aso.Resource {
		return []aso.Resource{resourceGroup("rg"), {Object: vnet, Family: "VNet"}, {Object: subnet, Family: "Subnets"}}
	}
	reconcileUntilReady(ctx, g, e, owner, desired, options("c6"))

	opts := aso.DeleteOptions{ClusterName: "c6", Kinds: allKinds, Order: [][]schema.GroupKind{
		{subnetGVK.GroupKind()}, {vnetGVK.GroupKind()}, {rgGVK.GroupKind()},
	}}
	done, result, err := e.Delete(ctx, owner, opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(done).To(BeFalse(), "the owner keeps its finalizer until ASO has deleted everything")
	g.Expect(result.Resource("VirtualNetwork", "vnet")).To(HaveField("Message", ContainSubstring("waiting for resources that depend on it")))
	vnetLive := &asonetwork.VirtualNetwork{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(vnet), vnetLive)).To(Succeed())
	g.Expect(vnetLive.DeletionTimestamp).To(BeNil(), "the virtual network waits for its subnet")

	g.Expect(deleteAll(ctx, g, e, owner, opts)).To(BeTrue())
	var order []string
	for _, event := range sim.Events() {
		if event.Op == "Delete" && (event.Kind == "VirtualNetworksSubnet" || event.Kind == "VirtualNetwork" || event.Kind == "ResourceGroup") {
			if event.ID == fmt.Sprintf("/subscriptions/%s/resourceGroups/rg", sim.SubscriptionID()) ||
				event.ID == fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet", sim.SubscriptionID()) ||
				event.ID == fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/subnet", sim.SubscriptionID()) {
				order = append(order, event.Kind)
			}
		}
	}
	g.Expect(order).To(Equal([]string{"VirtualNetworksSubnet", "VirtualNetwork", "ResourceGroup"}))
}

func TestReconcile_DeletesObjectsNoLongerDesired(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	both := func() []aso.Resource { return []aso.Resource{resourceGroup("rg"), securityGroup("nsg")} }
	reconcileUntilReady(ctx, g, e, owner, both, options("c7"))

	result, err := e.Reconcile(ctx, owner, []aso.Resource{resourceGroup("rg")}, options("c7"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Resource("NetworkSecurityGroup", "nsg")).To(HaveField("Reason", infrav1.DeletingReason))
	g.Eventually(func() bool {
		err := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}, &asonetwork.NetworkSecurityGroup{})
		return apierrors.IsNotFound(err)
	}, timeout).Should(BeTrue())
}

func TestPause_SkipsEveryOwnedObjectAndRestores(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg"), securityGroup("nsg")} }
	reconcileUntilReady(ctx, g, e, owner, desired, options("c8"))

	// The user chose detach-on-delete for the security group (with their own field manager).
	nsgKey := client.ObjectKey{Namespace: owner.Namespace, Name: "nsg"}
	nsg := &asonetwork.NetworkSecurityGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, nsgKey, nsg)).To(Succeed())
	before := nsg.DeepCopy()
	nsg.Annotations[asoannotations.ReconcilePolicy] = string(asoannotations.ReconcilePolicyDetachOnDelete)
	g.Expect(env.Env.Patch(ctx, nsg, client.MergeFrom(before))).To(Succeed())
	g.Eventually(func(g Gomega) {
		cached := &asonetwork.NetworkSecurityGroup{}
		g.Expect(env.Env.Manager.GetCache().Get(ctx, nsgKey, cached)).To(Succeed())
		g.Expect(cached.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicyDetachOnDelete)))
	}, timeout).Should(Succeed(), "pause reads the policy from the cache")

	g.Eventually(func(g Gomega) {
		done, _, err := e.Pause(ctx, owner, "c8", allKinds)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(done).To(BeTrue())
		for _, name := range []string{"rg", "nsg"} {
			obj := &asonetwork.NetworkSecurityGroup{}
			var o client.Object = obj
			if name == "rg" {
				o = &asoresources.ResourceGroup{}
			}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: name}, o)).To(Succeed())
			g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"))
		}
	}, timeout).Should(Succeed())

	// Pausing again writes nothing.
	g.Eventually(func(g Gomega) {
		_, writesNow, err := e.Pause(ctx, owner, "c8", allKinds)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(writesNow).To(BeZero())
	}, timeout).Should(Succeed())

	// Reconciling again means unpaused: the previous policies come back.
	g.Eventually(func(g Gomega) {
		_, err := e.Reconcile(ctx, owner, desired(), options("c8"))
		g.Expect(err).NotTo(HaveOccurred())
		rg := &asoresources.ResourceGroup{}
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: owner.Namespace, Name: "rg"}, rg)).To(Succeed())
		g.Expect(rg.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "manage"))
		g.Expect(rg.Annotations).NotTo(HaveKey(aso.PrePauseAnnotation))
		g.Expect(env.Env.GetAPIReader().Get(ctx, nsgKey, nsg)).To(Succeed())
		g.Expect(nsg.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "detach-on-delete"))
		g.Expect(nsg.Annotations).NotTo(HaveKey(aso.PrePauseAnnotation))
	}, timeout).Should(Succeed())
}

func TestReconcile_StatusMirror(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	desired := func() []aso.Resource {
		return []aso.Resource{resourceGroup("rg"), securityGroup("nsg-a"), securityGroup("nsg-b")}
	}
	reconcileUntilReady(ctx, g, e, owner, desired, options("c9"))

	expectState := func(name string, match OmegaMatcher) {
		g.Eventually(func(g Gomega) {
			result, err := e.Reconcile(ctx, owner, desired(), options("c9"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(result.Resource("NetworkSecurityGroup", name)).To(match)
		}, timeout).Should(Succeed())
	}
	sim.Fail("NetworkSecurityGroup", owner.Namespace, "nsg-a", "PropertyChangeNotAllowed", "the security group is broken")
	expectState("nsg-a", And(HaveField("Ready", false), HaveField("Reason", infrav1.FailedReason), HaveField("Message", "the security group is broken")))
	result, err := e.Reconcile(ctx, owner, desired(), options("c9"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Terminal()).To(BeTrue())
	g.Expect(result.FirstNotReady()).To(HaveField("Resource.Name", "nsg-a"))
	g.Expect(result.Conditions()).To(ContainElement(And(HaveField("Type", "SecurityGroupsReady"), HaveField("Status", metav1.ConditionFalse),
		HaveField("Reason", infrav1.FailedReason), HaveField("Message", "NetworkSecurityGroup nsg-a: the security group is broken"))))

	sim.Fail("NetworkSecurityGroup", owner.Namespace, "nsg-a", "ResourceGroupNotFound", "try again later")
	expectState("nsg-a", And(HaveField("Ready", false), HaveField("Reason", "ResourceGroupNotFound"), HaveField("Message", "try again later")))
	result, err = e.Reconcile(ctx, owner, desired(), options("c9"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Terminal()).To(BeFalse(), "a warning is transient")

	sim.StayReconciling("NetworkSecurityGroup", owner.Namespace, "nsg-b")
	expectState("nsg-b", And(HaveField("Ready", false), HaveField("Reason", infrav1.ProvisioningReason)))

	g.Expect(sim.Heal(ctx, "NetworkSecurityGroup", owner.Namespace, "nsg-a")).To(Succeed())
	g.Expect(sim.Heal(ctx, "NetworkSecurityGroup", owner.Namespace, "nsg-b")).To(Succeed())
	reconcileUntilReady(ctx, g, e, owner, desired, options("c9"))

	// A spec change that ASO has not processed yet is not ready, whatever the old condition says.
	sim.Lag("NetworkSecurityGroup", owner.Namespace, "nsg-b", time.Hour)
	opts := options("c9")
	opts.Patches = []aso.Patch{{Kind: "NetworkSecurityGroup", Name: "nsg-b", Source: "test", Format: patch.Merge, Text: `{"spec":{"tags":{"new":"generation"}}}`}}
	result, err = e.Reconcile(ctx, owner, desired(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Writes).To(Equal(1))
	g.Eventually(func(g Gomega) {
		result, err := e.Reconcile(ctx, owner, desired(), opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.Writes).To(BeZero())
		g.Expect(result.Resource("NetworkSecurityGroup", "nsg-b")).To(And(HaveField("Ready", false), HaveField("Reason", infrav1.ProvisioningReason),
			HaveField("Message", ContainSubstring("not yet processed generation"))))
	}, timeout).Should(Succeed())
}

// deleteAll runs Delete until nothing owned remains.
func deleteAll(ctx context.Context, g *WithT, e *aso.Engine, owner client.Object, opts aso.DeleteOptions) bool {
	var done bool
	g.Eventually(func(g Gomega) {
		var err error
		done, _, err = e.Delete(ctx, owner, opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(done).To(BeTrue())
	}, timeout, 100*time.Millisecond).Should(Succeed())
	return done
}

func TestReconcile_TakesOverHandedOverObjects(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)

	// The user's resource group, handed over to the provider.
	theirs := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "rg", Namespace: owner.Namespace, Annotations: map[string]string{aso.HandOverAnnotation: "true"}},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: "rg", Location: ptr.To("eastus")},
	}
	g.Expect(env.Env.Create(ctx, theirs)).To(Succeed())
	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }
	result := reconcileUntilReady(ctx, g, e, owner, desired, options("c9"))
	g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Management", infrav1.ResourceManaged))
	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
	g.Expect(metav1.GetControllerOf(live)).To(HaveField("UID", owner.UID))
	g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel))
	g.Expect(live.Spec.Tags).To(HaveKeyWithValue("a", "b"), "the owner's fields are applied")

	// An object another controller owns is never taken, annotation or not.
	other := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "rg2", Namespace: owner.Namespace, Annotations: map[string]string{aso.HandOverAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "someone", UID: "11111111-2222-3333-4444-555555555555", Controller: ptr.To(true)}}},
		Spec: asoresources.ResourceGroup_Spec{AzureName: "rg2", Location: ptr.To("westeurope")},
	}
	g.Expect(env.Env.Create(ctx, other)).To(Succeed())
	result, err := e.Reconcile(ctx, owner, []aso.Resource{resourceGroup("rg"), resourceGroup("rg2")}, options("c9"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(result.Resource("ResourceGroup", "rg2")).To(HaveField("Management", infrav1.ResourceExternallyManaged))
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(other), live)).To(Succeed())
	g.Expect(live.Spec.Location).To(HaveValue(Equal("westeurope")))
}

func TestReconcile_TakesOverFieldsOthersWrote(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)

	// A resource group CAPZ made for the same owner: created and updated by CAPZ's manager, which set a tag the
	// provider does not set; ASO's controller added an annotation of its own.
	capz := client.WithFieldOwner(env.Env, "manager")
	theirs := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{
			Name: "rg", Namespace: owner.Namespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true),
			}},
		},
		Spec: asoresources.ResourceGroup_Spec{AzureName: "rg", Location: ptr.To("eastus"), Tags: map[string]string{"a": "b", "capz-only": "x"}},
	}
	g.Expect(capz.Create(ctx, theirs)).To(Succeed())
	asoController := client.WithFieldOwner(env.Env, "aso-controller")
	before := theirs.DeepCopy()
	theirs.Annotations = map[string]string{"serviceoperator.azure.com/resource-id": "/subscriptions/s/resourceGroups/rg"}
	g.Expect(asoController.Patch(ctx, theirs, client.MergeFrom(before))).To(Succeed())

	desired := func() []aso.Resource { return []aso.Resource{resourceGroup("rg")} }
	result := reconcileUntilReady(ctx, g, e, owner, desired, options("c10"))
	g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Management", infrav1.ResourceManaged))
	live := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
	g.Expect(live.Labels).To(HaveKey(infrav1.OwnedByLabel))
	g.Expect(live.Spec.Tags).To(Equal(map[string]string{"a": "b"}), "the field only CAPZ set is dropped with the takeover")
	g.Expect(live.Annotations).To(HaveKey("serviceoperator.azure.com/resource-id"), "a manager that wrote no spec field keeps its fields")
	for _, m := range live.ManagedFields {
		g.Expect(m.Manager).NotTo(Equal("manager"), "CAPZ's manager owns nothing any more")
	}
}

// TestReconcile_NamespacePolicyDecidesNothing: ASO gives an object without a reconcile-policy of its own its
// namespace's. An administrator's skip or detach-on-delete on the cluster's namespace must neither keep the
// resources the provider manages from being made nor leave them in Azure once their owner goes: the engine states
// manage on every object it manages, as CAPZ does.
func TestReconcile_NamespacePolicyDecidesNothing(t *testing.T) {
	for _, policy := range []asoannotations.ReconcilePolicyValue{asoannotations.ReconcilePolicySkip, asoannotations.ReconcilePolicyDetachOnDelete} {
		t.Run(string(policy), func(t *testing.T) {
			g := NewWithT(t)
			ctx, owner := setup(t, g)
			ns := &corev1.Namespace{}
			g.Expect(env.Env.Get(ctx, client.ObjectKey{Name: owner.Namespace}, ns)).To(Succeed())
			ns.Annotations = map[string]string{asoannotations.ReconcilePolicy: string(policy)}
			g.Expect(env.Env.Update(ctx, ns)).To(Succeed())

			e := newEngine(t)
			name := "namespace-" + string(policy)
			desired := func() []aso.Resource { return []aso.Resource{resourceGroup(name)} }
			reconcileUntilReady(ctx, g, e, owner, desired, options("nspolicy"))
			id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", sim.SubscriptionID(), name)
			g.Expect(sim.ExistsInAzure(id)).To(BeTrue(), "made in Azure")

			deleteAll(ctx, g, e, owner, aso.DeleteOptions{ClusterName: "nspolicy", Kinds: allKinds, Order: [][]schema.GroupKind{{rgGVK.GroupKind()}}})
			g.Eventually(func() bool { return sim.ExistsInAzure(id) }, timeout).Should(BeFalse(), "deleted from Azure with its owner")
		})
	}
}
