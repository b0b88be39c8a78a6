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
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

const (
	// startTimeout is generous: on two cores the API server competes with the
	// compilation of other test packages.
	startTimeout = 90 * time.Second
	stopTimeout  = 30 * time.Second
)

// ControlPlaneOptions configures StartControlPlane.
type ControlPlaneOptions struct {
	// Scheme is what envtest checks when it installs CRDs: a kind with several
	// convertible versions in it gets a conversion webhook pointing at the local
	// webhook server. Register one version per ASO kind, so that envtest leaves
	// the ASO CRDs alone: ASO's own webhook server converts them. Defaults to
	// client-go's scheme.
	Scheme *runtime.Scheme

	// InstallWebhooks installs config/webhook/manifests.yaml, when it exists,
	// pointing at the local webhook server; the caller must then serve our
	// webhooks with WebhookServerOptions.
	InstallWebhooks bool

	// ClusterAPIWebhooks installs Cluster API's webhook configurations and the conversion of its CRDs, pointing at
	// the local webhook server, which must then serve Cluster API's webhooks (test/capiplane.Webhooks): v1beta1
	// manifests are converted, and every Cluster API object is defaulted and validated, as on a real management
	// cluster. With InstallWebhooks, the server serves ours too.
	ClusterAPIWebhooks bool

	// ProviderCRDDirs, when set, are the directories of the infrastructure provider's CRDs to install in place of
	// ours (config/crd/bases, exp/config/crd/bases): upstream CAPZ's, for a management cluster that runs CAPZ
	// (test/parity). Such a control plane does not install our webhooks (leave InstallWebhooks unset).
	ProviderCRDDirs []string

	// ExtraASOCRDDirs are directories of more ASO CRDs to install as test/crd/aso's are: the kinds upstream CAPZ reads
	// and the provider does not make (test/crd/aso-capz), for a management cluster that runs CAPZ.
	ExtraASOCRDDirs []string

	// ControllerManager runs kube-controller-manager's garbage collector and namespace controller, as a real
	// management cluster does: objects whose owners are gone are deleted, and so are a deleted namespace's.
	ControllerManager bool

	// WithoutASO leaves ASO out: no ASO CRDs, no ASO webhooks, for a control plane that plays a workload cluster or
	// holds no ASO object. Every other control plane has the ASO CRDs (test/crd/aso) with every version ASO serves,
	// and runs ASO's own controller in webhooks mode (hack/tools/bin/aso-controller), so that every ASO object written
	// is defaulted, validated and converted by ASO, as on a real management cluster.
	WithoutASO bool

	// Workload makes a control plane that plays workload clusters: no CRD at all (neither Cluster API's, ours nor
	// ASO's) and no ASO, as a workload cluster has none of them. Its clients write Nodes, pods and what
	// ClusterResourceSets apply.
	Workload bool

	// ASOAzure, when set, makes ASO run its controllers too (ASO's default mode, watchers-and-webhooks), against the
	// Azure it names (test/fakearm): ASO itself, not a simulator, then reconciles every ASO object.
	ASOAzure *ASOAzure

	// EtcdDataDir keeps etcd's data in this directory across restarts. Empty
	// means a temporary directory that Stop removes.
	EtcdDataDir string

	// Output receives what kube-apiserver and etcd print. Nil discards it, unless
	// KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true sends it to stdout/stderr.
	Output io.Writer

	// APIServerFlags are extra kube-apiserver flags, by name without dashes (for
	// example audit-log-path for test/bench); they override envtest's defaults.
	APIServerFlags map[string]string
}

// ControlPlane is a running kube-apiserver and etcd with the CRDs installed.
type ControlPlane struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// KubeConfig is Config as a kubeconfig file.
	KubeConfig []byte
	// RootDir is the repository root.
	RootDir string

	env      *envtest.Environment
	kcm      *controllerManager
	aso      *asoWebhooks
	stopOnce sync.Once
	stopErr  error

	// usage records the provider's requests when RBACUsageDirEnvVar is set; rbacInstalled tells whether the
	// provider's RBAC was installed (InstallProviderRBAC), so that its requests are worth a usage file.
	usage         *usageRecorder
	rbacInstalled atomic.Bool
}

// StartControlPlane starts kube-apiserver and etcd from hack/tools/bin, installs
// the Cluster API CRDs (from the cluster-api module), ours (config/crd/bases, when
// present) and, if asked, our webhook configurations, and, unless WithoutASO,
// the ASO CRDs (test/crd/aso) and ASO's webhooks. Stop must be called to end the
// processes.
func StartControlPlane(ctx context.Context, opts ControlPlaneOptions) (*ControlPlane, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	apiServerPath, err := toolPath(root, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcdPath, err := toolPath(root, "etcd")
	if err != nil {
		return nil, err
	}
	var crdDirs []string
	if opts.Workload {
		opts.WithoutASO = true
	} else if crdDirs, err = crdDirectories(ctx, root, opts.ProviderCRDDirs); err != nil {
		return nil, err
	}

	te := &envtest.Environment{
		Scheme: opts.Scheme, // nil: envtest uses client-go's scheme

		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		// envtest's default wait for the CRDs to be served (10 s) is short for ASO's multi-version CRDs on a loaded
		// machine.
		CRDInstallOptions:        envtest.CRDInstallOptions{MaxTime: startTimeout},
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  stopTimeout,
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{Path: apiServerPath, Out: opts.Output, Err: opts.Output},
			Etcd:      &envtest.Etcd{Path: etcdPath, DataDir: opts.EtcdDataDir, Out: opts.Output, Err: opts.Output},
		},
		WebhookInstallOptions: envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"},
	}
	// Every control plane records the requests of the provider's ServiceAccount for test/rbaccheck, unless the caller
	// keeps an audit log of its own (test/bench).
	var usage *usageRecorder
	if _, own := opts.APIServerFlags["audit-log-path"]; !own {
		var auditFlags map[string]string
		if usage, auditFlags, err = newUsageRecorder(); err != nil {
			return nil, fmt.Errorf("failed to prepare the audit log of the provider's requests: %w", err)
		}
		for name, value := range auditFlags {
			te.ControlPlane.APIServer.Configure().Set(name, value)
		}
	}
	for name, value := range opts.APIServerFlags {
		te.ControlPlane.APIServer.Configure().Set(name, value)
	}
	if opts.InstallWebhooks {
		manifest := filepath.Join(root, webhookManifest)
		if _, err := os.Stat(manifest); err == nil {
			te.WebhookInstallOptions.Paths = []string{manifest}
		}
	}
	if opts.ClusterAPIWebhooks {
		capiDir, err := clusterAPIDir(ctx, root)
		if err != nil {
			return nil, err
		}
		if te.WebhookInstallOptions.MutatingWebhooks, te.WebhookInstallOptions.ValidatingWebhooks, err = clusterAPIWebhookConfigurations(capiDir); err != nil {
			return nil, err
		}
	}
	if opts.EtcdDataDir != "" {
		if err := os.MkdirAll(opts.EtcdDataDir, 0o700); err != nil {
			return nil, fmt.Errorf("failed to create the etcd data directory: %w", err)
		}
	}

	if _, err := te.Start(); err != nil {
		// Start may fail half-way, with processes running.
		return nil, kerrors.NewAggregate([]error{fmt.Errorf("failed to start the control plane: %w", err), te.Stop(), usage.discard()})
	}
	if opts.ClusterAPIWebhooks {
		if err := convertClusterAPICRDs(ctx, te.Config, te.CRDs, te.WebhookInstallOptions); err != nil {
			return nil, kerrors.NewAggregate([]error{err, te.Stop()})
		}
	}
	cp := &ControlPlane{
		Config:     te.Config,
		KubeConfig: te.KubeConfig,
		RootDir:    root,
		env:        te,
		usage:      usage,
	}
	out := opts.Output
	if out == nil {
		out = io.Discard
		if attach, _ := strconv.ParseBool(os.Getenv("KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT")); attach {
			out = os.Stderr
		}
	}
	if !opts.WithoutASO {
		if cp.aso, err = installASO(ctx, root, te.Config, te.KubeConfig, opts.ASOAzure, opts.ExtraASOCRDDirs, out); err != nil {
			return nil, kerrors.NewAggregate([]error{err, te.Stop(), usage.discard()})
		}
	}
	if opts.ControllerManager {
		if cp.kcm, err = startControllerManager(root, te.KubeConfig, out); err != nil {
			return nil, kerrors.NewAggregate([]error{err, cp.Stop()})
		}
	}
	return cp, nil
}

// Stop ends kube-apiserver and etcd and removes their temporary directories.
// It is safe to call more than once and from several goroutines.
func (c *ControlPlane) Stop() error {
	c.stopOnce.Do(func() {
		forgetProviderRBAC(c)
		var errs []error
		if c.kcm != nil {
			errs = append(errs, c.kcm.stop(context.Background()))
		}
		if c.aso != nil {
			errs = append(errs, c.aso.stop(context.Background()))
		}
		errs = append(errs, c.env.Stop())
		// The audit log is complete once the API server has stopped. A control plane without the provider's RBAC
		// (a workload cluster) saw no request of the provider worth a file.
		if c.rbacInstalled.Load() {
			errs = append(errs, c.usage.finish())
		} else {
			errs = append(errs, c.usage.discard())
		}
		c.stopErr = kerrors.NewAggregate(errs)
	})
	return c.stopErr
}

// WebhookServerOptions are the options for a webhook server that the API server
// reaches through the installed webhook configurations.
func (c *ControlPlane) WebhookServerOptions() webhook.Options {
	o := c.env.WebhookInstallOptions
	return webhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir}
}

// AddUser provisions a user (for example one without system:masters, to test
// RBAC) and returns its client configuration.
func (c *ControlPlane) AddUser(user envtest.User, base *rest.Config) (*envtest.AuthenticatedUser, error) {
	return c.env.AddUser(user, base)
}

// WriteKubeconfig writes the admin kubeconfig to path (mode 0600), for kubectl
// or a manager running in another process.
func (c *ControlPlane) WriteKubeconfig(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("failed to create the directory for %s: %w", path, err)
	}
	if err := os.WriteFile(path, c.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("failed to write kubeconfig %s: %w", path, err)
	}
	return nil
}

// EtcdURL is the client URL of the control plane's etcd (test/bench finds its process by it).
func (c *ControlPlane) EtcdURL() string {
	if c.env.ControlPlane.Etcd == nil || c.env.ControlPlane.Etcd.URL == nil {
		return ""
	}
	return c.env.ControlPlane.Etcd.URL.String()
}

// InstallProviderCRDs installs an infrastructure provider's CRDs over those the control plane has, as a provider
// upgrade replaces its CRDs: those of dirs, or ours (config/crd/bases) when none is given. test/parity switches
// between upstream CAPZ's and ours so.
func (c *ControlPlane) InstallProviderCRDs(dirs ...string) error {
	if len(dirs) == 0 {
		for _, d := range ownCRDDirs {
			if info, err := os.Stat(filepath.Join(c.RootDir, d)); err == nil && info.IsDir() {
				dirs = append(dirs, filepath.Join(c.RootDir, d))
			}
		}
	}
	_, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{
		Scheme: c.env.Scheme, Paths: dirs, ErrorIfPathMissing: true, MaxTime: startTimeout,
		WebhookOptions: c.env.WebhookInstallOptions,
	})
	return err
}
