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

package azurecluster_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestReconcile_StatusCAPZWrote: an AzureCluster that CAPZ made and wrote the status of (Cluster API's v1beta1
// contract: failure domains as a map, v1beta1 conditions, ready, CAPZ's long-running operations) is stored as it
// was when this provider takes over. The object is written to etcd directly, as it would be there after CAPZ's
// CRD was replaced by this provider's: the API server's validation of the new schema never saw it. The provider
// reads it, reconciles it and replaces the status with its own: failure domains as a list, its conditions only.
func TestReconcile_StatusCAPZWrote(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	namespace, err := env.Env.CreateNamespace(ctx, "azurecluster")
	g.Expect(err).NotTo(HaveOccurred())
	ns := namespace.Name
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "capz-made", Namespace: ns},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: "capz-made",
		}},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	t.Cleanup(func() {
		ctx := context.Background()
		_ = env.Env.Delete(ctx, &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "capz-made"}})
		_ = env.Env.Cleanup(ctx, cluster, namespace)
	})
	// The spec as CAPZ's defaulting stored it: this provider's defaults are CAPZ's (a dry run gives them).
	defaulted := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "capz-made", Namespace: ns}, Spec: baseSpec()}
	g.Expect(env.Env.Create(ctx, defaulted, client.DryRunAll)).To(Succeed())
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&defaulted.Spec)
	g.Expect(err).NotTo(HaveOccurred())
	stored := map[string]any{
		"apiVersion": infrav1.GroupVersion.String(), "kind": "AzureCluster",
		"metadata": map[string]any{
			"name": "capz-made", "namespace": ns, "uid": string(uuid.NewUUID()), "generation": 1,
			"creationTimestamp": time.Now().UTC().Format(time.RFC3339),
			"labels":            map[string]any{clusterv1.ClusterNameLabel: "capz-made"},
			"finalizers":        []any{infrav1.ClusterFinalizer},
			"ownerReferences": []any{map[string]any{
				"apiVersion": clusterv1.GroupVersion.String(), "kind": "Cluster", "name": "capz-made", "uid": string(cluster.UID),
			}},
		},
		"spec": spec,
		"status": map[string]any{
			"ready":          true,
			"failureDomains": map[string]any{"1": map[string]any{"controlPlane": true}, "2": map[string]any{"controlPlane": true}},
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-01T10:00:00Z"},
				map[string]any{"type": "NetworkInfrastructureReady", "status": "True", "lastTransitionTime": "2026-11-01T10:00:00Z"},
				map[string]any{"type": "PrivateDNSZoneReady", "status": "False", "severity": "Warning", "reason": "Creating", "lastTransitionTime": "2026-11-01T10:00:00Z"},
			},
			"longRunningOperationStates": []any{map[string]any{"type": "PUT", "serviceName": "natgateways", "name": "capz-made-node-natgw", "resourceGroup": "capz-made", "data": "e30="}},
		},
	}
	data, err := json.Marshal(stored)
	g.Expect(err).NotTo(HaveOccurred())
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{env.Env.ControlPlane.EtcdURL()}, DialTimeout: 10 * time.Second})
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = etcd.Close() }()
	_, err = etcd.Put(ctx, "/registry/infrastructure.cluster.x-k8s.io/azureclusters/"+ns+"/capz-made", string(data))
	g.Expect(err).NotTo(HaveOccurred())

	live := &infrav1.AzureCluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "capz-made"}, live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
		g.Expect(live.Status.FailureDomains).To(HaveLen(3))
	}, timeout).Should(Succeed())
	g.Expect(conditions.Has(live, "NetworkInfrastructureReady")).To(BeFalse(), "CAPZ's conditions are replaced by the provider's")
	g.Expect(conditions.Has(live, "PrivateDNSZoneReady")).To(BeFalse())

	raw := &unstructured.Unstructured{}
	raw.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ns, Name: "capz-made"}, raw)).To(Succeed())
	domains, found, err := unstructured.NestedSlice(raw.Object, "status", "failureDomains")
	g.Expect(err).NotTo(HaveOccurred(), "Cluster API reads the list the v1beta2 contract names")
	g.Expect(found).To(BeTrue())
	g.Expect(domains).To(HaveLen(3))
	g.Expect(raw.Object["status"]).NotTo(HaveKey("ready"))
	g.Expect(raw.Object["status"]).NotTo(HaveKey("longRunningOperationStates"))
}
