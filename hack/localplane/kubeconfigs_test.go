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

package main

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestKubeconfigHandout checks, on a real API server, which kubeconfig Secret each Cluster ends up with.
func TestKubeconfigHandout(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	s := capiplane.Scheme()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Scheme: s, WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = cp.Stop() })
	c, err := client.New(cp.Config, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	workload := []byte("the simulated workload cluster's kubeconfig")
	handout := &kubeconfigHandout{client: c, kubeconfig: workload}

	kubeadm := clusterv1.ContractVersionedObjectReference{APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: "cp"}
	aks := clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureASOManagedControlPlane", Name: "cp"}
	tests := []struct {
		name         string
		controlPlane clusterv1.ContractVersionedObjectReference
		topology     bool
		// existing is the kubeconfig Secret before the reconcile, if any.
		existing *corev1.Secret
		// wantData is the kubeconfig after the reconciles; wantHandout whether it is the plane's, owned by the Cluster.
		wantData    []byte
		wantHandout bool
		wantMissing bool
	}{
		{name: "a kubeadm cluster gets the workload kubeconfig", controlPlane: kubeadm, wantData: workload, wantHandout: true},
		{
			name: "the kubeconfig KubeadmControlPlane generated is replaced", controlPlane: kubeadm,
			existing: &corev1.Secret{Type: clusterv1.ClusterSecretType, Data: map[string][]byte{secret.KubeconfigDataName: []byte("load balancer")}},
			wantData: workload, wantHandout: true,
		},
		{
			name: "the plane's kubeconfig of an earlier run is updated", controlPlane: kubeadm,
			existing: &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{handoutAnnotation: "true"}},
				Data:       map[string][]byte{secret.KubeconfigDataName: []byte("a workload API server that is gone")},
			},
			wantData: workload,
		},
		{
			name: "a user's kubeconfig stays", controlPlane: kubeadm,
			existing: &corev1.Secret{Data: map[string][]byte{secret.KubeconfigDataName: []byte("the user's")}},
			wantData: []byte("the user's"),
		},
		{name: "a cluster of stand-alone control plane Machines gets the workload kubeconfig", wantData: workload, wantHandout: true},
		{name: "an AKS cluster gets none from the plane", controlPlane: aks, wantMissing: true},
		{name: "a topology cluster gets none before its control plane exists", topology: true, wantMissing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "handout-"}}
			g.Expect(c.Create(ctx, ns)).To(Succeed())
			cluster := &clusterv1.Cluster{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "c"},
				Spec: clusterv1.ClusterSpec{
					ClusterNetwork:  clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
					ControlPlaneRef: tt.controlPlane,
				},
			}
			if tt.topology {
				cluster.Spec.Topology = clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "class"}, Version: "v1.34.1"}
			}
			g.Expect(c.Create(ctx, cluster)).To(Succeed())
			key := client.ObjectKey{Namespace: ns.Name, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
			if tt.existing != nil {
				existing := tt.existing.DeepCopy()
				existing.Namespace, existing.Name = key.Namespace, key.Name
				g.Expect(c.Create(ctx, existing)).To(Succeed())
			}

			// A replaced Secret is written again on the reconcile its deletion triggers.
			for range 2 {
				_, err := handout.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cluster)})
				g.Expect(err).NotTo(HaveOccurred())
			}

			got := &corev1.Secret{}
			err := c.Get(ctx, key, got)
			if tt.wantMissing {
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no kubeconfig Secret: %v", err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Data).To(HaveKeyWithValue(secret.KubeconfigDataName, tt.wantData))
			g.Expect(got.Type).NotTo(Equal(clusterv1.ClusterSecretType), "KubeadmControlPlane neither adopts nor rotates it")
			if tt.wantHandout {
				g.Expect(got.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabel, cluster.Name))
				g.Expect(got.Annotations).To(HaveKey(handoutAnnotation))
				g.Expect(got.OwnerReferences).To(ConsistOf(HaveField("UID", cluster.UID)), "the garbage collector deletes it with the Cluster")
			}
		})
	}
}
