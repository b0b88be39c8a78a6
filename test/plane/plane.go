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
	"fmt"
	"time"

	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
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
}

// Plane is the management cluster of a test package; see the package documentation.
type Plane struct {
	opts Options

	// Sim plays ASO; Workload is the API server of every workload cluster; Provider runs the provider's
	// controllers. They are set once the test environment has started.
	Sim      *asosim.Simulator
	Workload *Workload
	Provider *Provider
}

// New returns a plane to start with env.Run(ctx, m, p.EnvOptions()).
func New(opts Options) *Plane {
	return &Plane{opts: opts}
}

// EnvOptions are the test environment's options: the provider's webhooks, Cluster API's reconcilers and the ASO
// simulator in its manager, and the provider in its own, started with the environment.
func (p *Plane) EnvOptions(ctx context.Context) env.Options {
	// The workload cluster's API server starts while the management cluster's does.
	p.Workload = StartWorkload(ctx, p.opts.KubeadmInitialized)
	return env.Options{
		Scheme:           capiplane.Scheme(),
		SetupWebhooks:    setup.Webhooks,
		ManagerOptions:   capiplane.ManagerOptions,
		SetupReconcilers: p.setup,
	}
}

// setup starts the ASO simulator, registers Cluster API's reconcilers, and ties the provider and the workload
// cluster to the manager's life.
func (p *Plane) setup(ctx context.Context, mgr ctrl.Manager) error {
	var err error
	p.Sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{
		Scheme: scheme.New(), DeleteDelay: asoDeleteDelay,
		// Every AKS cluster's kubeconfig reaches the workload cluster.
		Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) { return p.Workload.Kubeconfig() },
	})
	if err != nil {
		return fmt.Errorf("failed to start the ASO simulator: %w", err)
	}
	clusterCache, err := capiplane.Setup(ctx, mgr, p.opts.CAPI)
	if err != nil {
		return err
	}
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.UserAgent = "cluster-api-provider-azure-aso-manager"
	if p.opts.ProviderConfig != nil {
		cfg = p.opts.ProviderConfig(cfg)
	}
	p.Provider = NewProvider(cfg)
	// The provider starts with the manager (the webhooks it writes through must be served), and stops before it.
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if err := p.Provider.Start(ctx); err != nil {
			return err
		}
		<-ctx.Done()
		capiplane.Shutdown(clusterCache)
		return kerrors.NewAggregate([]error{p.Provider.Stop(), p.Workload.Stop()})
	}))
}
