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

package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	"sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/asocrd"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	namespace     = "capz-system"
	providerLabel = "cluster.x-k8s.io/provider"
	providerValue = "infrastructure-azure"
	contractLabel = "cluster.x-k8s.io/v1beta2"
	infraGroup    = "infrastructure.cluster.x-k8s.io"

	managerDeployment = "capz-controller-manager"
	managerImage      = "ghcr.io/capzaso/cluster-api-azure-controller:dev"
	managerRole       = "capz-manager-role"
	managerCert       = "capz-serving-cert"
	// managerMetricsService and metricsReaderRole are for Prometheus: the Service in front of the manager's metrics,
	// and the ClusterRole a scraper's ServiceAccount is bound to.
	managerMetricsService = "capz-controller-manager-metrics-service"
	metricsReaderRole     = "capz-metrics-reader"

	asoModule         = "github.com/Azure/azure-service-operator/v2"
	asoDeployment     = "azureserviceoperator-controller-manager"
	asoManagerRole    = "azureserviceoperator-manager-role"
	asoCRDManagerRole = "azureserviceoperator-crd-manager-role"
	asoCert           = "azureserviceoperator-serving-cert"
	asoSettings       = "aso-controller-settings"
	// additionalCRDs ends ASO's --crd-pattern. Its default repeats one of our patterns: ASO fails on a pattern that
	// matches no CRD, and clusterctl treats an empty default as no default.
	additionalCRDs        = "${ADDITIONAL_ASO_CRDS:=resources.azure.com/ResourceGroup}"
	additionalCRDsDefault = "resources.azure.com/ResourceGroup"
)

// clusterScopedKinds are the cluster-scoped kinds of the components YAML; the apply test checks this against the
// API server's discovery.
var clusterScopedKinds = sets.New("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")

// wantVariables are the clusterctl variables of the components YAML and their defaults (every one has a default, so
// `clusterctl init` needs none of them).
var wantVariables = map[string]string{
	"ADDITIONAL_ASO_CRDS":   additionalCRDsDefault,
	"AZURE_CLIENT_ID":       `""`,
	"AZURE_SUBSCRIPTION_ID": `""`,
	"AZURE_SYNC_PERIOD":     `""`,
	"AZURE_TENANT_ID":       `""`,
	"EXP_MACHINE_POOL":      "true",
}

var built struct {
	once sync.Once
	yaml []byte
	err  error
}

// componentsYAML returns `kustomize build config/default`, built once per test binary with the pinned kustomize.
func componentsYAML(t *testing.T) []byte {
	t.Helper()
	kustomize, err := env.Tool("kustomize")
	if err != nil {
		t.Fatal(err)
	}
	built.once.Do(func() { built.yaml, built.err = kustomizeBuild(kustomize, "default") })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.yaml
}

func kustomizeBuild(kustomize, dir string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w: %s", dir, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// decode splits a multi-document YAML into objects.
func decode(t *testing.T, data []byte) []unstructured.Unstructured {
	t.Helper()
	var objs []unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatalf("failed to decode YAML: %v", err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// withDefaults substitutes the clusterctl variables the way `clusterctl init` does when none is set.
func withDefaults(t *testing.T, data []byte, vars map[string]string) []byte {
	t.Helper()
	out, err := yamlprocessor.NewSimpleProcessor().Process(data, func(name string) (string, error) {
		if v, ok := vars[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("variable %s is not set", name)
	})
	if err != nil {
		t.Fatalf("clusterctl variable substitution failed: %v", err)
	}
	return out
}

func find(objs []unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for i := range objs {
		if objs[i].GetKind() == kind && objs[i].GetName() == name {
			return &objs[i]
		}
	}
	return nil
}

func convert[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	if u == nil {
		t.Fatalf("object not found")
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		t.Fatalf("failed to convert %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

func objectsOfKind[T any](t *testing.T, objs []unstructured.Unstructured, kind string) map[string]*T {
	t.Helper()
	out := map[string]*T{}
	for i := range objs {
		if objs[i].GetKind() == kind {
			out[objs[i].GetName()] = convert[T](t, &objs[i])
		}
	}
	return out
}

func arg(args []string, flag string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestComponents_Reproducible(t *testing.T) {
	g := NewWithT(t)
	first := componentsYAML(t)
	kustomize, err := env.Tool("kustomize")
	g.Expect(err).NotTo(HaveOccurred())
	second, err := kustomizeBuild(kustomize, "default")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(bytes.Equal(first, second)).To(BeTrue(), "two builds of config/default differ")
}

func TestComponents_Namespace(t *testing.T) {
	g := NewWithT(t)
	raw := componentsYAML(t)
	objs := decode(t, raw)

	var namespaces []string
	for _, o := range objs {
		g.Expect(o.GetLabels()).To(HaveKeyWithValue(providerLabel, providerValue), "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() == "Namespace" {
			namespaces = append(namespaces, o.GetName())
		}
		if clusterScopedKinds.Has(o.GetKind()) {
			g.Expect(o.GetNamespace()).To(BeEmpty(), "%s %s is cluster-scoped", o.GetKind(), o.GetName())
		} else {
			g.Expect(o.GetNamespace()).To(Equal(namespace), "%s %s", o.GetKind(), o.GetName())
		}
	}
	g.Expect(namespaces).To(Equal([]string{namespace}), "clusterctl needs exactly one Namespace")

	// Names that kustomize must have replaced: the namespace ASO's chart is rendered with, and the Certificate's
	// placeholders.
	for _, leftover := range []string{"azureserviceoperator-system", "SERVICE_NAME", "SERVICE_NAMESPACE", "namespace: system"} {
		g.Expect(string(raw)).NotTo(ContainSubstring(leftover))
	}

	// Webhook configurations point at a Service in the namespace and get their CA from a Certificate there whose
	// DNS names are that Service's.
	services := objectsOfKind[corev1.Service](t, objs, "Service")
	certs := map[string]*unstructured.Unstructured{}
	for i := range objs {
		if objs[i].GetKind() == "Certificate" {
			certs[objs[i].GetName()] = &objs[i]
		}
	}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		for i := range objs {
			o := &objs[i]
			if o.GetKind() != kind {
				continue
			}
			certRef := o.GetAnnotations()["cert-manager.io/inject-ca-from"]
			certNamespace, certName, _ := strings.Cut(certRef, "/")
			g.Expect(certNamespace).To(Equal(namespace), "%s %s", kind, o.GetName())
			g.Expect(certs).To(HaveKey(certName), "%s %s", kind, o.GetName())
			dnsNames, _, _ := unstructured.NestedStringSlice(certs[certName].Object, "spec", "dnsNames")

			webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			g.Expect(webhooks).NotTo(BeEmpty())
			for _, w := range webhooks {
				svcName, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "service", "name")
				svcNamespace, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "service", "namespace")
				g.Expect(svcNamespace).To(Equal(namespace))
				g.Expect(services).To(HaveKey(svcName))
				g.Expect(dnsNames).To(ConsistOf(svcName+"."+namespace+".svc", svcName+"."+namespace+".svc.cluster.local"))
			}
		}
	}
}

func TestComponents_ManagerDeployment(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))

	d := convert[appsv1.Deployment](t, find(objs, "Deployment", managerDeployment))
	g.Expect(d.Labels).To(HaveKeyWithValue(providerLabel, providerValue))
	pod := d.Spec.Template.Spec
	g.Expect(pod.Containers).To(HaveLen(1))
	c := pod.Containers[0]
	g.Expect(c.Name).To(Equal("manager"), "clusterctl and Tilt need the container to be named manager")
	g.Expect(c.Image).To(Equal(managerImage))
	g.Expect(c.Args).To(ContainElement("--leader-elect"))

	// Hardening.
	g.Expect(pod.SecurityContext).NotTo(BeNil())
	g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(pod.SecurityContext.SeccompProfile).To(HaveValue(HaveField("Type", corev1.SeccompProfileTypeRuntimeDefault)))
	g.Expect(c.SecurityContext).NotTo(BeNil())
	g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
	g.Expect(c.SecurityContext.Capabilities).NotTo(BeNil())
	g.Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceCPU))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceMemory))

	// Probes on the health address.
	healthAddr, ok := arg(c.Args, "--health-addr")
	g.Expect(ok).To(BeTrue())
	g.Expect(healthAddr).To(Equal(":9440"))
	port := func(p *corev1.Probe) int32 {
		g.Expect(p).NotTo(BeNil())
		g.Expect(p.HTTPGet).NotTo(BeNil())
		for _, cp := range c.Ports {
			if cp.Name == p.HTTPGet.Port.String() || cp.ContainerPort == p.HTTPGet.Port.IntVal {
				return cp.ContainerPort
			}
		}
		return 0
	}
	g.Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
	g.Expect(port(c.LivenessProbe)).To(BeEquivalentTo(9440))
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	g.Expect(port(c.ReadinessProbe)).To(BeEquivalentTo(9440))

	// Metrics: HTTPS with authentication and authorization on the diagnostics address (no --insecure-diagnostics),
	// behind a Service for Prometheus.
	diagnosticsAddr, ok := arg(c.Args, "--diagnostics-address")
	g.Expect(ok).To(BeTrue())
	g.Expect(diagnosticsAddr).To(Equal(":8443"))
	g.Expect(c.Args).NotTo(ContainElement(HavePrefix("--insecure-diagnostics")))
	g.Expect(c.Args).NotTo(ContainElement(HavePrefix("--enable-http2")))
	g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "metrics"), HaveField("ContainerPort", BeEquivalentTo(8443)))))
	metricsService := convert[corev1.Service](t, find(objs, "Service", managerMetricsService))
	g.Expect(matches(metricsService.Spec.Selector, d.Spec.Template.Labels)).To(BeTrue())
	g.Expect(metricsService.Spec.Ports).To(ConsistOf(And(HaveField("Port", BeEquivalentTo(8443)), HaveField("TargetPort.StrVal", "metrics"))))

	// The webhook server's certificate: the Secret cert-manager writes is mounted where the manager reads it.
	certDir, ok := arg(c.Args, "--webhook-cert-dir")
	g.Expect(ok).To(BeTrue())
	cert := find(objs, "Certificate", managerCert)
	g.Expect(cert).NotTo(BeNil())
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	var mounted bool
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == secretName && m.MountPath == certDir {
				mounted = true
			}
		}
	}
	g.Expect(mounted).To(BeTrue(), "Secret %s is not mounted at %s", secretName, certDir)
	g.Expect(pod.ServiceAccountName).NotTo(BeEmpty())
	g.Expect(find(objs, "ServiceAccount", pod.ServiceAccountName)).NotTo(BeNil())
}

// Our manager and ASO share the namespace: each Service must select the pods of exactly one Deployment.
func TestComponents_ServicesSelectOneDeployment(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))

	deployments := objectsOfKind[appsv1.Deployment](t, objs, "Deployment")
	g.Expect(deployments).To(HaveLen(2))
	for name, svc := range objectsOfKind[corev1.Service](t, objs, "Service") {
		var selected []string
		for dName, d := range deployments {
			if matches(svc.Spec.Selector, d.Spec.Template.Labels) {
				selected = append(selected, dName)
			}
		}
		g.Expect(selected).To(HaveLen(1), "Service %s selects the pods of %v", name, selected)
	}
}

func matches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

func TestComponents_RBAC(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))

	type role struct {
		kind  string
		rules []rbacv1.PolicyRule
	}
	roles := map[string]role{}
	for name, r := range objectsOfKind[rbacv1.ClusterRole](t, objs, "ClusterRole") {
		roles[name] = role{kind: "ClusterRole", rules: r.Rules}
	}
	for name, r := range objectsOfKind[rbacv1.Role](t, objs, "Role") {
		roles[name] = role{kind: "Role", rules: r.Rules}
	}
	g.Expect(roles).To(HaveKey(managerRole))
	g.Expect(roles).To(HaveKey(asoManagerRole))

	secretVerbs := map[string][]string{}
	for name, r := range roles {
		for _, rule := range r.rules {
			for _, field := range [][]string{rule.Verbs, rule.APIGroups, rule.Resources, rule.ResourceNames, rule.NonResourceURLs} {
				g.Expect(field).NotTo(ContainElement(ContainSubstring("*")), "%s %s grants a wildcard: %+v", r.kind, name, rule)
			}
			if slices.Contains(rule.APIGroups, "") && slices.Contains(rule.Resources, "secrets") {
				secretVerbs[name] = append(secretVerbs[name], rule.Verbs...)
			}
		}
	}
	for name := range secretVerbs {
		sort.Strings(secretVerbs[name])
	}
	// Only our manager (which reads bootstrap data and identity secrets, watches the metadata of Secrets, and
	// applies, or on revocation deletes, the per-cluster ASO credential and the Secrets ASO objects read) and ASO
	// (which reads credentials and writes the secrets its resources export) touch Secrets.
	g.Expect(secretVerbs).To(Equal(map[string][]string{
		managerRole:    {"create", "delete", "get", "list", "patch", "watch"},
		asoManagerRole: {"create", "delete", "get", "list", "patch", "update", "watch"},
	}))

	// The manager's metrics filter reviews tokens and access; metrics-reader grants exactly GET /metrics.
	g.Expect(roles[managerRole].rules).To(ContainElements(
		rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		rbacv1.PolicyRule{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	))
	g.Expect(roles).To(HaveKey(metricsReaderRole))
	g.Expect(roles[metricsReaderRole]).To(Equal(role{kind: "ClusterRole", rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}))

	// Every binding refers to a role and service accounts of the components.
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		for name, b := range objectsOfKind[rbacv1.RoleBinding](t, objs, kind) {
			g.Expect(roles).To(HaveKey(b.RoleRef.Name), "%s %s", kind, name)
			g.Expect(roles[b.RoleRef.Name].kind).To(Equal(b.RoleRef.Kind), "%s %s", kind, name)
			for _, s := range b.Subjects {
				g.Expect(s.Kind).To(Equal("ServiceAccount"))
				g.Expect(s.Namespace).To(Equal(namespace))
				g.Expect(find(objs, "ServiceAccount", s.Name)).NotTo(BeNil(), "%s %s", kind, name)
			}
		}
	}
}

// The manager's role grants the engine's verbs on every ASO kind it produces and on no other, and patch on their CRDs
// only (test/rbaccheck checks against the tests' requests that each verb is needed).
func TestComponents_ManagerRoleASO(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))
	kinds, _ := asoKinds(t)
	plurals := asoPlurals(t)
	engineVerbs := []string{"create", "delete", "get", "list", "patch", "watch"}

	want := map[string][]string{}
	wantCRDs := sets.New[string]()
	for k := range kinds {
		plural, ok := plurals[k]
		g.Expect(ok).To(BeTrue(), "no CRD for %s in test/crd/aso", k)
		group := strings.SplitN(k, "/", 2)[0]
		want[group+"/"+plural] = engineVerbs
		wantCRDs.Insert(plural + "." + group)
	}
	got := map[string][]string{}
	var crdPatchNames []string
	for _, rule := range convert[rbacv1.ClusterRole](t, find(objs, "ClusterRole", managerRole)).Rules {
		for _, group := range rule.APIGroups {
			for _, r := range rule.Resources {
				switch {
				case strings.HasSuffix(group, ".azure.com"):
					g.Expect(rule.ResourceNames).To(BeEmpty())
					got[group+"/"+r] = append(got[group+"/"+r], rule.Verbs...)
				case group == apiextensionsv1.GroupName && r == "customresourcedefinitions" && slices.Contains(rule.Verbs, "patch"):
					g.Expect(rule.Verbs).To(Equal([]string{"patch"}), "the CRDs are patched by name only")
					g.Expect(rule.ResourceNames).NotTo(BeEmpty(), "the CRDs are patched by name only")
					crdPatchNames = append(crdPatchNames, rule.ResourceNames...)
				}
			}
		}
	}
	for k := range got {
		sort.Strings(got[k])
	}
	g.Expect(got).To(Equal(want))
	g.Expect(sets.List(sets.New(crdPatchNames...))).To(Equal(sets.List(wantCRDs)))
	g.Expect(crdPatchNames).To(HaveLen(wantCRDs.Len()))

	// controllers/asocrd asks before it patches a CRD its role does not name: it names the same CRDs.
	names, err := asocrd.CRDNames(scheme.New())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sets.List(names)).To(Equal(sets.List(wantCRDs)))
}

func TestComponents_DeleteForMoveWebhook(t *testing.T) {
	g := NewWithT(t)
	cfg := find(decode(t, componentsYAML(t)), "MutatingWebhookConfiguration", "capz-mutating-webhook-configuration")
	g.Expect(cfg).NotTo(BeNil())
	webhooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	var deleteForMove map[string]any
	for _, w := range webhooks {
		if w := w.(map[string]any); w["name"] == "deleteformove.aso.infrastructure.cluster.x-k8s.io" {
			deleteForMove = w
		}
	}
	g.Expect(deleteForMove).NotTo(BeNil())
	// It sees every update of the ASO objects, but only clusterctl's delete-for-move update reaches it: ASO never
	// waits for the provider's webhook otherwise, and a move fails rather than lose the reconcile-policy skip.
	g.Expect(deleteForMove).To(HaveKeyWithValue("failurePolicy", "Fail"))
	g.Expect(deleteForMove).To(HaveKeyWithValue("matchConditions", ConsistOf(HaveKeyWithValue("expression",
		"has(object.metadata.annotations) && 'clusterctl.cluster.x-k8s.io/delete-for-move' in object.metadata.annotations"))))
}

func TestComponents_CRDs(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))

	crds := objectsOfKind[apiextensionsv1.CustomResourceDefinition](t, objs, "CustomResourceDefinition")
	for name, crd := range crds {
		g.Expect(crd.Spec.Group).To(Equal(infraGroup), "the components carry only our CRDs; ASO installs its own")
		g.Expect(crd.Labels).To(HaveKeyWithValue(contractLabel, "v1beta1"), name)
		g.Expect(name).To(Equal(contract.CalculateCRDName(crd.Spec.Group, crd.Spec.Names.Kind)))
		g.Expect(crd.Spec.Versions).To(HaveLen(1), name)
		if crd.Spec.Conversion != nil {
			g.Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.NoneConverter), name)
		}
	}

	// config/crd/kustomization.yaml must list every generated CRD.
	files, err := filepath.Glob(filepath.Join("crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).NotTo(BeEmpty())
	for _, f := range files {
		data, err := os.ReadFile(f)
		g.Expect(err).NotTo(HaveOccurred())
		for _, o := range decode(t, data) {
			g.Expect(crds).To(HaveKey(o.GetName()), "%s is not in config/crd/kustomization.yaml", f)
		}
	}
}

// asoKinds returns "group/Kind" of every ASO kind the provider produces, and the GroupVersionKinds.
func asoKinds(t *testing.T) (sets.Set[string], []schema.GroupVersionKind) {
	t.Helper()
	s := scheme.New()
	names := sets.New[string]()
	var gvks []schema.GroupVersionKind
	for _, obj := range aso.Kinds() {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil {
			t.Fatal(err)
		}
		names.Insert(gvk.Group + "/" + gvk.Kind)
		gvks = append(gvks, gvk)
	}
	return names, gvks
}

// asoPlurals maps "group/Kind" to the resource name, from the ASO CRDs in test/crd/aso.
func asoPlurals(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "test", "crd", "aso", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ASO CRDs in test/crd/aso (%v): run 'make generate-aso-crds'", err)
	}
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs := decode(t, data)
		for i := range objs {
			crd := convert[apiextensionsv1.CustomResourceDefinition](t, &objs[i])
			out[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd.Spec.Names.Plural
		}
	}
	return out
}

func TestComponents_ASO(t *testing.T) {
	g := NewWithT(t)
	objs := decode(t, componentsYAML(t))
	kinds, gvks := asoKinds(t)
	plurals := asoPlurals(t)

	// --crd-pattern installs exactly the kinds the provider uses, plus what the user adds.
	d := convert[appsv1.Deployment](t, find(objs, "Deployment", asoDeployment))
	g.Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
	c := d.Spec.Template.Spec.Containers[0]
	pattern, ok := arg(c.Args, "--crd-pattern")
	g.Expect(ok).To(BeTrue())
	patterns := strings.Split(pattern, ";")
	g.Expect(patterns[len(patterns)-1]).To(Equal(additionalCRDs))
	ours := patterns[:len(patterns)-1]
	g.Expect(ours).To(HaveLen(kinds.Len()), "duplicate patterns: %v", ours)
	g.Expect(sets.New(ours...).Equal(kinds)).To(BeTrue(),
		"--crd-pattern and aso.Kinds() differ: only in the pattern %v, only in Kinds() %v (update hack/aso-kinds.txt and run make generate-aso-bundle generate-aso-crds)",
		sets.List(sets.New(ours...).Difference(kinds)), sets.List(kinds.Difference(sets.New(ours...))))
	g.Expect(kinds.Has(additionalCRDsDefault)).To(BeTrue())

	// The image is the ASO release the module requires.
	g.Expect(c.Image).To(Equal("mcr.microsoft.com/k8s/azureserviceoperator:" + asoVersion(t)))
	g.Expect(c.Name).To(Equal("manager"))
	g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(c.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))

	// Every key the ASO Deployment requires from its settings Secret is there.
	settings := convert[corev1.Secret](t, find(objs, "Secret", asoSettings))
	for _, e := range c.Env {
		if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil && !ptr.Deref(ref.SecretKeyRef.Optional, false) {
			g.Expect(ref.SecretKeyRef.Name).To(Equal(asoSettings))
			g.Expect(settings.StringData).To(HaveKey(ref.SecretKeyRef.Key))
		}
	}

	// ASO's RBAC covers our kinds only; its CRD manager may update only their CRDs.
	wantResources := sets.New[string]()
	wantCRDs := sets.New[string]()
	for k := range kinds {
		plural, ok := plurals[k]
		g.Expect(ok).To(BeTrue(), "no CRD for %s in test/crd/aso", k)
		group := strings.SplitN(k, "/", 2)[0]
		wantResources.Insert(group+"/"+plural, group+"/"+plural+"/status", group+"/"+plural+"/finalizers")
		wantCRDs.Insert(plural + "." + group)
	}
	managerRules := convert[rbacv1.ClusterRole](t, find(objs, "ClusterRole", asoManagerRole)).Rules
	gotResources := sets.New[string]()
	for _, rule := range managerRules {
		for _, group := range rule.APIGroups {
			if strings.HasSuffix(group, ".azure.com") {
				for _, r := range rule.Resources {
					gotResources.Insert(group + "/" + r)
				}
			}
		}
	}
	g.Expect(sets.List(gotResources)).To(Equal(sets.List(wantResources)))

	var crdWriters []rbacv1.PolicyRule
	for _, rule := range convert[rbacv1.ClusterRole](t, find(objs, "ClusterRole", asoCRDManagerRole)).Rules {
		if slices.Contains(rule.Resources, "customresourcedefinitions") &&
			slices.ContainsFunc(rule.Verbs, func(v string) bool { return v == "update" || v == "patch" || v == "delete" }) {
			crdWriters = append(crdWriters, rule)
		}
	}
	g.Expect(crdWriters).To(HaveLen(1))
	g.Expect(crdWriters[0].Verbs).To(ConsistOf("update", "patch"))
	g.Expect(sets.List(sets.New(crdWriters[0].ResourceNames...))).To(Equal(sets.List(wantCRDs)))

	// ASO's admission webhooks cover our kinds only, and each kind at the version we produce.
	webhooked := sets.New[string]()
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		cfg := find(objs, kind, strings.ToLower("azureserviceoperator-"+strings.TrimSuffix(kind, "WebhookConfiguration")+"-webhook-configuration"))
		g.Expect(cfg).NotTo(BeNil(), kind)
		webhooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
		for _, w := range webhooks {
			rules, _, _ := unstructured.NestedSlice(w.(map[string]any), "rules")
			for _, r := range rules {
				groups, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "apiGroups")
				versions, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "apiVersions")
				resources, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
				for _, grp := range groups {
					for _, res := range resources {
						g.Expect(wantResources.Has(grp+"/"+res)).To(BeTrue(), "%s has a webhook for %s/%s", kind, grp, res)
						for _, v := range versions {
							webhooked.Insert(kind + ":" + grp + "/" + v + "/" + res)
						}
					}
				}
			}
		}
	}
	for _, gvk := range gvks {
		res := plurals[gvk.Group+"/"+gvk.Kind]
		for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			g.Expect(webhooked.Has(kind+":"+gvk.Group+"/"+gvk.Version+"/"+res)).To(BeTrue(), "%s has no webhook for %s", kind, gvk)
		}
	}
}

// asoVersion is the version of the ASO module that go.mod requires.
func asoVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == asoModule {
			return fields[1]
		}
	}
	t.Fatalf("go.mod does not require %s", asoModule)
	return ""
}

func TestComponents_Variables(t *testing.T) {
	g := NewWithT(t)
	raw := componentsYAML(t)

	vars, err := yamlprocessor.NewSimpleProcessor().GetVariableMap(raw)
	g.Expect(err).NotTo(HaveOccurred())
	got := map[string]string{}
	for name, def := range vars {
		g.Expect(def).NotTo(BeNil(), "variable %s has no default, so clusterctl init would require it", name)
		got[name] = *def
	}
	g.Expect(got).To(Equal(wantVariables))

	patternOf := func(data []byte) string {
		d := convert[appsv1.Deployment](t, find(decode(t, data), "Deployment", asoDeployment))
		p, _ := arg(d.Spec.Template.Spec.Containers[0].Args, "--crd-pattern")
		return p
	}
	ours := strings.TrimSuffix(patternOf(raw), additionalCRDs)

	// clusterctl init with no variables set.
	defaults := withDefaults(t, raw, nil)
	g.Expect(patternOf(defaults)).To(Equal(ours + additionalCRDsDefault))
	settings := convert[corev1.Secret](t, find(decode(t, defaults), "Secret", asoSettings))
	for _, key := range []string{"AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_SYNC_PERIOD"} {
		g.Expect(settings.StringData).To(HaveKeyWithValue(key, ""))
	}
	manager := convert[appsv1.Deployment](t, find(decode(t, defaults), "Deployment", managerDeployment))
	g.Expect(manager.Spec.Template.Spec.Containers[0].Args).To(ContainElement("--feature-gates=MachinePool=true"))

	// With variables set.
	set := withDefaults(t, raw, map[string]string{
		"ADDITIONAL_ASO_CRDS":   "containerservice.azure.com/TrustedAccessRoleBinding;dbformysql.azure.com/*",
		"AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001",
		"EXP_MACHINE_POOL":      "false",
	})
	g.Expect(patternOf(set)).To(Equal(ours + "containerservice.azure.com/TrustedAccessRoleBinding;dbformysql.azure.com/*"))
	settings = convert[corev1.Secret](t, find(decode(t, set), "Secret", asoSettings))
	g.Expect(settings.StringData).To(HaveKeyWithValue("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-000000000001"))
	manager = convert[appsv1.Deployment](t, find(decode(t, set), "Deployment", managerDeployment))
	g.Expect(manager.Spec.Template.Spec.Containers[0].Args).To(ContainElement("--feature-gates=MachinePool=false"))
}

// warningRecorder collects the API server's warnings (such as Pod Security violations of a Deployment).
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.warnings
	w.warnings = nil
	return out
}

// TestComponents_ApplyServerSide applies every object, after clusterctl's default variable substitution and in
// clusterctl's order, to a real API server, with the namespace warning about anything the restricted Pod Security
// Standard forbids.
func TestComponents_ApplyServerSide(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	objs := decode(t, withDefaults(t, componentsYAML(t), nil))

	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("failed to stop the control plane: %v", err)
		}
	})
	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(cp.Config)
	cfg.WarningHandlerWithContext = warnings
	c, err := client.New(cfg, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())

	apply := func(o unstructured.Unstructured) error {
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(&o), client.FieldOwner("clusterctl"), client.ForceOwnership)
	}

	// cert-manager's kinds, as stand-ins.
	standIns, err := os.ReadFile(filepath.Join("testdata", "cert-manager-crds.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, o := range decode(t, standIns) {
		g.Expect(apply(o)).To(Succeed())
	}
	g.Eventually(func() error {
		_, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, "v1")
		return err
	}).Should(Succeed())

	// clusterctl's order: the Namespace, then cert-manager's objects, then the rest.
	sort.SliceStable(objs, func(i, j int) bool {
		if objs[i].GetKind() == "Namespace" || objs[j].GetKind() == "Namespace" {
			return objs[i].GetKind() == "Namespace" && objs[j].GetKind() != "Namespace"
		}
		return objs[i].GroupVersionKind().Group == "cert-manager.io" && objs[j].GroupVersionKind().Group != "cert-manager.io"
	})
	g.Expect(objs[0].GetKind()).To(Equal("Namespace"))
	labels := objs[0].GetLabels()
	labels["pod-security.kubernetes.io/warn"] = "restricted"
	labels["pod-security.kubernetes.io/warn-version"] = "latest"
	objs[0].SetLabels(labels)

	for _, o := range objs {
		gvk := o.GroupVersionKind()
		mapping, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		g.Expect(err).NotTo(HaveOccurred(), "%s", gvk)
		g.Expect(mapping.Scope.Name() == meta.RESTScopeNameRoot).To(Equal(clusterScopedKinds.Has(o.GetKind())), "scope of %s", gvk)

		g.Expect(apply(o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
		g.Expect(warnings.take()).To(BeEmpty(), "%s %s", o.GetKind(), o.GetName())

		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(gvk)
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(&o), live)).To(Succeed())
	}
}
