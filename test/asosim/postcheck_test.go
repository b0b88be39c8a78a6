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
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestPrivateEndpoint_PostReconciliationCheck: like ASO's post-reconciliation check, a private endpoint whose manual
// connection awaits approval is not Ready (Warning, PostReconciliationFailure, ASO's message naming the
// connection), with the status read from Azure; it is Ready once approved.
func TestPrivateEndpoint_PostReconciliationCheck(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "postcheck")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	resourceGroup(t, ns.Name)
	pe := &asonetwork.PrivateEndpoint{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "pe"},
		Spec: asonetwork.PrivateEndpoint_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
			ManualPrivateLinkServiceConnections: []asonetwork.PrivateLinkServiceConnection{{
				Name: ptr.To("to-storage"), GroupIds: []string{"blob"},
				PrivateLinkServiceReference: &genruntime.ResourceReference{ARMID: "/subscriptions/s/resourceGroups/r/providers/Microsoft.Storage/storageAccounts/a"},
			}},
		},
	}
	g.Expect(env.Env.Create(ctx, pe)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, pe, And(HaveField("Status", metav1.ConditionFalse), HaveField("Severity", conditions.ConditionSeverityWarning),
			HaveField("Reason", "PostReconciliationFailure"),
			HaveField("Message", `Private connection(s) '["`+genruntime.GetResourceIDOrDefault(pe)+`/manualPrivateLinkServiceConnections/to-storage"]' to the PrivateEndpoint requires approval`)))
		g.Expect(pe.Status.ManualPrivateLinkServiceConnections).To(HaveLen(1))
		g.Expect(pe.Status.ManualPrivateLinkServiceConnections[0].PrivateLinkServiceConnectionState.Status).To(HaveValue(Equal("Pending")))
		g.Expect(pe.Status.Id).NotTo(BeNil(), "ASO read the endpoint from Azure")
	}, timeout).Should(Succeed())

	g.Expect(sim.ApprovePrivateEndpoint(ctx, ns.Name, "pe")).To(Succeed())
	g.Eventually(func(g Gomega) { readyCondition(ctx, g, pe, HaveField("Status", metav1.ConditionTrue)) }, timeout).Should(Succeed())
}
