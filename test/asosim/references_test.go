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
	"context"
	"testing"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime/core"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// resourceGroup creates a resource group "rg" in the namespace, the owner of the objects of a test.
func resourceGroup(t *testing.T, namespace string) {
	t.Helper()
	rg := &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rg"}, Spec: asoresources.ResourceGroup_Spec{Location: ptr.To("eastus")}}
	NewWithT(t).Expect(env.Env.Create(t.Context(), rg)).To(Succeed())
}

// readyCondition matches an object's Ready condition.
func readyCondition(ctx context.Context, g Gomega, obj interface {
	client.Object
	conditions.Conditioner
}, matcher types.GomegaMatcher) {
	g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	g.Expect(genruntime.GetReadyCondition(obj)).To(And(Not(BeNil()), matcher))
}

// TestReferences_ConfigMapExportedByAnotherResource: like ASO, the simulator resolves a config map reference before
// the resource goes to Azure (ConfigMapNotFound, a Warning, until then), and exports what a resource's
// configMapExpressions give once it is Ready: the role assignment of a VM's system-assigned identity reads the
// principal ID the VM exports, and waits for it.
func TestReferences_ConfigMapExportedByAnotherResource(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "configmaps")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	// The VM waits (it is held Reconciling) while the assignment is created.
	sim.StayReconciling("VirtualMachine", ns.Name, "vm")
	resourceGroup(t, ns.Name)
	vm := &asocompute.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "vm"},
		Spec: asocompute.VirtualMachine_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
			Identity: &asocompute.VirtualMachineIdentity{Type: ptr.To(asocompute.VirtualMachineIdentity_Type_SystemAssigned)},
			OperatorSpec: &asocompute.VirtualMachineOperatorSpec{ConfigMapExpressions: []*core.DestinationExpression{
				{Name: "vm-identity", Key: "principalId", Value: "self.status.identity.principalId"},
			}},
		},
	}
	assignment := &asoauthorization.RoleAssignment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "contributor"},
		Spec: asoauthorization.RoleAssignment_Spec{
			Owner:                   &genruntime.ArbitraryOwnerReference{ARMID: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"},
			PrincipalIdFromConfig:   &genruntime.ConfigMapReference{Name: "vm-identity", Key: "principalId"},
			RoleDefinitionReference: &genruntime.WellKnownResourceReference{ResourceReference: genruntime.ResourceReference{ARMID: "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"}},
		},
	}
	g.Expect(env.Env.Create(ctx, vm)).To(Succeed())
	g.Expect(env.Env.Create(ctx, assignment)).To(Succeed())

	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, assignment, And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Severity", conditions.ConditionSeverityWarning),
			HaveField("Reason", "ConfigMapNotFound"), HaveField("Message", ContainSubstring(ns.Name+"/vm-identity does not exist")),
		))
		g.Expect(genruntime.GetResourceIDOrDefault(assignment)).To(BeEmpty(), "ASO claims the assignment only once its references resolve")
	}, timeout).Should(Succeed())
	g.Expect(sim.Events()).NotTo(ContainElement(HaveField("Kind", "RoleAssignment")), "the assignment did not reach Azure")

	g.Expect(sim.Heal(ctx, "VirtualMachine", ns.Name, "vm")).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, vm, HaveField("Status", metav1.ConditionTrue))
		g.Expect(vm.Status.Identity).NotTo(BeNil())
		g.Expect(vm.Status.Identity.PrincipalId).NotTo(BeNil())
		cm := &corev1.ConfigMap{}
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "vm-identity"}, cm)).To(Succeed())
		g.Expect(cm.Data).To(Equal(map[string]string{"principalId": *vm.Status.Identity.PrincipalId}))
		g.Expect(metav1.IsControlledBy(cm, vm)).To(BeTrue(), "ASO owns what it exports")
		readyCondition(ctx, g, assignment, HaveField("Status", metav1.ConditionTrue))
	}, timeout).Should(Succeed())
}

// TestReferences_ResourceAndSecret: a Kubernetes resource reference resolves once the referenced object exists and
// is claimed (ReferenceNotFound until then), a secret reference once the Secret has the key (SecretNotFound).
func TestReferences_ResourceAndSecret(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "references")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	resourceGroup(t, ns.Name)
	nic := &asonetwork.NetworkInterface{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "nic"},
		Spec: asonetwork.NetworkInterface_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
			IpConfigurations: []asonetwork.NetworkInterfaceIPConfiguration_NetworkInterface_SubResourceEmbedded{{
				Name:            ptr.To("ipconfig1"),
				PublicIPAddress: &asonetwork.PublicIPAddressSpec_NetworkInterface_SubResourceEmbedded{Reference: &genruntime.ResourceReference{Group: "network.azure.com", Kind: "PublicIPAddress", Name: "pip"}},
			}},
		},
	}
	g.Expect(env.Env.Create(ctx, nic)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, nic, And(HaveField("Severity", conditions.ConditionSeverityWarning), HaveField("Reason", "ReferenceNotFound"),
			HaveField("Message", ContainSubstring(ns.Name+"/pip does not exist"))))
	}, timeout).Should(Succeed())
	pip := &asonetwork.PublicIPAddress{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "pip"}, Spec: asonetwork.PublicIPAddress_Spec{
		Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
	}}
	g.Expect(env.Env.Create(ctx, pip)).To(Succeed())
	g.Eventually(func(g Gomega) { readyCondition(ctx, g, nic, HaveField("Status", metav1.ConditionTrue)) }, timeout).Should(Succeed())

	vm := &asocompute.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "vm"},
		Spec: asocompute.VirtualMachine_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
			OsProfile: &asocompute.OSProfile{AdminPassword: &genruntime.SecretReference{Name: "password", Key: "value"}},
		},
	}
	g.Expect(env.Env.Create(ctx, vm)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, vm, And(HaveField("Severity", conditions.ConditionSeverityWarning), HaveField("Reason", "SecretNotFound")))
	}, timeout).Should(Succeed())
	password := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "password"}, StringData: map[string]string{"other": "x"}}
	g.Expect(env.Env.Create(ctx, password)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, vm, And(HaveField("Reason", "SecretNotFound"), HaveField("Message", ContainSubstring(`does not contain key "value"`))))
	}, timeout).Should(Succeed())
	password.StringData = map[string]string{"value": "s3cret!"}
	g.Expect(env.Env.Update(ctx, password)).To(Succeed())
	g.Eventually(func(g Gomega) { readyCondition(ctx, g, vm, HaveField("Status", metav1.ConditionTrue)) }, timeout).Should(Succeed())
}

// TestStatus_KeptWhileFailing: like ASO, the simulator keeps the status it last read from Azure while the resource
// fails; only the Ready condition changes.
func TestStatus_KeptWhileFailing(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "status")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(ctx, ns) })

	resourceGroup(t, ns.Name)
	pip := &asonetwork.PublicIPAddress{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "pip"}, Spec: asonetwork.PublicIPAddress_Spec{
		Owner: &genruntime.KnownResourceReference{Name: "rg"}, Location: ptr.To("eastus"),
	}}
	g.Expect(env.Env.Create(ctx, pip)).To(Succeed())
	var address string
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, pip, HaveField("Status", metav1.ConditionTrue))
		g.Expect(pip.Status.IpAddress).NotTo(BeNil())
		address = *pip.Status.IpAddress
	}, timeout).Should(Succeed())

	sim.Fail("PublicIPAddress", ns.Name, "pip", "Conflict", "another operation is in progress")
	patch := client.MergeFrom(pip.DeepCopy())
	pip.Spec.Tags = map[string]string{"changed": "true"}
	g.Expect(env.Env.Patch(ctx, pip, patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		readyCondition(ctx, g, pip, And(HaveField("Reason", "Conflict"), HaveField("ObservedGeneration", pip.Generation)))
		g.Expect(pip.Status.IpAddress).To(HaveValue(Equal(address)), "the address read before the failure stays")
		g.Expect(pip.Status.Id).NotTo(BeNil())
	}, timeout).Should(Succeed())
}
