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

package chaos

import (
	"context"
	"os"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/faults"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

var (
	// injector fails the provider's requests (and only the provider's) as a step asks.
	injector = faults.New()
	// p is the management cluster of the package; the requests of the provider in the test's process pass through
	// the injector, and the crash suite runs the provider as processes of its own too (Replicas), whose writes the
	// API server's audit webhook shows (Writes).
	p = plane.New(plane.Options{ProviderConfig: injector.Config, ProviderReplicas: true})
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	os.Exit(env.Run(ctx, m, p.EnvOptions(ctx)))
}
