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

package azuremachinepool_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/labels/format"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepool"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
)

const (
	timeout           = 90 * time.Second
	interval          = 100 * time.Millisecond
	kubernetesVersion = "v1.34.1"
)

// fixture is a Cluster whose infrastructure an external system provisioned (an AzureCluster with
// cluster.x-k8s.io/managed-by), reachable through its kubeconfig Secret at the workload API server, with a
// bootstrap data Secret for its MachinePools.
type fixture struct {
	ctx       context.Context
	namespace string
	cluster   *clusterv1.Cluster
	// bootstrapSecret is the MachinePools' bootstrap data Secret.
	bootstrapSecret string
	// bootstrapConfig, when set, is the KubeadmConfig newPool's MachinePools use instead of bootstrapSecret.
	bootstrapConfig string
	// poolAnnotations, when set, are the annotations of newPool's AzureMachinePools.
	poolAnnotations map[string]string
	// resourceGroup is the cluster's resource group: the Cluster's name.
	resourceGroup string
}

func newFixture(t *testing.T, g *WithT) *fixture {
	t.Helper()
	return newFixtureWithBootstrapData(t, g, []byte("#cloud-config\nruncmd: [kubeadm join]\n"))
}

// newFixtureWithBootstrapData is newFixture with this bootstrap data in the MachinePools' bootstrap data Secret.
func newFixtureWithBootstrapData(t *testing.T, g *WithT, bootstrapData []byte) *fixture {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "azuremachinepool")
	g.Expect(err).NotTo(HaveOccurred())
	// Names are unique across tests: the simulated Azure is shared, and so is the workload cluster.
	name := "mp-" + util.RandomString(6)
	f := &fixture{ctx: ctx, namespace: ns.Name, bootstrapSecret: name + "-bootstrap", resourceGroup: name}

	kubeconfig := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secret.Name(name, secret.Kubeconfig), Namespace: ns.Name, Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
		Type:       clusterv1.ClusterSecretType,
		Data:       map[string][]byte{secret.KubeconfigDataName: workload.KubeConfig},
	}
	g.Expect(env.Env.Create(ctx, kubeconfig)).To(Succeed())
	bootstrap := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: f.bootstrapSecret, Namespace: ns.Name, Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
		Data:       map[string][]byte{"value": bootstrapData, "format": []byte("cloud-config")},
	}
	g.Expect(env.Env.Create(ctx, bootstrap)).To(Succeed())

	ac := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name, Annotations: map[string]string{clusterv1.ManagedByAnnotation: "test"}},
		Spec: infrav1.AzureClusterSpec{
			AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus", SubscriptionID: sim.SubscriptionID()},
			ControlPlaneEndpoint:  clusterv1.APIEndpoint{Host: name + ".eastus.cloudapp.azure.com", Port: 6443},
		},
	}
	g.Expect(env.Env.Create(ctx, ac)).To(Succeed())
	ac.Status.Initialization.Provisioned = ptr.To(true)
	g.Expect(env.Env.Status().Update(ctx, ac)).To(Succeed())
	f.cluster = &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: name,
		}},
	}
	g.Expect(env.Env.Create(ctx, f.cluster)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(f.cluster), f.cluster)).To(Succeed())
		g.Expect(f.cluster.Status.Initialization.InfrastructureProvisioned).To(HaveValue(BeTrue()))
	}, timeout, interval).Should(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), f.cluster, ac, kubeconfig, bootstrap) })
	return f
}

// newPool creates a MachinePool of replicas instances over zones 1 to 3 and its AzureMachinePool, as a user does.
func (f *fixture) newPool(t *testing.T, g *WithT, name string, mode infrav1exp.OrchestrationModeType, replicas int32, mutate func(*infrav1exp.AzureMachinePoolSpec)) (*clusterv1.MachinePool, *infrav1exp.AzureMachinePool) {
	t.Helper()
	amp := &infrav1exp.AzureMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace, Annotations: maps.Clone(f.poolAnnotations)},
		Spec: infrav1exp.AzureMachinePoolSpec{
			Location: "eastus", OrchestrationMode: mode,
			Template: infrav1exp.AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3"},
		},
	}
	if mutate != nil {
		mutate(&amp.Spec)
	}
	g.Expect(env.Env.Create(f.ctx, amp)).To(Succeed())
	bootstrap := clusterv1.Bootstrap{DataSecretName: ptr.To(f.bootstrapSecret)}
	if f.bootstrapConfig != "" {
		bootstrap = clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: f.bootstrapConfig,
		}}
	}
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName:    f.cluster.Name,
			Replicas:       ptr.To(replicas),
			FailureDomains: []string{"1", "2", "3"},
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName:       f.cluster.Name,
				Version:           kubernetesVersion,
				Bootstrap:         bootstrap,
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1exp.GroupVersion.Group, Kind: "AzureMachinePool", Name: name},
			}},
		},
	}
	g.Expect(env.Env.Create(f.ctx, mp)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), mp) })
	return mp, amp
}

// scale sets a MachinePool's replicas, as a user (or an autoscaler) does.
func (f *fixture) scale(g *WithT, mp *clusterv1.MachinePool, replicas int32) {
	g.Eventually(func() error {
		live := &clusterv1.MachinePool{}
		if err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(mp), live); err != nil {
			return err
		}
		live.Spec.Replicas = ptr.To(replicas)
		return env.Env.Update(f.ctx, live)
	}, timeout, interval).Should(Succeed())
}

// changePool changes an AzureMachinePool's spec, as a user does.
func (f *fixture) changePool(g *WithT, amp *infrav1exp.AzureMachinePool, change func(*infrav1exp.AzureMachinePoolSpec)) {
	g.Eventually(func() error {
		live := &infrav1exp.AzureMachinePool{}
		if err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live); err != nil {
			return err
		}
		change(&live.Spec)
		return env.Env.Update(f.ctx, live)
	}, timeout, interval).Should(Succeed())
}

// replicas lists a pool's AzureMachinePoolMachines, sorted by name, from the API server.
func (f *fixture) replicas(g Gomega, mp *clusterv1.MachinePool) []infrav1exp.AzureMachinePoolMachine {
	list := &infrav1exp.AzureMachinePoolMachineList{}
	g.Expect(env.Env.GetAPIReader().List(f.ctx, list, client.InNamespace(f.namespace),
		client.MatchingLabels{clusterv1.MachinePoolNameLabel: format.MustFormatValue(mp.Name)})).To(Succeed())
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

// machines lists a pool's Machines by name, from the API server.
func (f *fixture) machines(g Gomega, mp *clusterv1.MachinePool) map[string]clusterv1.Machine {
	list := &clusterv1.MachineList{}
	g.Expect(env.Env.GetAPIReader().List(f.ctx, list, client.InNamespace(f.namespace),
		client.MatchingLabels{clusterv1.MachinePoolNameLabel: format.MustFormatValue(mp.Name)})).To(Succeed())
	out := map[string]clusterv1.Machine{}
	for _, m := range list.Items {
		out[m.Name] = m
	}
	return out
}

// asoNames lists the names of a kind's ASO objects in the test's namespace, sorted, from the API server.
func asoNames[L client.ObjectList](g Gomega, f *fixture, list L) []string {
	g.Expect(env.Env.GetAPIReader().List(f.ctx, list, client.InNamespace(f.namespace))).To(Succeed())
	var names []string
	switch l := any(list).(type) {
	case *asocompute.VirtualMachineList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	case *asocompute.VirtualMachineScaleSetList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	case *asonetwork.NetworkInterfaceList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	case *asocompute.VirtualMachinesExtensionList:
		for _, o := range l.Items {
			names = append(names, o.Name)
		}
	}
	sort.Strings(names)
	return names
}

// waitPoolReady waits until the pool is provisioned and Ready with this many instances.
func (f *fixture) waitPoolReady(g *WithT, amp *infrav1exp.AzureMachinePool, replicas int32) *infrav1exp.AzureMachinePool {
	live := &infrav1exp.AzureMachinePool{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
		g.Expect(live.Status.Ready).To(BeTrue())
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
		g.Expect(live.Status.Replicas).To(Equal(replicas))
		g.Expect(live.Status.ObservedGeneration).To(Equal(live.Generation))
	}, timeout, interval).Should(Succeed())
	return live
}

func vmID(f *fixture, name string) string {
	return azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeVirtualMachine, name)
}

// TestFlexible_BootstrapDataLater: the instances of a pool made before its bootstrap provider wrote the data wait
// for it, and go on as soon as the MachinePool names the Secret (the instances watch their MachinePool).
func TestFlexible_BootstrapDataLater(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	// A KubeadmConfig that never produces data: the Cluster has no control plane.
	config := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: f.namespace}}
	g.Expect(env.Env.Create(f.ctx, config)).To(Succeed())
	f.bootstrapConfig = config.Name
	mp, amp := f.newPool(t, g, "late", infrav1exp.FlexibleOrchestrationMode, 1, nil)
	g.Eventually(func(g Gomega) {
		replicas := f.replicas(g, mp)
		g.Expect(replicas).To(HaveLen(1))
		ready := conditions.Get(&replicas[0], clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(infrav1.WaitingForBootstrapDataReason))
	}, timeout, interval).Should(Succeed())
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineList{})).To(BeEmpty(), "no VM without its bootstrap data")

	// What Cluster API does once the bootstrap provider reports its Secret.
	g.Eventually(func() error {
		live := &clusterv1.MachinePool{}
		if err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(mp), live); err != nil {
			return err
		}
		live.Spec.Template.Spec.Bootstrap.DataSecretName = ptr.To(f.bootstrapSecret)
		return env.Env.Update(f.ctx, live)
	}, timeout, interval).Should(Succeed())
	f.waitPoolReady(g, amp, 1)
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineList{})).To(HaveLen(1))
}

func TestFlexible_ScaleAndDelete(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	// Another pool of the cluster, and an ASO object nobody owns: deleting the first pool must leave them alone.
	_, other := f.newPool(t, g, "other", infrav1exp.FlexibleOrchestrationMode, 1, nil)
	bystander := &asocompute.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "bystander", Namespace: f.namespace},
		Spec: asocompute.VirtualMachine_Spec{
			AzureName: "bystander", Location: ptr.To("eastus"),
			Owner: &genruntime.KnownResourceReference{ARMID: azure.ResourceGroupID(sim.SubscriptionID(), f.resourceGroup)},
		},
	}
	g.Expect(env.Env.Create(f.ctx, bystander)).To(Succeed())

	mp, amp := f.newPool(t, g, "flex", infrav1exp.FlexibleOrchestrationMode, 0, nil)
	live := f.waitPoolReady(g, amp, 0)
	g.Expect(live.Status.InfrastructureMachineKind).To(Equal(infrav1exp.AzureMachinePoolMachineKind))
	g.Expect(live.Spec.ProviderID).To(Equal("azure://" + azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "flex")))
	vmss := &asocompute.VirtualMachineScaleSet{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "flex"}, vmss)).To(Succeed())
	g.Expect(vmss.Spec.OrchestrationMode).To(HaveValue(Equal(asocompute.OrchestrationMode_Flexible)))
	g.Expect(vmss.Spec.Zones).To(Equal([]string{"1", "2", "3"}))
	g.Expect(f.replicas(g, mp)).To(BeEmpty())

	// 0 → 3: three instances, one per zone, each with a VM in the scale set, a Machine and a provider ID.
	f.scale(g, mp, 3)
	live = f.waitPoolReady(g, amp, 3)
	var names, providerIDs []string
	g.Eventually(func(g Gomega) {
		replicas := f.replicas(g, mp)
		g.Expect(replicas).To(HaveLen(3))
		machines := f.machines(g, mp)
		names, providerIDs = nil, nil
		zones := map[string]bool{}
		for _, m := range replicas {
			g.Expect(m.Name).To(HavePrefix("flex-"))
			g.Expect(conditions.IsTrue(&m, clusterv1.ReadyCondition)).To(BeTrue())
			g.Expect(m.Spec.ProviderID).To(Equal("azure://" + vmID(f, m.Name)))
			machine, ok := machines[m.Name]
			g.Expect(ok).To(BeTrue(), "Cluster API makes a Machine named after each instance")
			g.Expect(machine.Spec.ProviderID).To(Equal(m.Spec.ProviderID))
			g.Expect(machine.Spec.InfrastructureRef.Name).To(Equal(m.Name))
			g.Expect(metav1.IsControlledBy(&m, &machine)).To(BeTrue(), "the Machine controls its AzureMachinePoolMachine")
			vm := &asocompute.VirtualMachine{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: m.Name}, vm)).To(Succeed())
			g.Expect("azure://" + ptr.Deref(vm.Status.Id, "")).To(Equal(m.Spec.ProviderID))
			g.Expect(vm.Spec.VirtualMachineScaleSet.Reference.Name).To(Equal("flex"))
			g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil(), "the bootstrap data goes once ASO has created the VM")
			g.Expect(vm.Spec.Zones).To(HaveLen(1))
			zones[vm.Spec.Zones[0]] = true
			names = append(names, m.Name)
			providerIDs = append(providerIDs, m.Spec.ProviderID)
		}
		g.Expect(zones).To(HaveLen(3), "one instance per zone")
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(live.Spec.ProviderIDList).To(Equal(providerIDs))
		pool := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(mp), pool)).To(Succeed())
		g.Expect(pool.Spec.ProviderIDList).To(Equal(providerIDs), "Cluster API takes the provider IDs")
		g.Expect(pool.Status.Replicas).To(HaveValue(Equal(int32(3))))
	}, timeout, interval).Should(Succeed())

	// 3 → 1: the two Machines marked for deletion go, whatever the delete policy says.
	for _, name := range names[:2] {
		machine := &clusterv1.Machine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: name}, machine)).To(Succeed())
		base := machine.DeepCopy()
		if machine.Annotations == nil {
			machine.Annotations = map[string]string{}
		}
		machine.Annotations[clusterv1.DeleteMachineAnnotation] = ""
		g.Expect(env.Env.Patch(f.ctx, machine, client.MergeFrom(base))).To(Succeed())
	}
	f.scale(g, mp, 1)
	g.Eventually(func(g Gomega) {
		var left []string
		for _, m := range f.replicas(g, mp) {
			left = append(left, m.Name)
		}
		g.Expect(left).To(Equal(names[2:]))
		g.Expect(f.machines(g, mp)).To(HaveLen(1))
		g.Expect(asoNames(g, f, &asocompute.VirtualMachineList{})).To(ConsistOf("bystander", names[2], HavePrefix("other-")))
	}, timeout, interval).Should(Succeed())
	live = f.waitPoolReady(g, amp, 1)
	g.Expect(live.Spec.ProviderIDList).To(Equal(providerIDs[2:]))
	for _, name := range names[:2] {
		g.Expect(sim.Deleted()).To(ContainElement(vmID(f, name)))
	}

	// Deleting a Machine (as a MachineHealthCheck does) deletes its VM, and a new instance replaces it.
	g.Expect(env.Env.Delete(f.ctx, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: f.namespace, Name: names[2]}})).To(Succeed())
	g.Eventually(func(g Gomega) {
		replicas := f.replicas(g, mp)
		g.Expect(replicas).To(HaveLen(1))
		g.Expect(replicas[0].Name).NotTo(Equal(names[2]))
		g.Expect(conditions.IsTrue(&replicas[0], clusterv1.ReadyCondition)).To(BeTrue())
		g.Expect(f.machines(g, mp)).To(HaveKey(replicas[0].Name))
		g.Expect(sim.Deleted()).To(ContainElement(vmID(f, names[2])))
	}, timeout, interval).Should(Succeed())
	f.waitPoolReady(g, amp, 1)

	// Deleting the MachinePool deletes the pool's instances and scale set, and nothing else.
	g.Expect(env.Env.Delete(f.ctx, mp)).To(Succeed())
	g.Eventually(func(g Gomega) {
		err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(mp), &clusterv1.MachinePool{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the MachinePool is gone: %v", err)
		g.Expect(f.replicas(g, mp)).To(BeEmpty())
		g.Expect(f.machines(g, mp)).To(BeEmpty())
	}, timeout, interval).Should(Succeed())
	g.Expect(apierrors.IsNotFound(env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), &infrav1exp.AzureMachinePool{}))).To(BeTrue())
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineScaleSetList{})).To(Equal([]string{"other"}))
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineList{})).To(ConsistOf("bystander", HavePrefix("other-")))
	for _, name := range asoNames(g, f, &asonetwork.NetworkInterfaceList{}) {
		g.Expect(name).To(HavePrefix("other-"))
	}
	for _, name := range asoNames(g, f, &asocompute.VirtualMachinesExtensionList{}) {
		g.Expect(name).To(HavePrefix("other-"))
	}
	g.Expect(sim.Deleted()).To(ContainElement(azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "flex")))
	g.Expect(sim.Deleted()).NotTo(ContainElement(vmID(f, "bystander")))
	g.Expect(sim.Deleted()).NotTo(ContainElement(azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "other")))
	f.waitPoolReady(g, other, 1)
}

// rolloutRecorder watches a pool's AzureMachinePoolMachines and records, over every state the API server went
// through, the most instances that existed (deleting ones included) and the fewest that were ready (and not
// deleting), and what the instances that were not ready said then.
type rolloutRecorder struct {
	mu       sync.Mutex
	objects  map[string]*infrav1exp.AzureMachinePoolMachine
	maxTotal int
	minReady int
	// atMinReady describes the instances that were not ready when the fewest were.
	atMinReady string
	stop       func()
}

func recordRollout(t *testing.T, g *WithT, f *fixture, mp *clusterv1.MachinePool) *rolloutRecorder {
	t.Helper()
	wc, err := client.NewWithWatch(env.Env.Config, client.Options{Scheme: env.Env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	list := &infrav1exp.AzureMachinePoolMachineList{}
	selector := client.MatchingLabels{clusterv1.MachinePoolNameLabel: format.MustFormatValue(mp.Name)}
	g.Expect(wc.List(f.ctx, list, client.InNamespace(f.namespace), selector)).To(Succeed())
	r := &rolloutRecorder{objects: map[string]*infrav1exp.AzureMachinePoolMachine{}}
	for i := range list.Items {
		r.objects[list.Items[i].Name] = &list.Items[i]
	}
	r.maxTotal, r.minReady = r.counts()
	r.atMinReady = r.notReady()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := wc.Watch(ctx, &infrav1exp.AzureMachinePoolMachineList{}, client.InNamespace(f.namespace), selector,
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	g.Expect(err).NotTo(HaveOccurred())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for event := range w.ResultChan() {
			m, ok := event.Object.(*infrav1exp.AzureMachinePoolMachine)
			if !ok {
				continue
			}
			r.mu.Lock()
			if event.Type == watch.Deleted {
				delete(r.objects, m.Name)
			} else {
				r.objects[m.Name] = m
			}
			total, ready := r.counts()
			if ready < r.minReady {
				r.atMinReady = r.notReady()
			}
			r.maxTotal, r.minReady = max(r.maxTotal, total), min(r.minReady, ready)
			r.mu.Unlock()
		}
	}()
	r.stop = func() {
		cancel()
		w.Stop()
		<-done
	}
	t.Cleanup(r.stop)
	return r
}

func (r *rolloutRecorder) counts() (total, ready int) {
	for _, m := range r.objects {
		total++
		if m.DeletionTimestamp.IsZero() && conditions.IsTrue(m, clusterv1.ReadyCondition) {
			ready++
		}
	}
	return total, ready
}

// notReady describes the instances that are deleting or not ready, with their Ready condition.
func (r *rolloutRecorder) notReady() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(r.objects)) {
		m := r.objects[name]
		ready := conditions.Get(m, clusterv1.ReadyCondition)
		switch {
		case !m.DeletionTimestamp.IsZero():
			out = append(out, name+" deleting")
		case ready == nil:
			out = append(out, name+" without Ready")
		case ready.Status != metav1.ConditionTrue:
			out = append(out, fmt.Sprintf("%s Ready %s %s: %s", name, ready.Status, ready.Reason, ready.Message))
		}
	}
	return strings.Join(out, "; ")
}

func (r *rolloutRecorder) result() (maxTotal, minReady int, atMinReady string) {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxTotal, r.minReady, r.atMinReady
}

// waitRolledOut waits until the pool has replicas instances, all ready and of a VM size.
func (f *fixture) waitRolledOut(g *WithT, mp *clusterv1.MachinePool, amp *infrav1exp.AzureMachinePool, replicas int, vmSize string) {
	g.Eventually(func(g Gomega) {
		instances := f.replicas(g, mp)
		g.Expect(instances).To(HaveLen(replicas))
		for _, m := range instances {
			g.Expect(m.Spec.Model.Template.VMSize).To(Equal(vmSize))
			g.Expect(conditions.IsTrue(&m, clusterv1.ReadyCondition)).To(BeTrue())
			g.Expect(m.Status.LatestModelApplied).To(BeTrue())
			vm := &asocompute.VirtualMachine{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: m.Name}, vm)).To(Succeed())
			g.Expect(vm.Spec.HardwareProfile.VmSize).To(HaveValue(Equal(vmSize)))
		}
		g.Expect(f.machines(g, mp)).To(HaveLen(replicas))
	}, timeout, interval).Should(Succeed())
	f.waitPoolReady(g, amp, int32(replicas))
}

func TestFlexible_RollingUpdate(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	mp, amp := f.newPool(t, g, "roll", infrav1exp.FlexibleOrchestrationMode, 3, nil)
	f.waitRolledOut(g, mp, amp, 3, "Standard_D2s_v3")
	var before []string
	for _, m := range f.replicas(g, mp) {
		before = append(before, m.Name)
	}

	// The default strategy: one instance above the desired count, none unavailable.
	rec := recordRollout(t, g, f, mp)
	f.changePool(g, amp, func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.VMSize = "Standard_D4s_v3" })
	f.waitRolledOut(g, mp, amp, 3, "Standard_D4s_v3")
	maxTotal, minReady, atMinReady := rec.result()
	g.Expect(maxTotal).To(Equal(4), "maxSurge 1: a fourth instance, never a fifth")
	g.Expect(minReady).To(Equal(3), "maxUnavailable 0; not ready then: %s", atMinReady)
	for _, m := range f.replicas(g, mp) {
		g.Expect(before).NotTo(ContainElement(m.Name), "every instance was replaced")
	}

	// No surge, one instance unavailable at a time.
	f.changePool(g, amp, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		s.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	})
	// A strategy change is no model change: nothing rolls.
	f.waitPoolReady(g, amp, 3)
	g.Consistently(func(g Gomega) { g.Expect(f.replicas(g, mp)).To(HaveLen(3)) }, 2*time.Second, interval).Should(Succeed())
	rec = recordRollout(t, g, f, mp)
	f.changePool(g, amp, func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.VMSize = "Standard_D8s_v3" })
	f.waitRolledOut(g, mp, amp, 3, "Standard_D8s_v3")
	maxTotal, minReady, atMinReady = rec.result()
	g.Expect(maxTotal).To(Equal(3), "maxSurge 0")
	g.Expect(minReady).To(Equal(2), "maxUnavailable 1: one instance replaced at a time; not ready then: %s", atMinReady)
}

// workloadNode registers a ready Node in the workload cluster, as kubelet with cloud-provider-azure does; it is
// deleted when the test ends.
func workloadNode(t *testing.T, g *WithT, name, providerID string) *corev1.Node {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	g.Expect(workloadClient.Create(t.Context(), node)).To(Succeed())
	t.Cleanup(func() { _ = workloadClient.Delete(context.Background(), node) })
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	g.Expect(workloadClient.Status().Update(t.Context(), node)).To(Succeed())
	return node
}

func TestUniform_CapacityAndNodes(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	mp, amp := f.newPool(t, g, "uni", infrav1exp.UniformOrchestrationMode, 2, nil)
	vmssKey := client.ObjectKey{Namespace: f.namespace, Name: "uni"}
	vmss := &asocompute.VirtualMachineScaleSet{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, vmssKey, vmss)).To(Succeed())
		g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(2)))
		g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.CustomData).NotTo(BeNil(), "new instances boot from the bootstrap data")
	}, timeout, interval).Should(Succeed())
	live := f.waitPoolReady(g, amp, 2)
	g.Expect(live.Status.InfrastructureMachineKind).To(BeEmpty(), "no MachinePool Machines: ASO cannot act on one instance")
	g.Expect(live.Spec.ProviderIDList).To(BeEmpty())

	// Azure made the instances; their Nodes register. A Node of another scale set is not the pool's.
	scaleSetID := azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "uni")
	instance := func(n int) string { return fmt.Sprintf("azure://%s/virtualMachines/%d", scaleSetID, n) }
	// cloud-provider-azure may write the resource group in lower case.
	lowerCased := strings.Replace(instance(1), "/resourceGroups/"+f.resourceGroup, "/resourceGroups/"+strings.ToLower(f.resourceGroup), 1)
	workloadNode(t, g, f.cluster.Name+"-uni-0", instance(0))
	node1 := workloadNode(t, g, f.cluster.Name+"-uni-1", lowerCased)
	workloadNode(t, g, f.cluster.Name+"-elsewhere", "azure://"+azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "unicorn")+"/virtualMachines/0")
	providerIDs := func(g Gomega) []string {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		return live.Spec.ProviderIDList
	}
	want := []string{instance(0), lowerCased}
	slices.Sort(want)
	g.Eventually(providerIDs, timeout, interval).Should(Equal(want))
	g.Eventually(func(g Gomega) []string {
		pool := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(mp), pool)).To(Succeed())
		return pool.Spec.ProviderIDList
	}, timeout, interval).Should(Equal(want), "Cluster API takes the provider IDs")

	// The capacity follows the MachinePool, and providerIDList the Nodes.
	f.scale(g, mp, 3)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, vmssKey, vmss)).To(Succeed())
		g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(3)))
	}, timeout, interval).Should(Succeed())
	workloadNode(t, g, f.cluster.Name+"-uni-2", instance(2))
	f.waitPoolReady(g, amp, 3)
	g.Eventually(providerIDs, timeout, interval).Should(HaveLen(3))
	g.Expect(workloadClient.Delete(f.ctx, node1)).To(Succeed())
	g.Eventually(providerIDs, timeout, interval).Should(ConsistOf(instance(0), instance(2)))

	// A template change rolls by capacity: one instance above the count (maxSurge 1), then Azure scales in its
	// oldest instance (scale-in policy OldestVM). The test plays Azure's side and the instances' Nodes.
	nodes := map[int]*corev1.Node{0: nil, 2: nil}
	for id := range nodes {
		n := &corev1.Node{}
		g.Expect(workloadClient.Get(f.ctx, client.ObjectKey{Name: fmt.Sprintf("%s-uni-%d", f.cluster.Name, id)}, n)).To(Succeed())
		nodes[id] = n
	}
	nodes[3] = workloadNode(t, g, f.cluster.Name+"-uni-3", instance(3))
	f.waitPoolReady(g, amp, 3)
	capacity := func(g Gomega) int {
		g.Expect(env.Env.Get(f.ctx, vmssKey, vmss)).To(Succeed())
		return ptr.Deref(vmss.Spec.Sku.Capacity, -1)
	}
	f.changePool(g, amp, func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.VMSize = "Standard_D4s_v3" })
	for next := 4; next <= 6; next++ {
		g.Eventually(capacity, timeout, interval).Should(Equal(4), "a surge instance for the batch before instance %d", next)
		g.Expect(vmss.Spec.Sku.Name).To(HaveValue(Equal("Standard_D4s_v3")), "new instances get the new model")
		nodes[next] = workloadNode(t, g, fmt.Sprintf("%s-uni-%d", f.cluster.Name, next), instance(next))
		g.Eventually(capacity, timeout, interval).Should(Equal(3), "once the new instance is ready, back to the count")
		oldest := slices.Min(slices.Collect(maps.Keys(nodes)))
		g.Expect(workloadClient.Delete(f.ctx, nodes[oldest])).To(Succeed())
		delete(nodes, oldest)
	}
	g.Eventually(providerIDs, timeout, interval).Should(ConsistOf(instance(4), instance(5), instance(6)))
	live = f.waitPoolReady(g, amp, 3)
	for _, i := range live.Status.Instances {
		g.Expect(i.LatestModelApplied).To(BeTrue(), i.ProviderID)
	}
	g.Consistently(capacity, 2*time.Second, interval).Should(Equal(3), "the rollout is over")

	// Deleting the MachinePool deletes the scale set (and with it, in Azure, its instances), and nothing else.
	g.Expect(env.Env.Delete(f.ctx, mp)).To(Succeed())
	g.Eventually(func(g Gomega) {
		err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), &infrav1exp.AzureMachinePool{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the AzureMachinePool is gone: %v", err)
	}, timeout, interval).Should(Succeed())
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineScaleSetList{})).To(BeEmpty())
	g.Expect(sim.Deleted()).To(ContainElement(scaleSetID))
}

func TestFlexible_FailingInstanceAndPause(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	mp, amp := f.newPool(t, g, "fail", infrav1exp.FlexibleOrchestrationMode, 1, nil)
	f.waitPoolReady(g, amp, 1)
	instance := f.replicas(g, mp)[0].Name

	// A failing VM shows on its instance's Ready, and the pool's Ready names the instance and the resource.
	sim.Fail("VirtualMachine", f.namespace, instance, "OperationNotAllowed", "Operation could not be completed as it results in exceeding approved standardDSv3Family Cores quota")
	g.Eventually(func(g Gomega) {
		m := &infrav1exp.AzureMachinePoolMachine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: instance}, m)).To(Succeed())
		ready := conditions.Get(m, clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal("OperationNotAllowed"), "ASO retries a quota error: a Warning, with Azure's code as reason")
		g.Expect(conditions.IsFalse(m, "VirtualMachineReady")).To(BeTrue())
		live := &infrav1exp.AzureMachinePool{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		ready = conditions.Get(live, clusterv1.ReadyCondition)
		g.Expect(ready.Reason).To(Equal("OperationNotAllowed"))
		g.Expect(ready.Message).To(Equal(fmt.Sprintf("AzureMachinePoolMachine %s: VirtualMachine %s: Operation could not be completed as it results in exceeding approved standardDSv3Family Cores quota", instance, instance)))
		g.Expect(live.Status.Ready).To(BeTrue(), "the scale set stays provisioned")
	}, timeout, interval).Should(Succeed())
	g.Expect(sim.Heal(f.ctx, "VirtualMachine", f.namespace, instance)).To(Succeed())
	f.waitPoolReady(g, amp, 1)

	// Pausing the Cluster pauses ASO on every object of the pool and of its instances.
	setPaused := func(paused bool) {
		g.Eventually(func() error {
			c := &clusterv1.Cluster{}
			if err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(f.cluster), c); err != nil {
				return err
			}
			c.Spec.Paused = ptr.To(paused)
			return env.Env.Update(f.ctx, c)
		}, timeout, interval).Should(Succeed())
	}
	policies := func(g Gomega) []string {
		vmss := &asocompute.VirtualMachineScaleSet{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "fail"}, vmss)).To(Succeed())
		vm := &asocompute.VirtualMachine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: instance}, vm)).To(Succeed())
		return []string{vmss.Annotations["serviceoperator.azure.com/reconcile-policy"], vm.Annotations["serviceoperator.azure.com/reconcile-policy"]}
	}
	setPaused(true)
	g.Eventually(policies, timeout, interval).Should(Equal([]string{"skip", "skip"}))
	g.Eventually(func(g Gomega) {
		live := &infrav1exp.AzureMachinePool{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.PausedCondition)).To(BeTrue())
		m := &infrav1exp.AzureMachinePoolMachine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: instance}, m)).To(Succeed())
		g.Expect(conditions.IsTrue(m, clusterv1.PausedCondition)).To(BeTrue())
	}, timeout, interval).Should(Succeed())
	setPaused(false)
	g.Eventually(policies, timeout, interval).Should(Equal([]string{"manage", "manage"}))
	f.waitPoolReady(g, amp, 1)
}

// TestSecretsNeverLogged creates a Uniform Windows pool (the bootstrap data stays in the scale set's model, the
// admin password in a Secret) and a Flexible pool (the bootstrap data goes to each instance's VM), with the manager
// logging at every verbosity, and checks that neither the bootstrap data nor the password ever reached the logs,
// while an uncapped logger did see the bootstrap data (in client-go's request and response bodies).
func TestSecretsNeverLogged(t *testing.T) {
	g := NewWithT(t)
	marker := []byte("bootstrap-marker-" + util.RandomString(32))
	bootstrapData := []byte("#cloud-config\nwrite_files:\n- path: /etc/marker\n  content: " + string(marker) + "\nruncmd: [kubeadm join]\n")
	logs.Watch(marker)
	logs.Watch(bootstrapData)
	f := newFixtureWithBootstrapData(t, g, bootstrapData)

	_, uniform := f.newPool(t, g, "uni-win", infrav1exp.UniformOrchestrationMode, 2, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Template.OSDisk.OSType = "Windows"
	})
	_, flexible := f.newPool(t, g, "flex", infrav1exp.FlexibleOrchestrationMode, 2, nil)
	f.waitPoolReady(g, uniform, 2)
	f.waitPoolReady(g, flexible, 2)
	vmss := &asocompute.VirtualMachineScaleSet{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "uni-win"}, vmss)).To(Succeed())
	g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.CustomData).To(HaveValue(Equal(base64.StdEncoding.EncodeToString(bootstrapData))))
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineList{})).To(HaveLen(2), "the Flexible pool's instances")
	password := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: compute.WindowsPasswordSecretName("uni-win")}, password)).To(Succeed())
	g.Expect(password.Data[compute.WindowsPasswordKey]).NotTo(BeEmpty())

	logged := logs.Logged()
	g.Expect(logged).To(ContainSubstring(`"AzureMachinePool"`), "the capture holds the controller's logs")
	for name, secret := range map[string][]byte{"bootstrap marker": marker, "bootstrap data": bootstrapData, "Windows admin password": password.Data[compute.WindowsPasswordKey]} {
		g.Expect(logcapture.Leaks(logged, secret)).To(BeEmpty(), "the %s was logged", name)
	}
	g.Expect(logs.SeenUncapped(bootstrapData)).To(BeTrue(), "without the cap, the bootstrap data would have been logged")
}

// TestAzureJSON_WrittenAndOwned: a pool's <pool>-azure-json Secret, which its MachinePool's KubeadmConfig reads, is
// written with the cluster's cloud provider configuration, owned by the pool, and follows a change of the
// AzureCluster's cloudProviderConfigOverrides without a change of the pool (the pool watches its AzureCluster, see
// TestSpecOrCredentialsChanged; MachinePool status updates reach it too).
func TestAzureJSON_WrittenAndOwned(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	_, amp := f.newPool(t, g, "json", infrav1exp.FlexibleOrchestrationMode, 0, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Identity = infrav1.VMIdentitySystemAssigned
	})
	file := func(g Gomega) (*corev1.Secret, map[string]any) {
		s := &corev1.Secret{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "json-azure-json"}, s)).To(Succeed())
		out := map[string]any{}
		g.Expect(json.Unmarshal(s.Data["worker-node-azure.json"], &out)).To(Succeed())
		return s, out
	}
	g.Eventually(func(g Gomega) {
		s, content := file(g)
		g.Expect(content).To(HaveKeyWithValue("vnetName", f.cluster.Name+"-vnet"))
		g.Expect(content).To(HaveKeyWithValue("useManagedIdentityExtension", true))
		owner := metav1.GetControllerOf(s)
		g.Expect(owner).NotTo(BeNil())
		g.Expect(owner.Kind).To(Equal("AzureMachinePool"))
		g.Expect(owner.Name).To(Equal(amp.Name))
	}, timeout, interval).Should(Succeed())

	ac := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: f.cluster.Name}, ac)).To(Succeed())
	ac.Spec.CloudProviderConfigOverrides = &infrav1.CloudProviderConfigOverrides{BackOffs: infrav1.BackOffConfig{CloudProviderBackoff: true, CloudProviderBackoffRetries: 3}}
	g.Expect(env.Env.Update(f.ctx, ac)).To(Succeed())
	g.Eventually(func(g Gomega) {
		_, content := file(g)
		g.Expect(content).To(HaveKeyWithValue("cloudProviderBackoff", true))
		g.Expect(content).To(HaveKeyWithValue("cloudProviderBackoffRetries", BeNumerically("==", 3)))
	}, timeout, interval).Should(Succeed())
}

// workloadPod creates a running pod on a Node of the workload cluster, owned by a controller of this kind (none
// when kind is empty); it is deleted when the test ends.
func workloadPod(t *testing.T, g *WithT, name, node, ownerKind string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			NodeName: node, AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	if ownerKind != "" {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: name, UID: types.UID(name), Controller: ptr.To(true)}}
	}
	g.Expect(workloadClient.Create(t.Context(), pod)).To(Succeed())
	t.Cleanup(func() { _ = workloadClient.Delete(context.Background(), pod, client.GracePeriodSeconds(0)) })
	return pod
}

// TestUniform_DrainBeforeScaleIn scales a Uniform pool in, as a user does: the provider drains the Node of the
// instance Azure's scale-in policy removes (here the newest, deletePolicy Newest) before lowering the capacity,
// and uncordons a drained Node whose instance stays when the scale-in is called off.
func TestUniform_DrainBeforeScaleIn(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	mp, amp := f.newPool(t, g, "drn", infrav1exp.UniformOrchestrationMode, 3, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.Strategy.RollingUpdate = &infrav1exp.MachineRollingUpdateDeployment{DeletePolicy: infrav1exp.NewestDeletePolicyType}
	})
	vmssKey := client.ObjectKey{Namespace: f.namespace, Name: "drn"}
	vmss := &asocompute.VirtualMachineScaleSet{}
	capacity := func(g Gomega) int {
		g.Expect(env.Env.Get(f.ctx, vmssKey, vmss)).To(Succeed())
		return ptr.Deref(vmss.Spec.Sku.Capacity, -1)
	}
	g.Eventually(capacity, timeout, interval).Should(Equal(3))
	g.Expect(vmss.Spec.ScaleInPolicy.Rules).To(Equal([]asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_NewestVM}))

	scaleSetID := azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, "drn")
	nodeName := func(n int) string { return fmt.Sprintf("%s-drn-%d", f.cluster.Name, n) }
	nodes := map[int]*corev1.Node{}
	for n := range 3 {
		nodes[n] = workloadNode(t, g, nodeName(n), fmt.Sprintf("azure://%s/virtualMachines/%d", scaleSetID, n))
	}
	f.waitPoolReady(g, amp, 3)
	app := workloadPod(t, g, f.cluster.Name+"-app", nodeName(2), "ReplicaSet")
	daemon := workloadPod(t, g, f.cluster.Name+"-daemon", nodeName(2), "DaemonSet")
	elsewhere := workloadPod(t, g, f.cluster.Name+"-elsewhere", nodeName(0), "")
	node := func(g Gomega, n int) *corev1.Node {
		live := &corev1.Node{}
		g.Expect(workloadClient.Get(f.ctx, client.ObjectKey{Name: nodeName(n)}, live)).To(Succeed())
		return live
	}
	// drainingMessage is the message of the pool's InstancesReady condition, which must say it is draining.
	drainingMessage := func(g Gomega) string {
		live := &infrav1exp.AzureMachinePool{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		c := conditions.Get(live, azuremachinepool.InstancesReadyCondition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(azuremachinepool.DrainingReason))
		return c.Message
	}
	pod := func(g Gomega, p *corev1.Pod) *corev1.Pod {
		live := &corev1.Pod{}
		g.Expect(workloadClient.Get(f.ctx, client.ObjectKeyFromObject(p), live)).To(Succeed())
		return live
	}

	// Scaling to 2 drains the newest instance's Node first: cordoned, its pod evicted (no kubelet finishes it, so
	// it stays terminating), the DaemonSet's pod left; the capacity stays until the Node is drained.
	f.scale(g, mp, 2)
	g.Eventually(func(g Gomega) {
		n := node(g, 2)
		g.Expect(n.Spec.Unschedulable).To(BeTrue())
		g.Expect(n.Annotations).To(HaveKey(azuremachinepool.DrainStartedAnnotation))
		g.Expect(n.Annotations).To(HaveKeyWithValue(azuremachinepool.CordonedAnnotation, "true"))
		g.Expect(pod(g, app).DeletionTimestamp).NotTo(BeNil(), "evicted")
	}, timeout, interval).Should(Succeed())
	g.Eventually(drainingMessage, timeout, interval).Should(ContainSubstring(nodeName(2)))
	g.Consistently(capacity, 2*time.Second, interval).Should(Equal(3), "the instance stays until its Node is drained")
	g.Expect(pod(g, daemon).DeletionTimestamp).To(BeNil(), "a DaemonSet's pod goes with its Node")
	g.Expect(pod(g, elsewhere).DeletionTimestamp).To(BeNil())
	g.Expect(node(g, 0).Spec.Unschedulable).To(BeFalse())

	// The kubelet finishes the pod: the Node is drained, and Azure may remove the instance.
	g.Expect(workloadClient.Delete(f.ctx, pod(g, app), client.GracePeriodSeconds(0))).To(Succeed())
	g.Eventually(capacity, timeout, interval).Should(Equal(2))
	g.Expect(workloadClient.Delete(f.ctx, nodes[2])).To(Succeed()) // Azure removed it; cloud-provider-azure its Node
	f.waitPoolReady(g, amp, 2)

	// A scale-in called off before the drain ends: the drained Node, whose instance stays, is uncordoned.
	workloadPod(t, g, f.cluster.Name+"-app2", nodeName(1), "")
	f.scale(g, mp, 1)
	g.Eventually(func(g Gomega) {
		g.Expect(node(g, 1).Spec.Unschedulable).To(BeTrue())
	}, timeout, interval).Should(Succeed())
	f.scale(g, mp, 2)
	g.Eventually(func(g Gomega) {
		n := node(g, 1)
		g.Expect(n.Spec.Unschedulable).To(BeFalse())
		g.Expect(n.Annotations).NotTo(HaveKey(azuremachinepool.DrainStartedAnnotation))
		g.Expect(n.Annotations).NotTo(HaveKey(azuremachinepool.CordonedAnnotation))
	}, timeout, interval).Should(Succeed())
	g.Expect(capacity(g)).To(Equal(2))

	// A PodDisruptionBudget that forbids the eviction holds the scale-in, until the MachinePool's node drain
	// timeout has passed.
	guarded := workloadPod(t, g, f.cluster.Name+"-guarded", nodeName(1), "")
	guarded.Labels = map[string]string{"app": f.cluster.Name}
	g.Expect(workloadClient.Update(f.ctx, guarded)).To(Succeed())
	// The kubelet runs it (a pending pod may be evicted whatever its budget says).
	guarded.Status.Phase = corev1.PodRunning
	guarded.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	g.Expect(workloadClient.Status().Update(f.ctx, guarded)).To(Succeed())
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: f.cluster.Name, Namespace: metav1.NamespaceDefault},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": f.cluster.Name}},
		},
	}
	g.Expect(workloadClient.Create(f.ctx, pdb)).To(Succeed())
	t.Cleanup(func() { _ = workloadClient.Delete(context.Background(), pdb) })
	// What kube-controller-manager's disruption controller would report: no disruption allowed.
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1,
	}
	g.Expect(workloadClient.Status().Update(f.ctx, pdb)).To(Succeed())
	f.scale(g, mp, 1)
	g.Eventually(drainingMessage, timeout, interval).Should(And(ContainSubstring(guarded.Name), ContainSubstring("disruption budget")))
	g.Consistently(capacity, 2*time.Second, interval).Should(Equal(2), "the budget forbids the eviction")
	g.Expect(pod(g, guarded).DeletionTimestamp).To(BeNil())
	g.Eventually(func() error {
		live := &clusterv1.MachinePool{}
		if err := env.Env.Get(f.ctx, client.ObjectKeyFromObject(mp), live); err != nil {
			return err
		}
		live.Spec.Template.Spec.Deletion.NodeDrainTimeoutSeconds = ptr.To[int32](1)
		return env.Env.Update(f.ctx, live)
	}, timeout, interval).Should(Succeed())
	g.Eventually(capacity, timeout, interval).Should(Equal(1), "the drain timed out")
	g.Expect(workloadClient.Delete(f.ctx, nodes[1])).To(Succeed()) // Azure removed it

	// A rollout scales in its outdated, oldest instances, whatever the delete policy.
	f.changePool(g, amp, func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.VMSize = "Standard_D4s_v3" })
	g.Eventually(func(g Gomega) []asocompute.ScaleInPolicy_Rules {
		capacity(g)
		return vmss.Spec.ScaleInPolicy.Rules
	}, timeout, interval).Should(Equal([]asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}))
}

// TestUniform_TakesOverCAPZScaleSet: a scale set CAPZ made (it exists in Azure with the cluster's owned tag, the
// pool has its provider ID, there is no ASO object) is looked up first and taken over, keeping CAPZ's scale-in
// policy (none) until the user opts into the provider's.
func TestUniform_TakesOverCAPZScaleSet(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	id := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/" + f.resourceGroup + "/providers/Microsoft.Compute/virtualMachineScaleSets/capz-pool"
	sim.SeedAzure("VirtualMachineScaleSet", id, map[string]string{azure.ClusterTagKey(f.cluster.Name): string(infrav1.ResourceLifecycleOwned)})
	_, amp := f.newPool(t, g, "capz-pool", infrav1exp.UniformOrchestrationMode, 1, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.ProviderID = "azure://" + id
	})
	// CAPZ v1.26.0 holds its AzureMachinePools with Cluster API's MachinePool finalizer.
	// Read from the API server: the cache may not hold the pool created a moment ago.
	g.Eventually(func() error {
		capzFinalizer := &infrav1exp.AzureMachinePool{}
		if err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), capzFinalizer); err != nil {
			return err
		}
		withFinalizer := capzFinalizer.DeepCopy()
		withFinalizer.Finalizers = append(withFinalizer.Finalizers, clusterv1.MachinePoolFinalizer)
		return env.Env.Patch(f.ctx, withFinalizer, client.MergeFromWithOptions(capzFinalizer, client.MergeFromWithOptimisticLock{}))
	}, timeout, interval).Should(Succeed())

	live := &infrav1exp.AzureMachinePool{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		c := conditions.Get(live, infrav1.CAPZDifferencesAppliedCondition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(infrav1.AwaitingOptInReason))
		g.Expect(c.Message).To(ContainSubstring("scale-in policy rules [], the provider's [OldestVM]"))
	}, timeout, interval).Should(Succeed())
	vmss := &asocompute.VirtualMachineScaleSet{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-pool"}, vmss)).To(Succeed())
		g.Expect(vmss.Annotations).To(HaveKeyWithValue("infrastructure.cluster.x-k8s.io/adoption", "taken-over"))
		g.Expect(vmss.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "manage"))
	}, timeout, interval).Should(Succeed())
	g.Expect(vmss.Spec.ScaleInPolicy).To(BeNil(), "CAPZ's scale-in policy is kept")
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(live.Finalizers).To(Equal([]string{infrav1exp.MachinePoolFinalizer}), "CAPZ's finalizer gives way to the provider's")
	}, timeout, interval).Should(Succeed())
	g.Expect(sim.Events()).NotTo(ContainElement(And(HaveField("Op", "Create"), HaveField("ID", id))), "the scale set is not created again")

	before := live.DeepCopy()
	live.Annotations = map[string]string{infrav1.ApplyCAPZDifferencesAnnotation: "true"}
	g.Expect(env.Env.Patch(f.ctx, live, client.MergeFrom(before))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, infrav1.CAPZDifferencesAppliedCondition)).To(BeTrue())
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-pool"}, vmss)).To(Succeed())
		g.Expect(vmss.Spec.ScaleInPolicy).NotTo(BeNil())
		g.Expect(vmss.Spec.ScaleInPolicy.Rules).To(Equal([]asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}))
	}, timeout, interval).Should(Succeed())
}

// TestFlexible_TakesOverCAPZScaleSet takes over a Flexible scale set that CAPZ made with a VM profile: Azure keeps
// making its instances from the profile, so the provider keeps the profile and scales the capacity, and makes no
// AzureMachinePoolMachine (no second VM per instance).
func TestFlexible_TakesOverCAPZScaleSet(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	group := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/" + f.resourceGroup + "/providers/Microsoft.Compute/"
	id := group + "virtualMachineScaleSets/capz-flex"
	sim.SeedAzure("VirtualMachineScaleSet", id, map[string]string{azure.ClusterTagKey(f.cluster.Name): string(infrav1.ResourceLifecycleOwned)})
	sim.SeedAzureProperties(id, map[string]any{
		"orchestrationMode":     "Flexible",
		"sku":                   map[string]any{"name": "Standard_D2s_v3", "capacity": int64(1)},
		"virtualMachineProfile": map[string]any{"osProfile": map[string]any{"computerNamePrefix": "capz-flex"}},
	})
	instance := "azure://" + group + "virtualMachines/capz-flex_0a1b2c3d"
	workloadNode(t, g, "capz-flex000000", instance)
	mp, amp := f.newPool(t, g, "capz-flex", infrav1exp.FlexibleOrchestrationMode, 1, func(s *infrav1exp.AzureMachinePoolSpec) {
		s.ProviderID = "azure://" + id
	})

	vmss := &asocompute.VirtualMachineScaleSet{}
	live := &infrav1exp.AzureMachinePool{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-flex"}, vmss)).To(Succeed())
		g.Expect(vmss.Annotations).To(HaveKeyWithValue("infrastructure.cluster.x-k8s.io/adoption", "taken-over"))
		g.Expect(vmss.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "manage"))
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(amp), live)).To(Succeed())
		g.Expect(live.Spec.ProviderIDList).To(Equal([]string{instance}), "the instance Azure made is the pool's")
	}, timeout, interval).Should(Succeed())
	g.Expect(vmss.Spec.OrchestrationMode).To(HaveValue(Equal(asocompute.OrchestrationMode_Flexible)))
	g.Expect(vmss.Spec.VirtualMachineProfile).NotTo(BeNil(), "CAPZ's VM profile is kept")
	g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(1)))
	g.Expect(conditions.Get(live, infrav1.CAPZDifferencesAppliedCondition)).NotTo(BeNil())
	g.Expect(sim.Events()).NotTo(ContainElement(And(HaveField("Op", "Create"), HaveField("ID", id))), "the scale set is not created again")
	g.Expect(f.replicas(g, mp)).To(BeEmpty(), "Azure makes the instances, not AzureMachinePoolMachines")

	f.scale(g, mp, 2)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-flex"}, vmss)).To(Succeed())
		g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(2)))
	}, timeout, interval).Should(Succeed())
	g.Expect(f.replicas(g, mp)).To(BeEmpty())
}

// TestWindows_ScaleSetName: a new Windows pool whose name is longer than 9 characters gets the scale set CAPZ v1.26.0
// names "win-" and the last 5 characters of the pool's name (its instances join it, its provider ID names it, it is
// its own computer name prefix), so that a pool switched from CAPZ takes CAPZ's over; a pool whose scale set an
// earlier release named after the pool keeps that scale set: it is neither renamed nor joined by a second one.
func TestWindows_ScaleSetName(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g)
	windows := func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.OSDisk.OSType = "Windows" }
	scaleSetID := func(name string) string {
		return azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, name)
	}
	// instanceScaleSets lists the scale sets the VMs of a pool's instances join, by ASO object name.
	instanceScaleSets := func(g Gomega, mp *clusterv1.MachinePool) []string {
		var out []string
		for _, m := range f.replicas(g, mp) {
			vm := &asocompute.VirtualMachine{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: m.Name}, vm)).To(Succeed())
			g.Expect(vm.Spec.VirtualMachineScaleSet).NotTo(BeNil())
			out = append(out, vm.Spec.VirtualMachineScaleSet.Reference.Name)
		}
		return out
	}

	mp, amp := f.newPool(t, g, "windows-pool-a", infrav1exp.FlexibleOrchestrationMode, 1, windows)
	_, uniform := f.newPool(t, g, "windows-uni-b", infrav1exp.UniformOrchestrationMode, 1, windows)
	live := f.waitPoolReady(g, amp, 1)
	g.Expect(live.Spec.ProviderID).To(Equal("azure://" + scaleSetID("win-ool-a")))
	flexible := &asocompute.VirtualMachineScaleSet{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "win-ool-a"}, flexible)).To(Succeed())
	g.Expect(flexible.Spec.AzureName).To(Equal("win-ool-a"))
	g.Expect(metav1.IsControlledBy(flexible, live)).To(BeTrue())
	g.Eventually(func(g Gomega) {
		g.Expect(instanceScaleSets(g, mp)).To(Equal([]string{"win-ool-a"}))
	}, timeout, interval).Should(Succeed())
	g.Eventually(func(g Gomega) {
		vmss := &asocompute.VirtualMachineScaleSet{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "win-uni-b"}, vmss)).To(Succeed())
		g.Expect(vmss.Spec.AzureName).To(Equal("win-uni-b"))
		g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.ComputerNamePrefix).To(HaveValue(Equal("win-uni-b")), "CAPZ's prefix: the scale set's name")
		g.Expect(vmss.OwnerReferences).To(ContainElement(HaveField("Name", uniform.Name)))
	}, timeout, interval).Should(Succeed())
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineScaleSetList{})).To(Equal([]string{"win-ool-a", "win-uni-b"}))
	// The admin password's Secret is named after the scale set, and every pass reads it there: one that looked for it
	// under the pool's name made a new password each time and rewrote the Secret in an endless loop.
	passwordKey := client.ObjectKey{Namespace: f.namespace, Name: compute.WindowsPasswordSecretName("win-uni-b")}
	password := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(f.ctx, passwordKey, password)).To(Succeed())
	poked := uniform.DeepCopy()
	poked.Annotations = map[string]string{"test.capzaso.io/poke": "1"} // a change that makes the pool reconcile again
	g.Expect(env.Env.Patch(f.ctx, poked, client.MergeFrom(uniform))).To(Succeed())
	g.Consistently(func(g Gomega) {
		now := &corev1.Secret{}
		g.Expect(env.Env.GetAPIReader().Get(f.ctx, passwordKey, now)).To(Succeed())
		g.Expect(now.Data).To(Equal(password.Data), "the password is made once")
	}, 5*time.Second, interval).Should(Succeed())

	// A pool an earlier release made: its scale set is named after it. The pool is paused while the test writes
	// that scale set's ASO object, as the release applied it (the new pool's, but for the name and the owner).
	f.poolAnnotations = map[string]string{clusterv1.PausedAnnotation: "true"}
	legacyMP, legacy := f.newPool(t, g, "legacy-windows-c", infrav1exp.FlexibleOrchestrationMode, 1, windows)
	f.poolAnnotations = nil
	old := &asocompute.VirtualMachineScaleSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: "legacy-windows-c", Namespace: f.namespace, Labels: flexible.Labels, Annotations: flexible.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: infrav1exp.GroupVersion.String(), Kind: "AzureMachinePool", Name: legacy.Name, UID: legacy.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: *flexible.Spec.DeepCopy(),
	}
	old.Spec.AzureName = "legacy-windows-c"
	g.Expect(env.Env.Create(f.ctx, old)).To(Succeed())
	g.Eventually(func() error {
		live := &infrav1exp.AzureMachinePool{}
		if err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(legacy), live); err != nil {
			return err
		}
		unpaused := live.DeepCopy()
		delete(unpaused.Annotations, clusterv1.PausedAnnotation)
		return env.Env.Patch(f.ctx, unpaused, client.MergeFromWithOptions(live, client.MergeFromWithOptimisticLock{}))
	}, timeout, interval).Should(Succeed())

	live = f.waitPoolReady(g, legacy, 1)
	g.Expect(live.Spec.ProviderID).To(Equal("azure://" + scaleSetID("legacy-windows-c")))
	g.Eventually(func(g Gomega) {
		g.Expect(instanceScaleSets(g, legacyMP)).To(Equal([]string{"legacy-windows-c"}))
	}, timeout, interval).Should(Succeed())
	kept := &asocompute.VirtualMachineScaleSet{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(old), kept)).To(Succeed())
	g.Expect(kept.UID).To(Equal(old.UID), "the old scale set is never recreated")
	g.Expect(kept.DeletionTimestamp.IsZero()).To(BeTrue())
	g.Expect(kept.Spec.AzureName).To(Equal("legacy-windows-c"))
	g.Expect(kept.Spec.Tags).To(HaveKeyWithValue("Name", "legacy-windows-c"), "the provider applies the pool's scale set to it")
	g.Expect(asoNames(g, f, &asocompute.VirtualMachineScaleSetList{})).To(Equal([]string{"legacy-windows-c", "win-ool-a", "win-uni-b"}),
		"no second scale set for the old pool")
	g.Expect(sim.Events()).NotTo(ContainElement(HaveField("ID", scaleSetID("win-ows-c"))), "nothing under CAPZ's name")
	g.Expect(sim.Deleted()).NotTo(ContainElement(scaleSetID("legacy-windows-c")))
}
