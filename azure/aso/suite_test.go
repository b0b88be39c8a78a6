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

package aso_test

import (
	"context"
	"net/http"
	"os"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// writes counts the create, update, patch and delete requests the engine's client sends.
	writes atomic.Int64
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	os.Exit(env.Run(ctx, m, env.Options{
		Scheme: scheme.New(),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{ByObject: aso.CacheByObject(asosim.Kinds()...), DefaultTransform: cache.TransformStripManagedFields()}
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			var err error
			sim, err = asosim.Start(ctx, env.AdminConfig(mgr.GetConfig()), asosim.Options{Scheme: mgr.GetScheme()})
			if err != nil {
				return err
			}
			return setupMirror(mgr)
		},
	}))
}

// newEngine returns an engine, authorized as the provider, whose client reads from the manager's cache (which runs
// as the provider too) and counts its write requests.
func newEngine(t *testing.T) *aso.Engine {
	t.Helper()
	cfg := rest.CopyConfig(env.Env.ProviderConfig)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt} }
	c, err := client.New(cfg, client.Options{
		Scheme: env.Env.Scheme(),
		Cache:  &client.CacheOptions{Reader: env.Env.Manager.GetCache()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &aso.Engine{Client: c, APIReader: env.Env.Manager.GetAPIReader()}
}

// countingTransport counts the requests that change something.
type countingTransport struct{ next http.RoundTripper }

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		writes.Add(1)
	}
	return c.next.RoundTrip(req)
}
