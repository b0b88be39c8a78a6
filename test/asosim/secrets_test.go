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
	"time"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const timeout = 30 * time.Second

// TestManagedCluster_SecretNotOwned: like ASO, the simulator does not overwrite a Secret of operatorSpec.secrets
// that the managed cluster does not own. It reports that on the cluster's Ready condition (severity Error, reason
// FailedWritingAdditionalKubernetesObjects, ASO's message), leaves the Secret as it is, and writes it once the
// Secret is gone.
func TestManagedCluster_SecretNotOwned(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "secrets")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "taken"}, StringData: map[string]string{"value": "theirs"}}
	g.Expect(env.Env.Create(ctx, theirs)).To(Succeed())
	g.Expect(env.Env.Create(ctx, &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg"},
		Spec:       asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")},
	})).To(Succeed())
	mc := &asocontainerservice.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "aks"},
		Spec: asocontainerservice.ManagedCluster_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"), DnsPrefix: ptr.To("aks"),
			OperatorSpec: &asocontainerservice.ManagedClusterOperatorSpec{Secrets: &asocontainerservice.ManagedClusterOperatorSecrets{
				AdminCredentials: &genruntime.SecretDestination{Name: "taken", Key: "value"},
			}},
		},
	}
	g.Expect(env.Env.Create(ctx, mc)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
		g.Expect(mc.Status.Conditions).To(ContainElement(And(
			HaveField("Type", BeEquivalentTo("Ready")), HaveField("Status", metav1.ConditionFalse),
			HaveField("Severity", BeEquivalentTo("Error")), HaveField("Reason", "FailedWritingAdditionalKubernetesObjects"),
			HaveField("Message", "cannot overwrite Secret "+ns.Name+"/taken which is not owned by ManagedCluster.containerservice.azure.com "+ns.Name+"/aks"),
		)))
	}, timeout).Should(Succeed())
	live := &corev1.Secret{}
	g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
	g.Expect(live.Data).To(Equal(map[string][]byte{"value": []byte("theirs")}))
	g.Expect(live.OwnerReferences).To(BeEmpty())

	g.Expect(env.Env.Delete(ctx, live)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
		g.Expect(mc.Status.Conditions).To(ContainElement(And(HaveField("Type", BeEquivalentTo("Ready")), HaveField("Status", metav1.ConditionTrue))))
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(theirs), live)).To(Succeed())
		g.Expect(live.Data).To(Equal(map[string][]byte{"value": []byte("kubeconfig")}))
		g.Expect(metav1.IsControlledBy(live, mc)).To(BeTrue())
	}, timeout).Should(Succeed())
}
