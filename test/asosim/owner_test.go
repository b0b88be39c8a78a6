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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestOwnerReadiness: like ASO, the simulator claims a resource (its resource-id) only once its owner is Ready,
// and reports WaitingForOwner until then, even when the owner has its own resource-id (ASO claims a failing
// resource too); a claimed resource goes on whatever becomes of its owner.
func TestOwnerReadiness(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "owner")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	sim.Fail("ResourceGroup", ns.Name, "rg", "AuthorizationFailed", "the client may not write the group")
	rg := &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg"}, Spec: asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")}}
	nsg := &asonetwork.NetworkSecurityGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "nsg"},
		Spec:       asonetwork.NetworkSecurityGroup_Spec{Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus")},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	g.Expect(env.Env.Create(ctx, nsg)).To(Succeed())
	ready := func(g Gomega, obj conditions.Conditioner) *conditions.Condition {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(obj.(client.Object)), obj.(client.Object))).To(Succeed())
		c := genruntime.GetReadyCondition(obj)
		g.Expect(c).NotTo(BeNil())
		return c
	}
	g.Eventually(func(g Gomega) {
		g.Expect(ready(g, rg).Reason).To(Equal("AuthorizationFailed"))
		g.Expect(genruntime.GetResourceIDOrDefault(rg)).NotTo(BeEmpty(), "ASO claims the failing group")
		c := ready(g, nsg)
		g.Expect(c.Reason).To(Equal("WaitingForOwner"))
		g.Expect(c.Severity).To(Equal(conditions.ConditionSeverityWarning))
		g.Expect(genruntime.GetResourceIDOrDefault(nsg)).To(BeEmpty(), "not claimed")
	}, timeout).Should(Succeed())

	g.Expect(sim.Heal(ctx, "ResourceGroup", ns.Name, "rg")).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(ready(g, nsg).Status).To(Equal(metav1.ConditionTrue))
	}, timeout).Should(Succeed())

	// The claimed security group does not wait for its owner again.
	sim.Fail("ResourceGroup", ns.Name, "rg", "Throttled", "too many requests")
	g.Eventually(func(g Gomega) { g.Expect(ready(g, rg).Reason).To(Equal("Throttled")) }, timeout).Should(Succeed())
	nsg.Spec.Tags = map[string]string{"changed": "true"}
	g.Expect(env.Env.Update(ctx, nsg)).To(Succeed())
	g.Eventually(func(g Gomega) {
		c := ready(g, nsg)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.ObservedGeneration).To(Equal(nsg.Generation))
	}, timeout).Should(Succeed())
}
