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

package plane

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	// syncTimeout bounds the wait for a started provider's caches.
	syncTimeout = time.Minute
	// shutdownTimeout bounds a stop: the manager's default (30 s) is too short for a loaded CI machine running the
	// race detector (a crash-suite stop once took longer there).
	shutdownTimeout = 2 * time.Minute
)

// Provider runs the provider's controllers in a manager of their own, built as main.go builds it (caches, client),
// without webhooks (the test environment's manager serves them). Stop and Start again make a fresh process: new
// caches, new work queues, nothing remembered.
type Provider struct {
	// Logger, when set before Start, is the logger of the provider's manager.
	Logger logr.Logger
	// Options, when set before Start, are the provider's options as the manager's flags set them (e.g. its
	// credential policy); Start sets their cluster cache.
	Options setup.Options

	config *rest.Config

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan error
	cc     clustercache.ClusterCache
	// held keeps the provider stopped (Hold): Start does nothing until Release.
	held bool
}

// NewProvider returns a stopped provider that talks to the API server of cfg.
func NewProvider(cfg *rest.Config) *Provider {
	return &Provider{config: cfg}
}

// RunWith creates a provider for the API server of mgr that runs as the provider's ServiceAccount (see
// env.ProviderConfig), with the configuration changed by configure when it is set, and runs it with mgr: it starts
// once mgr has started (mgr serves the webhooks the provider writes through) and stops before mgr, which then calls
// stopped, when set.
func RunWith(mgr ctrl.Manager, logger logr.Logger, configure func(*rest.Config) *rest.Config, stopped func() error) (*Provider, error) {
	cfg, err := env.ProviderConfig(mgr.GetConfig())
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "cluster-api-provider-azure-aso-manager"
	if configure != nil {
		cfg = configure(cfg)
	}
	p := NewProvider(cfg)
	p.Logger = logger
	return p, mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if err := p.Start(ctx); err != nil {
			return err
		}
		<-ctx.Done()
		errs := []error{p.Stop()}
		if stopped != nil {
			errs = append(errs, stopped())
		}
		return errors.Join(errs...)
	}))
}

// Start starts the provider's manager and waits until its caches have synced; while the provider is held, it does
// nothing.
func (p *Provider) Start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		return nil
	}
	if p.cancel != nil {
		return errors.New("the provider is running")
	}
	mgr, err := ctrl.NewManager(p.config, ctrl.Options{
		Scheme:                  scheme.New(),
		Logger:                  p.Logger,
		Cache:                   setup.CacheOptions(nil, ""),
		Client:                  setup.ClientOptions(),
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		GracefulShutdownTimeout: ptr.To(shutdownTimeout),
		// Each start registers the same controllers again in this process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("failed to create the provider's manager: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	cc, err := setup.NewClusterCache(runCtx, mgr, "")
	if err != nil {
		cancel()
		return err
	}
	opts := p.Options
	opts.ClusterCache = cc
	if err := setup.Controllers(runCtx, mgr, opts); err != nil {
		cancel()
		return fmt.Errorf("failed to set up the provider's controllers: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()

	syncCtx, syncCancel := context.WithTimeout(ctx, syncTimeout)
	defer syncCancel()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		cancel()
		return errors.Join(fmt.Errorf("the provider's caches did not sync within %s", syncTimeout), <-done)
	}
	p.cancel, p.done, p.cc = cancel, done, cc
	return nil
}

// Stop stops the provider's manager, as a terminated process stops: every reconcile in flight is cancelled, and
// the manager has its grace period to end them. A stop that outlives it fails the package (env.JudgeProviderStop).
func (p *Provider) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	// A stop past the grace period is the provider's failure, whatever held it up: it fails the package even when
	// it happens as the test environment stops, where a runnable's error is only logged.
	err := env.JudgeProviderStop("the provider", env.AwaitStop("the provider", p.done))
	// The cluster cache's connections to workload clusters outlive the manager otherwise.
	if s, ok := p.cc.(interface{ Shutdown() }); ok {
		s.Shutdown()
	}
	// Stopped either way, as a killed process is: a failed stop leaves nothing for the next Start to trip over.
	p.cancel, p.done, p.cc = nil, nil, nil
	return err
}

// Hold stops the provider and keeps it stopped, even if it has not started yet (RunWith starts it once the
// environment runs), until Release: a suite that runs the provider otherwise (test/chaos's replicas) holds it.
func (p *Provider) Hold() error {
	p.mu.Lock()
	p.held = true
	p.mu.Unlock()
	return p.Stop()
}

// Release ends a Hold and starts the provider.
func (p *Provider) Release(ctx context.Context) error {
	p.mu.Lock()
	p.held = false
	p.mu.Unlock()
	return p.Start(ctx)
}

// Restart stops the provider and starts it again; it starts it even when the stop failed, so that a failed stop
// fails one test, not every later one.
func (p *Provider) Restart(ctx context.Context) error {
	var errs []error
	if err := p.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("failed to stop the provider: %w", err))
	}
	return errors.Join(append(errs, p.Start(ctx))...)
}
