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

package v1beta1

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

const (
	resourcesAPIVersion        = "resources.azure.com/v1api20200601"
	containerServiceAPIVersion = "containerservice.azure.com/v1api20250801"
)

// asoObject is a minimal manifest of an object in spec.resources.
func asoObject(apiVersion, kind, name string) runtime.RawExtension {
	return rawManifest(fmt.Sprintf(`{"apiVersion": %q, "kind": %q, "metadata": {"name": %q}, "spec": {}}`, apiVersion, kind, name))
}

func rawManifest(manifest string) runtime.RawExtension {
	return runtime.RawExtension{Raw: []byte(manifest)}
}

func TestAzureASOManagedControlPlane_Resources(t *testing.T) {
	resourceGroup := asoObject(resourcesAPIVersion, "ResourceGroup", "rg")
	managedCluster := asoObject(containerServiceAPIVersion, "ManagedCluster", "aks")
	tests := []struct {
		name      string
		resources []runtime.RawExtension
		wantPaths []string
	}{
		{name: "resource group and managed cluster", resources: []runtime.RawExtension{resourceGroup, managedCluster}},
		{name: "typed object instead of raw bytes", resources: []runtime.RawExtension{{Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": containerServiceAPIVersion, "kind": "ManagedCluster", "metadata": map[string]any{"name": "aks"},
		}}}}},
		{name: "no resources", wantPaths: []string{"spec.resources"}},
		{name: "no managed cluster", resources: []runtime.RawExtension{resourceGroup}, wantPaths: []string{"spec.resources"}},
		{name: "two managed clusters", resources: []runtime.RawExtension{
			managedCluster, resourceGroup, asoObject(containerServiceAPIVersion, "ManagedCluster", "aks2"),
		}, wantPaths: []string{"spec.resources[2]"}},
		{name: "managed cluster listed twice in two API versions", resources: []runtime.RawExtension{
			managedCluster, asoObject("containerservice.azure.com/v1api20240901", "ManagedCluster", "aks"),
		}, wantPaths: []string{"spec.resources[1]"}},
		{name: "not an object", resources: []runtime.RawExtension{rawManifest(`["a"]`), managedCluster}, wantPaths: []string{"spec.resources[0]"}},
		{name: "no name", resources: []runtime.RawExtension{
			rawManifest(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "spec": {}}`), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "no kind and no API version", resources: []runtime.RawExtension{
			rawManifest(`{"metadata": {"name": "rg"}}`), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "name that is not a Kubernetes name", resources: []runtime.RawExtension{
			asoObject(resourcesAPIVersion, "ResourceGroup", "My_RG"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "not an ASO kind", resources: []runtime.RawExtension{
			managedCluster, asoObject("apps/v1", "Deployment", "app"),
		}, wantPaths: []string{"spec.resources[1]"}},
		{name: "core kind", resources: []runtime.RawExtension{
			asoObject("v1", "ConfigMap", "config"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "group that only looks like Azure", resources: []runtime.RawExtension{
			asoObject("azure.com.example.org/v1", "Thing", "t"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "another namespace", resources: []runtime.RawExtension{
			rawManifest(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"name": "rg", "namespace": "other"}}`),
			managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "kind spelled in another case", resources: []runtime.RawExtension{
			rawManifest(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ResourceGroup", "Kind": "ManagedCluster", "metadata": {"name": "aks"}}`),
		}, wantPaths: []string{"spec.resources"}},
		{name: "name spelled in another case", resources: []runtime.RawExtension{
			rawManifest(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"Name": "rg"}}`), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "kind with a period", resources: []runtime.RawExtension{
			asoObject(resourcesAPIVersion, "Resource.Group", "rg"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "version with a period", resources: []runtime.RawExtension{
			asoObject("resources.azure.com/v1.2", "ResourceGroup", "rg"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "group with a semicolon", resources: []runtime.RawExtension{
			asoObject("a;b.azure.com/v1", "ResourceGroup", "rg"), managedCluster,
		}, wantPaths: []string{"spec.resources[0]"}},
		{name: "the owner's namespace", resources: []runtime.RawExtension{
			rawManifest(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"name": "rg", "namespace": "ns"}}`),
			managedCluster,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c := &AzureASOManagedControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "ns"}}
			c.Spec.Version = "v1.33.2"
			c.Spec.Resources = tc.resources
			_, err := azureASOManagedControlPlaneWebhook{}.ValidateCreate(context.Background(), c)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureASOManagedControlPlane_Version(t *testing.T) {
	tests := []struct {
		name          string
		oldVersion    string
		statusVersion string
		version       string
		wantVersion   string
		wantPaths     []string
	}{
		{name: "defaulted leading v", version: "1.33.2", wantVersion: "v1.33.2"},
		{name: "empty version leaves the ManagedCluster's", version: "", wantVersion: ""},
		{name: "not semver", version: "v1.33", wantVersion: "v1.33", wantPaths: []string{"spec.version"}},
		{name: "patch upgrade", oldVersion: "v1.33.2", version: "v1.33.3", wantVersion: "v1.33.3"},
		{name: "minor upgrade", oldVersion: "v1.33.2", version: "v1.34.0", wantVersion: "v1.34.0"},
		{name: "two minor versions", oldVersion: "v1.33.2", version: "v1.35.0", wantVersion: "v1.35.0", wantPaths: []string{"spec.version"}},
		{name: "downgrade", oldVersion: "v1.33.2", version: "v1.32.9", wantVersion: "v1.32.9", wantPaths: []string{"spec.version"}},
		{name: "below the running version", oldVersion: "v1.33.2", statusVersion: "v1.34.1", version: "v1.34.0", wantVersion: "v1.34.0", wantPaths: []string{"spec.version"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			w := azureASOManagedControlPlaneWebhook{}
			c := &AzureASOManagedControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "ns"}}
			c.Spec.Resources = []runtime.RawExtension{asoObject(containerServiceAPIVersion, "ManagedCluster", "aks")}
			old := c.DeepCopy()
			old.Spec.Version, old.Status.Version = tc.oldVersion, tc.statusVersion
			c.Spec.Version = tc.version
			g.Expect(w.Default(context.Background(), c)).To(Succeed())
			g.Expect(c.Spec.Version).To(Equal(tc.wantVersion))
			var err error
			if tc.oldVersion == "" {
				_, err = w.ValidateCreate(context.Background(), c)
			} else {
				_, err = w.ValidateUpdate(context.Background(), old, c)
			}
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureASOManagedControlPlaneTemplate_Validate(t *testing.T) {
	newTemplate := func() *AzureASOManagedControlPlaneTemplate {
		tmpl := &AzureASOManagedControlPlaneTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"}}
		tmpl.Spec.Template.Spec.Resources = []runtime.RawExtension{asoObject(containerServiceAPIVersion, "ManagedCluster", "aks")}
		return tmpl
	}
	tests := []struct {
		name      string
		ctx       context.Context
		dryRun    bool
		wantPaths []string
	}{
		{name: "changed", ctx: context.Background(), wantPaths: []string{"spec.template.spec"}},
		{name: "changed in a topology dry-run", ctx: topologyDryRunContext(), dryRun: true},
		{name: "changed in a dry-run without the topology annotation", ctx: topologyDryRunContext(), wantPaths: []string{"spec.template.spec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newTemplate()
			tmpl := old.DeepCopy()
			if tc.dryRun {
				tmpl.Annotations = topologyDryRunAnnotations()
			}
			tmpl.Spec.Template.Spec.Version = "v1.34.0"
			_, err := azureASOManagedControlPlaneTemplateWebhook{}.ValidateUpdate(tc.ctx, old, tmpl)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}

	t.Run("create names the template path", func(t *testing.T) {
		g := NewWithT(t)
		tmpl := newTemplate()
		tmpl.Spec.Template.Spec.Version = "1.33"
		tmpl.Spec.Template.Spec.Resources = append(tmpl.Spec.Template.Spec.Resources, asoObject("v1", "Secret", "s"))
		_, err := azureASOManagedControlPlaneTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
		g.Expect(causePaths(err)).To(ConsistOf("spec.template.spec.version", "spec.template.spec.resources[1]"))
	})
}

func TestAzureASOManagedMachinePool_Resources(t *testing.T) {
	agentPool := asoObject(containerServiceAPIVersion, "ManagedClustersAgentPool", "pool0")
	tests := []struct {
		name      string
		resources []runtime.RawExtension
		wantPaths []string
	}{
		{name: "one agent pool", resources: []runtime.RawExtension{agentPool}},
		{name: "no agent pool", resources: []runtime.RawExtension{asoObject(resourcesAPIVersion, "ResourceGroup", "rg")}, wantPaths: []string{"spec.resources"}},
		{name: "two agent pools", resources: []runtime.RawExtension{
			agentPool, asoObject(containerServiceAPIVersion, "ManagedClustersAgentPool", "pool1"),
		}, wantPaths: []string{"spec.resources[1]"}},
		{name: "same agent pool twice", resources: []runtime.RawExtension{agentPool, agentPool}, wantPaths: []string{"spec.resources[1]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := &AzureASOManagedMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "pool0", Namespace: "ns"}}
			p.Spec.Resources = tc.resources
			_, err := azureASOManagedMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureASOManagedMachinePoolTemplate_Validate(t *testing.T) {
	newTemplate := func() *AzureASOManagedMachinePoolTemplate {
		tmpl := &AzureASOManagedMachinePoolTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"}}
		tmpl.Spec.Template.Spec.Resources = []runtime.RawExtension{asoObject(containerServiceAPIVersion, "ManagedClustersAgentPool", "pool0")}
		return tmpl
	}
	tests := []struct {
		name      string
		change    func(*AzureASOManagedMachinePoolTemplate)
		wantPaths []string
	}{
		{name: "valid", change: func(*AzureASOManagedMachinePoolTemplate) {}},
		{name: "version set", change: func(tmpl *AzureASOManagedMachinePoolTemplate) {
			tmpl.Spec.Template.Spec.Version = "v1.33.2"
		}, wantPaths: []string{"spec.template.spec.version"}},
		{name: "resource without a name", change: func(tmpl *AzureASOManagedMachinePoolTemplate) {
			tmpl.Spec.Template.Spec.Resources = []runtime.RawExtension{
				rawManifest(`{"apiVersion": "containerservice.azure.com/v1api20250801", "kind": "ManagedClustersAgentPool"}`),
			}
		}, wantPaths: []string{"spec.template.spec.resources[0]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			tmpl := newTemplate()
			tc.change(tmpl)
			_, err := azureASOManagedMachinePoolTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}

	t.Run("immutable except in a topology dry-run", func(t *testing.T) {
		g := NewWithT(t)
		old := newTemplate()
		tmpl := old.DeepCopy()
		tmpl.Spec.Template.Spec.Resources = []runtime.RawExtension{asoObject(containerServiceAPIVersion, "ManagedClustersAgentPool", "pool1")}
		_, err := azureASOManagedMachinePoolTemplateWebhook{}.ValidateUpdate(context.Background(), old, tmpl)
		g.Expect(causePaths(err)).To(ConsistOf("spec.template.spec"))
		tmpl.Annotations = topologyDryRunAnnotations()
		_, err = azureASOManagedMachinePoolTemplateWebhook{}.ValidateUpdate(topologyDryRunContext(), old, tmpl)
		g.Expect(err).NotTo(HaveOccurred())
	})
}

func TestAzureASOManagedCluster_Validate(t *testing.T) {
	endpoint := clusterv1.APIEndpoint{Host: "aks.hcp.eastus.azmk8s.io", Port: 443}
	tests := []struct {
		name      string
		old       func(*AzureASOManagedCluster)
		change    func(*AzureASOManagedCluster)
		wantPaths []string
	}{
		{name: "endpoint set", change: func(c *AzureASOManagedCluster) { c.Spec.ControlPlaneEndpoint = endpoint }},
		{name: "endpoint changed", old: func(c *AzureASOManagedCluster) {
			c.Spec.ControlPlaneEndpoint = endpoint
		}, change: func(c *AzureASOManagedCluster) { c.Spec.ControlPlaneEndpoint.Port = 6443 }, wantPaths: []string{"spec.controlPlaneEndpoint"}},
		{name: "resources changed", change: func(c *AzureASOManagedCluster) {
			c.Spec.Resources = append(c.Spec.Resources, asoObject("network.azure.com/v1api20240301", "VirtualNetwork", "vnet"))
		}},
		{name: "resource from another API", change: func(c *AzureASOManagedCluster) {
			c.Spec.Resources = append(c.Spec.Resources, asoObject("cluster.x-k8s.io/v1beta2", "Cluster", "c"))
		}, wantPaths: []string{"spec.resources[1]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := &AzureASOManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
			old.Spec.Resources = []runtime.RawExtension{asoObject(resourcesAPIVersion, "ResourceGroup", "rg")}
			if tc.old != nil {
				tc.old(old)
			}
			c := old.DeepCopy()
			tc.change(c)
			_, err := azureASOManagedClusterWebhook{}.ValidateUpdate(context.Background(), old, c)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}

	t.Run("template", func(t *testing.T) {
		g := NewWithT(t)
		tmpl := &AzureASOManagedClusterTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"}}
		tmpl.Spec.Template.Spec.Resources = []runtime.RawExtension{
			rawManifest(`{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"name": "rg", "namespace": "other"}}`),
		}
		_, err := azureASOManagedClusterTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
		g.Expect(causePaths(err)).To(ConsistOf("spec.template.spec.resources[0]"))
	})
}

func TestAzureManagedCluster_Validate(t *testing.T) {
	g := NewWithT(t)
	w := azureManagedClusterWebhook{}
	old := &AzureManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	_, err := w.ValidateCreate(context.Background(), old)
	g.Expect(err).NotTo(HaveOccurred())

	c := old.DeepCopy()
	c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "aks.hcp.eastus.azmk8s.io", Port: 443}
	_, err = w.ValidateUpdate(context.Background(), old, c)
	g.Expect(err).NotTo(HaveOccurred(), "the endpoint is set once")

	changed := c.DeepCopy()
	changed.Spec.ControlPlaneEndpoint.Host = "other.hcp.eastus.azmk8s.io"
	_, err = w.ValidateUpdate(context.Background(), c, changed)
	g.Expect(causePaths(err)).To(ConsistOf("spec.controlPlaneEndpoint"))

	changed.DeletionTimestamp = ptr.To(metav1.Now())
	_, err = w.ValidateUpdate(context.Background(), c, changed)
	g.Expect(err).NotTo(HaveOccurred(), "a deleting object is not validated")

	tmpl := &AzureManagedClusterTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"}}
	_, err = azureManagedClusterTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = azureManagedClusterTemplateWebhook{}.ValidateUpdate(context.Background(), tmpl, tmpl.DeepCopy())
	g.Expect(err).NotTo(HaveOccurred())
}
