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

package tenancy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// The platform's namespace and identities, which the bindings file names.
const (
	platformNamespace = "platform"
	// platformIdentity is a workload identity the platform gives to another team, not to the tenant.
	platformIdentity = "platform-wi"
	platformClientID = "11111111-1111-1111-1111-111111111111"
	// teamIdentity is the workload identity the platform gives to the tenant's namespace.
	teamIdentity = "team-a-wi"
	teamClientID = "22222222-2222-2222-2222-222222222222"
	// certIdentity is a service principal whose certificate is a file of the manager's pod.
	certIdentity = "platform-cert"
	tenantID     = "33333333-3333-3333-3333-333333333333"
)

var (
	// sim plays ASO.
	sim *asosim.Simulator
	// certFile is the platform's certificate file, in the manager's --identity-cert-dirs.
	certFile string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tenancy")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }() // a leftover temporary directory does not change the tests' result
	certFile = filepath.Join(dir, "certs", "platform.pem")
	bindings := filepath.Join(dir, "bindings.yaml")
	err = os.MkdirAll(filepath.Dir(certFile), 0o700)
	if err == nil {
		err = os.WriteFile(certFile, []byte("PLATFORM CERTIFICATE"), 0o600)
	}
	if err == nil {
		err = os.WriteFile(bindings, []byte(fmt.Sprintf(`bindings:
- identity: %[1]s/%[2]s
  clientID: %[3]s
- identity: %[1]s/%[4]s
  clientID: %[5]s
- identity: %[1]s/%[6]s
  certPath: %[7]s
`, platformNamespace, platformIdentity, platformClientID, teamIdentity, teamClientID, certIdentity, certFile)), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return env.Run(context.Background(), m, env.Options{
		// The webhooks run with the manager's default, as the strict credential policy requires: a cluster without
		// identityRef is refused.
		Scheme:        scheme.New(),
		SetupWebhooks: setup.WebhooksWith(setup.WebhookOptions{}),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{ByObject: setup.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()}
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			var err error
			if sim, err = asosim.Start(ctx, env.AdminConfig(mgr.GetConfig()), asosim.Options{Scheme: scheme.New()}); err != nil {
				return err
			}
			return setup.Controllers(ctx, mgr, setup.Options{
				CredentialPolicy: aso.StrictPolicy,
				IdentityBindings: &aso.BindingsFile{Path: bindings},
				IdentityCertDirs: []string{filepath.Dir(certFile)},
			})
		},
	})
}
