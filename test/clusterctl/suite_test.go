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

package clusterctl_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// p is the source management cluster: Cluster API's core and kubeadm bootstrap, the provider, the ASO simulator and
// a workload API server (test/plane).
var p = plane.New(plane.Options{})

// The target management cluster of the move, a plain API server with the CRDs, starts beside the source;
// targetStarted is closed once target or targetErr is set.
var (
	targetStarted = make(chan struct{})
	target        *env.ControlPlane
	targetErr     error
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	go func() {
		defer close(targetStarted)
		target, targetErr = env.StartControlPlane(ctx, env.ControlPlaneOptions{Scheme: scheme.New()})
	}()
	code := env.Run(ctx, m, p.EnvOptions(ctx))
	<-targetStarted
	if target != nil {
		if err := target.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "failed to stop the target management cluster: %v\n", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}
