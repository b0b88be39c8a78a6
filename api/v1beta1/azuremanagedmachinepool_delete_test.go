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
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestAdmission_LastSystemPool: as CAPZ's webhook, the API server refuses to delete the last System pool of a live
// Cluster, or to make it a User pool (AKS needs one, and refuses the agent pool's DELETE); a User pool, a System pool
// with another beside it, one clusterctl move deletes and one of a Cluster being deleted may go.
func TestAdmission_LastSystemPool(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "last-system-pool")
	g.Expect(err).NotTo(HaveOccurred())
	const keep = "test.infrastructure.cluster.x-k8s.io/keep"
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "aks", Namespace: ns.Name, Finalizers: []string{keep}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedCluster", Name: "aks"}},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	t.Cleanup(func() {
		_ = env.Env.Patch(ctx, cluster, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
		_ = env.Env.Delete(ctx, ns)
	})
	newPool := func(name string, mode infrav1.NodePoolMode) *infrav1.AzureManagedMachinePool {
		pool := &infrav1.AzureManagedMachinePool{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name, Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name}},
			Spec: infrav1.AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
				Mode: mode, SKU: "Standard_D2s_v3",
			}},
		}
		g.Expect(env.Env.Create(ctx, pool)).To(Succeed())
		return pool
	}
	refusedAsLast := func(err error) {
		t.Helper()
		g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "refused: %v", err)
		g.Expect(err.Error()).To(ContainSubstring("the last System pool of Cluster aks, which AKS needs"))
	}

	system0, system1, user0 := newPool("system0", infrav1.NodePoolModeSystem), newPool("system1", infrav1.NodePoolModeSystem), newPool("user0", infrav1.NodePoolModeUser)
	g.Expect(env.Env.Delete(ctx, user0)).To(Succeed(), "a User pool may go")
	g.Expect(env.Env.Delete(ctx, system0)).To(Succeed(), "a System pool with another beside it may go")

	refusedAsLast(env.Env.Delete(ctx, system1))
	toUser := system1.DeepCopy()
	toUser.Spec.Mode = infrav1.NodePoolModeUser
	refusedAsLast(env.Env.Update(ctx, toUser))

	// Another System pool first: then the first may go, or become a User pool.
	system2 := newPool("system2", infrav1.NodePoolModeSystem)
	g.Expect(env.Env.Update(ctx, toUser)).To(Succeed())
	refusedAsLast(env.Env.Delete(ctx, system2))

	// clusterctl move deletes the pools it moved.
	g.Expect(env.Env.Patch(ctx, system2, client.RawPatch("application/merge-patch+json",
		[]byte(`{"metadata":{"annotations":{"`+clusterctlv1.DeleteForMoveAnnotation+`":""}}}`)))).To(Succeed())
	g.Expect(env.Env.Delete(ctx, system2)).To(Succeed(), "clusterctl move deletes it")

	// The whole Cluster is deleted: AKS deletes every pool with the managed cluster.
	system3 := newPool("system3", infrav1.NodePoolModeSystem)
	refusedAsLast(env.Env.Delete(ctx, system3))
	g.Expect(env.Env.Delete(ctx, cluster)).To(Succeed())
	g.Expect(env.Env.Delete(ctx, system3)).To(Succeed(), "the Cluster is being deleted")
}
