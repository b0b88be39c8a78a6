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
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestCheck_PrivateEndpointWaitsForApproval(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	e := newEngine(t)
	pe := &asonetwork.PrivateEndpoint{
		ObjectMeta: metav1.ObjectMeta{Name: "pe"},
		Spec: asonetwork.PrivateEndpoint_Spec{
			AzureName: "pe", Location: ptr.To("eastus"), Owner: &genruntime.KnownResourceReference{Name: "rg"},
			ManualPrivateLinkServiceConnections: []asonetwork.PrivateLinkServiceConnection{{
				Name:                        ptr.To("to-storage"),
				GroupIds:                    []string{"blob"},
				PrivateLinkServiceReference: &genruntime.ResourceReference{ARMID: "/subscriptions/s/resourceGroups/r/providers/Microsoft.Storage/storageAccounts/a"},
			}},
		},
	}
	desired := func() []aso.Resource {
		return []aso.Resource{resourceGroup("rg"), {Object: pe, Family: "PrivateEndpoints"}}
	}
	opts := options("c11")
	opts.Kinds = append(opts.Kinds, asonetwork.GroupVersion.WithKind("PrivateEndpoint"))
	g.Eventually(func(g Gomega) {
		result, err := e.Reconcile(ctx, owner, desired(), opts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result.Resource("ResourceGroup", "rg")).To(HaveField("Ready", true))
		g.Expect(result.Resource("PrivateEndpoint", "pe")).To(And(HaveField("Ready", false), HaveField("Reason", aso.ApprovalPendingReason),
			HaveField("Message", ContainSubstring(`connection "to-storage" is Pending`))))
	}, timeout).Should(Succeed())

	g.Expect(sim.ApprovePrivateEndpoint(ctx, owner.Namespace, "pe")).To(Succeed())
	reconcileUntilReady(ctx, g, e, owner, desired, opts)
}

func TestCheck_ManagedClusterWaitsForItsKubeconfig(t *testing.T) {
	g := NewWithT(t)
	ctx, owner := setup(t, g)
	check := aso.DefaultChecks()[schema.GroupKind{Group: "containerservice.azure.com", Kind: "ManagedCluster"}]
	mc := &asocontainerservice.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "aks", Namespace: owner.Namespace},
		Spec: asocontainerservice.ManagedCluster_Spec{OperatorSpec: &asocontainerservice.ManagedClusterOperatorSpec{
			Secrets: &asocontainerservice.ManagedClusterOperatorSecrets{
				AdminCredentials: &genruntime.SecretDestination{Name: "aks-admin", Key: "value"},
			},
		}},
	}
	ready, reason, message := check(ctx, env.Env.GetAPIReader(), mc)
	g.Expect(ready).To(BeFalse())
	g.Expect(reason).To(Equal(aso.KubeconfigPendingReason))
	g.Expect(message).To(ContainSubstring("aks-admin"))

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "aks-admin", Namespace: owner.Namespace}, Data: map[string][]byte{"other": []byte("x")}}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	ready, _, message = check(ctx, env.Env.GetAPIReader(), mc)
	g.Expect(ready).To(BeFalse())
	g.Expect(message).To(ContainSubstring("has no key value"))

	secret.Data["value"] = []byte("apiVersion: v1\nkind: Config\n")
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	ready, _, _ = check(ctx, env.Env.GetAPIReader(), mc)
	g.Expect(ready).To(BeTrue())

	// A cluster that asks for no kubeconfig is not held.
	ready, _, _ = check(ctx, env.Env.GetAPIReader(), &asocontainerservice.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: owner.Namespace}})
	g.Expect(ready).To(BeTrue())
}
