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
	"context"
	"strings"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// clusterCAKey is where kubeadm's bootstrap data writes the cluster CA's key on a control plane VM.
const clusterCAKey = "/etc/kubernetes/pki/ca.key"

// TestE2E_DefaultCluster creates a cluster from CAPZ's default flavor (three control plane Machines, two
// workers) and deletes it, with Cluster API's reconcilers driving the provider.
func TestE2E_DefaultCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	start := time.Now()
	f := p.NewFixture(t, g, "default")
	clusterKey := f.Key(f.ClusterName)

	f.Apply(ctx, g, "default-cluster.yaml")

	// Cluster API mirrors the AzureCluster: provisioned, Ready, its endpoint and its failure domains.
	cluster := &clusterv1.Cluster{}
	azureCluster := &infrav1.AzureCluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, clusterKey, cluster)).To(Succeed())
		g.Expect(env.Env.Get(ctx, clusterKey, azureCluster)).To(Succeed())
		g.Expect(cluster.Status.Initialization.InfrastructureProvisioned).To(HaveValue(BeTrue()))
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue(),
			"InfrastructureReady: %+v", conditions.Get(cluster, clusterv1.ClusterInfrastructureReadyCondition))
		g.Expect(azureCluster.Spec.ControlPlaneEndpoint.IsValid()).To(BeTrue())
		g.Expect(cluster.Spec.ControlPlaneEndpoint).To(Equal(azureCluster.Spec.ControlPlaneEndpoint))
		g.Expect(cluster.Status.FailureDomains).To(Equal([]clusterv1.FailureDomain(azureCluster.Status.FailureDomains)))
	}, plane.Timeout, plane.Interval).Should(Succeed())
	g.Expect(cluster.Spec.ControlPlaneEndpoint.Host).To(Equal(infrav1.APIServerFQDN(azureCluster.Spec.SubscriptionID, azureCluster.Spec.ResourceGroup, infrav1.APIServerPublicIPName(f.ClusterName), f.ClusterName, plane.Location, infrav1.DefaultAzureCloud)))
	g.Expect(cluster.Spec.ControlPlaneEndpoint.Port).To(BeEquivalentTo(6443))
	g.Expect(cluster.Status.FailureDomains).To(ConsistOf(
		clusterv1.FailureDomain{Name: "1", ControlPlane: ptr.To(true)},
		clusterv1.FailureDomain{Name: "2", ControlPlane: ptr.To(true)},
		clusterv1.FailureDomain{Name: "3", ControlPlane: ptr.To(true)},
	))

	// The first control plane Machine's Node makes the control plane initialized; then the others join.
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, clusterKey, cluster)).To(Succeed())
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue(),
			"ControlPlaneInitialized: %+v", conditions.Get(cluster, clusterv1.ClusterControlPlaneInitializedCondition))
	}, plane.Timeout, plane.Interval).Should(Succeed())
	f.Apply(ctx, g, "default-cluster-control-plane-join.yaml")

	// Every Machine gets its VM's provider ID and addresses from its AzureMachine, and its Node.
	var machines []clusterv1.Machine
	azureMachines := map[string]*infrav1.AzureMachine{}
	g.Eventually(func(g Gomega) {
		machines = plane.MachinesOf(ctx, g, f.Namespace, f.ClusterName)
		g.Expect(machines).To(HaveLen(5))
		for _, m := range machines {
			am := &infrav1.AzureMachine{}
			g.Expect(env.Env.Get(ctx, f.Key(m.Spec.InfrastructureRef.Name), am)).To(Succeed())
			azureMachines[m.Name] = am
			g.Expect(m.Spec.ProviderID).To(Equal(p.ProviderID(f.ClusterName, am.Name)), "Machine %s", m.Name)
			g.Expect(am.Status.Addresses).To(ContainElement(HaveField("Type", clusterv1.MachineInternalIP)), "AzureMachine %s", am.Name)
			g.Expect(m.Status.Addresses).To(BeEquivalentTo(am.Status.Addresses), "Machine %s", m.Name)
			g.Expect(conditions.IsTrue(&m, clusterv1.MachineInfrastructureReadyCondition)).To(BeTrue(), "Machine %s", m.Name)
			g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue(), "Machine %s has a Node", m.Name)
		}
	}, plane.Timeout, plane.Interval).Should(Succeed())

	var controlPlane, workers int
	zones := map[string]string{}
	for _, m := range machines {
		// kubeadm's bootstrap data was written to a Secret and went to the VM while ASO created it.
		g.Expect(m.Spec.Bootstrap.DataSecretName).NotTo(BeNil(), "Machine %s", m.Name)
		data := &corev1.Secret{}
		g.Expect(env.Env.Get(ctx, f.Key(*m.Spec.Bootstrap.DataSecretName), data)).To(Succeed())
		g.Expect(data.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabel, f.ClusterName))
		g.Expect(data.Data).To(HaveKeyWithValue("format", BeEquivalentTo(bootstrapv1.CloudConfig)))
		g.Expect(data.OwnerReferences).To(ContainElement(HaveField("Kind", "KubeadmConfig")))
		customData, ok := f.CustomData.Get(azureMachines[m.Name].Name)
		g.Expect(ok).To(BeTrue(), "the VM of Machine %s was created with bootstrap data", m.Name)
		g.Expect(customData).To(Equal(data.Data["value"]), "Machine %s", m.Name)

		vm := &asocompute.VirtualMachine{}
		g.Expect(env.Env.Get(ctx, f.Key(azureMachines[m.Name].Name), vm)).To(Succeed())
		switch {
		case m.Name == f.ClusterName+"-control-plane-0":
			controlPlane++
			g.Expect(string(customData)).To(ContainSubstring("kubeadm init"))
		case util.IsControlPlaneMachine(&m):
			controlPlane++
			g.Expect(string(customData)).To(ContainSubstring("kubeadm join"))
			g.Expect(string(customData)).To(ContainSubstring(clusterCAKey), "a joining control plane gets the cluster CA")
		default:
			workers++
			g.Expect(string(customData)).To(ContainSubstring("kubeadm join"))
			g.Expect(string(customData)).NotTo(ContainSubstring(clusterCAKey), "a worker does not get the cluster CA's key")
		}
		// The Machine's failure domain is the VM's zone, and the Machine reports it back.
		if m.Spec.FailureDomain != "" {
			zones[m.Name] = m.Spec.FailureDomain
			g.Expect(vm.Spec.Zones).To(Equal([]string{m.Spec.FailureDomain}), "Machine %s", m.Name)
			g.Expect(m.Status.FailureDomain).To(Equal(m.Spec.FailureDomain), "Machine %s", m.Name)
		}
	}
	g.Expect(controlPlane).To(Equal(3))
	g.Expect(workers).To(Equal(2))
	g.Expect(zones).To(HaveLen(3), "the control plane Machines have failure domains")
	g.Expect(zones).To(ConsistOf("1", "2", "3"), "one control plane Machine per zone")

	// The bootstrap data leaves the VMs' specs once ASO has created them.
	g.Eventually(func(g Gomega) {
		vms := &asocompute.VirtualMachineList{}
		g.Expect(env.Env.List(ctx, vms, client.InNamespace(f.Namespace))).To(Succeed())
		g.Expect(vms.Items).To(HaveLen(5))
		for _, vm := range vms.Items {
			g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil(), "VirtualMachine %s", vm.Name)
		}
	}, plane.Timeout, plane.Interval).Should(Succeed())
	t.Logf("Cluster %s provisioned after %s", f.ClusterName, time.Since(start).Round(time.Second))

	created := plane.ListASOObjects(ctx, g, f.Namespace)
	g.Expect(created).NotTo(BeEmpty())
	t.Logf("ASO objects of cluster %s: %s", f.ClusterName, plane.CountByKind(created))

	// Deleting the Cluster deletes the Machines, then the AzureCluster; the owned resource group goes as a whole.
	start = time.Now()
	plane.DeleteCluster(ctx, g, clusterKey)
	t.Logf("Cluster %s deleted after %s", f.ClusterName, time.Since(start).Round(time.Second))
	// What went with the group has the group's object as its owner: the garbage collector deletes it after it.
	g.Eventually(func() []plane.ASOObject { return plane.ListASOObjects(ctx, g, f.Namespace) }, plane.Timeout, plane.Interval).Should(BeEmpty())
	for _, o := range created {
		err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(o.Object.DeepCopyObject().(client.Object)), o.Object.DeepCopyObject().(client.Object))
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s is deleted", o)
	}
	g.Expect(p.Sim.Deleted()).To(ContainElement(p.ResourceGroupID(f.ClusterName)))
	g.Expect(p.Sim.ExistsInAzure(p.ResourceGroupID(f.ClusterName))).To(BeFalse())
	// Cluster API deleted the Machines first; as CAPZ's, their resources and the cluster's went with the owned
	// resource group: its DELETE is the only one Azure received, and everything the cluster had is gone with it.
	groupID := p.ResourceGroupID(f.ClusterName)
	var deletedInGroup []string
	for _, e := range p.Sim.Events() {
		if e.Op == "Delete" && strings.HasPrefix(strings.ToLower(e.ID), strings.ToLower(groupID)+"/") {
			deletedInGroup = append(deletedInGroup, e.Kind+" "+e.ID)
		}
	}
	g.Expect(deletedInGroup).To(BeEmpty(), "no DELETE of a resource in the group: it goes with the group")
	vms := 0
	for _, o := range created {
		id := o.Object.GetAnnotations()[genruntime.ResourceIDAnnotation]
		g.Expect(id).NotTo(BeEmpty(), "%s was created in Azure", o)
		g.Expect(p.Sim.ExistsInAzure(id)).To(BeFalse(), "%s is gone from Azure", o)
		if o.Kind == "VirtualMachine" {
			vms++
		}
	}
	g.Expect(vms).To(Equal(5))
	g.Expect(plane.MachinesOf(context.Background(), g, f.Namespace, f.ClusterName)).To(BeEmpty())
}
