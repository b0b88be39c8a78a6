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

package azuremachinetemplate_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
)

var (
	// logs records what the manager logs, at every verbosity, for TestReconcile_SecretValuesNeverLogged.
	logs = logcapture.New()
	// workload is a second API server that plays the workload clusters, whose Nodes give templates their capacity.
	workload *env.ControlPlane
	// workloadClient writes the workload cluster's Nodes.
	workloadClient client.Client
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	var err error
	if workload, workloadClient, err = env.StartWorkloadCluster(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := env.Run(ctx, m, env.Options{
		// The webhooks admit clusters without identityRef, as on a single-tenant management cluster: most tests'
		// clusters name no identity.
		Scheme:        scheme.New(),
		SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{AllowASODefaultCredential: true}),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{ByObject: setup.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()}
			o.Logger = logs.Logger()
		},
		// No ASO simulator: the controller owns no ASO object, and the tests' AzureClusters are managed by
		// someone else.
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			return setup.Controllers(ctx, mgr, setup.Options{})
		},
	})
	if err := workload.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "failed to stop the workload cluster: %v\n", err)
	}
	os.Exit(code)
}
