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

package templates

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/clusterctlrepo"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

const (
	providerNamespace = "capz-system"
	managerDeployment = "capz-controller-manager"
)

// TestGenerateProvider runs clusterctl generate provider --infrastructure azure against the local repository and
// applies the result server-side, in clusterctl's order, to an API server that has none of it (the workload cluster's,
// which runs no webhook), with cert-manager's kinds as stand-ins.
func TestGenerateProvider(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	r := localRepository(t)

	components, err := newClusterctl(ctx, t, r, nil).GenerateProvider(ctx, providerName, clusterctlv1.InfrastructureProviderType,
		clusterctl.ComponentsOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(components.Name()).To(Equal(providerName))
	g.Expect(components.Type()).To(Equal(clusterctlv1.InfrastructureProviderType))
	g.Expect(components.Version()).To(Equal(r.Version))
	g.Expect(components.TargetNamespace()).To(Equal(providerNamespace))
	g.Expect(components.Images()).To(ContainElement(managerImage))

	objs := components.Objs()
	g.Expect(objs).NotTo(BeEmpty())
	for _, o := range objs {
		// clusterctl's labels, which clusterctl move and upgrade select on.
		g.Expect(o.GetLabels()).To(HaveKeyWithValue(clusterctlv1.ClusterctlLabel, ""), "%s %s", o.GetKind(), o.GetName())
		g.Expect(o.GetLabels()).To(HaveKeyWithValue(clusterv1.ProviderNameLabel, "infrastructure-azure"), "%s %s", o.GetKind(), o.GetName())
	}

	_, c := p.Workload.Get(t)
	apply := func(o unstructured.Unstructured) error {
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(&o), client.FieldOwner("clusterctl"), client.ForceOwnership)
	}
	standIns, err := os.ReadFile(filepath.Join("..", "config", "testdata", "cert-manager-crds.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, o := range decodeYAML(g, standIns) {
		g.Expect(apply(o)).To(Succeed())
	}
	g.Eventually(func() error {
		_, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, "v1")
		return err
	}, plane.Timeout, plane.Interval).Should(Succeed(), "the stand-in CRDs are served (slowly on a loaded machine)")

	// clusterctl's order: the Namespace, cert-manager's objects, then the rest.
	rank := func(o unstructured.Unstructured) int {
		switch {
		case o.GetKind() == "Namespace":
			return 0
		case o.GroupVersionKind().Group == "cert-manager.io":
			return 1
		}
		return 2
	}
	sort.SliceStable(objs, func(i, j int) bool { return rank(objs[i]) < rank(objs[j]) })
	for _, o := range objs {
		g.Expect(apply(o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
	}

	d := &appsv1.Deployment{}
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: providerNamespace, Name: managerDeployment}, d)).To(Succeed())
	g.Expect(d.Spec.Template.Spec.Containers).To(ContainElement(HaveField("Name", "manager")))
	g.Expect(d.Labels).To(HaveKeyWithValue(clusterv1.ProviderNameLabel, "infrastructure-azure"))
}

// decodeYAML splits a multi-document YAML into objects.
func decodeYAML(g Gomega, data []byte) []unstructured.Unstructured {
	objs, err := clusterctlrepo.Objects(data)
	g.Expect(err).NotTo(HaveOccurred())
	return objs
}
