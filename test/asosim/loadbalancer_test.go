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

package asosim_test

import (
	"testing"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestLoadBalancer_InboundNATRules: as Azure lists a load balancer's inbound NAT rules in its GET and ASO reads
// them into its status, the simulator reports in a load balancer's status the rules Azure holds on it when it
// reads it: those of LoadBalancersInboundNatRule objects (as their spec was PUT) and those made outside ASO (as
// CAPZ makes its SSH rules), with their frontend ports; a rule deleted in Azure leaves the list.
func TestLoadBalancer_InboundNATRules(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "lb-nat")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	// A group of the namespace's name: the tests of the package share one Azure.
	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg"},
		Spec:       asoresources.ResourceGroup_Spec{AzureName: ns.Name, Location: ptr.To("eastus")},
	}
	lb := &asonetwork.LoadBalancer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "lb"},
		Spec: asonetwork.LoadBalancer_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
			FrontendIPConfigurations: []asonetwork.FrontendIPConfiguration_LoadBalancer_SubResourceEmbedded{{Name: ptr.To("frontend")}},
		},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	g.Expect(env.Env.Create(ctx, lb)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, lb, HaveField("Status", metav1.ConditionTrue))
		g.Expect(lb.Status.Id).NotTo(BeNil())
	}, timeout).Should(Succeed())
	g.Expect(lb.Status.InboundNatRules).To(BeEmpty())
	lbID := *lb.Status.Id

	// CAPZ's rule, made with Azure's SDK, and one of ASO's.
	capzRule := lbID + "/inboundNatRules/capz-cp-0"
	sim.SeedAzure("LoadBalancersInboundNatRule", capzRule, nil)
	sim.SeedAzureProperties(capzRule, map[string]any{"frontendPort": int64(2201), "backendPort": int64(22), "protocol": "Tcp"})
	ours := &asonetwork.LoadBalancersInboundNatRule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "ours"},
		Spec: asonetwork.LoadBalancersInboundNatRule_Spec{
			AzureName: "cp-1", Owner: &genruntime.KnownResourceReference{Name: "lb"},
			BackendPort: ptr.To(22), FrontendPort: ptr.To(22), Protocol: ptr.To(asonetwork.TransportProtocol_Tcp),
			FrontendIPConfiguration: &asonetwork.SubResource{Reference: &genruntime.ResourceReference{ARMID: lbID + "/frontendIPConfigurations/frontend"}},
		},
	}
	g.Expect(env.Env.Create(ctx, ours)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, ours, HaveField("Status", metav1.ConditionTrue))
	}, timeout).Should(Succeed())

	// ASO reads the load balancer again (its next sync): its status lists both.
	g.Expect(sim.Resync(ctx, "LoadBalancer", ns.Name, "lb")).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(lb), lb)).To(Succeed())
		g.Expect(lb.Status.InboundNatRules).To(ConsistOf(
			And(
				HaveField("Name", HaveValue(Equal("capz-cp-0"))), HaveField("Id", HaveValue(Equal(capzRule))),
				HaveField("FrontendPort", HaveValue(Equal(2201))), HaveField("BackendPort", HaveValue(Equal(22))),
			),
			And(
				HaveField("Name", HaveValue(Equal("cp-1"))), HaveField("Id", HaveValue(Equal(lbID+"/inboundNatRules/cp-1"))),
				HaveField("FrontendPort", HaveValue(Equal(22))),
				HaveField("FrontendIPConfiguration", HaveValue(HaveField("Id", HaveValue(Equal(lbID+"/frontendIPConfigurations/frontend"))))),
			),
		))
	}, timeout).Should(Succeed())

	// A changed port is what Azure holds after ASO's PUT; a deleted rule is gone from Azure and from the list.
	g.Eventually(func() error {
		if err := env.Env.Get(ctx, client.ObjectKeyFromObject(ours), ours); err != nil {
			return err
		}
		ours.Spec.FrontendPort = ptr.To(2202)
		return env.Env.Update(ctx, ours)
	}, timeout).Should(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, ours, And(HaveField("Status", metav1.ConditionTrue), HaveField("ObservedGeneration", ours.Generation)))
	}, timeout).Should(Succeed())
	g.Expect(sim.DeleteInAzure(capzRule)).To(BeTrue())
	g.Expect(sim.Resync(ctx, "LoadBalancer", ns.Name, "lb")).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(lb), lb)).To(Succeed())
		g.Expect(lb.Status.InboundNatRules).To(ConsistOf(
			And(HaveField("Name", HaveValue(Equal("cp-1"))), HaveField("FrontendPort", HaveValue(Equal(2202)))),
		))
	}, timeout).Should(Succeed())

	g.Expect(env.Env.Delete(ctx, ours)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(ours), ours))
	}, timeout).Should(BeTrue())
	g.Expect(sim.Resync(ctx, "LoadBalancer", ns.Name, "lb")).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(lb), lb)).To(Succeed())
		g.Expect(lb.Status.InboundNatRules).To(BeEmpty())
	}, timeout).Should(Succeed())
}
