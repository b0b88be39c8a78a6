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
	"testing"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/labels/format"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestDelete_PoolDeletedBeforeTakeover: a pool CAPZ made (its scale set in Azure, the pool's provider ID, no ASO
// object), deleted before the provider's first pass (the cluster's or the pool's deletion during the switch). Its
// scale set goes from Azure through ASO, with its instances, when it carries the cluster's owned tag, Uniform or
// Flexible (CAPZ's, with a VM profile); the user's own stays; a scale set Azure no longer has is not made again.
// CAPZ's AzureMachinePoolMachines of a Uniform pool (CAPZ's finalizer, no model) go first, as in CAPZ, whose
// instances leave with the scale set. The pool is paused while it is deleted, so that the provider's first pass is a
// deletion pass, and carries CAPZ's finalizer (Cluster API's MachinePool finalizer).
func TestDelete_PoolDeletedBeforeTakeover(t *testing.T) {
	for _, tc := range []struct {
		// name is also the pool's and its scale set's.
		name string
		mode infrav1exp.OrchestrationModeType
		// tags of the scale set in Azure; nil: it is not in Azure.
		tags map[string]string
		// deleted says whether the scale set must be deleted in Azure.
		deleted bool
	}{
		{name: "capz-uniform", mode: infrav1exp.UniformOrchestrationMode, tags: map[string]string{}, deleted: true},
		{name: "capz-flex", mode: infrav1exp.FlexibleOrchestrationMode, tags: map[string]string{}, deleted: true},
		{name: "capz-brought", mode: infrav1exp.UniformOrchestrationMode, tags: map[string]string{"team": "platform"}},
		{name: "capz-gone", mode: infrav1exp.UniformOrchestrationMode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newFixture(t, g)
			id := azure.ResourceID(sim.SubscriptionID(), f.resourceGroup, azure.TypeScaleSet, tc.name)
			if tc.tags != nil {
				if tc.deleted {
					tc.tags[azure.ClusterTagKey(f.cluster.Name)] = string(infrav1.ResourceLifecycleOwned)
				}
				sim.SeedAzure("VirtualMachineScaleSet", id, tc.tags)
				properties := map[string]any{
					"orchestrationMode":     string(tc.mode),
					"sku":                   map[string]any{"name": "Standard_D2s_v3", "capacity": int64(1)},
					"virtualMachineProfile": map[string]any{"osProfile": map[string]any{"computerNamePrefix": tc.name}},
				}
				sim.SeedAzureProperties(id, properties)
			}
			// As CAPZ left it: paused (the switch) until it is deleted, with CAPZ's finalizer.
			f.poolAnnotations = map[string]string{clusterv1.PausedAnnotation: ""}
			mp, amp := f.newPool(t, g, tc.name, tc.mode, 1, func(s *infrav1exp.AzureMachinePoolSpec) { s.ProviderID = azure.ProviderID(id) })
			g.Eventually(func() error {
				live := &infrav1exp.AzureMachinePool{}
				if err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), live); err != nil {
					return err
				}
				capz := live.DeepCopy()
				capz.Finalizers = append(capz.Finalizers, clusterv1.MachinePoolFinalizer)
				return env.Env.Patch(f.ctx, capz, client.MergeFromWithOptions(live, client.MergeFromWithOptimisticLock{}))
			}, timeout, interval).Should(Succeed())
			g.Expect(env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), amp)).To(Succeed())

			// CAPZ's instance of a Uniform pool: CAPZ's finalizer, its instance ID, no model.
			var instance *infrav1exp.AzureMachinePoolMachine
			if tc.mode == infrav1exp.UniformOrchestrationMode && tc.tags != nil {
				instance = &infrav1exp.AzureMachinePoolMachine{
					ObjectMeta: metav1.ObjectMeta{
						Name: tc.name + "-0", Namespace: f.namespace,
						Labels: map[string]string{
							clusterv1.ClusterNameLabel:     f.cluster.Name,
							clusterv1.MachinePoolNameLabel: format.MustFormatValue(mp.Name),
						},
						OwnerReferences: []metav1.OwnerReference{{
							APIVersion: infrav1exp.GroupVersion.String(), Kind: "AzureMachinePool", Name: amp.Name, UID: amp.UID,
						}},
						Finalizers: []string{infrav1exp.MachinePoolMachineFinalizer},
					},
					Spec: infrav1exp.AzureMachinePoolMachineSpec{ProviderID: azure.ProviderID(id + "/virtualMachines/0"), InstanceID: "0"},
				}
				g.Expect(env.Env.Create(f.ctx, instance)).To(Succeed())
			}

			g.Expect(env.Env.Delete(f.ctx, amp)).To(Succeed())
			g.Eventually(func() error {
				live := &infrav1exp.AzureMachinePool{}
				if err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), live); err != nil {
					return err
				}
				unpaused := live.DeepCopy()
				delete(unpaused.Annotations, clusterv1.PausedAnnotation)
				return env.Env.Patch(f.ctx, unpaused, client.MergeFromWithOptions(live, client.MergeFromWithOptimisticLock{}))
			}, timeout, interval).Should(Succeed())

			g.Eventually(func(g Gomega) {
				live := &infrav1exp.AzureMachinePool{}
				err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(amp), live)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the AzureMachinePool's deletion finishes: %+v %+v", live.ObjectMeta, live.Status)
			}, timeout, interval).Should(Succeed())
			switch {
			case tc.tags == nil:
				g.Expect(sim.ExistsInAzure(id)).To(BeFalse(), "a scale set Azure no longer has is not made again")
			case tc.deleted:
				g.Expect(sim.Deleted()).To(ContainElement(id), "the scale set CAPZ made goes from Azure, with its instances")
			default:
				g.Expect(sim.Deleted()).NotTo(ContainElement(id), "the user's scale set stays")
				g.Expect(sim.ExistsInAzure(id)).To(BeTrue())
			}
			g.Expect(sim.Events()).NotTo(ContainElement(And(HaveField("Op", "Create"), HaveField("ID", id))), "the scale set is not created in Azure")
			if instance != nil {
				err := env.Env.GetAPIReader().Get(f.ctx, client.ObjectKeyFromObject(instance), &infrav1exp.AzureMachinePoolMachine{})
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "CAPZ's AzureMachinePoolMachine went before its pool")
			}
			g.Eventually(func(g Gomega) {
				g.Expect(asoNames(g, f, &asocompute.VirtualMachineScaleSetList{})).To(BeEmpty())
			}, timeout, interval).Should(Succeed())
		})
	}
}
