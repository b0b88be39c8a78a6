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

package move_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

var (
	// azure is the fake Azure both management clusters' simulators work on.
	azure = asosim.NewAzure()
	// sourceSim plays ASO on the source management cluster, env.Env.
	sourceSim *asosim.Simulator

	// The target management cluster starts beside the source, to halve the wait; targetStarted is closed once
	// targetEnv (and targetSim) or targetErr is set.
	targetStarted = make(chan struct{})
	targetEnv     *env.Environment
	targetSim     *asosim.Simulator
	targetErr     error
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	go func() {
		defer close(targetStarted)
		targetEnv, targetErr = env.Start(ctx, managementCluster(&targetSim))
	}()
	code := env.Run(ctx, m, managementCluster(&sourceSim))
	<-targetStarted
	if targetEnv != nil {
		if err := targetEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "failed to stop the target management cluster: %v\n", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// managementCluster returns the options of a management cluster: the provider's webhooks and controllers, as the
// manager runs them, and an ASO simulator on the shared Azure, stored in sim.
func managementCluster(sim **asosim.Simulator) env.Options {
	return env.Options{
		// The webhooks admit clusters without identityRef, as on single-tenant management clusters: the moved
		// clusters name no identity.
		Scheme:        scheme.New(),
		SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{AllowASODefaultCredential: true}),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{ByObject: setup.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()}
			// The source's and the target's managers run the same controllers in this process.
			o.Controller.SkipNameValidation = ptr.To(true)
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			var err error
			if *sim, err = asosim.Start(ctx, env.AdminConfig(mgr.GetConfig()), asosim.Options{Scheme: scheme.New(), Azure: azure}); err != nil {
				return err
			}
			return setup.Controllers(ctx, mgr, setup.Options{})
		},
	}
}
