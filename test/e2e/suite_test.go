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

package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

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
	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = time.Second
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// workload is the API server that plays every workload cluster of the package.
	workload *workloadCluster
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	// The workload cluster's API server starts while the management cluster's does.
	workload = startWorkloadCluster(ctx)
	code := env.Run(ctx, m, env.Options{
		Scheme:           scheme.New(),
		SetupWebhooks:    setup.Webhooks,
		ManagerOptions:   capiplane.ManagerOptions,
		SetupReconcilers: setupReconcilers,
	})
	// The manager stops the workload cluster when it stops; this covers a manager that never started.
	if err := workload.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "test/e2e: failed to stop the workload cluster: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// setupReconcilers starts the ASO simulator and registers Cluster API's reconcilers and the provider's
// controllers with the manager. It fails when any of them cannot be set up.
func setupReconcilers(ctx context.Context, mgr ctrl.Manager) error {
	var err error
	sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{
		Scheme: scheme.New(), DeleteDelay: asoDeleteDelay,
		// Every AKS cluster's kubeconfig reaches the workload cluster.
		Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) {
			<-workload.started
			if workload.err != nil {
				return nil, workload.err
			}
			return workload.cp.KubeConfig, nil
		},
	})
	if err != nil {
		return fmt.Errorf("failed to start the ASO simulator: %w", err)
	}
	clusterCache, err := capiplane.Setup(ctx, mgr, capiplane.Options{})
	if err != nil {
		return err
	}
	// When the manager stops, the ClusterCache's connections to the workload cluster close (they outlive the
	// manager otherwise), then the workload cluster stops.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		capiplane.Shutdown(clusterCache)
		return workload.stop()
	})); err != nil {
		return fmt.Errorf("failed to tie the workload cluster to the manager: %w", err)
	}
	// The provider shares Cluster API's ClusterCache, as it must when both run in one manager.
	if err := setup.Controllers(ctx, mgr, setup.Options{ClusterCache: clusterCache}); err != nil {
		return fmt.Errorf("failed to set up the provider's controllers: %w", err)
	}
	return nil
}
