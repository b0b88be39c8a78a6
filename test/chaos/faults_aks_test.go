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

package chaos

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/faults"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// aks is the state of an AKS cluster a step waits for.
type aks struct {
	// pools are the MachinePools (named after the cluster plus their suffix) and their number of nodes.
	pools   map[string]int
	version string
}

// TestFaults_AKS runs an AKS cluster of the typed API through its life while the provider's requests fail: the
// AzureManagedControlPlane and AzureManagedMachinePool controllers, the credential secret of its identity included.
func TestFaults_AKS(t *testing.T) {
	g := NewWithT(t)
	f := p.NewAKSFixture(t, g, "faults-aks")
	obs := observe(t, f.Namespace)
	key := f.Key(f.ClusterName)
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 2}, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) { expectAKS(ctx, g, f, &infrav1.AzureManagedControlPlane{}, want) }
	runSteps(t, f, obs, append([]step{
		{
			name:      "create, the credential secret cannot be written",
			fault:     faults.Rule{Verb: "patch", Resource: secrets, Name: aso.CredentialSecretName(f.ClusterName), Fault: faults.Unavailable},
			act:       func(ctx context.Context, g *WithT) { f.Apply(ctx, g, "aks-cluster.yaml") },
			shows:     &infrav1.AzureManagedControlPlaneList{},
			converged: converged,
		},
		{
			name:  "update, the managed cluster denied by a webhook",
			fault: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Denied},
			act: func(ctx context.Context, g *WithT) {
				patchObject(ctx, g, key, &infrav1.AzureManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureManagedControlPlane).Spec.AdditionalTags = infrav1.Tags{"chaos": "update"}
				})
			},
			shows: &infrav1.AzureManagedControlPlaneList{},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				mc := &asocontainerservice.ManagedCluster{}
				g.Expect(env.Env.Get(ctx, key, mc)).To(Succeed())
				g.Expect(mc.Spec.Tags).To(HaveKeyWithValue("chaos", "update"))
			},
		},
		{
			name:  "scale, the agent pool conflicts",
			fault: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Conflict},
			act: func(ctx context.Context, g *WithT) {
				want.pools["-pool0"] = 2
				scaleMachinePool(ctx, g, f.Key(f.ClusterName+"-pool0"), 2)
			},
			shows:     &infrav1.AzureManagedMachinePoolList{},
			converged: converged,
		},
		{
			name:  "upgrade, the managed cluster times out",
			fault: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.TimedOut},
			act: func(ctx context.Context, g *WithT) {
				want.version = upgradeVersion
				patchObject(ctx, g, key, &infrav1.AzureManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureManagedControlPlane).Spec.Version = upgradeVersion
				})
			},
			shows:     &infrav1.AzureManagedControlPlaneList{},
			converged: converged,
		},
	}, pauseAndDelete(f, converged, lastSteps{
		pause: agentPools, pauseShows: &infrav1.AzureManagedMachinePoolList{},
		unpause: managedClusters, unpauseShows: &infrav1.AzureManagedControlPlaneList{},
		delete: managedClusters, deleteShows: &infrav1.AzureManagedControlPlaneList{},
	})...))
}

// TestFaults_ASOManaged runs an AKS cluster of raw ASO objects through its life while the provider's requests
// fail: the AzureASOManagedCluster, AzureASOManagedControlPlane and AzureASOManagedMachinePool controllers.
func TestFaults_ASOManaged(t *testing.T) {
	g := NewWithT(t)
	f := p.NewAKSFixture(t, g, "faults-aso")
	obs := observe(t, f.Namespace)
	key := f.Key(f.ClusterName)
	// The autoscaling pool starts at its minimum.
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 1}, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) {
		expectAKS(ctx, g, f, &infrav1.AzureASOManagedControlPlane{}, want)
	}
	runSteps(t, f, obs, append([]step{
		{
			name:      "create, the resource group denied by a webhook",
			fault:     faults.Rule{Verb: "patch", Resource: resourceGroups, Fault: faults.Denied},
			act:       func(ctx context.Context, g *WithT) { f.Apply(ctx, g, "aks-aso-cluster.yaml") },
			shows:     &infrav1.AzureASOManagedClusterList{},
			converged: converged,
		},
		{
			name:  "update, the managed cluster conflicts",
			fault: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Conflict},
			act: func(ctx context.Context, g *WithT) {
				patchObject(ctx, g, key, &infrav1.AzureASOManagedControlPlane{}, func(o client.Object) {
					cp := o.(*infrav1.AzureASOManagedControlPlane)
					var mc map[string]any
					g.Expect(json.Unmarshal(cp.Spec.Resources[0].Raw, &mc)).To(Succeed())
					mc["spec"].(map[string]any)["tags"] = map[string]any{"chaos": "update"}
					raw, err := json.Marshal(mc)
					g.Expect(err).NotTo(HaveOccurred())
					cp.Spec.Resources[0].Raw = raw
				})
			},
			shows: &infrav1.AzureASOManagedControlPlaneList{},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				mc := &asocontainerservice.ManagedCluster{}
				g.Expect(env.Env.Get(ctx, key, mc)).To(Succeed())
				g.Expect(mc.Spec.Tags).To(HaveKeyWithValue("chaos", "update"))
			},
		},
		{
			name:  "scale, the agent pool unavailable",
			fault: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Unavailable},
			act: func(ctx context.Context, g *WithT) {
				want.pools["-pool0"] = 2
				scaleMachinePool(ctx, g, f.Key(f.ClusterName+"-pool0"), 2)
			},
			shows:     &infrav1.AzureASOManagedMachinePoolList{},
			converged: converged,
		},
		{
			name:  "upgrade, the managed cluster denied by a webhook",
			fault: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Denied},
			act: func(ctx context.Context, g *WithT) {
				want.version = upgradeVersion
				patchObject(ctx, g, key, &infrav1.AzureASOManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureASOManagedControlPlane).Spec.Version = upgradeVersion
				})
			},
			shows:     &infrav1.AzureASOManagedControlPlaneList{},
			converged: converged,
		},
	}, pauseAndDelete(f, converged, lastSteps{
		pause: managedClusters, pauseShows: &infrav1.AzureASOManagedControlPlaneList{},
		unpause: agentPools, unpauseShows: &infrav1.AzureASOManagedMachinePoolList{},
		delete: resourceGroups, deleteShows: &infrav1.AzureASOManagedClusterList{},
	})...))
}

// lastSteps says which kind's requests fail while a cluster pauses for a move, unpauses and is deleted, and which
// owners then show the failure.
type lastSteps struct {
	pause, unpause, delete                schema.GroupResource
	pauseShows, unpauseShows, deleteShows client.ObjectList
}

// pauseAndDelete are the last steps of a cluster: pause for a move, unpause, and delete.
func pauseAndDelete(f *plane.Fixture, converged func(context.Context, Gomega), last lastSteps) []step {
	key := f.Key(f.ClusterName)
	return []step{
		{
			name:      "pause for a move, " + last.pause.Resource + " unavailable",
			fault:     faults.Rule{Verb: "patch", Resource: last.pause, Fault: faults.Unavailable},
			act:       func(ctx context.Context, g *WithT) { setPaused(ctx, g, key, true) },
			shows:     last.pauseShows,
			converged: func(ctx context.Context, g Gomega) { expectPausedForMove(ctx, g, f.Namespace) },
		},
		{
			name:  "unpause, " + last.unpause.Resource + " throttled",
			fault: faults.Rule{Verb: "patch", Resource: last.unpause, Fault: faults.Throttled},
			act:   func(ctx context.Context, g *WithT) { setPaused(ctx, g, key, false) },
			shows: last.unpauseShows,
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				for _, o := range plane.ListASOObjects(ctx, g, f.Namespace) {
					g.Expect(o.Object.GetAnnotations()).NotTo(HaveKey(aso.PrePauseAnnotation), "%s resumed", o)
				}
			},
		},
		{
			name:  "delete, " + last.delete.Resource + " unavailable",
			fault: faults.Rule{Verb: "delete", Resource: last.delete, Fault: faults.Unavailable},
			act: func(ctx context.Context, g *WithT) {
				g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
			},
			shows: last.deleteShows,
			converged: func(ctx context.Context, g Gomega) {
				expectDeleted(ctx, g, f, key, p.ResourceGroupID(f.Vars["RESOURCE_GROUP"]))
			},
		},
	}
}

// scaleMachinePool sets a MachinePool's replicas.
func scaleMachinePool(ctx context.Context, g *WithT, key client.ObjectKey, replicas int32) {
	patchObject(ctx, g, key, &clusterv1.MachinePool{}, func(o client.Object) {
		o.(*clusterv1.MachinePool).Spec.Replicas = ptr.To(replicas)
	})
}

// expectAKS checks an AKS cluster: the control plane (an empty object of its kind) ready and at the version, and
// every pool's nodes known to Cluster API.
func expectAKS(ctx context.Context, g Gomega, f *plane.Fixture, cp interface {
	client.Object
	conditions.Getter
}, want aks) {
	g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), cp)).To(Succeed())
	g.Expect(conditions.IsTrue(cp, clusterv1.ReadyCondition)).To(BeTrue(), "control plane Ready: %+v", conditions.Get(cp, clusterv1.ReadyCondition))
	mc := &asocontainerservice.ManagedCluster{}
	g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName), mc)).To(Succeed())
	g.Expect(mc.Status.CurrentKubernetesVersion).To(HaveValue(Equal(strings.TrimPrefix(want.version, "v"))))
	for suffix, nodes := range want.pools {
		mp := &clusterv1.MachinePool{}
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName+suffix), mp)).To(Succeed())
		g.Expect(mp.Spec.ProviderIDList).To(HaveLen(nodes), "%s providerIDList", mp.Name)
		g.Expect(mp.Status.NodeRefs).To(HaveLen(nodes), "%s nodeRefs", mp.Name)
	}
	for _, o := range plane.ListASOObjects(ctx, g, f.Namespace) {
		g.Expect(o.Object.GetDeletionTimestamp().IsZero()).To(BeTrue(), "%s is being deleted", o)
	}
}
