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

package env_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	asoconditions "github.com/Azure/azure-service-operator/v2/pkg/genruntime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(clusterv1.AddToScheme(s))
	utilruntime.Must(asoresources.AddToScheme(s))
	utilruntime.Must(asonetwork.AddToScheme(s))
	return s
}

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{Scheme: newScheme(), ControllerManager: true}))
}

func TestEnvironment_ServerVersion(t *testing.T) {
	g := NewWithT(t)

	dc, err := discovery.NewDiscoveryClientForConfig(env.Env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	v, err := dc.ServerVersion()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(v.GitVersion).To(Equal("v1.36.3"))
}

func TestEnvironment_CreateCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()

	ns, err := env.Env.CreateNamespace(ctx, "create-cluster")
	g.Expect(err).NotTo(HaveOccurred())
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io",
				Kind:     "AzureCluster",
				Name:     "test",
			},
		},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	defer func() { g.Expect(env.Env.Cleanup(context.Background(), cluster, ns)).To(Succeed()) }()

	// The manager's cached client sees it too.
	g.Eventually(func(g Gomega) {
		got := &clusterv1.Cluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(cluster), got)).To(Succeed())
		g.Expect(got.Spec.InfrastructureRef.Kind).To(Equal("AzureCluster"))
	}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
}

// TestEnvironment_ControllerManager shows kube-controller-manager at work, as in a real management cluster: the
// garbage collector deletes an object whose owner is gone, and the namespace controller finishes deleting a namespace
// with what is in it.
func TestEnvironment_ControllerManager(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "kcm")
	g.Expect(err).NotTo(HaveOccurred())
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns.Name}}
	g.Expect(env.Env.Create(ctx, owner)).To(Succeed())
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", Namespace: ns.Name,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	g.Expect(env.Env.Create(ctx, dependent)).To(Succeed())
	kept := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: ns.Name}}
	g.Expect(env.Env.Create(ctx, kept)).To(Succeed())

	g.Expect(env.Env.Delete(ctx, owner)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(dependent), &corev1.ConfigMap{}))
	}, time.Minute, 250*time.Millisecond).Should(BeTrue(), "the garbage collector deletes what the deleted owner owned")
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(kept), &corev1.ConfigMap{})).To(Succeed())

	g.Expect(env.Env.Delete(ctx, ns)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}))
	}, time.Minute, 250*time.Millisecond).Should(BeTrue(), "the namespace controller empties and removes a deleted namespace")
}

func TestEnvironment_ApplyResourceGroup(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()

	ns, err := env.Env.CreateNamespace(ctx, "apply-rg")
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { g.Expect(env.Env.Cleanup(context.Background(), ns)).To(Succeed()) }()

	const fieldOwner = "capzaso-test"
	rg := &asoresources.ResourceGroup{
		TypeMeta: metav1.TypeMeta{
			APIVersion: asoresources.GroupVersion.String(),
			Kind:       "ResourceGroup",
		},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "my-rg",
			Namespace: ns.Name,
			Labels:    map[string]string{"cluster.x-k8s.io/cluster-name": "test"},
		},
		Spec: asoresources.ResourceGroup_Spec{
			AzureName: "my-rg",
			Location:  ptr.To("westeurope"),
			Tags:      map[string]string{"sigs.k8s.io_cluster-api-provider-azure_cluster_test": "owned"},
		},
	}
	g.Expect(apply(ctx, rg, fieldOwner)).To(Succeed())
	defer func() { g.Expect(env.Env.Cleanup(context.Background(), rg)).To(Succeed()) }()

	got := &asoresources.ResourceGroup{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(rg), got)).To(Succeed())
	g.Expect(got.Spec).To(Equal(rg.Spec))
	g.Expect(got.Labels).To(Equal(rg.Labels))
	g.Expect(got.ManagedFields).To(ContainElement(SatisfyAll(
		HaveField("Manager", fieldOwner),
		HaveField("Operation", metav1.ManagedFieldsOperationApply),
	)))

	// ASO's controller does not run here: tests write status themselves.
	got.Status.Id = ptr.To("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/my-rg")
	got.Status.Conditions = []asoconditions.Condition{{
		Type:               asoconditions.ConditionTypeReady,
		Status:             metav1.ConditionTrue,
		Reason:             asoconditions.ReasonSucceeded,
		ObservedGeneration: got.Generation,
		LastTransitionTime: metav1.Now(),
	}}
	g.Expect(env.Env.Status().Update(ctx, got)).To(Succeed())

	// Applying again updates the spec and keeps the status.
	rg.Spec.Tags["extra"] = "tag"
	g.Expect(apply(ctx, rg, fieldOwner)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := &asoresources.ResourceGroup{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(rg), got)).To(Succeed())
		g.Expect(got.Spec.Tags).To(HaveKeyWithValue("extra", "tag"))
		g.Expect(got.Status.Id).To(HaveValue(HaveSuffix("/resourceGroups/my-rg")))
		g.Expect(got.Status.Conditions).To(ConsistOf(SatisfyAll(
			HaveField("Type", BeEquivalentTo(asoconditions.ConditionTypeReady)),
			HaveField("Status", metav1.ConditionTrue),
		)))
	}, 10*time.Second, 100*time.Millisecond).Should(Succeed())
}

// TestEnvironment_ASOWebhooks shows ASO's own webhooks in front of every ASO write, as on a real management cluster:
// ASO's defaulter fills azureName, its validator refuses an owner of the wrong type and, once ASO has created the
// resource in Azure, a change of its azureName, and the API server stores the object in ASO's storage version and
// serves it in every version ASO has, converted by ASO.
func TestEnvironment_ASOWebhooks(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "aso-webhooks")
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { g.Expect(env.Env.Cleanup(context.Background(), ns)).To(Succeed()) }()

	vnet := &asonetwork.VirtualNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: "vnet", Namespace: ns.Name},
		Spec: asonetwork.VirtualNetwork_Spec{
			Location:     ptr.To("westeurope"),
			AddressSpace: &asonetwork.AddressSpace{AddressPrefixes: []string{"10.0.0.0/16"}},
			// A virtual network belongs to a resource group, not to a subscription.
			Owner: &genruntime.KnownResourceReference{ARMID: "/subscriptions/00000000-0000-0000-0000-000000000000"},
		},
	}
	err = env.Env.Create(ctx, vnet)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "ASO's validator refuses an owner of the wrong type: %v", err)
	g.Expect(err.Error()).To(ContainSubstring("admission webhook \"validate.v1api20240301.virtualnetworks.network.azure.com\" denied the request"))

	vnet.Spec.Owner = &genruntime.KnownResourceReference{Name: "rg"}
	g.Expect(env.Env.Create(ctx, vnet)).To(Succeed())
	g.Expect(vnet.Spec.AzureName).To(Equal("vnet"), "ASO's defaulter sets azureName to the object's name")

	// The API server keeps it in ASO's storage version, and ASO converts it to any other version it serves.
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(asonetwork.GroupVersion.WithKind("VirtualNetwork"))
	old.SetAPIVersion("network.azure.com/v1api20201101")
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(vnet), old)).To(Succeed())
	g.Expect(old.GetAPIVersion()).To(Equal("network.azure.com/v1api20201101"))
	prefixes, _, err := unstructured.NestedStringSlice(old.Object, "spec", "addressSpace", "addressPrefixes")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(prefixes).To(Equal([]string{"10.0.0.0/16"}))

	// Once ASO has created the resource in Azure (and recorded its ID), its name and owner are fixed.
	vnet.Annotations = map[string]string{"serviceoperator.azure.com/resource-id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"}
	g.Expect(env.Env.Update(ctx, vnet)).To(Succeed())
	vnet.Spec.AzureName = "renamed"
	err = env.Env.Update(ctx, vnet)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "ASO's validator refuses a new azureName: %v", err)
	g.Expect(err.Error()).To(ContainSubstring("updating 'spec.azureName' is not allowed"))
}

func TestControlPlane_WriteKubeconfig(t *testing.T) {
	g := NewWithT(t)

	path := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(env.Env.ControlPlane.WriteKubeconfig(path)).To(Succeed())

	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(cfg, client.Options{Scheme: newScheme()})
	g.Expect(err).NotTo(HaveOccurred())
	clusters := &clusterv1.ClusterList{}
	g.Expect(c.List(t.Context(), clusters)).To(Succeed())
}

// apply server-side applies a typed object (with TypeMeta set) through
// controller-runtime's Apply API, forcing ownership of the fields it sets.
func apply(ctx context.Context, obj client.Object, fieldOwner string) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	delete(u, "status")
	unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
	return env.Env.Apply(ctx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: u}),
		client.FieldOwner(fieldOwner), client.ForceOwnership)
}
