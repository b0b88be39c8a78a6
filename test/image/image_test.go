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

package image

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	"sigs.k8s.io/cluster-api/util/conditions"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// The variables make test-image sets: the image it built, the components YAML it rendered with that image, and
// how podman runs here.
const (
	imageEnvVar      = "CAPZASO_TEST_IMAGE"
	componentsEnvVar = "CAPZASO_TEST_IMAGE_COMPONENTS"
	// podmanEnvVar is the podman command with its global flags (e.g. "podman --runtime runc --cgroup-manager
	// cgroupfs"), podmanRunEnvVar the flags of podman run this machine needs (e.g. ulimits).
	podmanEnvVar    = "CAPZASO_TEST_IMAGE_PODMAN"
	podmanRunEnvVar = "CAPZASO_TEST_IMAGE_PODMAN_RUN_FLAGS"
)

const (
	// fieldOwner is the field manager of what the test applies, as clusterctl init would.
	fieldOwner = "capzaso-image-test"
	// sampleFlavor is the flavor of the sample cluster, and sampleNamespace where it goes.
	sampleFlavor    = "cluster-template.yaml"
	sampleCluster   = "image-sample"
	sampleNamespace = "default"
	// timeout bounds each wait: the plane and the container start beside other work on two cores.
	timeout  = 4 * time.Minute
	interval = 500 * time.Millisecond
)

// TestImage runs the manager's image as the release manifests' Deployment specifies it, against a local management
// plane without the provider, and checks that it serves and reconciles as the Deployment promises. Everything about
// the container comes from the rendered components YAML: a change to the Deployment is tested here.
func TestImage(t *testing.T) {
	image, componentsPath := os.Getenv(imageEnvVar), os.Getenv(componentsEnvVar)
	if image == "" || componentsPath == "" {
		t.Skipf("TestImage runs the manager's image with podman and runs only under make test-image, which builds the image, "+
			"renders the release manifests and sets %s and %s", imageEnvVar, componentsEnvVar)
	}
	podman := strings.Fields(os.Getenv(podmanEnvVar))
	if len(podman) == 0 {
		podman = []string{"podman"}
	}
	g := NewWithT(t)
	// The API server's warnings (client-go logs them through controller-runtime's logger) go to the test's log.
	ctrllog.SetLogger(testr.New(t))
	ctx := t.Context()
	root, err := filepath.Abs("../..")
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()

	// The Deployment and what it needs, from the components YAML.
	components, err := ReadComponents(componentsPath)
	g.Expect(err).NotTo(HaveOccurred())
	deployments, err := components.Deployments()
	g.Expect(err).NotTo(HaveOccurred())
	deployment, ctr, err := ManagerContainer(deployments, image)
	g.Expect(err).NotTo(HaveOccurred(), "the components YAML runs the image make image built")
	provider, err := components.ProviderOf(deployment, ctr)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ctr.Readiness).NotTo(BeNil(), "the Deployment has a readiness probe")
	g.Expect(ctr.Liveness).NotTo(BeNil(), "the Deployment has a liveness probe")
	t.Logf("Deployment %s/%s: container runs as %v", deployment.Namespace, deployment.Name, ctr.RunArgs)

	// The image: a numeric non-root user (the kubelet checks runAsNonRoot against it when the Deployment sets no
	// runAsUser) and the labels OCI defines.
	inspect := exec.CommandContext(ctx, podman[0], append(podman[1:], "image", "inspect", image)...)
	raw, err := inspect.Output()
	g.Expect(err).NotTo(HaveOccurred(), "podman image inspect %s", image)
	var inspected []struct {
		Config struct {
			User   string
			Labels map[string]string
		}
	}
	g.Expect(json.Unmarshal(raw, &inspected)).To(Succeed())
	g.Expect(inspected).To(HaveLen(1))
	user := strings.SplitN(inspected[0].Config.User, ":", 2)[0]
	uid, err := strconv.Atoi(user)
	g.Expect(err).NotTo(HaveOccurred(), "the image's user %q is numeric", inspected[0].Config.User)
	g.Expect(uid).NotTo(BeZero(), "the image's user is not root")
	for _, label := range []string{"source", "revision", "version", "created"} {
		g.Expect(inspected[0].Config.Labels).To(HaveKey("org.opencontainers.image."+label), "the image's labels")
	}

	// The management plane, without the provider: the container is the provider.
	kubeconfig := startPlane(t, g, root, filepath.Join(dir, "plane"))
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	clientset, err := kubernetes.NewForConfig(config)
	g.Expect(err).NotTo(HaveOccurred())

	// As clusterctl init and cert-manager would: the provider's objects, the serving certificate's Secret, its CA
	// in the webhook configurations, which call the container where it serves.
	certData, err := IssueCertificate(provider.Certificate)
	g.Expect(err).NotTo(HaveOccurred())
	secretName, _, _ := unstructured.NestedString(provider.Certificate.Object, "spec", "secretName")
	g.Expect(PointWebhooks(provider.Install, provider.WebhookService, provider.Certificate, certData["ca.crt"], ctr)).To(Succeed())
	installProvider(ctx, g, c, provider.Install)
	g.Expect(c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: deployment.Namespace, Name: secretName},
		Type:       corev1.SecretTypeTLS,
		Data:       certData,
	})).To(Succeed())

	// The volumes, as the kubelet would lay them out: the Secrets the container mounts, and the ServiceAccount's
	// token (TokenRequest, as the kubelet asks for it), the API server's CA and the namespace.
	secretDirs := map[string]string{}
	for name, m := range ctr.SecretMounts {
		secret, err := clientset.CoreV1().Secrets(deployment.Namespace).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred(), "the Secret %s the container mounts", name)
		secretDirs[name] = filepath.Join(dir, "volumes", name)
		g.Expect(WriteVolume(secretDirs[name], secret.Data, m.DefaultMode, m.Items)).To(Succeed())
	}
	token := requestToken(ctx, g, clientset, deployment.Namespace, ctr.ServiceAccount, 3607)
	saDir := filepath.Join(dir, "volumes", "serviceaccount")
	g.Expect(WriteVolume(saDir, map[string][]byte{
		"token": []byte(token), "ca.crt": config.CAData, "namespace": []byte(deployment.Namespace),
	}, corev1.ProjectedVolumeSourceDefaultMode, nil)).To(Succeed())

	// The container.
	apiServer, err := url.Parse(config.Host)
	g.Expect(err).NotTo(HaveOccurred())
	name := fmt.Sprintf("capzaso-image-test-%d", os.Getpid())
	args, err := ctr.Args(deployment, RunOptions{
		Name: name, PodName: deployment.Name + "-image-test", APIServer: apiServer,
		SecretDirs: secretDirs, ServiceAccountDir: saDir,
	})
	g.Expect(err).NotTo(HaveOccurred())
	run := append(append(append([]string{}, podman[1:]...), "run", "--detach", "--network", "host"), strings.Fields(os.Getenv(podmanRunEnvVar))...)
	run = append(run, args...)
	t.Logf("Running: %s %s", podman[0], strings.Join(run, " "))
	out, err := exec.CommandContext(ctx, podman[0], run...).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "podman run: %s", out)
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := exec.Command(podman[0], append(podman[1:], "logs", "--tail", "60", name)...).CombinedOutput()
			t.Logf("The container's last log lines:\n%s", logs)
		}
		_ = exec.Command(podman[0], append(podman[1:], "rm", "--force", "--time", "0", name)...).Run()
	})
	running := func(g Gomega) {
		state, err := exec.Command(podman[0], append(podman[1:], "inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", name)...).Output()
		g.Expect(err).NotTo(HaveOccurred())
		if !strings.HasPrefix(string(state), "running") {
			StopTrying(fmt.Sprintf("the container does not run (status, exit code: %s)", strings.TrimSpace(string(state)))).Now()
		}
	}

	// The probes answer where the Deployment says.
	start := time.Now()
	for _, probe := range []struct{ what, url string }{{"readiness", ctr.Readiness.String()}, {"liveness", ctr.Liveness.String()}} {
		g.Eventually(func(g Gomega) {
			running(g)
			status, _, err := get(probe.url, "")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(status).To(Equal(http.StatusOK), "the %s probe %s", probe.what, probe.url)
		}, timeout, interval).Should(Succeed())
	}
	t.Logf("The container is ready (%s) after %s", ctr.Readiness, time.Since(start).Round(time.Second))

	// The metrics: HTTPS where the metrics Service sends scrapers; an anonymous request is refused, a request with
	// the token of a ServiceAccount bound to the metrics reader role is served.
	metricsURL, err := ServiceURL(provider.MetricsService, provider.MetricsService.Spec.Ports[0].Port, provider.MetricsPath, ctr)
	g.Expect(err).NotTo(HaveOccurred())
	// The metrics server may start listening after the probes answer.
	g.Eventually(func(g Gomega) {
		status, _, err := get(metricsURL.String(), "")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(status).To(Equal(http.StatusUnauthorized), "an anonymous request for %s is refused", metricsURL)
	}, timeout, interval).Should(Succeed())
	scraper := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sampleNamespace, Name: "metrics-scraper"}}
	g.Expect(c.Create(ctx, scraper)).To(Succeed())
	scraperToken := requestToken(ctx, g, clientset, scraper.Namespace, scraper.Name, 600)
	status, _, err := get(metricsURL.String(), scraperToken)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(status).To(Equal(http.StatusForbidden), "a ServiceAccount without the metrics reader role is refused")
	g.Expect(c.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: provider.MetricsReader},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: scraper.Namespace, Name: scraper.Name}},
	})).To(Succeed())
	g.Eventually(func(g Gomega) {
		status, body, err := get(metricsURL.String(), scraperToken)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(status).To(Equal(http.StatusOK), "the metrics reader's request for %s", metricsURL)
		g.Expect(body).To(ContainSubstring("controller_runtime_reconcile_total"))
	}, timeout, interval).Should(Succeed())

	// The API server calls the container's webhooks: an invalid AzureClusterIdentity is denied by the validating
	// webhook the components configure for it.
	webhook, err := WebhookFor(provider.Install, "ValidatingWebhookConfiguration", infrav1.GroupVersion.Group, "azureclusteridentities")
	g.Expect(err).NotTo(HaveOccurred())
	invalid := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: sampleNamespace, Name: "without-secret"},
		Spec: infrav1.AzureClusterIdentitySpec{
			Type: infrav1.ServicePrincipal, ClientID: "00000000-0000-0000-0000-00000000000b", TenantID: "00000000-0000-0000-0000-00000000000a",
		},
	}
	err = c.Create(ctx, invalid)
	g.Expect(err).To(MatchError(And(
		ContainSubstring(fmt.Sprintf("admission webhook %q denied the request", webhook)),
		ContainSubstring("spec.clientSecret.name"))), "the container's webhook denies an AzureClusterIdentity without its Secret")

	// A sample cluster reconciles to Ready through the container (with the plane's ASO simulator, Cluster API and
	// simulated kubelets), after passing its defaulting and validating webhooks.
	start = time.Now()
	applySample(ctx, g, c, root)
	g.Eventually(func(g Gomega) {
		running(g)
		azureCluster := &infrav1.AzureCluster{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: sampleNamespace, Name: sampleCluster}, azureCluster)).To(Succeed())
		g.Expect(conditions.IsTrue(azureCluster, clusterv1.ReadyCondition)).To(BeTrue(), "AzureCluster %s is Ready: %+v",
			sampleCluster, conditions.Get(azureCluster, clusterv1.ReadyCondition))
		machines := &infrav1.AzureMachineList{}
		g.Expect(c.List(ctx, machines, client.InNamespace(sampleNamespace), client.MatchingLabels{clusterv1.ClusterNameLabel: sampleCluster})).To(Succeed())
		g.Expect(machines.Items).NotTo(BeEmpty())
		for i := range machines.Items {
			g.Expect(conditions.IsTrue(&machines.Items[i], clusterv1.ReadyCondition)).To(BeTrue(), "AzureMachine %s is Ready", machines.Items[i].Name)
		}
		cluster := &clusterv1.Cluster{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: sampleNamespace, Name: sampleCluster}, cluster)).To(Succeed())
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterInfrastructureReadyCondition)).To(BeTrue(), "Cluster %s's infrastructure is ready", sampleCluster)
		g.Expect(conditions.IsTrue(cluster, clusterv1.ClusterControlPlaneInitializedCondition)).To(BeTrue(), "Cluster %s's control plane is initialized", sampleCluster)
	}, timeout, interval).Should(Succeed())
	t.Logf("Cluster %s/%s reconciled to Ready through the container in %s", sampleNamespace, sampleCluster, time.Since(start).Round(time.Second))

	// SIGTERM ends the container within the pod's terminationGracePeriodSeconds, as the kubelet stops it.
	start = time.Now()
	out, err = exec.CommandContext(ctx, podman[0], append(podman[1:], "kill", "--signal", "TERM", name)...).CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "podman kill --signal TERM: %s", out)
	waitCtx, cancel := context.WithTimeout(ctx, ctr.Grace)
	defer cancel()
	out, err = exec.CommandContext(waitCtx, podman[0], append(podman[1:], "wait", name)...).Output()
	took := time.Since(start)
	g.Expect(err).NotTo(HaveOccurred(), "the container ends within terminationGracePeriodSeconds (%s) of SIGTERM", ctr.Grace)
	g.Expect(strings.TrimSpace(string(out))).To(Equal("0"), "the manager exits with status 0 on SIGTERM")
	t.Logf("SIGTERM ended the container in %s (terminationGracePeriodSeconds: %s)", took.Round(time.Millisecond), ctr.Grace)
}

// startPlane runs the local management plane (hack/localplane) without the provider and without sample clusters,
// until the test ends, and returns its kubeconfig.
func startPlane(t *testing.T, g *WithT, root, state string) string {
	t.Helper()
	binary := filepath.Join(state, "localplane")
	g.Expect(process.GoBuild(t.Context(), filepath.Join(root, "hack", "localplane"), binary)).To(Succeed())
	cmd := exec.Command(binary, "--state-dir", state, "--provider", "none", "--flavors", "none", "--view", "off")
	cmd.Dir = root
	stdout, err := cmd.StdoutPipe()
	g.Expect(err).NotTo(HaveOccurred())
	var mu sync.Mutex
	var output strings.Builder
	cmd.Stderr = os.Stderr
	g.Expect(cmd.Start()).To(Succeed())
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(stdout)
		once := sync.Once{}
		for s.Scan() {
			mu.Lock()
			output.WriteString(s.Text() + "\n")
			mu.Unlock()
			if strings.Contains(s.Text(), "Press Ctrl-C to stop.") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	t.Cleanup(func() {
		// Ctrl-C stops the plane with its API servers and etcds; killed if it does not.
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Logf("The local plane stopped: %v", err)
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Logf("The local plane was killed after a minute: %v", <-done)
		}
	})
	select {
	case <-ready:
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the local plane did not start within %s:\n%s", timeout, output.String())
	}
	return filepath.Join(state, "kubeconfig")
}

// installProvider applies the provider's objects as clusterctl init does: the namespace and the CRDs first (once
// they are established, what uses them), then the rest.
func installProvider(ctx context.Context, g *WithT, c client.Client, objs []unstructured.Unstructured) {
	first := func(u *unstructured.Unstructured) bool {
		return u.GetKind() == "Namespace" || u.GetKind() == "CustomResourceDefinition"
	}
	for _, pass := range []bool{true, false} {
		for i := range objs {
			u := objs[i].DeepCopy()
			if first(u) != pass {
				continue
			}
			g.Expect(c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership)).
				To(Succeed(), "applying %s %s", u.GetKind(), u.GetName())
		}
		if !pass {
			continue
		}
		for i := range objs {
			if objs[i].GetKind() != "CustomResourceDefinition" {
				continue
			}
			g.Eventually(func(g Gomega) {
				crd := &apiextensionsv1.CustomResourceDefinition{}
				g.Expect(c.Get(ctx, client.ObjectKey{Name: objs[i].GetName()}, crd)).To(Succeed())
				established := false
				for _, cond := range crd.Status.Conditions {
					established = established || (cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue)
				}
				g.Expect(established).To(BeTrue(), "CRD %s is established", crd.Name)
			}, timeout, interval).Should(Succeed())
		}
	}
}

// requestToken asks the TokenRequest API for a token of a ServiceAccount, as the kubelet does for a pod's projected
// ServiceAccount volume.
func requestToken(ctx context.Context, g *WithT, clientset kubernetes.Interface, namespace, name string, seconds int64) string {
	tr, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(seconds)},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred(), "TokenRequest for ServiceAccount %s/%s", namespace, name)
	return tr.Status.Token
}

// get makes a GET request to the container, with a bearer token when one is given. It does not check the server's
// certificate: the probes and the metrics serve certificates of their own, which a kubelet and a scraper configured
// so do not check either.
func get(target, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	cl := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// applySample renders the default flavor's template as clusterctl generate cluster does, with one control plane
// machine and one worker, and applies it with the identity's Secret a user creates besides it.
func applySample(ctx context.Context, g *WithT, c client.Client, root string) {
	raw, err := os.ReadFile(filepath.Join(root, "templates", sampleFlavor))
	g.Expect(err).NotTo(HaveOccurred())
	vars := map[string]string{
		"CLUSTER_NAME":                            sampleCluster,
		"NAMESPACE":                               sampleNamespace,
		"KUBERNETES_VERSION":                      "v1.34.1",
		"CONTROL_PLANE_MACHINE_COUNT":             "1",
		"WORKER_MACHINE_COUNT":                    "1",
		"AZURE_LOCATION":                          "eastus",
		"AZURE_SUBSCRIPTION_ID":                   "00000000-0000-0000-0000-000000000000",
		"AZURE_TENANT_ID":                         "00000000-0000-0000-0000-00000000000a",
		"AZURE_CLIENT_ID":                         "00000000-0000-0000-0000-00000000000b",
		"CLUSTER_IDENTITY_NAME":                   "cluster-identity",
		"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      "cluster-identity-secret",
		"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": sampleNamespace,
		"AZURE_CONTROL_PLANE_MACHINE_TYPE":        "Standard_D2s_v3",
		"AZURE_NODE_MACHINE_TYPE":                 "Standard_D2s_v3",
	}
	out, err := yamlprocessor.NewSimpleProcessor().Process(raw, func(name string) (string, error) {
		if v, ok := vars[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("variable %s is not set", name)
	})
	g.Expect(err).NotTo(HaveOccurred())
	objs, err := utilyaml.ToUnstructured(out)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: sampleNamespace, Name: vars["AZURE_CLUSTER_IDENTITY_SECRET_NAME"]},
		Data:       map[string][]byte{"clientSecret": []byte("the-simulated-azure-takes-any-secret")},
	})).To(Succeed())
	for i := range objs {
		g.Expect(c.Create(ctx, &objs[i])).To(Succeed(), "creating %s %s", objs[i].GetKind(), objs[i].GetName())
	}
}
