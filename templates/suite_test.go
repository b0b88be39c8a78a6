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

package templates

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// This suite runs, on one API server, what a management cluster runs for these templates (test/plane): Cluster
// API's core (with ClusterClass, topology and ClusterResourceSet), kubeadm bootstrap and kubeadm control plane
// reconcilers and webhooks (test/capiplane), and the provider's webhooks, in the test environment's manager, the
// provider's controllers in their own; kube-controller-manager's garbage collector and namespace controller;
// test/asosim plays ASO. A second, plain API server plays every workload cluster (and the empty cluster the
// provider's components are applied to).

// p is the management cluster of every test of the package, with the kubeadm control plane and topology. The
// ASO simulator keeps what it creates, for the ARM golden files (arm_test.go); with TEMPLATES_ASO=fake-arm (make
// goldens) ASO's own controllers run against test/fakearm instead.
var p = plane.New(plane.Options{
	CAPI: capiplane.Options{KubeadmControlPlane: true, Topology: true}, KubeadmInitialized: true,
	RecordASOCreates: true, RealASO: realASO,
})

// realASO is set by TEMPLATES_ASO=fake-arm: the flavors reconcile on ASO's own controllers against test/fakearm.
var realASO = os.Getenv("TEMPLATES_ASO") == "fake-arm"

func TestMain(m *testing.M) {
	ctx := context.Background()
	var err error
	if repoDir, err = os.MkdirTemp("", "capzaso-clusterctl-repository-"); err != nil {
		fmt.Fprintf(os.Stderr, "templates: %v\n", err)
		os.Exit(1)
	}
	code := env.Run(ctx, m, p.EnvOptions(ctx))
	if err := os.RemoveAll(repoDir); err != nil {
		fmt.Fprintf(os.Stderr, "templates: %v\n", err)
	}
	os.Exit(code)
}
