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

package azuremachinepool_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// workload is a second API server that plays the workload cluster of every Cluster of the package: Cluster
	// API and the provider reach it through each Cluster's kubeconfig Secret, and the tests register Nodes in it.
	workload *env.ControlPlane
	// workloadClient writes the workload cluster's Nodes.
	workloadClient client.Client
	// logs records what the manager logs, at every verbosity, for TestSecretsNeverLogged.
	logs = logcapture.New()
)

// TestMain runs the provider (in a manager of its own, as its ServiceAccount) with Cluster API's own Cluster,
// MachinePool and Machine reconcilers (and the rest of core), on a real API server, with the ASO simulator playing
// ASO.
func TestMain(m *testing.M) {
	ctx := context.Background()
	var err error
	if workload, workloadClient, err = env.StartWorkloadCluster(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := env.Run(ctx, m, env.Options{
		// The webhooks admit clusters without identityRef, as on a single-tenant management cluster: the tests'
		// clusters name no identity.
		Scheme:        scheme.New(),
		SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{AllowASODefaultCredential: true}),
		ManagerOptions: func(o *ctrl.Options) {
			capiplane.ManagerOptions(o)
			o.Logger = logs.Logger()
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			var err error
			if sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{Scheme: scheme.New(), DeleteDelay: 200 * time.Millisecond}); err != nil {
				return err
			}
			clusterCache, err := capiplane.Setup(ctx, mgr, capiplane.Options{})
			if err != nil {
				return err
			}
			// The provider runs in a manager of its own, as its ServiceAccount. The ClusterCache's connections to the
			// workload cluster outlive the manager otherwise.
			_, err = plane.RunWith(mgr, logs.Logger(), nil, func() error {
				capiplane.Shutdown(clusterCache)
				return nil
			})
			return err
		},
		// Cluster API's reconcilers run as an admin.
		AdminManager: true,
	})
	if err := workload.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "failed to stop the workload cluster: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}
