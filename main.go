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

// Command manager runs the Cluster API infrastructure provider for Azure: it turns Azure* objects into Azure
// Service Operator objects and reports their state back. It never calls Azure itself.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/component-base/logs"
	logsv1 "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // registers the JSON logging format
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/feature"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

// flags are the manager's command-line settings.
type flags struct {
	namespace             string
	watchFilter           string
	leaderElect           bool
	leaderElectionNS      string
	leaderElectionID      string
	leaseDuration         time.Duration
	renewDeadline         time.Duration
	retryPeriod           time.Duration
	healthAddr            string
	serving               setup.ServingOptions
	syncPeriod            time.Duration
	kubeAPIQPS            float32
	kubeAPIBurst          int
	gracefulShutdownDelay time.Duration
	concurrency           map[string]*int
	identityCertDirs      []string
	identityBindings      string
	credentialPolicy      string
	webhooks              setup.WebhookOptions
	asoCloud              string
}

func (f *flags) addTo(fs *pflag.FlagSet) {
	fs.StringVar(&f.namespace, "namespace", "", "Namespace to watch; empty watches all namespaces.")
	fs.StringSliceVar(&f.identityCertDirs, "identity-cert-dirs", nil,
		"Directories of the manager's filesystem from which an AzureClusterIdentity's spec.certPath may be read; none refuses certPath.")
	fs.StringVar(&f.credentialPolicy, "credential-policy", string(aso.PermissivePolicy), "Which credentials ASO objects may name: "+
		"permissive (CAPZ's behaviour) or strict (every ASO object names a credential of an identity that allows its namespace; "+
		"for management clusters shared by tenants). See docs/security.md.")
	fs.BoolVar(&f.webhooks.AllowASODefaultCredential, "allow-aso-default-credential", false, "Admit AzureClusters and "+
		"AzureManagedControlPlanes without spec.identityRef, whose ASO objects then use ASO's default credential (the "+
		"namespace's aso-credential Secret or ASO's global credential); only for management clusters with a single "+
		"tenant, and refused with --credential-policy=strict. See docs/security.md.")
	fs.StringVar(&f.identityBindings, "identity-bindings", "", "A YAML file binding certificate files, credential files and "+
		"federated client IDs to the AzureClusterIdentities that may use them (re-read when it changes). See docs/security.md.")
	fs.StringVar(&f.asoCloud, "aso-azure-environment", infrav1.DefaultAzureCloud, fmt.Sprintf("The Azure cloud ASO is configured for, one of %v; "+
		"a cluster in another cloud needs an identityRef, whose credential then names its cloud.", infrav1.AzureEnvironments()))
	fs.StringVar(&f.watchFilter, "watch-filter", "", "Only reconcile objects labelled cluster.x-k8s.io/watch-filter=<value>.")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "Elect a leader, so that only one replica reconciles.")
	fs.StringVar(&f.leaderElectionNS, "leader-election-namespace", "", "Namespace of the leader election lease; defaults to the manager's namespace.")
	fs.StringVar(&f.leaderElectionID, "leader-election-id", "controller-leader-election-capz-aso", "Name of the leader election lease.")
	fs.DurationVar(&f.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long non-leaders wait before taking over.")
	fs.DurationVar(&f.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps retrying to renew its lease.")
	fs.DurationVar(&f.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How long clients wait between leader election attempts.")
	fs.StringVar(&f.healthAddr, "health-addr", ":9440", "Address of the health (/healthz) and readiness (/readyz) probes.")
	f.serving.AddFlags(fs)
	fs.DurationVar(&f.syncPeriod, "sync-period", 10*time.Minute, "How often every watched object is reconciled even without changes.")
	fs.Float32Var(&f.kubeAPIQPS, "kube-api-qps", 100, "Maximum queries per second to the management cluster's API server.")
	fs.IntVar(&f.kubeAPIBurst, "kube-api-burst", 200, "Maximum burst of queries to the management cluster's API server.")
	fs.DurationVar(&f.gracefulShutdownDelay, "graceful-shutdown-timeout", 30*time.Second, "How long running reconciles may take to finish on shutdown.")
	f.concurrency = map[string]*int{}
	for _, name := range setup.ControllerNames() {
		f.concurrency[name] = fs.Int(name+"-concurrency", setup.DefaultConcurrency, "Number of "+name+" objects to reconcile at once.")
	}
	feature.MutableGates.AddFlag(fs)
}

func main() {
	f := &flags{}
	logOptions := logs.NewOptions()
	fs := pflag.CommandLine
	f.addTo(fs)
	logsv1.AddFlags(logOptions, fs)
	fs.AddGoFlagSet(flag.CommandLine)
	pflag.Parse()

	capped := setup.CapLogVerbosity(logOptions)
	if err := logsv1.ValidateAndApply(logOptions, nil); err != nil {
		fmt.Fprintf(os.Stderr, "Invalid logging flags: %v\n", err)
		os.Exit(1)
	}
	ctrl.SetLogger(setup.Logger(klog.Background()))
	log := ctrl.Log.WithName("setup")
	for _, warning := range capped {
		log.Info("Lowering the log verbosity", "reason", warning)
	}

	if err := run(ctrl.SetupSignalHandler(), f); err != nil {
		log.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

func run(ctx context.Context, f *flags) error {
	if !slices.Contains(infrav1.AzureEnvironments(), f.asoCloud) {
		return fmt.Errorf("--aso-azure-environment %q is none of %v", f.asoCloud, infrav1.AzureEnvironments())
	}
	policy, err := aso.ParseCredentialPolicy(f.credentialPolicy)
	if err != nil {
		return fmt.Errorf("--credential-policy: %w", err)
	}
	if err := setup.CheckCredentialSettings(policy, f.webhooks); err != nil {
		return err
	}
	var bindings *aso.BindingsFile
	if f.identityBindings != "" {
		bindings = &aso.BindingsFile{Path: f.identityBindings}
		if _, err := bindings.Load(); err != nil {
			return fmt.Errorf("--identity-bindings: %w", err)
		}
	}
	metrics, webhookOptions, err := f.serving.Servers()
	if err != nil {
		return err
	}
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("failed to load the kubeconfig: %w", err)
	}
	restConfig.QPS = f.kubeAPIQPS
	restConfig.Burst = f.kubeAPIBurst
	restConfig.UserAgent = "cluster-api-provider-azure-aso-manager"

	cacheOptions := cache.Options{
		SyncPeriod:       &f.syncPeriod,
		ByObject:         setup.CacheByObject(),
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if f.namespace != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{f.namespace: {}}
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                     scheme.New(),
		Cache:                      cacheOptions,
		Client:                     client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}}}},
		LeaderElection:             f.leaderElect,
		LeaderElectionID:           f.leaderElectionID,
		LeaderElectionNamespace:    f.leaderElectionNS,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		LeaseDuration:              &f.leaseDuration,
		RenewDeadline:              &f.renewDeadline,
		RetryPeriod:                &f.retryPeriod,
		Metrics:                    metrics,
		HealthProbeBindAddress:     f.healthAddr,
		WebhookServer:              webhook.NewServer(webhookOptions),
		GracefulShutdownTimeout:    &f.gracefulShutdownDelay,
	})
	if err != nil {
		return fmt.Errorf("failed to create the manager: %w", err)
	}
	if err := setup.Webhooks(mgr, f.webhooks); err != nil {
		return err
	}
	concurrency := map[string]int{}
	for name, n := range f.concurrency {
		concurrency[name] = *n
	}
	if err := setup.Controllers(ctx, mgr, setup.Options{
		WatchFilterValue: f.watchFilter, Concurrency: concurrency, IdentityCertDirs: f.identityCertDirs, ASOCloud: f.asoCloud,
		CredentialPolicy: policy, IdentityBindings: bindings,
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("failed to add the readiness check: %w", err)
	}
	ctrl.Log.WithName("setup").Info("Starting manager")
	return mgr.Start(ctx)
}
