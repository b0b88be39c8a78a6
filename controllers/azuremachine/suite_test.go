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

package azuremachine_test

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
	"github.com/capzaso/cluster-api-provider-azure/test/providerenv"
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// logs records what the manager logs, at every verbosity, for TestReconcile_SecretsNeverLogged.
	logs = logcapture.New()
)

func TestMain(m *testing.M) {
	providerenv.Main(m, providerenv.Options{Sim: &sim, Logger: ptr.To(logs.Logger())})
}
