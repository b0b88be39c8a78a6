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

package azureasomanagedcontrolplane_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/providerenv"
)

// sim plays ASO for every test of the package.
var sim *asosim.Simulator

// The tests run the AzureASOManaged controllers (cluster, control plane, machine pool) with every other controller
// of the provider. The kubeconfig ASO writes for an AKS cluster points at the test API server itself, so the
// workload cluster's nodes are Nodes of that server.
func TestMain(m *testing.M) {
	providerenv.Main(m, providerenv.Options{Sim: &sim,
		SimOptions: asosim.Options{
			Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) {
				return env.Env.ControlPlane.KubeConfig, nil
			},
		},
	})
}
