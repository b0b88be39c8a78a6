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

package tenancyaso

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// p is the management cluster: Cluster API, the provider under the strict credential policy, and ASO's own
// controllers against the fake Azure Resource Manager, with ASO's global credential configured (as a platform that
// forgot the advice of docs/security.md would have it), so that any fallback to it would show.
var p *plane.Plane

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tenancyaso")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }() // a leftover temporary directory does not change the tests' result
	// The identities of the tests are service principals with a client secret, which need no binding.
	bindings := filepath.Join(dir, "bindings.yaml")
	if err := os.WriteFile(bindings, []byte("bindings: []\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p = plane.New(plane.Options{RealASO: true, Provider: setup.Options{
		CredentialPolicy: aso.StrictPolicy,
		IdentityBindings: &aso.BindingsFile{Path: bindings},
	}})
	ctx := context.Background()
	return env.Run(ctx, m, p.EnvOptions(ctx))
}
