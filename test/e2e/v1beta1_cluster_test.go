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

package e2e

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// TestE2E_ClusterAPIv1beta1Cluster applies a self-managed cluster written with Cluster API's v1beta1 kinds, as most
// users' manifests are, and checks that the management cluster treats it as a real one does: Cluster API's
// conversion webhooks keep the references' API versions, its defaulting webhooks fill the MachineDeployment's
// selector, its validating webhooks refuse what Cluster API refuses, and the cluster reconciles, its kubeadm control
// plane Available (its etcd member and static pods healthy, test/kubeletsim). Deleting it leaves
// no Secret behind that the cluster's objects owned: kube-controller-manager's garbage collector deletes them.
func TestE2E_ClusterAPIv1beta1Cluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	f := p.NewFixture(t, g, "v1beta1")
	clusterKey := f.Key(f.ClusterName)
	// The kubeconfig is the user's (not of Cluster API's type), so that KubeadmControlPlane keeps it instead of
	// adopting and rotating it towards the Azure load balancer.
	kubeconfig := &corev1.Secret{}
	g.Expect(env.Env.Get(ctx, f.Key(secret.Name(f.ClusterName, secret.Kubeconfig)), kubeconfig)).To(Succeed())
	g.Expect(env.Env.Delete(ctx, kubeconfig)).To(Succeed())
	userKubeconfig := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: kubeconfig.Namespace, Name: kubeconfig.Name, Labels: kubeconfig.Labels},
		Data:       kubeconfig.Data,
	}
	g.Expect(env.Env.Create(ctx, userKubeconfig)).To(Succeed())

	f.Apply(ctx, g, "v1beta1-cluster.yaml")

	// Read in v1beta1, the references keep their API versions: the infrastructure's as written, the control
	// plane's the newest its CRD's contract labels name, as Cluster API's conversion resolves them.
	v1beta1Cluster := &clusterv1beta1.Cluster{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, clusterKey, v1beta1Cluster)).To(Succeed())
	g.Expect(v1beta1Cluster.Spec.InfrastructureRef).To(HaveValue(And(
		HaveField("APIVersion", "infrastructure.cluster.x-k8s.io/v1beta1"), HaveField("Kind", "AzureCluster"), HaveField("Name", f.ClusterName))))
	g.Expect(v1beta1Cluster.Spec.ControlPlaneRef).To(HaveValue(And(
		HaveField("APIVersion", controlplanev1.GroupVersion.String()), HaveField("Kind", "KubeadmControlPlane"))))
	// Read in v1beta2, they are contract references.
	cluster := &clusterv1.Cluster{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, clusterKey, cluster)).To(Succeed())
	g.Expect(cluster.Spec.InfrastructureRef).To(Equal(clusterv1.ContractVersionedObjectReference{
		APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureCluster", Name: f.ClusterName}))
	g.Expect(cluster.Spec.ControlPlaneRef).To(Equal(clusterv1.ContractVersionedObjectReference{
		APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: f.ClusterName + "-control-plane"}))

	// The KubeadmControlPlane's map-style extraArgs are converted to v1beta2's lists.
	kcp := &controlplanev1.KubeadmControlPlane{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, f.Key(f.ClusterName+"-control-plane"), kcp)).To(Succeed())
	g.Expect(kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.ControllerManager.ExtraArgs).To(ConsistOf(
		bootstrapv1.Arg{Name: "cloud-provider", Value: ptr.To("external")}))

	// Cluster API's defaulting webhook gives the MachineDeployment its selector and its template the labels.
	md := &clusterv1.MachineDeployment{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, f.Key(f.ClusterName+"-md-0"), md)).To(Succeed())
	labels := map[string]string{clusterv1.ClusterNameLabel: f.ClusterName, clusterv1.MachineDeploymentNameLabel: md.Name}
	g.Expect(md.Spec.Selector.MatchLabels).To(Equal(labels))
	for k, v := range labels {
		g.Expect(md.Spec.Template.Labels).To(HaveKeyWithValue(k, v))
	}

	// Cluster API's validating webhook refuses a MachineDeployment whose selector does not select its Machines.
	invalid := &unstructured.Unstructured{}
	invalid.SetAPIVersion(clusterv1beta1.GroupVersion.String())
	invalid.SetKind("MachineDeployment")
	invalid.SetNamespace(f.Namespace)
	invalid.SetName(f.ClusterName + "-md-invalid")
	g.Expect(unstructured.SetNestedField(invalid.Object, map[string]any{
		"clusterName": f.ClusterName,
		"selector":    map[string]any{"matchLabels": map[string]any{"pool": "a"}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"pool": "b"}},
			"spec": map[string]any{
				"clusterName":       f.ClusterName,
				"bootstrap":         map[string]any{"dataSecretName": "none"},
				"infrastructureRef": map[string]any{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureMachineTemplate", "name": f.ClusterName + "-md-0"},
			},
		},
	}, "spec")).To(Succeed())
	err := env.Env.Create(ctx, invalid)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "Cluster API's webhook refuses the MachineDeployment: %v", err)
	g.Expect(err.Error()).To(ContainSubstring("selector"))

	// The cluster reconciles: its control plane is initialized, and every Machine has its VM and its Node.
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, clusterKey, cluster)).To(Succeed())
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue(),
			"ControlPlaneInitialized: %+v", conditions.Get(cluster, clusterv1.ClusterControlPlaneInitializedCondition))
		machines := plane.MachinesOf(ctx, g, f.Namespace, f.ClusterName)
		g.Expect(machines).To(HaveLen(3))
		for _, m := range machines {
			g.Expect(m.Spec.ProviderID).NotTo(BeEmpty(), "Machine %s", m.Name)
			g.Expect(m.Status.NodeRef.IsDefined()).To(BeTrue(), "Machine %s has a Node", m.Name)
		}
		// The kubeadm control plane provider reaches the simulated etcd member and static pods of the control plane
		// Node through the workload cluster's API server, as on Azure, and finds them healthy.
		g.Expect(env.Env.Get(ctx, f.Key(f.ClusterName+"-control-plane"), kcp)).To(Succeed())
		for _, c := range []string{controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition,
			controlplanev1.KubeadmControlPlaneControlPlaneComponentsHealthyCondition, controlplanev1.KubeadmControlPlaneAvailableCondition} {
			g.Expect(conditions.IsTrue(kcp, c)).To(BeTrue(), "%s: %+v", c, conditions.Get(kcp, c))
		}
	}, plane.Timeout, plane.Interval).Should(Succeed())

	// The cluster's objects own Secrets: bootstrap data, certificates, the credential secret of its identity.
	owned := ownedSecrets(ctx, g, f.Namespace)
	g.Expect(owned).To(ContainElements(
		HaveField("Name", f.ClusterName+"-ca"),
		HaveField("Name", aso.CredentialSecretName(f.ClusterName)),
		HaveField("Name", HavePrefix(f.ClusterName+"-md-0-")),
	), "Secrets with owners: %v", owned)

	plane.DeleteCluster(ctx, g, clusterKey)
	g.Eventually(func(g Gomega) {
		g.Expect(ownedSecrets(ctx, g, f.Namespace)).To(BeEmpty(), "the garbage collector deletes the Secrets whose owners are gone")
	}, plane.Timeout, plane.Interval).Should(Succeed())
	// The user's kubeconfig stays, as on a real management cluster.
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(userKubeconfig), &corev1.Secret{})).To(Succeed())
}

// ownedSecrets are the Secrets of a namespace that have owners.
func ownedSecrets(ctx context.Context, g Gomega, namespace string) []metav1.ObjectMeta {
	secrets := &corev1.SecretList{}
	g.Expect(env.Env.GetAPIReader().List(ctx, secrets, client.InNamespace(namespace))).To(Succeed())
	var out []metav1.ObjectMeta
	for _, s := range secrets.Items {
		if len(s.OwnerReferences) > 0 {
			out = append(out, s.ObjectMeta)
		}
	}
	return out
}
