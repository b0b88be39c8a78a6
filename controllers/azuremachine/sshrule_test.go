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

package azuremachine_test

import (
	"strings"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremachine"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_SSHRulePortsFromAzure: after a switch from CAPZ, Azure holds CAPZ's SSH rules of the control-plane
// machines (named after them, on the API server load balancer, their ports handed out in CAPZ's order), which ASO
// lists in the load balancer's status. Each machine's rule object gets the port Azure holds for it, whatever order
// the machines are reconciled in; a new machine gets a port no rule holds.
// switchFixture is a cluster switched from CAPZ: its AzureCluster is reconciled by its controller, in a resource
// group of its own (the tests of the package share one fake Azure), and Azure holds CAPZ's SSH rules of
// control-plane machines with the given ports. beforeCluster runs before the AzureCluster's controller starts.
func switchFixture(t *testing.T, g *WithT, capzPorts map[string]int, beforeCluster func(f *fixture)) *fixture {
	t.Helper()
	group := "ssh-switch-" + strings.ToLower(util.RandomString(6))
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload"},
		Spec: infrav1.AzureClusterSpec{
			ResourceGroup:         group,
			AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus", SubscriptionID: sim.SubscriptionID()},
		},
	})
	g.Expect(err).NotTo(HaveOccurred())
	infra := &unstructured.Unstructured{Object: content}
	infra.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))

	// CAPZ's rules, made through Azure's SDK.
	lbID := azure.ResourceID(sim.SubscriptionID(), group, azure.TypeLoadBalancer, "workload-public-lb")
	for machine, port := range capzPorts {
		id := azure.ChildID(lbID, "inboundNatRules", machine)
		sim.SeedAzure("LoadBalancersInboundNatRule", id, nil)
		sim.SeedAzureProperties(id, map[string]any{"frontendPort": int64(port), "backendPort": int64(22), "protocol": "Tcp"})
	}

	f := newFixture(t, g, infra)
	if beforeCluster != nil {
		beforeCluster(f)
	}
	// The AzureCluster is the Cluster's, so that its controller reconciles it and makes the load balancer.
	ac := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload"}, ac)).To(Succeed())
	ac.OwnerReferences = []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: f.cluster.Name, UID: f.cluster.UID}}
	g.Expect(env.Env.Update(f.ctx, ac)).To(Succeed())
	return f
}

// sshRulePort is the frontend port of a machine's SSH rule object.
func (f *fixture) sshRulePort(g Gomega, machine string) *int {
	r := &asonetwork.LoadBalancersInboundNatRule{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload-public-lb", machine)}, r)).To(Succeed())
	return r.Spec.FrontendPort
}

// TestReconcile_SSHRulePortsFromAzure: after a switch from CAPZ, Azure holds CAPZ's SSH rules of the control-plane
// machines (named after them, on the API server load balancer, their ports handed out in CAPZ's order), which ASO
// lists in the load balancer's status. Each machine's rule object gets the port Azure holds for it, whatever order
// the machines are reconciled in; a new machine gets a port no rule holds.
func TestReconcile_SSHRulePortsFromAzure(t *testing.T) {
	g := NewWithT(t)
	// CAPZ's machines came up in the order c, a, b.
	capzPorts := map[string]int{"switch-cp-c": 22, "switch-cp-a": 2201, "switch-cp-b": 2202}
	f := switchFixture(t, g, capzPorts, nil)
	lb := &asonetwork.LoadBalancer{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload-public-lb")}, lb)).To(Succeed())
		g.Expect(lb.Status.InboundNatRules).To(HaveLen(len(capzPorts)), "ASO lists the rules Azure holds on the load balancer")
	}, timeout).Should(Succeed())

	// The machines are reconciled one after the other, a, b, c: in our order each would have taken 22, 2201, 2202.
	for _, machine := range []string{"switch-cp-a", "switch-cp-b", "switch-cp-c"} {
		waitProvisioned(f.ctx, g, f.newMachine(t, g, machine, true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"}))
		g.Expect(f.sshRulePort(g, machine)).To(HaveValue(Equal(capzPorts[machine])), machine)
	}

	// A new machine: a port no rule holds, in Azure or as an object.
	waitProvisioned(f.ctx, g, f.newMachine(t, g, "switch-cp-d", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"}))
	g.Expect(f.sshRulePort(g, "switch-cp-d")).To(HaveValue(Equal(2203)))
	// And none of the first three moved.
	for machine, port := range capzPorts {
		g.Expect(f.sshRulePort(g, machine)).To(HaveValue(Equal(port)), machine)
	}
}

// TestReconcile_SSHRulePortAfterLoadBalancerRead: a control-plane machine reconciled before ASO has read the load
// balancer cannot know the port Azure holds for its rule (CAPZ's, after a switch), and a PUT of the rule or of the
// interface that references it could move it. The machine applies nothing and says why; once ASO has read the load
// balancer, the machine's next pass (it looks again by itself: it does not watch the load balancer) gives its rule
// Azure's port, the only port the rule is ever applied with.
func TestReconcile_SSHRulePortAfterLoadBalancerRead(t *testing.T) {
	g := NewWithT(t)
	lbObject := azure.ObjectName("workload-public-lb")
	f := switchFixture(t, g, map[string]int{"late-cp-z": 22, "late-cp-a": 2201}, func(f *fixture) {
		sim.StayReconciling("LoadBalancer", f.namespace, lbObject)
	})
	g.Eventually(func() error {
		return env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: lbObject}, &asonetwork.LoadBalancer{})
	}, timeout).Should(Succeed())

	am := f.newMachine(t, g, "late-cp-a", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureMachine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		ready := conditions.Get(live, clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(azuremachine.LoadBalancerNotReadReason))
		g.Expect(ready.Message).To(ContainSubstring("workload-public-lb"))
	}, timeout).Should(Succeed())
	// Nothing of the machine is applied while the port is unknown: no rule, no interface, no VM.
	nothingApplied := func(g Gomega) {
		for _, obj := range []client.Object{&asonetwork.LoadBalancersInboundNatRule{}, &asonetwork.NetworkInterface{}, &asocompute.VirtualMachine{}} {
			name := "late-cp-a"
			switch obj.(type) {
			case *asonetwork.LoadBalancersInboundNatRule:
				name = azure.ObjectName("workload-public-lb", "late-cp-a")
			case *asonetwork.NetworkInterface:
				name += "-nic"
			}
			err := env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: name}, obj)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s: %v", obj, name, err)
		}
	}
	g.Consistently(nothingApplied, 3*time.Second).Should(Succeed())

	g.Expect(sim.Heal(f.ctx, "LoadBalancer", f.namespace, lbObject)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(f.sshRulePort(g, "late-cp-a")).To(HaveValue(Equal(2201)))
	}, timeout).Should(Succeed())
	waitProvisioned(f.ctx, g, am)
	g.Expect(f.sshRulePort(g, "late-cp-a")).To(HaveValue(Equal(2201)))
	// The rule object was made with Azure's port: its first generation is the one it has.
	r := &asonetwork.LoadBalancersInboundNatRule{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload-public-lb", "late-cp-a")}, r)).To(Succeed())
	g.Expect(r.Generation).To(BeEquivalentTo(1))
}

// TestReconcile_SSHRuleWaitsForTheLoadBalancerObject: just after a switch from CAPZ, a control-plane machine may be
// reconciled before its AzureCluster has made the load balancer's ASO object at all. Azure holds CAPZ's rule for the
// machine, on a port the machine cannot know yet: it applies nothing until the object is made and read, then gives
// its rule Azure's port.
func TestReconcile_SSHRuleWaitsForTheLoadBalancerObject(t *testing.T) {
	g := NewWithT(t)
	var am *infrav1.AzureMachine
	f := switchFixture(t, g, map[string]int{"early-cp-z": 22, "early-cp-a": 2201}, func(f *fixture) {
		// The AzureCluster's controller does not reconcile it yet: no load balancer object.
		am = f.newMachine(t, g, "early-cp-a", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
		g.Eventually(func(g Gomega) {
			live := &infrav1.AzureMachine{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
			g.Expect(conditions.GetReason(live, clusterv1.ReadyCondition)).To(Equal(azuremachine.LoadBalancerNotReadReason))
		}, timeout).Should(Succeed())
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload-public-lb")}, &asonetwork.LoadBalancer{})).
			To(Satisfy(apierrors.IsNotFound), "the AzureCluster made no load balancer object yet")
		g.Consistently(func(g Gomega) {
			err := env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload-public-lb", "early-cp-a")}, &asonetwork.LoadBalancersInboundNatRule{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no rule object: %v", err)
		}, 3*time.Second).Should(Succeed())
	})
	waitProvisioned(f.ctx, g, am)
	g.Expect(f.sshRulePort(g, "early-cp-a")).To(HaveValue(Equal(2201)))
}
