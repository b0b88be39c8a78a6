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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util/secret"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capzaso/cluster-api-provider-azure/internal/switchback"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// asoSubscription is the subscription of ASO's global credential on both sides; every flavor's objects carry a
// credential of their own, with the flavor's subscription.
const asoSubscription = "00000000-0000-0000-0000-0000000f0000"

// Side names.
const (
	SideCAPZ = "CAPZ"
	SideOurs = "ours"
)

// side is one management plane of the comparison: an API server with Cluster API's CRDs and webhooks, ASO's CRDs and
// own controller against a fake ARM of its own, and either CAPZ's manager and CRDs or the provider's, each manager a
// process of its own; Cluster API's controllers in this process; API servers for the workload clusters (one for the
// AKS clusters, one per self-managed cluster), where simulated kubelets register the machines' Nodes.
type side struct {
	name                 string
	arm                  *fakearm.Server
	management, workload *env.ControlPlane
	client               client.Client
	// reader reads from the API server: the manager's cache holds only the ASO objects the provider labelled, and
	// the kubelets and the progress read CAPZ's too.
	reader         client.Reader
	workloadClient client.Client
	clusterCache   clustercache.ClusterCache
	capz           *capzManager

	cancel context.CancelFunc
	done   chan struct{}
	mgrErr error

	// The provider's manager (provider.go): its build, its process once started (on our side, or by a switch,
	// switchToOurs), how often it started, and its webhooks.
	providerBuild    *providerBuild
	provider         *process.Process
	providerStarts   int
	providerWebhooks *envtest.WebhookInstallOptions

	// logDir is where the side's logs go.
	logDir string
	// rec records the side's performance figures (measure.go), once its flavors are applied.
	rec *recorder

	mu       sync.Mutex
	kubelets []*kubeletsim.Simulator
	// clusterWorkloads are the workload clusters of the self-managed flavors, one each.
	clusterWorkloads []*env.ControlPlane
	// logs are the API servers' log files, closed once they stopped.
	logs []*os.File
}

// startSide starts a side: CAPZ's when capz is set, else ours. Its logs go to logDir. On error, the side returned
// (if any) holds what started, for stop.
func startSide(ctx context.Context, name string, capz *CAPZ, logDir string, logger logr.Logger) (*side, error) {
	s := &side{name: name, logDir: logDir}
	open := func(file string) (*os.File, error) {
		f, err := os.Create(filepath.Join(logDir, file))
		if err == nil {
			s.logs = append(s.logs, f)
		}
		return f, err
	}
	workloadLog, err := open(name + "-workload-apiserver.log")
	if err != nil {
		return s, err
	}
	managementLog, err := open(name + "-management.log")
	if err != nil {
		return s, err
	}

	type started struct {
		cp  *env.ControlPlane
		err error
	}
	workloadStarted := make(chan started, 1)
	go func() {
		cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Workload: true, Output: workloadLog})
		workloadStarted <- started{cp, err}
	}()
	var workloadKubeconfig []byte
	workloadReady := make(chan struct{})
	s.arm, err = fakearm.Start(fakearm.Options{Polls: 1, Kubeconfig: func(string) ([]byte, error) {
		<-workloadReady
		if workloadKubeconfig == nil {
			return nil, errors.New("the workload cluster did not start")
		}
		return workloadKubeconfig, nil
	}})
	if err != nil {
		close(workloadReady)
		w := <-workloadStarted
		s.workload = w.cp
		return s, err
	}
	opts := env.ControlPlaneOptions{
		Scheme: capiplane.Scheme(), ClusterAPIWebhooks: true, ControllerManager: true,
		ASOAzure: env.FakeAzure(s.arm, asoSubscription), Output: managementLog,
	}
	if opts.APIServerFlags, err = auditFlags(logDir, name); err != nil {
		return s, err
	}
	if capz == nil {
		// The provider's manager builds while the API servers start.
		root, err := env.RepoRoot()
		if err != nil {
			return s, err
		}
		s.providerBuild = buildProvider(ctx, root)
	} else {
		crdDir, err := os.MkdirTemp("", "parity-capz-crds-")
		if err != nil {
			return s, err
		}
		// Best-effort: a leftover temporary directory of CRD files is harmless.
		defer func() { _ = os.RemoveAll(crdDir) }()
		if err := capz.writeCRDs(crdDir); err != nil {
			return s, fmt.Errorf("failed to read CAPZ's CRDs: %w", err)
		}
		opts.ProviderCRDDirs = []string{crdDir}
		root, err := env.RepoRoot()
		if err != nil {
			return s, err
		}
		opts.ExtraASOCRDDirs = []string{filepath.Join(root, "test", "crd", "aso-capz")}
	}
	s.management, err = env.StartControlPlane(ctx, opts)
	w := <-workloadStarted
	s.workload = w.cp
	if w.cp != nil {
		workloadKubeconfig = w.cp.KubeConfig
	}
	close(workloadReady)
	if err := errors.Join(err, w.err); err != nil {
		return s, fmt.Errorf("failed to start the %s side's API servers: %w", name, err)
	}
	if s.workloadClient, err = client.New(s.workload.Config, client.Options{Scheme: clientgoscheme.Scheme}); err != nil {
		return s, err
	}
	if err := s.startManager(ctx, logger); err != nil {
		return s, err
	}
	if capz == nil {
		return s, s.startProvider(ctx, logger)
	}
	if s.capz, err = capz.startManager(ctx, s.management.Config, s.management.KubeConfig, s.arm, filepath.Join(logDir, name+"-manager.log")); err != nil {
		return s, err
	}
	return s, nil
}

// startManager runs Cluster API's controllers and webhooks in this process.
func (s *side) startManager(ctx context.Context, logger logr.Logger) error {
	scheme := capiplane.Scheme()
	mgrOpts := ctrl.Options{
		Scheme:                 scheme,
		Logger:                 logger.WithValues("side", s.name),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(s.management.WebhookServerOptions()),
	}
	capiplane.ManagerOptions(&mgrOpts)
	mgr, err := ctrl.NewManager(s.management.Config, mgrOpts)
	if err != nil {
		return fmt.Errorf("failed to create the %s side's manager: %w", s.name, err)
	}
	mgrCtx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	if s.clusterCache, err = capiplane.Setup(mgrCtx, mgr, capiplane.Options{KubeadmControlPlane: true, MachineHealthChecks: true, Topology: true}); err != nil {
		return err
	}
	if err := capiplane.Webhooks(mgr, s.clusterCache); err != nil {
		return err
	}
	s.client, s.reader = mgr.GetClient(), mgr.GetAPIReader()
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.mgrErr = mgr.Start(mgrCtx)
	}()
	if !mgr.GetCache().WaitForCacheSync(mgrCtx) {
		return fmt.Errorf("the %s side's manager did not sync its caches", s.name)
	}
	// The webhook server serves Cluster API's conversions, which applying v1beta1 manifests needs.
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return mgr.GetWebhookServer().StartedChecker()(nil) == nil, nil
	})
}

// apply creates what exists in Azure before the flavor (Flavor.existing, Flavor.Brought), the flavor's objects, and what a user
// creates beside them: the service principal's Secret, ASO's
// credential (aks-aso), the kubeconfig through which Cluster API reaches the workload cluster (self-managed
// flavors, written before the Cluster, so that the control plane uses it and not one for the Azure load balancer,
// which is unreachable here), and the kubelets of its machines. A write the API server refuses is retried for a
// while (webhooks may still be starting), then returned.
func (s *side) apply(ctx context.Context, f Flavor, objs []*unstructured.Unstructured) error {
	for _, id := range f.existing() {
		if err := s.arm.Seed(id, map[string]any{"location": Location}); err != nil {
			return fmt.Errorf("failed to seed the %s side's Azure: %w", s.name, err)
		}
	}
	ids, bodies := f.brought()
	for i, id := range ids {
		if err := s.arm.Seed(id, bodies[i]); err != nil {
			return fmt.Errorf("failed to make what the user brought to %s: %w", f.Name, err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace()}}
	user := []client.Object{
		ns,
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace(), Name: identitySecretName},
			StringData: map[string]string{"clientSecret": clientSecret},
		},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace(), Name: asoCredentialSecret},
			StringData: map[string]string{
				"AZURE_SUBSCRIPTION_ID": f.Subscription, "AZURE_TENANT_ID": TenantID, "AZURE_CLIENT_ID": ClientID, "AZURE_CLIENT_SECRET": clientSecret,
			},
		},
	}
	workloadClient := s.workloadClient
	if f.SelfManaged {
		workload, c, err := s.startClusterWorkload(ctx, f)
		if err != nil {
			return err
		}
		workloadClient = c
		user = append(user, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: f.Namespace(), Name: secret.Name(f.Cluster, secret.Kubeconfig),
				Labels: map[string]string{clusterv1.ClusterNameLabel: f.Cluster},
			},
			Data: map[string][]byte{secret.KubeconfigDataName: workload.KubeConfig},
		})
	}
	for _, o := range user {
		if err := s.create(ctx, o); err != nil {
			return err
		}
	}
	for _, o := range objs {
		if err := s.create(ctx, o.DeepCopy()); err != nil {
			return err
		}
	}
	kubelets := kubeletsim.Start(kubeletsim.Options{
		Management: s.reader, Workload: workloadClient, Namespace: f.Namespace(), SubscriptionID: f.Subscription,
		ARM: s.arm, Interval: time.Second,
	})
	s.mu.Lock()
	s.kubelets = append(s.kubelets, kubelets)
	s.mu.Unlock()
	return nil
}

// startClusterWorkload starts the workload cluster of a self-managed flavor. Each self-managed cluster has its own,
// as in Azure: the first control plane Node's kubeadm init (test/kubeletsim) initializes it alone. On a shared one,
// initialized by another cluster, a KubeadmControlPlane would see its cluster initialized before its first machine's
// bootstrap data existed, and roll that machine out again.
func (s *side) startClusterWorkload(ctx context.Context, f Flavor) (*env.ControlPlane, client.Client, error) {
	log, err := os.Create(filepath.Join(s.logDir, s.name+"-"+f.Name+"-workload-apiserver.log"))
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.logs = append(s.logs, log)
	s.mu.Unlock()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{WithoutASO: true, Output: log})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to start the workload cluster of %s on the %s side: %w", f.Name, s.name, err)
	}
	s.mu.Lock()
	s.clusterWorkloads = append(s.clusterWorkloads, cp)
	s.mu.Unlock()
	c, err := client.New(cp.Config, client.Options{Scheme: clientgoscheme.Scheme})
	return cp, c, err
}

// create creates an object, retrying refusals for up to two minutes.
func (s *side) create(ctx context.Context, o client.Object) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		last = s.client.Create(ctx, o)
		return last == nil || apierrors.IsAlreadyExists(last), nil
	})
	if err != nil {
		return fmt.Errorf("failed to create %T %s/%s on the %s side: %w", o, o.GetNamespace(), o.GetName(), s.name, errors.Join(last, err))
	}
	return nil
}

// requests are the ARM requests of one subscription, as received.
func (s *side) requests(subscription string) []Request {
	prefix := "/subscriptions/" + subscription + "/"
	var out []Request
	for _, r := range s.arm.Requests() {
		if len(r.Path) >= len(prefix) && strings.EqualFold(r.Path[:len(prefix)], prefix) {
			out = append(out, Request{Method: r.Method, Path: r.Path, APIVersion: r.APIVersion, Status: r.Status, Body: r.Body})
		}
	}
	return out
}

// stop stops what runs: the kubelets, CAPZ's manager or the provider's, Cluster API's manager (with its
// connections), the API servers and the fake ARM.
func (s *side) stop() error {
	var errs []error
	s.mu.Lock()
	for _, k := range s.kubelets {
		k.Stop()
	}
	s.mu.Unlock()
	if s.capz != nil {
		errs = append(errs, s.capz.stop())
	}
	errs = append(errs, s.stopProvider(), s.providerBuild.remove())
	if s.cancel != nil {
		s.cancel()
	}
	if s.done != nil {
		<-s.done
	}
	if s.clusterCache != nil {
		capiplane.Shutdown(s.clusterCache)
	}
	if s.workload != nil {
		errs = append(errs, s.workload.Stop())
	}
	for _, cp := range s.clusterWorkloads {
		errs = append(errs, cp.Stop())
	}
	if s.management != nil {
		errs = append(errs, s.management.Stop())
	}
	if s.arm != nil {
		errs = append(errs, s.arm.Close())
	}
	for _, f := range s.logs {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// errNoCAPZ is returned by a switch on a side that does not run CAPZ.
var errNoCAPZ = errors.New("the side does not run CAPZ")

// switchToOurs replaces CAPZ with the provider on a side that runs CAPZ, as a user does
// (docs/migrating-from-capz.md): CAPZ's webhook configurations go and its manager stops; the provider's CRDs
// replace CAPZ's; the provider's manager starts (startProvider).
func (s *side) switchToOurs(ctx context.Context, logger logr.Logger) error {
	if s.capz == nil {
		return errNoCAPZ
	}
	if err := s.capz.unregister(ctx, s.client); err != nil {
		return err
	}
	err := s.capz.stop()
	s.capz = nil
	if err != nil {
		return err
	}
	if err := s.management.InstallProviderCRDs(); err != nil {
		return fmt.Errorf("failed to replace CAPZ's CRDs with the provider's: %w", err)
	}
	return s.startProvider(ctx, logger)
}

// switchToCAPZ is the way back (docs/migrating-from-capz.md): the provider's webhook configurations go and its
// manager stops; the step's first part (cmd/capz-switch-back before-init) records the AzureClusters' failure domains
// in CAPZ's form and releases the provider's ownership of the ASO objects' spec; CAPZ's CRDs replace the provider's;
// the step's second part (after-init) writes the failure domains into the AzureClusters' status, and CAPZ's manager
// starts again (clusterctl init would start it before; it cannot start until then).
func (s *side) switchToCAPZ(ctx context.Context, capz *CAPZ) error {
	if s.providerWebhooks == nil {
		return errors.New("the provider does not run on the side")
	}
	if err := deleteWebhookConfigurations(ctx, s.client, s.providerWebhooks); err != nil {
		return fmt.Errorf("failed to remove the provider's webhook configurations: %w", err)
	}
	if err := s.stopProvider(); err != nil {
		return err
	}
	if err := s.switchBack(ctx, switchback.BeforeInit); err != nil {
		return err
	}
	crdDir, err := os.MkdirTemp("", "parity-capz-crds-")
	if err != nil {
		return err
	}
	// Best-effort: a leftover temporary directory of CRD files is harmless.
	defer func() { _ = os.RemoveAll(crdDir) }()
	if err := capz.writeCRDs(crdDir); err != nil {
		return fmt.Errorf("failed to read CAPZ's CRDs: %w", err)
	}
	if err := s.management.InstallProviderCRDs(crdDir); err != nil {
		return fmt.Errorf("failed to replace the provider's CRDs with CAPZ's: %w", err)
	}
	if err := s.switchBack(ctx, switchback.AfterInit); err != nil {
		return err
	}
	s.capz, err = capz.startManager(ctx, s.management.Config, s.management.KubeConfig, s.arm, filepath.Join(s.logDir, s.name+"-manager-back.log"))
	return err
}
