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

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestCredentialFrom: like ASO, the simulator neither claims nor creates a resource whose credential-from Secret
// is missing or incomplete (Ready false, Warning, reason Failed, ASO's message), and goes on once it is complete.
func TestCredentialFrom(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "credential")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "rg", Annotations: map[string]string{asoannotations.PerResourceSecret: "cred"}},
		Spec:       asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	failedWith := func(message string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			readyCondition(ctx, g, rg, And(HaveField("Status", metav1.ConditionFalse), HaveField("Severity", conditions.ConditionSeverityWarning),
				HaveField("Reason", "Failed"), HaveField("Message", ContainSubstring(message))))
			g.Expect(genruntime.GetResourceIDOrDefault(rg)).To(BeEmpty(), "ASO claims nothing without a credential")
		}, timeout).Should(Succeed())
	}
	failedWith("credential secret not found")

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "cred"}, StringData: map[string]string{
		"AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000000", "AZURE_TENANT_ID": "tenant",
		"AZURE_RESOURCE_MANAGER_ENDPOINT": "https://management.chinacloudapi.cn/",
	}}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	failedWith(`does not contain key "AZURE_CLIENT_ID"`)

	secret.StringData = map[string]string{"AZURE_CLIENT_ID": "client"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	failedWith("must specify ALL or NONE of")

	secret.StringData = map[string]string{"AZURE_RESOURCE_MANAGER_AUDIENCE": "https://management.core.chinacloudapi.cn/", "AZURE_AUTHORITY_HOST": "https://login.chinacloudapi.cn/"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, rg, HaveField("Status", metav1.ConditionTrue))
		g.Expect(genruntime.GetResourceIDOrDefault(rg)).NotTo(BeEmpty())
	}, timeout).Should(Succeed())
}
