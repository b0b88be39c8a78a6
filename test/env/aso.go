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

package env

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// asoBundle is the ASO the provider's release bundles, rendered from ASO's chart (make generate-aso-bundle); its
// admission webhook configurations are the ones a real management cluster has.
var asoBundle = filepath.Join("config", "aso", "aso.yaml")

// asoPodNamespace is the namespace ASO believes it runs in (ASO requires one; in webhooks mode it only names it).
const asoPodNamespace = "azureserviceoperator-system"

// ASOAzure is the Azure that ASO's controllers talk to (a custom cloud), and ASO's global credential: what a real
// installation puts into aso-controller-settings.
type ASOAzure struct {
	// ResourceManagerEndpoint, ResourceManagerAudience and AuthorityHost describe the cloud
	// (AZURE_RESOURCE_MANAGER_ENDPOINT, AZURE_RESOURCE_MANAGER_AUDIENCE, AZURE_AUTHORITY_HOST).
	ResourceManagerEndpoint, ResourceManagerAudience, AuthorityHost string
	// CAFile is the only certificate authority ASO trusts (SSL_CERT_FILE).
	CAFile string
	// Proxy is ASO's HTTPS proxy (HTTPS_PROXY): the fake's, which answers Entra ID's instance discovery itself and
	// reaches nothing else. Loopback addresses are never proxied.
	Proxy string
	// SubscriptionID, TenantID, ClientID and ClientSecret are ASO's global credential, a service principal.
	SubscriptionID, TenantID, ClientID, ClientSecret string
	// ManagedIdentityEndpoint and ManagedIdentityHeader are the managed identity endpoint of ASO's host
	// (IDENTITY_ENDPOINT, IDENTITY_HEADER: App Service's protocol), where the ManagedIdentityCredential of a
	// credential Secret with AUTH_MODE podidentity gets its tokens, as from the pod's managed identities; empty:
	// ASO's host has none.
	ManagedIdentityEndpoint, ManagedIdentityHeader string
	// MaxConcurrentReconciles is how many objects of a kind ASO reconciles at once (ASO's default: 1).
	MaxConcurrentReconciles int
}

// FakeAzure is ASO's configuration for a fake Azure Resource Manager (test/fakearm), which serves the subscription:
// it registers the secret of ASO's global credential with the fake, which then refuses that client ID any other
// secret (and accepts any other service principal with any secret), and gives ASO's host the fake's managed
// identity endpoint. ASO's controllers reconcile up to four objects of a kind at once.
func FakeAzure(arm *fakearm.Server, subscriptionID string) *ASOAzure {
	arm.RegisterClientSecret(fakeClientID, fakeClientSecret)
	endpoint, header := arm.ManagedIdentityEndpoint()
	return &ASOAzure{
		ResourceManagerEndpoint: arm.URL(), ResourceManagerAudience: arm.Audience(), AuthorityHost: arm.URL(), CAFile: arm.CAFile(), Proxy: arm.ProxyURL(),
		SubscriptionID: subscriptionID, TenantID: fakeTenantID, ClientID: fakeClientID, ClientSecret: fakeClientSecret,
		ManagedIdentityEndpoint: endpoint, ManagedIdentityHeader: header,
		MaxConcurrentReconciles: 4,
	}
}

// The tenant and service principal of ASO's credential for a fake Azure Resource Manager.
const (
	fakeTenantID     = "00000000-0000-0000-0000-00000000000a"
	fakeClientID     = "00000000-0000-0000-0000-00000000000c"
	fakeClientSecret = "fake-client-secret"
)

// environment is ASO's configuration for this Azure, as environment variables.
func (a *ASOAzure) environment() []string {
	if a == nil {
		return []string{"AZURE_OPERATOR_MODE=webhooks"}
	}
	env := []string{
		"AZURE_OPERATOR_MODE=watchers-and-webhooks",
		"AZURE_RESOURCE_MANAGER_ENDPOINT=" + a.ResourceManagerEndpoint,
		"AZURE_RESOURCE_MANAGER_AUDIENCE=" + a.ResourceManagerAudience,
		"AZURE_AUTHORITY_HOST=" + a.AuthorityHost,
		"SSL_CERT_FILE=" + a.CAFile,
		"HTTPS_PROXY=" + a.Proxy,
		"AZURE_SUBSCRIPTION_ID=" + a.SubscriptionID,
		"AZURE_TENANT_ID=" + a.TenantID,
		"AZURE_CLIENT_ID=" + a.ClientID,
		"AZURE_CLIENT_SECRET=" + a.ClientSecret,
	}
	if a.ManagedIdentityEndpoint != "" {
		env = append(env, "IDENTITY_ENDPOINT="+a.ManagedIdentityEndpoint, "IDENTITY_HEADER="+a.ManagedIdentityHeader)
	}
	if a.MaxConcurrentReconciles > 0 {
		env = append(env, "MAX_CONCURRENT_RECONCILES="+strconv.Itoa(a.MaxConcurrentReconciles))
	}
	return env
}

// processEnvironment is this process's environment without what would configure ASO (AZURE_*, and ASO's other
// settings) or its managed identity (the variables from which MSAL picks a managed identity source): a developer's
// Azure credentials never reach the ASO of a test.
func processEnvironment() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "AZURE_"), name == "USE_WORKLOAD_IDENTITY_AUTH", name == "MAX_CONCURRENT_RECONCILES",
			name == "TARGET_NAMESPACES", name == "RATE_LIMIT_MODE", name == "SSL_CERT_FILE",
			strings.EqualFold(name, "HTTPS_PROXY"), strings.EqualFold(name, "HTTP_PROXY"), strings.EqualFold(name, "NO_PROXY"),
			name == "IDENTITY_ENDPOINT", name == "IDENTITY_HEADER", name == "IDENTITY_SERVER_THUMBPRINT",
			name == "MSI_ENDPOINT", name == "MSI_SECRET", name == "IMDS_ENDPOINT":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// asoWebhooks is Azure Service Operator's own controller (hack/tools/bin/aso-controller, built unmodified from the
// ASO module the provider requires) in webhooks mode: it serves ASO's defaulting, validating and conversion webhooks
// and reconciles nothing. The API server calls it for every ASO object written, as on a real management cluster.
type asoWebhooks struct {
	cmd     *exec.Cmd
	dir     string
	done    chan struct{} // closed when the process has exited; waitErr is then its exit
	waitErr error
	install envtest.WebhookInstallOptions
}

// installASO installs the ASO CRDs of test/crd/aso and of extraCRDDirs, with every version ASO serves and their conversion pointing at
// ASO's webhook server, runs ASO's controller against the API server of cfg (kubeconfig), in webhooks mode or, with
// azure, with its controllers too, and installs the admission webhook configurations of the ASO bundle pointing at
// it. It returns once the CRDs are served and the API server reaches ASO.
func installASO(ctx context.Context, root string, cfg *rest.Config, kubeconfig []byte, azure *ASOAzure, extraCRDDirs []string, out io.Writer) (*asoWebhooks, error) {
	binary, err := toolPath(root, "aso-controller")
	if err != nil {
		return nil, err
	}
	mutating, validating, err := asoWebhookConfigurations(filepath.Join(root, asoBundle))
	if err != nil {
		return nil, err
	}
	crdOptions := envtest.CRDInstallOptions{
		Paths: append([]string{filepath.Join(root, asoCRDDir)}, extraCRDDirs...), ErrorIfPathMissing: true, MaxTime: startTimeout,
	}
	if err := envtest.ReadCRDFiles(&crdOptions); err != nil {
		return nil, fmt.Errorf("failed to read the ASO CRDs: %w", err)
	}
	if len(crdOptions.CRDs) == 0 {
		return nil, fmt.Errorf("no ASO CRDs in %s: run 'make generate-aso-crds'", asoCRDDir)
	}
	a := &asoWebhooks{
		done: make(chan struct{}),
		install: envtest.WebhookInstallOptions{
			LocalServingHost:   "127.0.0.1",
			MutatingWebhooks:   mutating,
			ValidatingWebhooks: validating,
		},
	}
	// A certificate and a port of their own, with the configurations pointing at them.
	if err := a.install.PrepWithoutInstalling(); err != nil {
		return nil, fmt.Errorf("failed to prepare ASO's webhook certificates: %w", err)
	}
	// The conversion is set as the CRDs are created: setting it afterwards makes the API server rebuild every CRD.
	url := fmt.Sprintf("https://%s/convert", net.JoinHostPort(a.install.LocalServingHost, strconv.Itoa(a.install.LocalServingPort)))
	for _, crd := range crdOptions.CRDs {
		if len(crd.Spec.Versions) > 1 {
			setConversionWebhook(crd, url, a.install.LocalServingCAData)
		}
	}
	if err := envtest.CreateCRDs(cfg, crdOptions.CRDs); err != nil {
		return nil, kerrors.NewAggregate([]error{fmt.Errorf("failed to create the ASO CRDs: %w", err), a.install.Cleanup()})
	}

	// ASO serves webhooks for the CRDs it finds when it starts, and its controllers index every served version.
	if err := envtest.WaitForCRDs(cfg, crdOptions.CRDs, crdOptions); err != nil {
		return nil, kerrors.NewAggregate([]error{fmt.Errorf("the ASO CRDs were not served in time: %w", err), a.install.Cleanup()})
	}
	if a.dir, err = os.MkdirTemp("", "capzaso-aso-"); err != nil {
		return nil, kerrors.NewAggregate([]error{err, a.install.Cleanup()})
	}
	kubeconfigPath := filepath.Join(a.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, kerrors.NewAggregate([]error{err, a.cleanup()})
	}
	a.cmd = exec.Command(binary,
		"--crd-management=none",
		"--webhook-port="+strconv.Itoa(a.install.LocalServingPort),
		"--webhook-cert-dir="+a.install.LocalServingCertDir,
		"--metrics-addr=0",
		"--health-addr=",
	)
	a.cmd.Env = append(processEnvironment(), "KUBECONFIG="+kubeconfigPath, "POD_NAMESPACE="+asoPodNamespace)
	a.cmd.Env = append(a.cmd.Env, azure.environment()...)
	a.cmd.Stdout, a.cmd.Stderr = out, out
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		return nil, kerrors.NewAggregate([]error{fmt.Errorf("failed to start ASO's controller: %w", err), a.cleanup()})
	}
	go func() {
		a.waitErr = a.cmd.Wait()
		close(a.done)
	}()

	fail := func(err error) (*asoWebhooks, error) {
		return nil, kerrors.NewAggregate([]error{err, a.stop(context.Background())})
	}
	if err := a.waitServing(ctx, url); err != nil {
		return fail(err)
	}
	if err := a.install.Install(cfg); err != nil {
		return fail(fmt.Errorf("failed to install ASO's webhook configurations: %w", err))
	}
	return a, nil
}

// waitServing waits until ASO's webhook server answers HTTPS at url with the certificate it was given.
func (a *asoWebhooks) waitServing(ctx context.Context, url string) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(a.install.LocalServingCAData)
	c := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, startTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case <-a.done:
			return false, fmt.Errorf("ASO's controller exited while starting: %v", a.waitErr)
		default:
		}
		resp, err := c.Get(url)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return true, nil
	})
}

// stop ends ASO's process group and removes its certificates and kubeconfig.
func (a *asoWebhooks) stop(ctx context.Context) error {
	var err error
	_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-a.done:
		// Its exit status is the answer to our SIGTERM, not a failure of the test plane.
	case <-time.After(stopTimeout):
		_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
		<-a.done
		err = errors.New("ASO's controller did not stop in time; killed it")
	case <-ctx.Done():
		_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
		err = ctx.Err()
	}
	return kerrors.NewAggregate([]error{err, a.cleanup()})
}

func (a *asoWebhooks) cleanup() error {
	var errs []error
	if a.dir != "" {
		errs = append(errs, os.RemoveAll(a.dir))
	}
	return kerrors.NewAggregate(append(errs, a.install.Cleanup()))
}

// asoWebhookConfigurations reads the admission webhook configurations of the ASO bundle.
func asoWebhookConfigurations(path string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	mutating, validating, err := readWebhookConfigurations(path, "")
	if err != nil {
		return nil, nil, err
	}
	if len(mutating) == 0 || len(validating) == 0 {
		return nil, nil, fmt.Errorf("%s has no admission webhook configurations: run 'make generate-aso-bundle'", path)
	}
	return mutating, validating, nil
}

// readWebhookConfigurations reads the admission webhook configurations of a YAML file, their names prefixed.
func readWebhookConfigurations(path, prefix string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read webhook configurations: %w", err)
	}
	var mutating []*admissionv1.MutatingWebhookConfiguration
	var validating []*admissionv1.ValidatingWebhookConfiguration
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		doc := &unstructured.Unstructured{}
		if err := decoder.Decode(&doc.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("failed to decode %s: %w", path, err)
		}
		var target interface{ SetName(string) }
		switch doc.GetKind() {
		case "MutatingWebhookConfiguration":
			c := &admissionv1.MutatingWebhookConfiguration{}
			mutating, target = append(mutating, c), c
		case "ValidatingWebhookConfiguration":
			c := &admissionv1.ValidatingWebhookConfiguration{}
			validating, target = append(validating, c), c
		default:
			continue
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(doc.Object, target); err != nil {
			return nil, nil, fmt.Errorf("failed to read a %s of %s: %w", doc.GetKind(), path, err)
		}
		target.SetName(prefix + doc.GetName())
	}
	return mutating, validating, nil
}

// ASOPID is the process ID of ASO's controller, 0 when the control plane runs none (test/parity reads its CPU time
// and peak memory from /proc).
func (c *ControlPlane) ASOPID() int {
	if c.aso == nil || c.aso.cmd == nil || c.aso.cmd.Process == nil {
		return 0
	}
	return c.aso.cmd.Process.Pid
}
