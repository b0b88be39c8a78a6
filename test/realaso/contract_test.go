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
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/contract"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// TestContract runs the contract of ASO's behaviours (test/contract) on ASO's own controllers; test/asosim runs it
// on the simulator.
func TestContract(t *testing.T) {
	global := env.FakeAzure(p.ARM, p.SubscriptionID())
	contract.Run(t, contract.Backend{Name: "aso", SubscriptionID: p.SubscriptionID(), ClientID: global.ClientID, Azure: fakeAzure{p.ARM}})
}

// fakeAzure is the fake Azure Resource Manager ASO talks to.
type fakeAzure struct{ arm *fakearm.Server }

func (a fakeAzure) FailPuts(_ client.Object, _, id string, status int, code string) func() {
	fault := a.arm.Inject(fakearm.Fault{
		Method: "PUT", ID: regexp.MustCompile("^" + regexp.QuoteMeta(strings.ToLower(id)) + "$"),
		Status: status, Code: code, Message: "injected by the contract suite",
	})
	return func() { a.arm.Clear(fault) }
}

func (a fakeAzure) Seed(_, id string, body map[string]any) error { return a.arm.Seed(id, body) }

func (a fakeAzure) Writes(id string) int {
	n := 0
	for _, r := range a.arm.Requests() {
		if r.Method == "PUT" && strings.EqualFold(r.Path, id) {
			n++
		}
	}
	return n
}

func (a fakeAzure) Exists(id string) bool {
	_, exists := a.arm.Resource(id)
	return exists
}

// ClientIDs are the client IDs of the tokens of the requests the fake received for the resource (to its own ID).
func (a fakeAzure) ClientIDs(id string) []string {
	seen := sets.New[string]()
	for _, r := range a.arm.Requests() {
		if strings.EqualFold(r.Path, id) {
			seen.Insert(r.ClientID)
		}
	}
	return sets.List(seen)
}
