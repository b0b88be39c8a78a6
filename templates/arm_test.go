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
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/armgolden"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// armSets are the ARM request bodies of the flavors reconciled so far, by flavor ("<flavor>" or
// "v1beta1/<flavor>").
var armSets = struct {
	sync.Mutex
	m map[string]armgolden.Set
}{m: map[string]armgolden.Set{}}

// armGoldenDir is the directory of a flavor's ARM golden files.
func armGoldenDir(flavor string) string { return filepath.Join("testdata", "arm", flavor) }

// checkARMRequests compares what Azure receives for a reconciled flavor's cluster with the flavor's golden files
// (testdata/arm/<flavor>): the first PUT of every resource, normalised (test/armgolden). The ASO simulator's
// creations are rendered with ASO's own ARM conversion; with TEMPLATES_ASO=fake-arm they are the PUTs ASO's own
// controllers sent to test/fakearm. The v1beta1 form of a flavor must send exactly what its v1beta2 form sends;
// UPDATE_GOLDENS=1 rewrites the golden files from the v1beta2 form.
func checkARMRequests(t *testing.T, name, flavorName string, v1beta1 bool, f *fixture) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	names := armgolden.Names{Subscription: p.SubscriptionID(), Cluster: f.cluster, Namespace: f.namespace}
	reader := env.Env.GetAPIReader()
	var set armgolden.Set
	var err error
	if realASO {
		var objects []client.Object
		for _, o := range plane.ListASOObjectsFrom(ctx, NewWithT(t), reader, f.namespace) {
			objects = append(objects, o.Object)
		}
		set, err = armgolden.FromFakeARM(ctx, reader, p.ARM.Requests(), objects, names)
	} else {
		set, err = armgolden.FromSimulator(ctx, reader, scheme.New(), p.Sim.Created(f.namespace), names)
	}
	if err != nil {
		t.Fatalf("failed to read the ARM requests of %s: %v", name, err)
	}
	if len(set) == 0 {
		t.Fatalf("the cluster of %s sent no ARM request", name)
	}
	t.Logf("%d golden entries of %s read in %s", len(set), name, time.Since(start).Round(time.Millisecond))
	armSets.Lock()
	armSets.m[name] = set
	v1beta2, reconciled := armSets.m[flavorName]
	armSets.Unlock()
	switch {
	case v1beta1 && reconciled:
		if diff := armgolden.Diff(v1beta2, set, flavorName, name); diff != "" {
			t.Errorf("the v1beta1 form of %s sends other ARM requests than its v1beta2 form:\n%s", flavorName, diff)
		}
	case v1beta1:
		// The v1beta2 form did not get this far: the v1beta1 form is compared, never written.
		if err := armgolden.Compare(armGoldenDir(flavorName), set); err != nil {
			t.Error(err)
		}
	default:
		if err := armgolden.Check(armGoldenDir(flavorName), set); err != nil {
			t.Error(err)
		}
	}
}
