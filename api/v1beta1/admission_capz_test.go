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

package v1beta1_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// capzWroteLabel marks, in TestAdmission_CAPZObjectsAfterASwitch, the objects the provider's validating webhook of
// their kind does not see while they are created: objects CAPZ wrote before the switch.
const capzWroteLabel = "test.infrastructure.cluster.x-k8s.io/capz-wrote"

// TestAdmission_CAPZObjectsAfterASwitch: what CAPZ v1.26.0 writes into the provider's kinds is admitted for the
// objects CAPZ made (docs/migrating-from-capz.md). An AzureMachinePoolMachine of a Uniform scale set, with CAPZ's
// spec.instanceID and no model, is created (as clusterctl move does) and updated; its instance ID stays the one its
// provider ID names. So is one of a Flexible scale set, whose instance ID is its VM's name. An AzureManagedControlPlane CAPZ made with fields the provider does not implement (fleetsMember,
// extensions, enablePreviewFeatures) takes metadata and finalizer changes and changes of implemented fields; setting
// or changing such a field is still refused, and so is creating one with it.
func TestAdmission_CAPZObjectsAfterASwitch(t *testing.T) {
	ctx := t.Context()
	samples, ns := samplesNamespace(t, "capz-objects")

	t.Run("AzureMachinePoolMachine", func(t *testing.T) {
		g := NewWithT(t)
		const providerID = "azure:///subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3"
		m := &infrav1exp.AzureMachinePoolMachine{
			ObjectMeta: metav1.ObjectMeta{Name: "pool-3", Namespace: ns.Name, Finalizers: []string{infrav1exp.MachinePoolMachineFinalizer}},
			Spec:       infrav1exp.AzureMachinePoolMachineSpec{ProviderID: providerID, InstanceID: "3"},
		}
		g.Expect(env.Env.Create(ctx, m)).To(Succeed(), "CAPZ's object is created, as clusterctl move creates it")
		before := m.DeepCopy()
		m.Labels = map[string]string{"cluster.x-k8s.io/cluster-name": "workload"}
		m.Finalizers = nil
		g.Expect(env.Env.Patch(ctx, m, client.MergeFrom(before))).To(Succeed(), "metadata and finalizers change")

		before = m.DeepCopy()
		m.Spec.InstanceID = "4"
		err := env.Env.Patch(ctx, m, client.MergeFrom(before))
		g.Expect(err).To(HaveOccurred(), "the instance ID never changes")
		g.Expect(err.Error()).To(ContainSubstring("spec.instanceID"))

		poolMachine := func(name, providerID, instanceID string) *infrav1exp.AzureMachinePoolMachine {
			return &infrav1exp.AzureMachinePoolMachine{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
				Spec:       infrav1exp.AzureMachinePoolMachineSpec{ProviderID: providerID, InstanceID: instanceID},
			}
		}
		refused := func(m *infrav1exp.AzureMachinePoolMachine, why string) {
			err := env.Env.Create(ctx, m)
			g.Expect(err).To(HaveOccurred(), why)
			g.Expect(err.Error()).To(ContainSubstring("spec.instanceID"))
		}
		refused(poolMachine("pool-4", providerID, "4"), "an instance ID that is not the provider ID's instance")

		// CAPZ's record of an instance of a Flexible scale set: its VM, whose name is the instance ID.
		const vm = "azure:///subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/pool_8c60ddbd"
		flex := poolMachine("pool-pool-8c60ddbd", vm, "pool_8c60ddbd")
		g.Expect(env.Env.Create(ctx, flex)).To(Succeed(), "CAPZ's object of a Flexible instance is created")
		before = flex.DeepCopy()
		flex.Finalizers = []string{infrav1exp.MachinePoolMachineFinalizer}
		g.Expect(env.Env.Patch(ctx, flex, client.MergeFrom(before))).To(Succeed(), "and takes a finalizer")
		refused(poolMachine("pool-other", vm, "pool_other"), "an instance ID that is not the VM's name")
	})

	t.Run("AzureManagedControlPlane", func(t *testing.T) {
		g := NewWithT(t)
		unimplemented := map[string]any{
			"fleetsMember":          map[string]any{"name": "member", "managerName": "fleet", "managerResourceGroup": "fleet-rg"},
			"extensions":            []any{map[string]any{"name": "flux", "extensionType": "microsoft.flux"}},
			"enablePreviewFeatures": true,
		}
		newControlPlane := func(name string) *unstructured.Unstructured {
			obj := samples["AzureManagedControlPlane"].DeepCopy()
			obj.SetNamespace(ns.Name)
			obj.SetName(name)
			for k, v := range unimplemented {
				g.Expect(unstructured.SetNestedField(obj.Object, v, "spec", k)).To(Succeed())
			}
			return obj
		}
		g.Expect(env.Env.Create(ctx, newControlPlane("refused"))).NotTo(Succeed(), "the provider does not make such clusters")

		// CAPZ made this one, before the provider's webhook was there.
		bypassWebhook(t, g, "validation.azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io", true)
		cp := newControlPlane("capz-made")
		cp.SetLabels(map[string]string{capzWroteLabel: "true"})
		g.Eventually(func() error { return env.Env.Create(ctx, cp) }, time.Minute).Should(Succeed())
		bypassWebhook(t, g, "validation.azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io", false)
		g.Eventually(func() error {
			probe := newControlPlane("probe")
			probe.SetLabels(map[string]string{capzWroteLabel: "true", "probe": "true"})
			err := env.Env.Create(ctx, probe)
			if err == nil {
				_ = env.Env.Delete(ctx, probe)
			}
			return err
		}, time.Minute).ShouldNot(Succeed(), "the webhook sees every object again")

		for name, patch := range map[string]string{
			"metadata":                `{"metadata":{"labels":{"` + capzWroteLabel + `":null,"cluster.x-k8s.io/cluster-name":"workload"}}}`,
			"finalizer":               `{"metadata":{"finalizers":["azuremanagedcontrolplane.infrastructure.cluster.x-k8s.io"]}}`,
			"an implemented field":    `{"spec":{"additionalTags":{"team":"apps"}}}`,
			"the finalizer's removal": `{"metadata":{"finalizers":null}}`,
		} {
			g.Expect(env.Env.Patch(ctx, cp, client.RawPatch("application/merge-patch+json", []byte(patch)))).To(Succeed(), "%s changes", name)
		}
		for field, patch := range map[string]string{
			"spec.fleetsMember": `{"spec":{"fleetsMember":{"name":"other"}}}`,
			"spec.extensions":   `{"spec":{"extensions":[{"name":"flux","extensionType":"microsoft.flux"},{"name":"dapr","extensionType":"microsoft.dapr"}]}}`,
		} {
			err := env.Env.Patch(ctx, cp, client.RawPatch("application/merge-patch+json", []byte(patch)))
			g.Expect(err).To(HaveOccurred(), "changing %s", field)
			g.Expect(err.Error()).To(ContainSubstring(field))
		}
	})
}

// bypassWebhook makes the provider's validating webhook of that name skip the objects labelled capzWroteLabel (on),
// or see every object again (off), until the test ends.
func bypassWebhook(t *testing.T, g *WithT, name string, on bool) {
	t.Helper()
	ctx := context.Background()
	configs := &admissionv1.ValidatingWebhookConfigurationList{}
	g.Expect(env.Env.List(ctx, configs)).To(Succeed())
	for i := range configs.Items {
		c := &configs.Items[i]
		for j := range c.Webhooks {
			if c.Webhooks[j].Name != name {
				continue
			}
			before := c.DeepCopy()
			c.Webhooks[j].ObjectSelector = &metav1.LabelSelector{}
			if on {
				c.Webhooks[j].ObjectSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: capzWroteLabel, Operator: metav1.LabelSelectorOpDoesNotExist}}
				t.Cleanup(func() { bypassWebhook(t, NewWithT(t), name, false) })
			}
			g.Expect(env.Env.Patch(ctx, c, client.MergeFrom(before))).To(Succeed())
			return
		}
	}
	g.Expect(name).To(BeEmpty(), "no validating webhook %s", name)
}
