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

package asocrd_test

import (
	"context"
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/capzaso/cluster-api-provider-azure/controllers/asocrd"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func TestMain(m *testing.M) {
	os.Exit(env.Run(context.Background(), m, env.Options{
		Scheme: scheme.New(),
		ManagerOptions: func(o *ctrl.Options) {
			o.Cache = cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
		},
		SetupReconcilers: func(ctx context.Context, mgr ctrl.Manager) error {
			return (&asocrd.Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, controller.Options{})
		},
	}))
}
