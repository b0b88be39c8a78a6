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

package azurecluster_test

import (
	"fmt"
	"testing"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_CAPZBroughtGroupAndNetworkSurviveSwitch switches a cluster CAPZ v1.26.0 built in a resource group and
// a virtual network the user brought (CAPZ's custom-vnet way: the network in a resource group of its own). CAPZ made
// ASO objects for the group, the network and its subnets, controlled by the AzureCluster, and kept them at
// reconcile-policy skip because they existed before it. Under the provider they stay referenced, ASO never writes
// them, and deleting the cluster leaves them in Azure. CAPZ writes the network's id and tags into the AzureCluster;
// without them the network is adoptable, and the engine must find it is the user's from CAPZ's object.
func TestReconcile_CAPZBroughtGroupAndNetworkSurviveSwitch(t *testing.T) {
	for i, withID := range []bool{true, false} {
		t.Run(fmt.Sprintf("network id in the spec: %v", withID), func(t *testing.T) {
			g := NewWithT(t)
			sub := sim.SubscriptionID()
			group := fmt.Sprintf("switch-byo-rg-%d", i)
			groupID := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", sub, group)
			networkGroupID := fmt.Sprintf("/subscriptions/%s/resourceGroups/switch-net-rg-%d", sub, i)
			vnetID := networkGroupID + "/providers/Microsoft.Network/virtualNetworks/custom-vnet"
			users := map[string]string{"owner": "platform-team"}
			sim.SeedAzure("ResourceGroup", groupID, users)
			sim.SeedAzure("ResourceGroup", networkGroupID, users)
			sim.SeedAzure("VirtualNetwork", vnetID, users)
			subnetIDs := []string{vnetID + "/subnets/custom-vnet-controlplane-subnet", vnetID + "/subnets/custom-vnet-node-subnet"}
			for _, id := range subnetIDs {
				sim.SeedAzure("VirtualNetworksSubnet", id, nil)
			}

			spec := baseSpec()
			spec.SubscriptionID = sub
			spec.ResourceGroup = group
			spec.NetworkSpec.Vnet = infrav1.VnetSpec{Name: "custom-vnet", ResourceGroup: fmt.Sprintf("switch-net-rg-%d", i),
				VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/16"}}}
			if withID {
				spec.NetworkSpec.Vnet.ID = vnetID
				spec.NetworkSpec.Vnet.Tags = users
			}
			spec.NetworkSpec.Subnets = infrav1.Subnets{
				{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "custom-vnet-controlplane-subnet", Role: infrav1.SubnetControlPlane, CIDRBlocks: []string{"10.0.0.0/24"}}},
				{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "custom-vnet-node-subnet", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.0.1.0/24"}}},
			}
			// Paused while "CAPZ" builds: the provider touches nothing of the cluster yet.
			name := fmt.Sprintf("switch-byo-%d", i)
			ctx, _, ac := newCluster(t, g, name, spec, map[string]string{clusterv1.PausedAnnotation: ""})

			// CAPZ's objects for the group, the network and its subnets: created by its manager (updates),
			// controlled by the AzureCluster, at skip, without the provider's labels or records.
			capz := client.WithFieldOwner(env.Env, "manager")
			c := azure.Cluster{Name: name, SubscriptionID: sub, Location: "eastus", ResourceGroup: group}
			specWithID := spec.NetworkSpec
			specWithID.Vnet.ID = vnetID
			all := network.ClusterResources(network.ClusterInput{Cluster: c, Network: specWithID, VNet: network.VNetUsers})
			var theirs []client.Object
			for _, family := range []string{network.FamilyResourceGroup, network.FamilyVNet, network.FamilySubnets} {
				for _, r := range azure.OfFamily(all, family) {
					obj, ok := r.Object.(client.Object)
					g.Expect(ok).To(BeTrue())
					obj.SetNamespace(ac.Namespace)
					obj.SetLabels(map[string]string{clusterv1.ClusterNameLabel: name})
					obj.SetAnnotations(map[string]string{asoannotations.ReconcilePolicy: "skip"})
					obj.SetOwnerReferences([]metav1.OwnerReference{{
						APIVersion: infrav1.GroupVersion.String(), Kind: "AzureCluster", Name: ac.Name, UID: ac.UID,
						Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
					}})
					g.Expect(capz.Create(ctx, obj)).To(Succeed())
					theirs = append(theirs, obj)
				}
			}
			g.Expect(theirs).To(HaveLen(4))
			g.Eventually(func(g Gomega) {
				for _, obj := range theirs {
					g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
					g.Expect(readyStatus(g, obj)).To(Equal("True"), "ASO read %s", obj.GetName())
				}
			}, timeout).Should(Succeed())

			// The switch: the provider takes over.
			before := len(sim.Events())
			live := &infrav1.AzureCluster{}
			g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
			unpaused := live.DeepCopy()
			delete(unpaused.Annotations, clusterv1.PausedAnnotation)
			g.Expect(env.Env.Patch(ctx, unpaused, client.MergeFrom(live))).To(Succeed())
			ready := waitReady(ctx, g, ac)

			for _, obj := range theirs {
				g.Eventually(func(g Gomega) {
					g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
					g.Expect(obj.GetLabels()).To(HaveKey(infrav1.OwnedByLabel), "the provider applied %s", obj.GetName())
				}, timeout).Should(Succeed())
				g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"), obj.GetName())
				g.Expect(aso.IsManaged(obj, ac)).To(BeFalse(), obj.GetName())
			}
			g.Expect(theirs[0].GetAnnotations()).To(HaveKeyWithValue(aso.AdoptionAnnotation, "referenced"), "the brought group")
			for _, r := range ready.Status.Resources {
				switch r.Resource.Kind {
				case "ResourceGroup", "VirtualNetwork", "VirtualNetworksSubnet":
					g.Expect(r.Management).To(Equal(infrav1.ResourceReferenced), r.Resource.Name)
				}
			}

			g.Expect(env.Env.Delete(ctx, ac)).To(Succeed())
			g.Eventually(func() bool {
				return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), &infrav1.AzureCluster{}))
			}, timeout).Should(BeTrue())
			for _, id := range append([]string{groupID, networkGroupID, vnetID}, subnetIDs...) {
				g.Expect(sim.ExistsInAzure(id)).To(BeTrue(), "%s survives the cluster", id)
			}
			for _, e := range sim.Events()[before:] {
				g.Expect(e.ID).NotTo(BeElementOf(groupID, networkGroupID), "ASO never wrote the brought group: %s %s", e.Op, e.ID)
				g.Expect(e.ID).NotTo(HavePrefix(vnetID), "nothing in the brought network was touched: %s %s", e.Op, e.ID)
			}
		})
	}
}

// readyStatus is the status of an ASO object's Ready condition, "" without one.
func readyStatus(g Gomega, obj client.Object) string {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	g.Expect(err).NotTo(HaveOccurred())
	conditions, _, _ := unstructured.NestedSlice(u, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			status, _ := m["status"].(string)
			return status
		}
	}
	return ""
}
