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

package asosim_test

import (
	"context"
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// sim is the simulator every test of the package works with.
var sim *asosim.Simulator

// The simulator's own tests: what it does where ASO v2.18 does something a provider must cope with. It runs on the
// test API server, beside no controller of the provider's.
func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{
		Scheme: scheme.New(),
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			var err error
			sim, err = asosim.Start(ctx, env.AdminConfig(mgr.GetConfig()), asosim.Options{
				Scheme: scheme.New(),
				Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) {
					return []byte("kubeconfig"), nil
				},
			})
			return err
		},
	}))
}
