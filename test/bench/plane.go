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

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
)

const (
	// SubscriptionID is the simulated subscription of every cluster.
	SubscriptionID = "00000000-0000-0000-0000-000000000000"
	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = time.Second
	// kubeletInterval is how often the simulated kubelets look for new machines.
	kubeletInterval = time.Second
	// fastClient is the client-side rate limit of everything but the provider: Cluster API and the simulators
	// must not be what limits the provider.
	fastQPS, fastBurst = 1000, 2000
	// rawLabel marks the raw floor's copies, which the ASO simulator ignores.
	rawLabel = "bench.capzaso.io/raw"
	// managerRole is the provider's generated ClusterRole (config/rbac/role.yaml).
	managerRole = "config/rbac/role.yaml"
)

// plane is the management cluster of a run: its API server (with the audit log) and etcd; the provider's manager
// in its own process under its generated RBAC role; Cluster API's reconcilers, the ASO simulator and the
// simulated kubelets in this process, each under a user of its own; and, per scenario, an API server playing
// every workload cluster of the scenario.
type plane struct {
	management *env.ControlPlane
	// workloads are the workload API servers by scenario (its cluster name prefix). Every cluster of a scenario
	// shares one: each cluster's Node caches (Cluster API's, the provider's) hold the Nodes of its whole scenario,
	// not those of every scenario.
	workloads map[string]*env.ControlPlane
	audit     *auditLog
	// admin writes the scenarios' objects; observer reads them through a cache of its own.
	admin       client.Client
	adminConfig *rest.Config
	observer    cache.Cache
	rawConfig   *rest.Config
	scheme      *runtime.Scheme

	manager      *managerProcess
	metrics      *metricsScraper
	sampler      *sampler
	sim          *asosim.Simulator
	kubelets     []*kubeletsim.Simulator
	clusterCache clustercache.ClusterCache
	logf         func(format string, args ...any)
	// cancel stops Cluster API's manager and the observer; done is closed when they have stopped.
	cancel context.CancelFunc
	done   chan struct{}
}

// startPlane starts everything; on error, the returned plane holds what started, for stop.
func startPlane(ctx context.Context, cfg *Config, out string) (*plane, error) {
	p := &plane{scheme: capiplane.Scheme(), audit: &auditLog{path: filepath.Join(out, "audit.log")}, workloads: map[string]*env.ControlPlane{}, logf: cfg.logf}
	policy := filepath.Join(out, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(audit.Scope{}.Policy()), 0o600); err != nil {
		return p, err
	}
	apiLog, err := os.Create(filepath.Join(out, "control-plane.log"))
	if err != nil {
		return p, err
	}
	type started struct {
		scenario string
		cp       *env.ControlPlane
		err      error
	}
	scenarios := cfg.scenarios()
	workloadStarted := make(chan started, len(scenarios))
	for _, scenario := range scenarios {
		go func() {
			cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Output: io.Discard, Workload: true})
			workloadStarted <- started{scenario, cp, err}
		}()
	}
	p.management, err = env.StartControlPlane(ctx, env.ControlPlaneOptions{
		Scheme: scheme.New(), InstallWebhooks: true, Output: apiLog,
		APIServerFlags: map[string]string{
			"audit-policy-file": policy, "audit-log-path": p.audit.path,
			// Never rotate (the default rotates at 100 MB): the harness reads the one file as it grows.
			"audit-log-maxsize": "1000000",
		},
	})
	errs := []error{err}
	for range scenarios {
		w := <-workloadStarted
		if w.cp != nil {
			p.workloads[w.scenario] = w.cp
		}
		errs = append(errs, w.err)
	}
	if err := errors.Join(errs...); err != nil {
		return p, err
	}
	cfg.logf("API servers started; starting the ASO simulator, Cluster API and the provider's manager")

	p.adminConfig = p.management.Config
	if p.admin, err = client.New(p.adminConfig, client.Options{Scheme: p.scheme}); err != nil {
		return p, err
	}
	users := map[string]*rest.Config{}
	for name, groups := range map[string][]string{
		// The provider's user has its ServiceAccount's name, not its groups: its requests share the raw floor's
		// API priority and fairness.
		env.ProviderUser: nil, RawUser: nil,
		CAPIUser: {"system:masters"}, ASOUser: {"system:masters"},
	} {
		u, err := p.management.AddUser(envtest.User{Name: name, Groups: groups}, &rest.Config{QPS: fastQPS, Burst: fastBurst})
		if err != nil {
			return p, fmt.Errorf("failed to add user %s: %w", name, err)
		}
		users[name] = u.Config()
		if name == env.ProviderUser {
			kubeconfig, err := u.KubeConfig()
			if err != nil {
				return p, err
			}
			if err := os.WriteFile(filepath.Join(out, "manager.kubeconfig"), kubeconfig, 0o600); err != nil {
				return p, err
			}
		}
	}
	p.rawConfig = users[RawUser]
	if err := bindManagerRole(ctx, p.admin, p.management.RootDir); err != nil {
		return p, err
	}

	runCtx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.sim, err = asosim.Start(runCtx, users[ASOUser], asosim.Options{
		Scheme: scheme.New(), SubscriptionID: SubscriptionID, DeleteDelay: asoDeleteDelay, IgnoreLabel: rawLabel,
		// An AKS cluster's kubeconfig reaches its scenario's workload API server.
		Kubeconfig: func(_ context.Context, mc client.Object, _ string) ([]byte, error) {
			w, err := p.workloadOf(mc.GetNamespace())
			if err != nil {
				return nil, err
			}
			return w.KubeConfig, nil
		},
	})
	if err != nil {
		return p, fmt.Errorf("failed to start the ASO simulator: %w", err)
	}
	if err := p.startCAPI(runCtx, users[CAPIUser]); err != nil {
		return p, err
	}

	binary := cfg.ManagerBinary
	if binary == "" {
		cfg.logf("Building the provider's manager (go build)")
		if binary, err = buildManager(ctx, p.management.RootDir, out); err != nil {
			return p, err
		}
	}
	webhook := p.management.WebhookServerOptions()
	p.manager, err = startManager(ctx, managerOptions{
		binary: binary, kubeconfig: filepath.Join(out, "manager.kubeconfig"),
		webhookPort: webhook.Port, certDir: webhook.CertDir, args: cfg.ManagerArgs,
		log: filepath.Join(out, "manager.log"),
	})
	if err != nil {
		return p, err
	}
	p.metrics = newMetricsScraper(p.manager.metricsAddr, p.adminConfig)
	host, err := url.Parse(p.adminConfig.Host)
	if err != nil {
		return p, err
	}
	p.sampler = startSampler(map[string]int{
		"manager":   p.manager.pid(),
		"apiserver": findProcess("kube-apiserver", "--secure-port="+host.Port()),
		"etcd":      findProcess("etcd", "--listen-client-urls="+etcdURL(p.management)),
		"bench":     os.Getpid(),
	})
	return p, nil
}

// workloadOf returns the workload API server of a cluster's namespace (the cluster's name): its scenario's.
func (p *plane) workloadOf(namespace string) (*env.ControlPlane, error) {
	prefix, _, _ := strings.Cut(namespace, "-")
	if w := p.workloads[prefix]; w != nil {
		return w, nil
	}
	return nil, fmt.Errorf("no workload API server for namespace %s", namespace)
}

// startKubelets plays the kubelets of a cluster's namespace in its scenario's workload API server.
func (p *plane) startKubelets(namespace string) error {
	w, err := p.workloadOf(namespace)
	if err != nil {
		return err
	}
	c, err := client.New(w.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return err
	}
	p.kubelets = append(p.kubelets, kubeletsim.Start(kubeletsim.Options{
		Management: p.observer, Workload: c, Namespace: namespace, SubscriptionID: SubscriptionID,
		Interval: kubeletInterval, Logf: p.logf,
	}))
	return nil
}

// etcdURL is the client URL of a control plane's etcd, as its command line has it.
func etcdURL(cp *env.ControlPlane) string {
	return cp.EtcdURL()
}

// startCAPI runs Cluster API's reconcilers (core, kubeadm bootstrap) and the observer cache in this process.
func (p *plane) startCAPI(ctx context.Context, cfg *rest.Config) error {
	opts := ctrl.Options{Scheme: p.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"}
	capiplane.ManagerOptions(&opts)
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("failed to create Cluster API's manager: %w", err)
	}
	if p.clusterCache, err = capiplane.Setup(ctx, mgr, capiplane.Options{}); err != nil {
		return err
	}
	byObject := aso.CacheByObject(aso.Kinds()...)
	maps.Copy(byObject, keepManagedFields())
	p.observer, err = cache.New(p.adminConfig, cache.Options{
		Scheme: p.scheme, ByObject: byObject, DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(p.observer); err != nil {
		return err
	}
	p.done = make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(p.done)
		errs <- mgr.Start(ctx)
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("the cache of Cluster API's manager did not sync: %v", <-errs)
	}
	return nil
}

// bindManagerRole creates the provider's generated ClusterRole and binds it to the provider's and the raw floor's
// users, so that the manager runs with the permissions its release has.
func bindManagerRole(ctx context.Context, c client.Client, root string) error {
	data, err := os.ReadFile(filepath.Join(root, managerRole))
	if err != nil {
		return err
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.Unmarshal(data, role); err != nil {
		return fmt.Errorf("failed to read %s: %w", managerRole, err)
	}
	if err := c.Create(ctx, role); err != nil {
		return fmt.Errorf("failed to create ClusterRole %s: %w", role.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: env.ProviderUser},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: RawUser},
		},
	}
	binding.Name = "capzaso-bench-manager"
	if err := c.Create(ctx, binding); err != nil {
		return fmt.Errorf("failed to bind ClusterRole %s: %w", role.Name, err)
	}
	return nil
}

// stop stops what runs, in order: the provider's manager, Cluster API (and its connections to the workload
// cluster), the simulators, then both API servers and etcds.
func (p *plane) stop() error {
	var errs []error
	if p.manager != nil {
		errs = append(errs, p.manager.stop())
	}
	if p.sampler != nil {
		p.sampler.close()
	}
	for _, k := range p.kubelets {
		k.Stop()
	}
	if p.cancel != nil {
		p.cancel()
	}
	if p.done != nil {
		<-p.done
	}
	if p.clusterCache != nil {
		capiplane.Shutdown(p.clusterCache)
	}
	if p.sim != nil {
		errs = append(errs, p.sim.Stop())
	}
	for _, w := range p.workloads {
		errs = append(errs, w.Stop())
	}
	if p.management != nil {
		errs = append(errs, p.management.Stop())
	}
	return errors.Join(errs...)
}
