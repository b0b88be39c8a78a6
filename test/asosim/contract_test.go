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

package asosim_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/contract"
)

// TestContract runs the contract of ASO's behaviours (test/contract) on the simulator; test/realaso runs it on ASO.
func TestContract(t *testing.T) {
	contract.Run(t, contract.Backend{Name: "asosim", SubscriptionID: sim.SubscriptionID(), ClientID: sim.ClientID(), Azure: simulatedAzure{sim}})
}

// simulatedAzure is the simulator's Azure.
type simulatedAzure struct{ sim *asosim.Simulator }

func (a simulatedAzure) FailPuts(obj client.Object, kind, _ string, _ int, code string) func() {
	a.sim.Fail(kind, obj.GetNamespace(), obj.GetName(), code, "injected by the contract suite")
	return func() { _ = a.sim.Heal(context.Background(), kind, obj.GetNamespace(), obj.GetName()) }
}

func (a simulatedAzure) Seed(kind, id string, _ map[string]any) error {
	a.sim.SeedAzure(kind, id, nil)
	return nil
}

func (a simulatedAzure) Exists(id string) bool { return a.sim.ExistsInAzure(id) }

// Writes counts the simulator's creates and updates (of a changed spec) of the resource.
func (a simulatedAzure) Writes(id string) int {
	n := 0
	for _, e := range a.sim.Events() {
		if e.Op != "Delete" && strings.EqualFold(e.ID, id) {
			n++
		}
	}
	return n
}

// ClientIDs are the client IDs of the credentials the simulator used for the resource.
func (a simulatedAzure) ClientIDs(id string) []string {
	seen := sets.New[string]()
	for _, use := range a.sim.CredentialUses() {
		if strings.EqualFold(use.ID, id) {
			seen.Insert(use.Credential.ClientID)
		}
	}
	return sets.List(seen)
}
