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
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

const (
	// Timeout bounds each wait for Cluster API and the provider; Interval is how often a wait looks again.
	Timeout  = 2 * time.Minute
	Interval = 250 * time.Millisecond

	// KubernetesVersion is the version of every Machine; Location is the Azure location of every cluster.
	KubernetesVersion = "v1.34.1"
	Location          = "eastus"

	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = time.Second
)

// Options configure a Plane.
type Options struct {
	// ProviderConfig, when set, changes the provider's client configuration, e.g. to pass its requests through a
	// fault injector.
	ProviderConfig func(*rest.Config) *rest.Config
	// CAPI chooses the optional parts of Cluster API.
	CAPI capiplane.Options
	// KubeadmInitialized writes into the workload cluster what kubeadm init leaves in kube-system, so that
	// KubeadmControlPlanes consider their control plane initialized.
	KubeadmInitialized bool
	// RealASO runs ASO's own controllers, against a fake Azure Resource Manager (test/fakearm), in place of the
	// ASO simulator.
	RealASO bool
	// RecordASOCreates makes the ASO simulator keep every ASO object as it created its resource (asosim.Created).
	RecordASOCreates bool
	// ProviderReplicas lets the suite run the provider as processes of its own too (Plane.Replicas), and turns on
	// the API server's audit webhook through which Plane.Writes sees every write of the provider's user.
	ProviderReplicas bool
	// Provider are the provider's options, as its manager's flags set them (e.g. --credential-policy).
	Provider setup.Options
}

// Plane is the management cluster of a test package; see the package documentation.
type Plane struct {
	opts Options

	// Sim plays ASO (unless RealASO); ARM is the fake Azure Resource Manager ASO's own controllers talk to (with
	// RealASO); Workload is the API server of every workload cluster; Provider runs the provider's controllers. They
	// are set once the test environment has started.
	Sim      *asosim.Simulator
	ARM      *fakearm.Server
	Workload *Workload
	Provider *Provider
	// Writes sees the provider's writes (with ProviderReplicas).
	Writes *WriteWatcher

	// setupErr fails the environment's setup: a fake Azure Resource Manager or a write watcher that did not start.
	setupErr error
	// auditDir holds the audit webhook's files; binaryDir the manager Replicas built, once, as binary (or buildErr).
	auditDir, binaryDir, binary string
	buildOnce                   sync.Once
	buildErr                    error
}

// fakeSubscription is the subscription of the fake Azure Resource Manager (with RealASO).
const fakeSubscription = "00000000-0000-0000-0000-000000000000"

// SubscriptionID is the Azure subscription of the plane's clusters.
func (p *Plane) SubscriptionID() string {
	if p.Sim != nil {
		return p.Sim.SubscriptionID()
	}
	return fakeSubscription
}

// New returns a plane to start with env.Run(ctx, m, p.EnvOptions()).
func New(opts Options) *Plane {
	return &Plane{opts: opts}
}

// EnvOptions are the test environment's options: the provider's webhooks, Cluster API's reconcilers and the ASO
// simulator in its manager (an admin), and the provider in its own (as the provider's ServiceAccount), started with
// the environment; with RealASO, ASO's controllers against a fake Azure Resource Manager in place of the simulator.
func (p *Plane) EnvOptions(ctx context.Context) env.Options {
	// The workload cluster's API server starts while the management cluster's does.
	p.Workload = StartWorkload(ctx, p.opts.KubeadmInitialized)
	var azure *env.ASOAzure
	if p.opts.RealASO {
		// Every AKS cluster's kubeconfig reaches the workload cluster. A failure fails the environment (setup).
		p.ARM, p.setupErr = fakearm.Start(fakearm.Options{Kubeconfig: func(string) ([]byte, error) { return p.Workload.Kubeconfig() }, Polls: 1})
		if p.setupErr != nil {
			p.setupErr = fmt.Errorf("failed to start the fake Azure Resource Manager: %w", p.setupErr)
		} else {
			azure = env.FakeAzure(p.ARM, fakeSubscription)
		}
	}
	var apiServerFlags map[string]string
	if p.opts.ProviderReplicas {
		var err error
		if p.auditDir, err = os.MkdirTemp("", "capzaso-audit-"); err == nil {
			p.Writes, apiServerFlags, err = startWriteWatcher(p.auditDir)
		}
		if err != nil {
			// The environment fails to start (setup).
			p.setupErr = errors.Join(p.setupErr, fmt.Errorf("failed to start the watcher of the provider's writes: %w", err))
		}
	}
	return env.Options{
		// The webhooks admit clusters without identityRef, as on a single-tenant management cluster: the testdata
		// clusters name no identity, and ASO's default credential is the simulator's (or the fake Azure's). A
		// provider under the strict credential policy never does.
		APIServerFlags:   apiServerFlags,
		ASOAzure:         azure,
		Scheme:           capiplane.Scheme(),
		SetupWebhooks:    setup.WebhooksWith(setup.WebhookOptions{AllowASODefaultCredential: p.opts.Provider.CredentialPolicy != aso.StrictPolicy}),
		ManagerOptions:   capiplane.ManagerOptions,
		SetupReconcilers: p.setup,
		// Cluster API and the simulator run as admins; the provider runs as its ServiceAccount (setup).
		AdminManager: true,
		// The rest of a real management cluster: Cluster API's webhooks and kube-controller-manager.
		ClusterAPIWebhooks: true,
		ControllerManager:  true,
	}
}

// setup starts the ASO simulator (unless RealASO), registers Cluster API's reconcilers, and ties the provider, the
// workload cluster and the fake Azure Resource Manager to the manager's life.
func (p *Plane) setup(ctx context.Context, mgr ctrl.Manager) error {
	if p.setupErr != nil {
		return p.setupErr
	}
	if !p.opts.RealASO {
		var err error
		p.Sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{
			Scheme: scheme.New(), DeleteDelay: asoDeleteDelay, RecordCreates: p.opts.RecordASOCreates,
			// Every AKS cluster's kubeconfig reaches the workload cluster.
			Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) { return p.Workload.Kubeconfig() },
		})
		if err != nil {
			return fmt.Errorf("failed to start the ASO simulator: %w", err)
		}
	}
	clusterCache, err := capiplane.Setup(ctx, mgr, p.opts.CAPI)
	if err != nil {
		return err
	}
	if err := capiplane.Webhooks(mgr, clusterCache); err != nil {
		return err
	}
	// The provider runs as its ServiceAccount, bound to its generated roles: a missing rule fails the suite. It
	// stops before the manager, then Cluster API's connections and the workload cluster.
	p.Provider, err = RunWith(mgr, logr.Logger{}, p.opts.ProviderConfig, func() error {
		capiplane.Shutdown(clusterCache)
		errs := []error{p.Workload.Stop()}
		if p.ARM != nil {
			errs = append(errs, p.ARM.Close())
		}
		if p.Writes != nil {
			errs = append(errs, p.Writes.close())
		}
		for _, dir := range []string{p.auditDir, p.binaryDir} {
			if dir != "" {
				errs = append(errs, os.RemoveAll(dir))
			}
		}
		return errors.Join(errs...)
	})
	if p.Provider != nil {
		p.Provider.Options = p.opts.Provider
	}
	return err
}
