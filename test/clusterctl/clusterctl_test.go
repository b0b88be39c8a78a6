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

package clusterctl_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/clusterctlrepo"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

const (
	// flavor is the shipped flavor the test generates: AKS through the AzureASOManaged* kinds. (A kubeadm flavor's
	// KubeadmControlPlane dials the etcd of its Nodes through port-forwards, concurrently, where k8s.io/streaming's
	// SPDY round tripper has a data race that -race reports.)
	flavor = "aks-aso"
	// capiVersion is the Cluster API release the plane runs in-process (the version of go.mod).
	capiVersion = "v1.14.2"

	providerNamespace = "capz-system"
)

// capiProviders are the providers of Cluster API that the plane runs in-process, as clusterctl's inventory names
// them; a first clusterctl init would install them.
var capiProviders = []struct {
	name, providerName, namespace, components string
	typ                                       clusterctlv1.ProviderType
}{
	{"cluster-api", "cluster-api", "capi-system", "core-components.yaml", clusterctlv1.CoreProviderType},
	{"bootstrap-kubeadm", "kubeadm", "capi-kubeadm-bootstrap-system", "bootstrap-components.yaml", clusterctlv1.BootstrapProviderType},
	{"control-plane-kubeadm", "kubeadm", "capi-kubeadm-control-plane-system", "control-plane-components.yaml", clusterctlv1.ControlPlaneProviderType},
}

// capiCRDProviders maps the API groups of Cluster API's CRDs to the provider whose components hold them.
var capiCRDProviders = map[string]string{
	"cluster.x-k8s.io":              "cluster-api",
	"addons.cluster.x-k8s.io":       "cluster-api",
	"ipam.cluster.x-k8s.io":         "cluster-api",
	"runtime.cluster.x-k8s.io":      "cluster-api",
	"bootstrap.cluster.x-k8s.io":    "bootstrap-kubeadm",
	"controlplane.cluster.x-k8s.io": "control-plane-kubeadm",
}

// managementCluster is one side of the test: its kubeconfig and a client.
type managementCluster struct {
	kubeconfig string
	client     client.Client
}

// TestClusterctl follows the Cluster API book with the clusterctl binary: init, generate cluster, apply, describe
// cluster and move.
func TestClusterctl(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()

	<-targetStarted
	g.Expect(targetErr).NotTo(HaveOccurred(), "failed to start the target management cluster")

	dir := t.TempDir()
	repo, err := clusterctlrepo.Build(filepath.Join(dir, "repository"))
	g.Expect(err).NotTo(HaveOccurred())
	ctl := newClusterctl(t, g, dir, repo)

	source := newManagementCluster(g, env.Env.ControlPlane, filepath.Join(dir, "source.kubeconfig"))
	to := newManagementCluster(g, target, filepath.Join(dir, "target.kubeconfig"))

	// clusterctl init --infrastructure azure, on both management clusters.
	for _, side := range []*managementCluster{source, to} {
		prepare(ctx, t, g, side)
		out := ctl.run(g, "init", "--infrastructure", clusterctlrepo.ProviderName, "--kubeconfig", side.kubeconfig)
		g.Expect(out).To(ContainSubstring("Skipping installing cert-manager as it is already installed"))
		g.Expect(out).To(ContainSubstring(`Installing provider="infrastructure-azure" version="` + repo.Version + `" targetNamespace="` + providerNamespace + `"`))
		for _, provider := range capiProviders {
			g.Expect(out).NotTo(ContainSubstring(`Installing provider="`+provider.name+`"`), "init installs only the provider")
		}
		checkInstalled(ctx, g, side, repo.Version)
		removeProviderWebhooks(ctx, g, side)
	}

	// clusterctl generate cluster --flavor, and kubectl apply, as a user does.
	f := p.NewAKSFixture(t, g, "ctl")
	ns, name := f.Namespace, f.ClusterName
	vars := map[string]string{
		"AZURE_LOCATION":          plane.Location,
		"AZURE_SUBSCRIPTION_ID":   p.SubscriptionID(),
		"AZURE_TENANT_ID":         "00000000-0000-0000-0000-00000000000a",
		"AZURE_CLIENT_ID":         "00000000-0000-0000-0000-00000000000b",
		"AZURE_NODE_MACHINE_TYPE": "Standard_D2s_v3",
	}
	manifest, _ := ctl.runWith(g, vars, "generate", "cluster", name,
		"--infrastructure", clusterctlrepo.ProviderName, "--flavor", flavor,
		"--kubernetes-version", plane.KubernetesVersion, "--worker-machine-count", "2",
		"--target-namespace", ns, "--kubeconfig", source.kubeconfig)
	clusterYAML := filepath.Join(dir, name+".yaml")
	g.Expect(os.WriteFile(clusterYAML, []byte(manifest), 0o600)).To(Succeed())
	kinds := map[string]int{}
	for _, o := range decodeYAML(g, manifest) {
		g.Expect(o.GetNamespace()).To(Equal(ns), "%s %s", o.GetKind(), o.GetName())
		kinds[o.GetKind()]++
	}
	g.Expect(kinds).To(Equal(map[string]int{"Secret": 1, "Cluster": 1, "AzureASOManagedCluster": 1,
		"AzureASOManagedControlPlane": 1, "MachinePool": 2, "AzureASOManagedMachinePool": 2}))

	kubectl(t, g, "apply", "-f", clusterYAML, "--kubeconfig", source.kubeconfig)

	// Cluster API and the provider provision the cluster; clusterctl moves it only once the infrastructure is
	// provisioned and the control plane initialized.
	g.Eventually(func(g Gomega) {
		c := &clusterv1.Cluster{}
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, c)).To(Succeed())
		g.Expect(c.Status.Initialization.InfrastructureProvisioned).To(HaveValue(BeTrue()))
		g.Expect(c.Status.Initialization.ControlPlaneInitialized).To(HaveValue(BeTrue()))
		g.Expect(conditions.IsTrue(c, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue())
		pools := &clusterv1.MachinePoolList{}
		g.Expect(env.Env.GetAPIReader().List(ctx, pools, client.InNamespace(ns))).To(Succeed())
		g.Expect(pools.Items).To(HaveLen(2))
		for _, pool := range pools.Items {
			g.Expect(pool.Status.ReadyReplicas).To(Equal(pool.Spec.Replicas), "MachinePool %s", pool.Name)
		}
	}, plane.Timeout, plane.Interval).Should(Succeed())

	// clusterctl describe cluster shows the tree with the provider's objects Ready.
	describe := ctl.run(g, "describe", "cluster", name, "--namespace", ns, "--kubeconfig", source.kubeconfig)
	key := ns + "/" + name
	g.Expect(strings.Fields(describeLine(g, describe, "Cluster", key))).To(ContainElements("True", "Available"))
	g.Expect(strings.Fields(describeLine(g, describe, "AzureASOManagedCluster", key))).To(ContainElements("True", "Ready"))
	g.Expect(strings.Fields(describeLine(g, describe, "AzureASOManagedControlPlane", key+","))).To(ContainElements("True", "Ready"))
	describeLine(g, describe, "MachinePool", key+"-pool0,")
	describeLine(g, describe, "MachinePool", key+"-pool1,")

	// clusterctl move to the target.
	objects := func(c client.Reader) map[string][]string {
		return map[string][]string{
			"Cluster":                     list(ctx, g, c, &clusterv1.ClusterList{}, ns),
			"MachinePool":                 list(ctx, g, c, &clusterv1.MachinePoolList{}, ns),
			"AzureASOManagedCluster":      list(ctx, g, c, &infrav1.AzureASOManagedClusterList{}, ns),
			"AzureASOManagedControlPlane": list(ctx, g, c, &infrav1.AzureASOManagedControlPlaneList{}, ns),
			"AzureASOManagedMachinePool":  list(ctx, g, c, &infrav1.AzureASOManagedMachinePoolList{}, ns),
		}
	}
	before := objects(source.client)
	g.Expect(before).To(HaveEach(Not(BeEmpty())))
	asoBefore := plane.ListASOObjects(ctx, g, ns)
	g.Expect(plane.CountByKind(asoBefore)).To(Equal("ManagedCluster×1, ManagedClustersAgentPool×2, ResourceGroup×1"))

	out := ctl.run(g, "move", "--namespace", ns, "--kubeconfig", source.kubeconfig, "--to-kubeconfig", to.kubeconfig)
	g.Expect(out).To(ContainSubstring("Moving Cluster API objects Clusters=1"))

	g.Expect(objects(to.client)).To(Equal(before), "the objects on the target")
	g.Expect(objects(source.client)).To(HaveEach(BeEmpty()), "the objects left on the source")
	moved := plane.ListASOObjectsFrom(ctx, g, to.client, ns)
	g.Expect(plane.CountByKind(moved)).To(Equal(plane.CountByKind(asoBefore)))
	g.Expect(plane.ListASOObjects(ctx, g, ns)).To(BeEmpty(), "clusterctl left ASO objects on the source")
	movedCluster := &clusterv1.Cluster{}
	g.Expect(to.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, movedCluster)).To(Succeed())
	g.Expect(ptr.Deref(movedCluster.Spec.Paused, false)).To(BeFalse(), "clusterctl unpauses the Cluster on the target")

	describe = ctl.run(g, "describe", "cluster", name, "--namespace", ns, "--kubeconfig", to.kubeconfig)
	describeLine(g, describe, "Cluster", key)
	describeLine(g, describe, "AzureASOManagedCluster", key)
}

// newManagementCluster writes the kubeconfig of an API server and returns it with an admin client that also knows
// clusterctl's inventory.
func newManagementCluster(g *WithT, cp *env.ControlPlane, kubeconfig string) *managementCluster {
	g.Expect(cp.WriteKubeconfig(kubeconfig)).To(Succeed())
	s := scheme.New()
	g.Expect(clusterctlv1.AddToScheme(s)).To(Succeed())
	c, err := client.New(cp.Config, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())
	return &managementCluster{kubeconfig: kubeconfig, client: c}
}

// clusterctlCLI runs the pinned clusterctl binary with a configuration file of its own.
type clusterctlCLI struct {
	t      *testing.T
	binary string
	config string
	env    []string
}

// newClusterctl writes clusterctl.yaml: the azure provider from the local repository, and Cluster API's providers
// from local repositories that hold only their metadata (init reads the core provider's contract from it). HOME
// and XDG_CONFIG_HOME point into the test's directory, so the user's clusterctl configuration is not read.
func newClusterctl(t *testing.T, g *WithT, dir string, repo *clusterctlrepo.Repository) *clusterctlCLI {
	t.Helper()
	binary, err := env.Tool("clusterctl")
	g.Expect(err).NotTo(HaveOccurred())

	providers := []map[string]string{{"name": clusterctlrepo.ProviderName, "url": repo.ComponentsURL, "type": string(clusterctlv1.InfrastructureProviderType)}}
	metadata, err := yaml.Marshal(&clusterctlv1.Metadata{
		TypeMeta:      metav1.TypeMeta{APIVersion: clusterctlv1.GroupVersion.String(), Kind: "Metadata"},
		ReleaseSeries: []clusterctlv1.ReleaseSeries{{Major: 1, Minor: 14, Contract: clusterv1.GroupVersion.Version}},
	})
	g.Expect(err).NotTo(HaveOccurred())
	for _, provider := range capiProviders {
		versionDir := filepath.Join(repo.Dir, provider.name, capiVersion)
		g.Expect(os.MkdirAll(versionDir, 0o700)).To(Succeed())
		g.Expect(os.WriteFile(filepath.Join(versionDir, "metadata.yaml"), metadata, 0o600)).To(Succeed())
		providers = append(providers, map[string]string{"name": provider.providerName, "url": "file://" + filepath.Join(versionDir, provider.components), "type": string(provider.typ)})
	}
	cfg, err := yaml.Marshal(map[string]any{"providers": providers, "overridesFolder": repo.Overrides})
	g.Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(dir, "clusterctl.yaml")
	g.Expect(os.WriteFile(path, cfg, 0o600)).To(Succeed())

	home := filepath.Join(dir, "home")
	g.Expect(os.MkdirAll(home, 0o700)).To(Succeed())
	return &clusterctlCLI{t: t, binary: binary, config: path, env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"CLUSTERCTL_DISABLE_VERSIONCHECK=true",
	}}
}

// run runs clusterctl with args and the configuration file, and returns what it printed; it fails the test if
// clusterctl fails.
func (c *clusterctlCLI) run(g *WithT, args ...string) string {
	c.t.Helper()
	stdout, stderr := c.runWith(g, nil, args...)
	if stdout != "" {
		c.t.Logf("clusterctl %s (stdout)\n%s", strings.Join(args, " "), stdout)
	}
	return stdout + stderr
}

// runWith runs clusterctl with environment variables, as a user exports the variables of a flavor, and returns
// what it printed to stdout (a template, a tree) and to stderr (its log).
func (c *clusterctlCLI) runWith(g *WithT, vars map[string]string, args ...string) (string, string) {
	c.t.Helper()
	cmd := exec.CommandContext(c.t.Context(), c.binary, append(args, "--config", c.config)...)
	cmd.Env = c.env
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c.t.Logf("clusterctl %s\n%s", strings.Join(args, " "), stderr.String())
	g.Expect(err).NotTo(HaveOccurred(), "clusterctl %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.String(), stderr.String()
}

// kubectl runs the pinned kubectl.
func kubectl(t *testing.T, g *WithT, args ...string) {
	t.Helper()
	binary, err := env.Tool("kubectl")
	g.Expect(err).NotTo(HaveOccurred())
	out, err := exec.CommandContext(t.Context(), binary, args...).CombinedOutput()
	t.Logf("kubectl %s\n%s", strings.Join(args, " "), out)
	g.Expect(err).NotTo(HaveOccurred(), "kubectl %s: %s", strings.Join(args, " "), out)
}

// prepare gives a management cluster what clusterctl init needs and a real one would have: cert-manager's API
// (stand-in CRDs for Issuer and Certificate, which init creates and deletes to see that cert-manager works), and
// Cluster API's providers as a first init would have installed them (the plane runs them in-process): their CRDs
// labelled for clusterctl and their inventory entries.
func prepare(ctx context.Context, t *testing.T, g *WithT, side *managementCluster) {
	t.Helper()
	root, err := env.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	standIns, err := os.ReadFile(filepath.Join(root, "config", "testdata", "cert-manager-crds.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, o := range decodeYAML(g, string(standIns)) {
		g.Expect(side.client.Create(ctx, &o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
	}
	g.Eventually(func() error {
		_, err := side.client.RESTMapper().RESTMapping(schema.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, "v1")
		return err
	}, plane.Timeout, plane.Interval).Should(Succeed())

	// init labels every CRD of the providers it installs, and move moves the objects of the labelled kinds only.
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	g.Expect(side.client.List(ctx, crds)).To(Succeed())
	for i := range crds.Items {
		crd := &crds.Items[i]
		provider, ok := capiCRDProviders[crd.Spec.Group]
		if !ok {
			continue
		}
		base := crd.DeepCopy()
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels[clusterctlv1.ClusterctlLabel] = ""
		crd.Labels[clusterv1.ProviderNameLabel] = provider
		g.Expect(side.client.Patch(ctx, crd, client.MergeFrom(base))).To(Succeed())
	}

	cfg, err := config.New(ctx, "", config.InjectReader(config.NewMemoryReader()))
	g.Expect(err).NotTo(HaveOccurred())
	inventory := cluster.New(cluster.Kubeconfig{Path: side.kubeconfig}, cfg).ProviderInventory()
	g.Expect(inventory.EnsureCustomResourceDefinitions(ctx)).To(Succeed())
	for _, provider := range capiProviders {
		err := side.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: provider.namespace}})
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
		g.Expect(inventory.Create(ctx, clusterctlv1.Provider{
			ObjectMeta: metav1.ObjectMeta{Name: provider.name, Namespace: provider.namespace, Labels: map[string]string{
				clusterctlv1.ClusterctlLabel: "", clusterv1.ProviderNameLabel: provider.name,
			}},
			ProviderName: provider.providerName,
			Type:         string(provider.typ),
			Version:      capiVersion,
		})).To(Succeed())
	}
}

// checkInstalled checks what clusterctl init installed: the provider's inventory entry, its CRDs, RBAC and
// Deployment, labelled for clusterctl.
func checkInstalled(ctx context.Context, g *WithT, side *managementCluster, version string) {
	providers := &clusterctlv1.ProviderList{}
	g.Expect(side.client.List(ctx, providers)).To(Succeed())
	g.Expect(providers.Items).To(ContainElement(SatisfyAll(
		HaveField("Name", "infrastructure-azure"), HaveField("Namespace", providerNamespace),
		HaveField("ProviderName", clusterctlrepo.ProviderName), HaveField("Type", string(clusterctlv1.InfrastructureProviderType)),
		HaveField("Version", version))))
	g.Expect(providers.Items).To(HaveLen(len(capiProviders) + 1))

	labelled := SatisfyAll(HaveKeyWithValue(clusterctlv1.ClusterctlLabel, ""), HaveKeyWithValue(clusterv1.ProviderNameLabel, "infrastructure-azure"))
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(side.client.Get(ctx, client.ObjectKey{Name: "azureclusters.infrastructure.cluster.x-k8s.io"}, crd)).To(Succeed())
	g.Expect(crd.Labels).To(labelled)
	role := &rbacv1.ClusterRole{}
	g.Expect(side.client.Get(ctx, client.ObjectKey{Name: "capz-manager-role"}, role)).To(Succeed())
	g.Expect(role.Labels).To(labelled)
	g.Expect(role.Rules).NotTo(BeEmpty())
	d := &appsv1.Deployment{}
	g.Expect(side.client.Get(ctx, client.ObjectKey{Namespace: providerNamespace, Name: "capz-controller-manager"}, d)).To(Succeed())
	g.Expect(d.Labels).To(labelled)
	g.Expect(d.Spec.Template.Spec.Containers).To(ContainElement(HaveField("Image", clusterctlrepo.ManagerImage)))
}

// removeProviderWebhooks deletes the webhook configurations clusterctl init installed (the provider's and the
// bundled ASO's): their Services have no Pods here, so every write of the kinds they cover would fail. The plane
// serves the same webhooks in-process through configurations of its own.
func removeProviderWebhooks(ctx context.Context, g *WithT, side *managementCluster) {
	selector := client.MatchingLabels{clusterv1.ProviderNameLabel: "infrastructure-azure"}
	mutating := &admissionregistrationv1.MutatingWebhookConfigurationList{}
	g.Expect(side.client.List(ctx, mutating, selector)).To(Succeed())
	validating := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
	g.Expect(side.client.List(ctx, validating, selector)).To(Succeed())
	g.Expect(mutating.Items).To(HaveLen(2), "the provider's and ASO's mutating webhooks")
	g.Expect(validating.Items).To(HaveLen(2), "the provider's and ASO's validating webhooks")
	for i := range mutating.Items {
		g.Expect(side.client.Delete(ctx, &mutating.Items[i])).To(Succeed())
	}
	for i := range validating.Items {
		g.Expect(side.client.Delete(ctx, &validating.Items[i])).To(Succeed())
	}
}

// describeLine returns the line of clusterctl describe's tree that shows an object, by kind and namespace/name (with
// the comma describe puts after it when it shows a version).
func describeLine(g *WithT, out, kind, key string) string {
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(strings.TrimLeft(line, "│├└─ "))
		if len(fields) >= 2 && fields[0] == kind && fields[1] == key {
			return line
		}
	}
	g.Expect(out).To(ContainSubstring(kind+" "+key), "clusterctl describe shows %s %s", kind, key)
	return ""
}

// list lists the objects of a kind in a namespace and returns their names.
func list(ctx context.Context, g *WithT, c client.Reader, l client.ObjectList, namespace string) []string {
	g.Expect(c.List(ctx, l, client.InNamespace(namespace))).To(Succeed())
	var names []string
	for _, o := range extract(g, l) {
		names = append(names, o.GetName())
	}
	return names
}

func extract(g *WithT, l client.ObjectList) []client.Object {
	items, err := meta.ExtractList(l)
	g.Expect(err).NotTo(HaveOccurred())
	out := make([]client.Object, 0, len(items))
	for _, item := range items {
		out = append(out, item.(client.Object))
	}
	return out
}

// decodeYAML splits a multi-document YAML into objects.
func decodeYAML(g *WithT, data string) []unstructured.Unstructured {
	objs, err := clusterctlrepo.Objects([]byte(data))
	g.Expect(err).NotTo(HaveOccurred())
	return objs
}
