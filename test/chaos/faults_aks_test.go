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
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
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
// AzureManagedControlPlane, AzureManagedCluster and AzureManagedMachinePool controllers in every operation of the
// matrix, the credential secret of its identity included.
func TestFaults_AKS(t *testing.T) {
	g := NewWithT(t)
	f := p.NewAKSFixture(t, g, "faults-aks")
	obs := observe(t, f.Namespace)
	obs.bring(t.Context(), g, f)
	runSteps(t, f, obs, aksSteps(f))
}

// aksSteps are the steps of TestFaults_AKS.
func aksSteps(f *plane.Fixture) []step {
	key := f.Key(f.ClusterName)
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 2}, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) { expectAKS(ctx, g, f, &infrav1.AzureManagedControlPlane{}, want) }
	const amcp, amc, ammp = setup.AzureManagedControlPlaneController, setup.AzureManagedClusterController, setup.AzureManagedMachinePoolController
	return []step{
		{
			name: "create: the credential secret cannot be written, agent pools unavailable, the infrastructure cluster's status conflicts",
			faults: []fault{
				{controller: amcp, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: secrets, Name: aso.CredentialSecretName(f.ClusterName), Fault: faults.Unavailable}, shows: &infrav1.AzureManagedControlPlaneList{}},
				{controller: ammp, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Unavailable}, shows: &infrav1.AzureManagedMachinePoolList{}},
				statusWrites(amc, opCreate, azureManagedClusters, faults.Conflict),
			},
			act:       func(ctx context.Context, g *WithT) { f.Apply(ctx, g, "aks-cluster.yaml") },
			converged: converged,
		},
		{
			name: "update: the managed cluster denied by a webhook, caches of the infrastructure cluster and pools cut",
			faults: append(append([]fault{
				{controller: amcp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Denied}, shows: &infrav1.AzureManagedControlPlaneList{}},
			}, watches(amc, opUpdate, azureManagedClusters, false)...), watches(ammp, opUpdate, azureManagedMachinePools, false)...),
			act: func(ctx context.Context, g *WithT) {
				patchObject(ctx, g, key, &infrav1.AzureManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureManagedControlPlane).Spec.AdditionalTags = infrav1.Tags{"chaos": "update"}
				})
			},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				mc := &asocontainerservice.ManagedCluster{}
				g.Expect(env.Env.Get(ctx, key, mc)).To(Succeed())
				g.Expect(mc.Spec.Tags).To(HaveKeyWithValue("chaos", "update"))
			},
		},
		{
			name: "scale: the agent pool conflicts, caches of the control plane and the infrastructure cluster cut",
			faults: append(append([]fault{
				{controller: ammp, op: opScale, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Conflict}, shows: &infrav1.AzureManagedMachinePoolList{}},
			}, watches(amcp, opScale, azureManagedControlPlanes, true)...), watches(amc, opScale, azureManagedClusters, false)...),
			act: func(ctx context.Context, g *WithT) {
				want.pools["-pool0"] = 2
				scaleMachinePool(ctx, g, f.Key(f.ClusterName+"-pool0"), 2)
			},
			converged: converged,
		},
		{
			name:   "upgrade: the managed cluster times out",
			faults: []fault{{controller: amcp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.TimedOut}, shows: &infrav1.AzureManagedControlPlaneList{}}},
			act: func(ctx context.Context, g *WithT) {
				want.version = upgradeVersion
				patchObject(ctx, g, key, &infrav1.AzureManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureManagedControlPlane).Spec.Version = upgradeVersion
				})
			},
			converged: converged,
		},
		pauseStep(f, []fault{
			{controller: ammp, op: opPause, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Unavailable}, shows: &infrav1.AzureManagedMachinePoolList{}},
			statusWrites(amcp, opPause, azureManagedControlPlanes, faults.Unavailable),
			statusWrites(amc, opPause, azureManagedClusters, faults.Unavailable),
		}),
		unpauseStep(f, converged, []fault{
			{controller: amcp, op: opPause, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Throttled}, shows: &infrav1.AzureManagedControlPlaneList{}},
		}),
		// The AzureManagedCluster controller writes nothing while its cluster goes (it has no finalizer): it meets
		// its fault in its cache, which neither lists nor watches until the fault clears.
		deleteStep(f, append([]fault{
			{controller: amcp, op: opDelete, rule: faults.Rule{Verb: "delete", Resource: managedClusters, Fault: faults.Unavailable}, shows: &infrav1.AzureManagedControlPlaneList{}},
			statusWrites(ammp, opDelete, azureManagedMachinePools, faults.Unavailable),
		}, watches(amc, opDelete, azureManagedClusters, true)...)),
	}
}

// TestFaults_ASOManaged runs an AKS cluster of raw ASO objects through its life while the provider's requests
// fail: the AzureASOManagedCluster, AzureASOManagedControlPlane and AzureASOManagedMachinePool controllers in every
// operation of the matrix.
func TestFaults_ASOManaged(t *testing.T) {
	g := NewWithT(t)
	f := p.NewAKSFixture(t, g, "faults-aso")
	obs := observe(t, f.Namespace)
	obs.bring(t.Context(), g, f)
	runSteps(t, f, obs, asoManagedSteps(f))
}

// asoManagedSteps are the steps of TestFaults_ASOManaged.
func asoManagedSteps(f *plane.Fixture) []step {
	key := f.Key(f.ClusterName)
	// The autoscaling pool starts at its minimum.
	want := aks{pools: map[string]int{"-pool0": 1, "-pool1": 1}, version: plane.KubernetesVersion}
	converged := func(ctx context.Context, g Gomega) {
		expectAKS(ctx, g, f, &infrav1.AzureASOManagedControlPlane{}, want)
	}
	const asoc, asocp, asomp = setup.AzureASOManagedClusterController, setup.AzureASOManagedControlPlaneController, setup.AzureASOManagedMachinePoolController
	return []step{
		{
			name: "create: the resource group denied by a webhook, the managed cluster unavailable, pools' status unavailable",
			faults: []fault{
				{controller: asoc, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: resourceGroups, Fault: faults.Denied}, shows: &infrav1.AzureASOManagedClusterList{}},
				{controller: asocp, op: opCreate, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedControlPlaneList{}},
				statusWrites(asomp, opCreate, azureASOManagedMachinePools, faults.Unavailable),
			},
			act:       func(ctx context.Context, g *WithT) { f.Apply(ctx, g, "aks-aso-cluster.yaml") },
			converged: converged,
		},
		{
			name: "update: the managed cluster conflicts, the resource group unavailable, an agent pool denied",
			faults: []fault{
				{controller: asocp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Conflict}, shows: &infrav1.AzureASOManagedControlPlaneList{}},
				{controller: asoc, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: resourceGroups, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedClusterList{}},
				{controller: asomp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Denied}, shows: &infrav1.AzureASOManagedMachinePoolList{}},
			},
			act: func(ctx context.Context, g *WithT) {
				tag := func(raw []byte) []byte {
					var obj map[string]any
					g.Expect(json.Unmarshal(raw, &obj)).To(Succeed())
					obj["spec"].(map[string]any)["tags"] = map[string]any{"chaos": "update"}
					out, err := json.Marshal(obj)
					g.Expect(err).NotTo(HaveOccurred())
					return out
				}
				patchObject(ctx, g, key, &infrav1.AzureASOManagedControlPlane{}, func(o client.Object) {
					cp := o.(*infrav1.AzureASOManagedControlPlane)
					cp.Spec.Resources[0].Raw = tag(cp.Spec.Resources[0].Raw)
				})
				patchObject(ctx, g, key, &infrav1.AzureASOManagedCluster{}, func(o client.Object) {
					c := o.(*infrav1.AzureASOManagedCluster)
					c.Spec.Resources[0].Raw = tag(c.Spec.Resources[0].Raw)
				})
				patchObject(ctx, g, f.Key(f.ClusterName+"-pool1"), &infrav1.AzureASOManagedMachinePool{}, func(o client.Object) {
					mp := o.(*infrav1.AzureASOManagedMachinePool)
					mp.Spec.Resources[0].Raw = tag(mp.Spec.Resources[0].Raw)
				})
			},
			converged: func(ctx context.Context, g Gomega) {
				converged(ctx, g)
				mc := &asocontainerservice.ManagedCluster{}
				g.Expect(env.Env.Get(ctx, key, mc)).To(Succeed())
				g.Expect(mc.Spec.Tags).To(HaveKeyWithValue("chaos", "update"))
				pool := &asocontainerservice.ManagedClustersAgentPool{}
				g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName+"-pool1"), pool)).To(Succeed())
				g.Expect(pool.Spec.Tags).To(HaveKeyWithValue("chaos", "update"))
			},
		},
		{
			name: "scale: the agent pool unavailable, caches of the control plane and the infrastructure cluster cut",
			faults: append(append([]fault{
				{controller: asomp, op: opScale, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedMachinePoolList{}},
			}, watches(asocp, opScale, azureASOManagedControlPlanes, true)...), watches(asoc, opScale, azureASOManagedClusters, false)...),
			act: func(ctx context.Context, g *WithT) {
				want.pools["-pool0"] = 2
				scaleMachinePool(ctx, g, f.Key(f.ClusterName+"-pool0"), 2)
			},
			converged: converged,
		},
		{
			name:   "upgrade: the managed cluster denied by a webhook",
			faults: []fault{{controller: asocp, op: opUpdate, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Denied}, shows: &infrav1.AzureASOManagedControlPlaneList{}}},
			act: func(ctx context.Context, g *WithT) {
				want.version = upgradeVersion
				patchObject(ctx, g, key, &infrav1.AzureASOManagedControlPlane{}, func(o client.Object) {
					o.(*infrav1.AzureASOManagedControlPlane).Spec.Version = upgradeVersion
				})
			},
			converged: converged,
		},
		pauseStep(f, []fault{
			{controller: asocp, op: opPause, rule: faults.Rule{Verb: "patch", Resource: managedClusters, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedControlPlaneList{}},
			{controller: asoc, op: opPause, rule: faults.Rule{Verb: "patch", Resource: resourceGroups, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedClusterList{}},
			statusWrites(asomp, opPause, azureASOManagedMachinePools, faults.Unavailable),
		}),
		unpauseStep(f, converged, []fault{
			{controller: asomp, op: opPause, rule: faults.Rule{Verb: "patch", Resource: agentPools, Fault: faults.Throttled}, shows: &infrav1.AzureASOManagedMachinePoolList{}},
		}),
		deleteStep(f, []fault{
			{controller: asoc, op: opDelete, rule: faults.Rule{Verb: "delete", Resource: resourceGroups, Fault: faults.Unavailable}, shows: &infrav1.AzureASOManagedClusterList{}},
			statusWrites(asocp, opDelete, azureASOManagedControlPlanes, faults.Unavailable),
			statusWrites(asomp, opDelete, azureASOManagedMachinePools, faults.Unavailable),
		}),
	}
}

// pauseStep pauses an AKS cluster for a move while faults fail the provider's requests.
func pauseStep(f *plane.Fixture, fs []fault) step {
	return step{
		name:      "pause for a move: " + describeFaults(fs),
		faults:    fs,
		act:       func(ctx context.Context, g *WithT) { setPaused(ctx, g, f.Key(f.ClusterName), true) },
		converged: func(ctx context.Context, g Gomega) { expectPausedForMove(ctx, g, f.Namespace) },
	}
}

// unpauseStep unpauses an AKS cluster while faults fail the provider's requests.
func unpauseStep(f *plane.Fixture, converged func(context.Context, Gomega), fs []fault) step {
	return step{
		name:   "unpause: " + describeFaults(fs),
		faults: fs,
		act:    func(ctx context.Context, g *WithT) { setPaused(ctx, g, f.Key(f.ClusterName), false) },
		converged: func(ctx context.Context, g Gomega) {
			converged(ctx, g)
			expectResumed(ctx, g, f.Namespace)
		},
	}
}

// deleteStep deletes an AKS cluster while faults fail the provider's requests.
func deleteStep(f *plane.Fixture, fs []fault) step {
	key := f.Key(f.ClusterName)
	return step{
		name:   "delete: " + describeFaults(fs),
		faults: fs,
		act: func(ctx context.Context, g *WithT) {
			g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
		},
		converged: func(ctx context.Context, g Gomega) {
			expectDeleted(ctx, g, f, key, p.ResourceGroupID(f.Vars["RESOURCE_GROUP"]))
		},
	}
}

// describeFaults names the requests faults fail, for a step's name.
func describeFaults(fs []fault) string {
	names := make([]string, 0, len(fs))
	for _, flt := range fs {
		target := flt.rule.Resource.Resource
		if flt.rule.Subresource != "" {
			target += "/" + flt.rule.Subresource
		}
		names = append(names, flt.rule.Verb+" "+target)
	}
	return strings.Join(names, ", ") + " fail"
}

// scaleMachinePool sets a MachinePool's replicas.
func scaleMachinePool(ctx context.Context, g *WithT, key client.ObjectKey, replicas int32) {
	patchObject(ctx, g, key, &clusterv1.MachinePool{}, func(o client.Object) {
		o.(*clusterv1.MachinePool).Spec.Replicas = ptr.To(replicas)
	})
}

// expectAKS checks an AKS cluster: the control plane (an empty object of its kind) ready and at the version, and
// every pool's nodes known to Cluster API.
func expectAKS(ctx context.Context, g Gomega, f *plane.Fixture, cp controlPlane, want aks) {
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
	for _, o := range listOwnedASO(ctx, g, f.Namespace) {
		g.Expect(o.Object.GetDeletionTimestamp().IsZero()).To(BeTrue(), "%s is being deleted", o)
	}
	expectUnique(ctx, g, f.Namespace)
}

// controlPlane is an AKS control plane of either kind.
type controlPlane interface {
	client.Object
	conditions.Getter
}
