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

package e2e

import (
	"testing"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// TestE2E_ExternallyManagedInfrastructure runs a control plane Machine on an AzureCluster that another system
// manages (cluster.x-k8s.io/managed-by): Cluster API takes the infrastructure as the external system reports it,
// the provider creates nothing for the cluster, and deleting the Cluster deletes the machine's resources only.
func TestE2E_ExternallyManagedInfrastructure(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	f := p.NewFixture(t, g, "external")
	clusterKey := f.Key(f.ClusterName)

	// The external system's resource group and network exist in Azure before the cluster.
	group := p.ResourceGroupID(f.ClusterName)
	vnet := group + "/providers/Microsoft.Network/virtualNetworks/" + f.ClusterName + "-vnet"
	seeded := map[string]string{
		group:                                  "ResourceGroup",
		vnet:                                   "VirtualNetwork",
		vnet + "/subnets/control-plane-subnet": "VirtualNetworksSubnet",
		vnet + "/subnets/node-subnet":          "VirtualNetworksSubnet",
	}
	for id, kind := range seeded {
		p.Sim.SeedAzure(kind, id, map[string]string{"managed-by": "terraform"})
	}
	eventsBefore := len(p.Sim.Events())

	f.Apply(ctx, g, "externally-managed-cluster.yaml")

	// The external system reports the AzureCluster provisioned, with its API server endpoint.
	endpoint := clusterv1.APIEndpoint{Host: f.ClusterName + "-apiserver." + plane.Location + ".cloudapp.azure.com", Port: 6443}
	azureCluster := &infrav1.AzureCluster{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, clusterKey, azureCluster)).To(Succeed())
	base := azureCluster.DeepCopy()
	azureCluster.Spec.ControlPlaneEndpoint = endpoint
	g.Expect(env.Env.Patch(ctx, azureCluster, client.MergeFrom(base))).To(Succeed())
	base = azureCluster.DeepCopy()
	azureCluster.Status.Initialization.Provisioned = ptr.To(true)
	g.Expect(env.Env.Status().Patch(ctx, azureCluster, client.MergeFrom(base))).To(Succeed())

	// Cluster API takes the infrastructure as provisioned, with the external system's endpoint.
	cluster := &clusterv1.Cluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, clusterKey, cluster)).To(Succeed())
		g.Expect(cluster.Status.Initialization.InfrastructureProvisioned).To(HaveValue(BeTrue()))
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue(),
			"InfrastructureReady: %+v", conditions.Get(cluster, clusterv1.ClusterInfrastructureReadyCondition))
		g.Expect(cluster.Spec.ControlPlaneEndpoint).To(Equal(endpoint))
	}, plane.Timeout, plane.Interval).Should(Succeed())

	// The machine provisions in the external resource group and gets its Node.
	machineName := f.ClusterName + "-control-plane-0"
	g.Eventually(func(g Gomega) {
		m := &clusterv1.Machine{}
		g.Expect(env.Env.Get(ctx, f.Key(machineName), m)).To(Succeed())
		g.Expect(m.Spec.ProviderID).To(Equal(p.ProviderID(f.ClusterName, machineName)))
		g.Expect(m.Status.Addresses).To(ContainElement(HaveField("Type", clusterv1.MachineInternalIP)))
		g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue())
	}, plane.Timeout, plane.Interval).Should(Succeed())
	vm := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(ctx, f.Key(machineName), vm)).To(Succeed())
	g.Expect(vm.Spec.Owner).NotTo(BeNil())
	g.Expect(vm.Spec.Owner.ARMID).To(Equal(group), "the VM is owned by the resource group's ARM ID")

	// The provider did nothing for the cluster: every ASO object belongs to the machine, and the AzureCluster
	// carries none of the provider's finalizers or conditions.
	created := plane.ListASOObjects(ctx, g, f.Namespace)
	g.Expect(created).NotTo(BeEmpty())
	for _, o := range created {
		owner := metav1.GetControllerOf(o.Object)
		g.Expect(owner).NotTo(BeNil(), "%s has an owner", o)
		g.Expect(owner.Kind).To(Equal("AzureMachine"), "%s belongs to the machine", o)
	}
	t.Logf("ASO objects of cluster %s: %s", f.ClusterName, plane.CountByKind(created))
	g.Expect(env.Env.GetAPIReader().Get(ctx, clusterKey, azureCluster)).To(Succeed())
	g.Expect(azureCluster.Finalizers).To(BeEmpty())
	g.Expect(azureCluster.Status.Conditions).To(BeEmpty())

	// Deleting the Cluster deletes the machine's resources and nothing of the external system's.
	plane.DeleteCluster(ctx, g, clusterKey)
	g.Expect(plane.ListASOObjects(ctx, g, f.Namespace)).To(BeEmpty())
	createdInAzure := map[string]bool{}
	var deleted []string
	for _, e := range p.Sim.Events()[eventsBefore:] {
		switch e.Op {
		case "Create":
			createdInAzure[e.ID] = true
		case "Delete":
			deleted = append(deleted, e.ID)
		}
	}
	g.Expect(deleted).To(ContainElement(plane.ProviderIDToARMID(p.ProviderID(f.ClusterName, machineName))))
	for _, id := range deleted {
		g.Expect(createdInAzure).To(HaveKey(id), "only what the machine created is deleted")
	}
	for id := range seeded {
		g.Expect(p.Sim.Deleted()).NotTo(ContainElement(id))
		g.Expect(p.Sim.ExistsInAzure(id)).To(BeTrue(), "%s still exists", id)
	}
}
