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

package realaso

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// p is the management cluster of every test of the package, with ASO's real controllers and the kubeadm control
// plane the flavors use. Its workload cluster is initialized by the first control plane Node of a cluster, as
// kubeadm init does (test/kubeletsim), not beforehand: a KubeadmControlPlane that saw it initialized before its
// first machine's bootstrap data was written would roll that machine out again.
var p = plane.New(plane.Options{RealASO: true, CAPI: capiplane.Options{KubeadmControlPlane: true}})

// kubeadmInit serializes the tests of self-managed clusters: the workload cluster they share holds one kubeadm
// init at a time (a cluster's kubelets write it, and remove it when the cluster's test ends).
var kubeadmInit sync.Mutex

func TestMain(m *testing.M) {
	ctx := context.Background()
	os.Exit(env.Run(ctx, m, p.EnvOptions(ctx)))
}
