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

package providerenv

import (
	"context"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// Options configure the provider of a package's tests.
type Options struct {
	// Sim receives the ASO simulator, started before the controllers with SimOptions (its scheme is the
	// provider's).
	Sim        **asosim.Simulator
	SimOptions asosim.Options
	// Logger, when set, receives what the manager logs (a test/logcapture Capture's Logger).
	Logger *logr.Logger
}

// Main runs the package's tests with the provider, its cache configured as main.go's, and exits with their code.
func Main(m *testing.M, opts Options) {
	os.Exit(env.Run(context.Background(), m, env.Options{
		// The webhooks admit clusters without identityRef, as on a single-tenant management cluster: most of the
		// controllers' tests make clusters without an identity.
		Scheme:        scheme.New(),
		SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{AllowASODefaultCredential: true}),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{ByObject: setup.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()}
			if opts.Logger != nil {
				o.Logger = *opts.Logger
			}
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			simOptions := opts.SimOptions
			simOptions.Scheme = scheme.New()
			sim, err := asosim.Start(ctx, env.AdminConfig(mgr.GetConfig()), simOptions)
			if err != nil {
				return err
			}
			*opts.Sim = sim
			return setup.Controllers(ctx, mgr, setup.Options{})
		},
	}))
}
