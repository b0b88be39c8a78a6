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

package parity

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// CAPZVersion is the upstream release make parity compares with: the last on ASO v2.18 and Cluster API v1.13.
const CAPZVersion = "v1.26.0"

// Where to get what make parity needs and does not build.
const capzHelp = `make parity compares the provider with upstream CAPZ ` + CAPZVersion + `, which it does not build. Give it:
  CAPZ_SRC=<dir>      CAPZ's source at tag ` + CAPZVersion + ` (its CRDs, webhook configuration and templates are read from it), e.g.
                        git clone --branch ` + CAPZVersion + ` --depth 1 https://github.com/kubernetes-sigs/cluster-api-provider-azure <dir>
  CAPZ_MANAGER=<file> CAPZ's ` + CAPZVersion + ` manager binary for this machine: the /manager of its release image
                        registry.k8s.io/cluster-api-azure/cluster-api-azure-controller:` + CAPZVersion + `
                        (e.g. id=$(docker create <image>); docker cp $id:/manager ./capz-manager; docker rm $id),
                      or one built from CAPZ_SRC as CAPZ's own instructions say (CAPZ_SRC/docs/book/src/developers/development.md,
                        its Makefile's manager target). make parity builds nothing of CAPZ.`

// CAPZ is upstream CAPZ as make parity runs it: its source tree and its manager binary, and the feature gates its
// manager runs with besides MachinePool.
type CAPZ struct {
	Src, Manager string
	FeatureGates string
}

// Check tells what is missing, with where to get it.
func (c CAPZ) Check() error {
	var missing []string
	if c.Src == "" {
		missing = append(missing, "CAPZ_SRC is not set")
	} else {
		for _, p := range []string{filepath.Join("config", "crd", "bases"), filepath.Join("config", "webhook", "manifests.yaml"), "templates"} {
			if _, err := os.Stat(filepath.Join(c.Src, p)); err != nil {
				missing = append(missing, fmt.Sprintf("CAPZ_SRC=%s has no %s", c.Src, p))
			}
		}
	}
	if c.Manager == "" {
		missing = append(missing, "CAPZ_MANAGER is not set")
	} else if info, err := os.Stat(c.Manager); err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		missing = append(missing, fmt.Sprintf("CAPZ_MANAGER=%s is not an executable file", c.Manager))
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s\n\n%s", strings.Join(missing, "; "), capzHelp)
	}
	return nil
}

// writeCRDs writes CAPZ's CRDs (config/crd/bases) into dir with the Cluster API contract labels its release
// manifests carry (config/crd/patches/capicontract_in_*.yaml), without the conversion webhook and CA injection
// patches, which need cert-manager and CAPZ's Service: every CRD of CAPZ with two versions keeps the strategy None.
func (c CAPZ) writeCRDs(dir string) error {
	labels := map[string]map[string]string{}
	patches, err := filepath.Glob(filepath.Join(c.Src, "config", "crd", "patches", "capicontract_in_*.yaml"))
	if err != nil {
		return err
	}
	for _, p := range patches {
		objs, err := readObjects(p)
		if err != nil {
			return err
		}
		for _, o := range objs {
			labels[o.GetName()] = o.GetLabels()
		}
	}
	bases, err := filepath.Glob(filepath.Join(c.Src, "config", "crd", "bases", "*.yaml"))
	if err != nil {
		return err
	}
	if len(bases) == 0 {
		return fmt.Errorf("no CRDs in %s", filepath.Join(c.Src, "config", "crd", "bases"))
	}
	for _, b := range bases {
		objs, err := readObjects(b)
		if err != nil {
			return err
		}
		for _, o := range objs {
			l := o.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			for k, v := range labels[o.GetName()] {
				l[k] = v
			}
			o.SetLabels(l)
			raw, err := yaml.Marshal(o.Object)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, o.GetName()+".yaml"), raw, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// readObjects reads the objects of a multi-document YAML file.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeObjects(raw, path)
}

func decodeObjects(raw []byte, name string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		o := &unstructured.Unstructured{}
		if err := dec.Decode(&o.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("failed to decode %s: %w", name, err)
		}
		if len(o.Object) > 0 {
			out = append(out, o)
		}
	}
}

// capzManager is CAPZ's manager running against a management cluster, with its webhooks registered there.
type capzManager struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has exited; waitErr is then its exit
	waitErr  error
	dir      string
	webhooks envtest.WebhookInstallOptions
	log      *os.File
}

// capzFeatureGates are the gates every flavor needs: machine pools.
const capzFeatureGates = "MachinePool=true"

// startManager runs CAPZ's manager against the API server of cfg (kubeconfig), reaching Azure only through the
// fake's proxy (HTTPS_PROXY, SSL_CERT_FILE: CAPZ knows only the public cloud), serving its webhooks with a
// certificate of a CA made here, and registers CAPZ's webhook configurations (config/webhook) pointing at it. Its
// output goes to logPath.
func (c CAPZ) startManager(ctx context.Context, cfg *rest.Config, kubeconfig []byte, arm *fakearm.Server, logPath string) (*capzManager, error) {
	m := &capzManager{
		done:     make(chan struct{}),
		webhooks: envtest.WebhookInstallOptions{Paths: []string{filepath.Join(c.Src, "config", "webhook", "manifests.yaml")}, LocalServingHost: "127.0.0.1"},
	}
	if err := m.webhooks.PrepWithoutInstalling(); err != nil {
		return nil, fmt.Errorf("failed to prepare CAPZ's webhook certificates: %w", err)
	}
	var err error
	if m.dir, err = os.MkdirTemp("", "parity-capz-"); err != nil {
		return nil, errors.Join(err, m.cleanup())
	}
	kubeconfigPath := filepath.Join(m.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, errors.Join(err, m.cleanup())
	}
	if m.log, err = os.Create(logPath); err != nil {
		return nil, errors.Join(err, m.cleanup())
	}
	m.cmd = exec.Command(c.Manager,
		"--leader-elect=false",
		"--webhook-port="+strconv.Itoa(m.webhooks.LocalServingPort),
		"--webhook-cert-dir="+m.webhooks.LocalServingCertDir,
		"--diagnostics-address=0",
		"--health-addr=0",
		"--feature-gates="+strings.Trim(capzFeatureGates+","+c.FeatureGates, ","),
		"--v=2",
	)
	// CAPZ's credential of a WorkloadIdentity AzureClusterIdentity reads the service account token this names, which
	// the fake's Entra ID takes as a federated credential of any client ID that has no secret registered.
	tokenPath := filepath.Join(m.dir, "azure-identity-token")
	if err := os.WriteFile(tokenPath, []byte(federatedToken), 0o600); err != nil {
		return nil, errors.Join(err, m.cleanup())
	}
	m.cmd.Env = append(cleanEnvironment(), "KUBECONFIG="+kubeconfigPath, "SSL_CERT_FILE="+arm.CAFile(), "HTTPS_PROXY="+arm.ProxyURL(),
		"AZURE_FEDERATED_TOKEN_FILE="+tokenPath)
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("failed to start CAPZ's manager %s: %w", c.Manager, err), m.cleanup())
	}
	go func() {
		m.waitErr = m.cmd.Wait()
		close(m.done)
	}()
	if err := m.waitServing(ctx); err != nil {
		return nil, errors.Join(err, m.stop())
	}
	if err := m.webhooks.Install(cfg); err != nil {
		return nil, errors.Join(fmt.Errorf("failed to register CAPZ's webhooks: %w", err), m.stop())
	}
	return m, nil
}

// cleanEnvironment is this process's environment without what would configure an Azure client: a developer's Azure
// credentials and proxies never reach CAPZ.
func cleanEnvironment() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if strings.HasPrefix(upper, "AZURE_") || strings.HasSuffix(upper, "_PROXY") || strings.HasPrefix(upper, "SSL_CERT_") || upper == "KUBECONFIG" {
			continue
		}
		out = append(out, kv)
	}
	sort.Strings(out)
	return out
}

// waitServing waits until CAPZ's webhook server answers TLS with the certificate it was given.
func (m *capzManager) waitServing(ctx context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(m.webhooks.LocalServingCAData)
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	url := fmt.Sprintf("https://127.0.0.1:%d/", m.webhooks.LocalServingPort)
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		select {
		case <-m.done:
			return false, fmt.Errorf("CAPZ's manager exited while starting (%v); see %s", m.waitErr, m.log.Name())
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

// stop ends the manager's process group and removes its files (the log stays).
func (m *capzManager) stop() error {
	var errs []error
	if m.cmd != nil && m.cmd.Process != nil {
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-m.done:
			// Its exit status is the answer to our SIGTERM, not a failure of the run.
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
			<-m.done
			errs = append(errs, errors.New("CAPZ's manager did not stop in time; killed it"))
		}
	}
	return errors.Join(append(errs, m.cleanup())...)
}

func (m *capzManager) cleanup() error {
	var errs []error
	if m.dir != "" {
		errs = append(errs, os.RemoveAll(m.dir))
	}
	if m.log != nil {
		errs = append(errs, m.log.Close())
	}
	return errors.Join(append(errs, m.webhooks.Cleanup())...)
}

// unregister removes CAPZ's webhook configurations, which point at its manager: a user removes them with CAPZ's
// components, before another provider serves the kinds.
func (m *capzManager) unregister(ctx context.Context, c client.Client) error {
	if err := deleteWebhookConfigurations(ctx, c, &m.webhooks); err != nil {
		return fmt.Errorf("failed to remove CAPZ's webhook configurations: %w", err)
	}
	return nil
}

// deleteWebhookConfigurations deletes the webhook configurations that Install registered.
func deleteWebhookConfigurations(ctx context.Context, c client.Client, hooks *envtest.WebhookInstallOptions) error {
	var errs []error
	for _, w := range hooks.MutatingWebhooks {
		errs = append(errs, client.IgnoreNotFound(c.Delete(ctx, w)))
	}
	for _, w := range hooks.ValidatingWebhooks {
		errs = append(errs, client.IgnoreNotFound(c.Delete(ctx, w)))
	}
	return errors.Join(errs...)
}

// federatedToken is the service account token of the workload identity flavors, as Kubernetes projects it into
// CAPZ's and ASO's Pods; the fake Entra ID does not read it.
const federatedToken = "parity.federated.token"

// asoFederatedTokenFile is where ASO v2.18 reads the token of a workload identity credential: a fixed path
// (internal/identity.FederatedTokenFilePath), where its Deployment projects its service account token.
const asoFederatedTokenFile = "/var/run/secrets/tokens/azure-identity"

// ensureASOFederatedToken writes ASO's federated token file, when a flavor uses workload identity and the file
// does not exist, so that the ASO processes of the run can use the flavor's credential. It needs to write under
// /var/run.
func ensureASOFederatedToken(flavors []Flavor) error {
	if !slices.ContainsFunc(flavors, Flavor.WorkloadIdentity) {
		return nil
	}
	if _, err := os.Stat(asoFederatedTokenFile); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(asoFederatedTokenFile), 0o755); err != nil {
		return fmt.Errorf("the workload identity flavors need ASO's token file %s: %w", asoFederatedTokenFile, err)
	}
	if err := os.WriteFile(asoFederatedTokenFile, []byte(federatedToken), 0o644); err != nil {
		return fmt.Errorf("the workload identity flavors need ASO's token file %s: %w", asoFederatedTokenFile, err)
	}
	return nil
}
