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

package chaos

import (
	"context"
	"testing"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/cloudconfig"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/faults"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// upgradeVersion is the Kubernetes version the upgrade steps move to.
const upgradeVersion = "v1.35.0"

func resource(group, plural string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: plural}
}

var (
	subnets         = resource("network.azure.com", "virtualnetworkssubnets")
	virtualNetworks = resource("network.azure.com", "virtualnetworks")
	securityGroups  = resource("network.azure.com", "networksecuritygroups")
	nics            = resource("network.azure.com", "networkinterfaces")
	virtualMachines = resource("compute.azure.com", "virtualmachines")
	scaleSets       = resource("compute.azure.com", "virtualmachinescalesets")
	resourceGroups  = resource("resources.azure.com", "resourcegroups")
	secrets         = resource("", "secrets")
	managedClusters = resource("containerservice.azure.com", "managedclusters")
	agentPools      = resource("containerservice.azure.com", "managedclustersagentpools")

	// The provider's kinds.
	azureClusters                = resource(infrav1.GroupVersion.Group, "azureclusters")
	azureMachines                = resource(infrav1.GroupVersion.Group, "azuremachines")
	azureMachineTemplates        = resource(infrav1.GroupVersion.Group, "azuremachinetemplates")
	poolMachines                 = resource(infrav1exp.GroupVersion.Group, "azuremachinepoolmachines")
	azureManagedControlPlanes    = resource(infrav1.GroupVersion.Group, "azuremanagedcontrolplanes")
	azureManagedClusters         = resource(infrav1.GroupVersion.Group, "azuremanagedclusters")
	azureManagedMachinePools     = resource(infrav1.GroupVersion.Group, "azuremanagedmachinepools")
	azureASOManagedClusters      = resource(infrav1.GroupVersion.Group, "azureasomanagedclusters")
	azureASOManagedControlPlanes = resource(infrav1.GroupVersion.Group, "azureasomanagedcontrolplanes")
	azureASOManagedMachinePools  = resource(infrav1.GroupVersion.Group, "azureasomanagedmachinepools")
)

// selfManaged is the state of a self-managed cluster a step waits for.
type selfManaged struct {
	workers, instances int
	version            string
}

// TestFaults_SelfManaged runs a cluster of CAPZ's default flavor with a Flexible machine pool through its life
// while the provider's requests fail: the AzureCluster, AzureMachine, AzureMachineTemplate, AzureMachinePool and
// AzureMachinePoolMachine controllers, each in every operation of the matrix.
func TestFaults_SelfManaged(t *testing.T) {
	g := NewWithT(t)
	f := p.NewFixture(t, g, "faults")
	obs := observe(t, f.Namespace)
	obs.bring(t.Context(), g, f)
	runSteps(t, f, obs, selfManagedSteps(f))
}

// selfManagedSteps are the steps of TestFaults_SelfManaged.
func selfManagedSteps(f *plane.Fixture) []step {
	key := f.Key(f.ClusterName)
	want := selfManaged{workers: 2, instances: 1, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) { expectSelfManaged(ctx, g, f, want) }
	controlPlaneMachine := f.ClusterName + "-control-plane-0"
	template := f.ClusterName + "-md-0"
	pool := f.Key(f.ClusterName + "-mp-0")
	const (
		ac, am, amt = setup.AzureClusterController, setup.AzureMachineController, setup.AzureMachineTemplateController
		amp, ampm   = setup.AzureMachinePoolController, setup.AzureMachinePoolMachineController
	)
	return []step{
		{
			name: "create: subnets denied by a webhook, a NIC unavailable, the scale set conflicts, azure.json and pool machines' status unavailable",
			faults: []fault{
				{controller: ac, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: subnets, Fault: faults.Denied}, shows: &infrav1.AzureClusterList{}},
				{controller: am, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: nics, Name: controlPlaneMachine + "-nic", Fault: faults.Unavailable}, shows: &infrav1.AzureMachineList{}},
				{controller: amt, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: secrets, Name: cloudconfig.SecretName(template), Fault: faults.Unavailable}},
				{controller: amp, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: scaleSets, Fault: faults.Conflict}, shows: &infrav1exp.AzureMachinePoolList{}},
				statusWrites(ampm, opCreate, poolMachines, faults.Unavailable),
			},
			act: func(ctx context.Context, g *WithT) {
				f.Apply(ctx, g, "default-cluster.yaml")
				f.Apply(ctx, g, "machinepool.yaml")
			},
			converged: converged,
		},
		{
			name: "update: security groups conflict, the scale set denied, caches of machines, templates and pool machines cut",
			faults: append(append(append([]fault{
				{controller: ac, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: securityGroups, Fault: faults.Conflict}, shows: &infrav1.AzureClusterList{}},
				{controller: amp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: scaleSets, Fault: faults.Denied}, shows: &infrav1exp.AzureMachinePoolList{}},
			}, watches(am, opUpdate, azureMachines, false)...), watches(amt, opUpdate, azureMachineTemplates, false)...),
				watches(ampm, opUpdate, poolMachines, false)...),
			act: func(ctx context.Context, g *WithT) {
				patchObject(ctx, g, key, &infrav1.AzureCluster{}, func(o client.Object) {
					o.(*infrav1.AzureCluster).Spec.AdditionalTags = infrav1.Tags{"chaos": "update"}
				})
				patchObject(ctx, g, pool, &infrav1exp.AzureMachinePool{}, func(o client.Object) {
					o.(*infrav1exp.AzureMachinePool).Spec.AdditionalTags = infrav1.Tags{"chaos": "update"}
				})
			},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				nsgs := &asonetwork.NetworkSecurityGroupList{}
				g.Expect(env.Env.List(ctx, nsgs, client.InNamespace(f.Namespace))).To(Succeed())
				g.Expect(nsgs.Items).NotTo(BeEmpty())
				for _, nsg := range nsgs.Items {
					g.Expect(nsg.Spec.Tags).To(HaveKeyWithValue("chaos", "update"), "NetworkSecurityGroup %s", nsg.Name)
				}
				vmss := &asocompute.VirtualMachineScaleSet{}
				g.Expect(env.Env.Get(ctx, pool, vmss)).To(Succeed())
				g.Expect(vmss.Spec.Tags).To(HaveKeyWithValue("chaos", "update"), "VirtualMachineScaleSet %s", vmss.Name)
			},
		},
		{
			name: "scale a MachineDeployment up: network interfaces unavailable, caches of clusters and templates cut",
			faults: append(append([]fault{
				{controller: am, op: opScale, rule: faults.Rule{Verb: "patch", Resource: nics, Fault: faults.Unavailable}, shows: &infrav1.AzureMachineList{}},
			}, watches(ac, opScale, azureClusters, false)...), watches(amt, opScale, azureMachineTemplates, false)...),
			act: func(ctx context.Context, g *WithT) {
				want.workers = 3
				scaleMachineDeployment(ctx, g, f.Key(f.ClusterName+"-md-0"), 3)
			},
			converged: converged,
		},
		{
			name:   "scale a MachineDeployment down: VM deletion times out",
			faults: []fault{{controller: am, op: opScale, rule: faults.Rule{Verb: "delete", Resource: virtualMachines, Fault: faults.TimedOut}, shows: &infrav1.AzureMachineList{}}},
			act: func(ctx context.Context, g *WithT) {
				want.workers = 2
				scaleMachineDeployment(ctx, g, f.Key(f.ClusterName+"-md-0"), 2)
			},
			converged: converged,
		},
		{
			name: "scale a machine pool up: instances conflict, their status unavailable",
			faults: []fault{
				{controller: amp, op: opScale, rule: faults.Rule{Verb: "create", Resource: poolMachines, Fault: faults.Conflict}, shows: &infrav1exp.AzureMachinePoolList{}},
				statusWrites(ampm, opScale, poolMachines, faults.Unavailable),
			},
			act: func(ctx context.Context, g *WithT) {
				want.instances = 2
				patchObject(ctx, g, pool, &clusterv1.MachinePool{}, func(o client.Object) {
					o.(*clusterv1.MachinePool).Spec.Replicas = ptr.To[int32](2)
				})
			},
			converged: converged,
		},
		{
			name: "upgrade: bootstrap data throttled, pool machines cannot be listed nor watched",
			faults: append([]fault{
				{controller: am, op: opUpdate, rule: faults.Rule{Verb: "get", Resource: secrets, Fault: faults.Throttled}, shows: &infrav1.AzureMachineList{}},
			}, watches(amp, opUpdate, poolMachines, true)...),
			act: func(ctx context.Context, g *WithT) {
				want.version = upgradeVersion
				patchObject(ctx, g, f.Key(f.ClusterName+"-md-0"), &clusterv1.MachineDeployment{}, func(o client.Object) {
					o.(*clusterv1.MachineDeployment).Spec.Template.Spec.Version = upgradeVersion
				})
				patchObject(ctx, g, pool, &clusterv1.MachinePool{}, func(o client.Object) {
					o.(*clusterv1.MachinePool).Spec.Template.Spec.Version = upgradeVersion
				})
			},
			converged: converged,
		},
		{
			name: "pause for a move: the network and the scale set unavailable, machines' status conflicts, templates' cache cut",
			faults: append([]fault{
				{controller: ac, op: opPause, rule: faults.Rule{Verb: "patch", Resource: virtualNetworks, Fault: faults.Unavailable}, shows: &infrav1.AzureClusterList{}},
				{controller: amp, op: opPause, rule: faults.Rule{Verb: "patch", Resource: scaleSets, Fault: faults.Unavailable}, shows: &infrav1exp.AzureMachinePoolList{}},
				statusWrites(am, opPause, azureMachines, faults.Conflict),
				statusWrites(ampm, opPause, poolMachines, faults.Unavailable),
			}, watches(amt, opPause, azureMachineTemplates, false)...),
			act: func(ctx context.Context, g *WithT) {
				setPaused(ctx, g, key, true)
			},
			converged: func(ctx context.Context, g Gomega) {
				expectPausedForMove(ctx, g, f.Namespace)
			},
		},
		{
			name: "unpause: security groups denied, VMs not found where the cache has them",
			faults: []fault{
				{controller: ac, op: opPause, rule: faults.Rule{Verb: "patch", Resource: securityGroups, Fault: faults.Denied}, shows: &infrav1.AzureClusterList{}},
				{controller: am, op: opPause, rule: faults.Rule{Verb: "get", Resource: virtualMachines, Fault: faults.NotFound}},
			},
			act: func(ctx context.Context, g *WithT) {
				setPaused(ctx, g, key, false)
			},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				expectResumed(ctx, g, f.Namespace)
			},
		},
		{
			// The whole Cluster goes, with its resource group: the scale set is left to go with the group (a patch of
			// its object), not deleted on its own.
			name: "delete: the resource group conflicts, leaving the scale set to the group unavailable, machines' status unavailable, templates' cache cut",
			faults: append([]fault{
				{controller: ac, op: opDelete, rule: faults.Rule{Verb: "delete", Resource: resourceGroups, Fault: faults.Conflict}, shows: &infrav1.AzureClusterList{}},
				{controller: amp, op: opDelete, rule: faults.Rule{Verb: "patch", Resource: scaleSets, Fault: faults.Unavailable}, shows: &infrav1exp.AzureMachinePoolList{}},
				statusWrites(am, opDelete, azureMachines, faults.Unavailable),
				statusWrites(ampm, opDelete, poolMachines, faults.Unavailable),
			}, watches(amt, opDelete, azureMachineTemplates, false)...),
			act: func(ctx context.Context, g *WithT) {
				g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
			},
			converged: func(ctx context.Context, g Gomega) {
				expectDeleted(ctx, g, f, key, p.ResourceGroupID(f.ClusterName))
			},
		},
	}
}

// expectSelfManaged checks a self-managed cluster: the AzureCluster and every machine ready, the number of
// workers and pool instances, their version, and one VM and NIC per machine.
func expectSelfManaged(ctx context.Context, g Gomega, f *plane.Fixture, want selfManaged) {
	ac := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), ac)).To(Succeed())
	g.Expect(conditions.IsTrue(ac, clusterv1.ReadyCondition)).To(BeTrue(), "AzureCluster Ready: %+v", conditions.Get(ac, clusterv1.ReadyCondition))
	workers, instances := 0, 0
	for _, m := range plane.MachinesOf(ctx, g, f.Namespace, f.ClusterName) {
		g.Expect(m.DeletionTimestamp.IsZero()).To(BeTrue(), "Machine %s is being deleted", m.Name)
		var infra conditions.Getter
		switch m.Spec.InfrastructureRef.Kind {
		case "AzureMachinePoolMachine":
			instances++
			ampm := &infrav1exp.AzureMachinePoolMachine{}
			g.Expect(env.Env.Get(ctx, f.Key(m.Spec.InfrastructureRef.Name), ampm)).To(Succeed())
			g.Expect(ampm.Spec.Model).NotTo(BeNil())
			g.Expect(ampm.Spec.Model.Version).To(Equal(want.version), "AzureMachinePoolMachine %s", ampm.Name)
			infra = ampm
		default:
			am := &infrav1.AzureMachine{}
			g.Expect(env.Env.Get(ctx, f.Key(m.Spec.InfrastructureRef.Name), am)).To(Succeed())
			infra = am
			if _, controlPlane := m.Labels[clusterv1.MachineControlPlaneLabel]; !controlPlane {
				workers++
				g.Expect(m.Spec.Version).To(Equal(want.version), "Machine %s", m.Name)
			}
		}
		g.Expect(conditions.IsTrue(infra, clusterv1.ReadyCondition)).To(BeTrue(), "%s of Machine %s Ready: %+v",
			m.Spec.InfrastructureRef.Kind, m.Name, conditions.Get(infra, clusterv1.ReadyCondition))
	}
	g.Expect(workers).To(Equal(want.workers), "workers")
	g.Expect(instances).To(Equal(want.instances), "machine pool instances")
	expectNoDuplicates(ctx, g, f.Namespace, 1+want.workers+want.instances)
}

// expectPausedForMove checks what clusterctl move waits for: every ASO object skipped, and no owner blocking the
// move any longer.
func expectPausedForMove(ctx context.Context, g Gomega, namespace string) {
	for _, o := range listOwnedASO(ctx, g, namespace) {
		g.Expect(o.Object.GetAnnotations()).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)), "%s", o)
	}
	for _, list := range []client.ObjectList{&infrav1.AzureClusterList{}, &infrav1.AzureMachineList{}, &infrav1exp.AzureMachinePoolList{},
		&infrav1exp.AzureMachinePoolMachineList{}, &infrav1.AzureManagedControlPlaneList{}, &infrav1.AzureManagedMachinePoolList{},
		&infrav1.AzureASOManagedClusterList{}, &infrav1.AzureASOManagedControlPlaneList{}, &infrav1.AzureASOManagedMachinePoolList{}} {
		g.Expect(env.Env.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		g.Expect(blockingMove(list)).To(BeEmpty())
	}
}

// expectResumed checks that every ASO object of a namespace forgot its pause.
func expectResumed(ctx context.Context, g Gomega, namespace string) {
	for _, o := range listOwnedASO(ctx, g, namespace) {
		g.Expect(o.Object.GetAnnotations()).NotTo(HaveKey(aso.PrePauseAnnotation), "%s resumed", o)
	}
}

// expectDeleted checks a completed cluster delete: the Cluster gone, no ASO object left in the namespace but those
// the user brought, and the cluster's resource group deleted in Azure.
func expectDeleted(ctx context.Context, g Gomega, f *plane.Fixture, key client.ObjectKey, resourceGroupID string) {
	g.Expect(env.Env.GetAPIReader().Get(ctx, key, &clusterv1.Cluster{})).NotTo(Succeed(), "the Cluster is gone")
	g.Expect(listOwnedASO(ctx, g, f.Namespace)).To(BeEmpty())
	g.Expect(p.Sim.ExistsInAzure(resourceGroupID)).To(BeFalse())
}

// blockingMove lists the objects of a list that carry clusterctl's block-move annotation.
func blockingMove(list client.ObjectList) []string {
	var out []string
	items, _ := metaItems(list)
	for _, item := range items {
		if _, blocked := item.GetAnnotations()[clusterctlv1.BlockMoveAnnotation]; blocked {
			out = append(out, item.GetName())
		}
	}
	return out
}
