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
	"maps"
	"slices"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// matrixOps are the operations of the fault matrix.
var matrixOps = []string{opCreate, opUpdate, opScale, opDelete, opPause}

// notInMatrix are the controllers the fault matrix leaves out, and why.
var notInMatrix = map[string]string{
	setup.ManagedClusterAdoptionController: "it acts once, when a user hands an existing ASO ManagedCluster over; the adopted cluster's controllers (AzureASOManaged*) do the rest",
	setup.AgentPoolAdoptionController:      "it acts once, when a user hands an existing ASO agent pool over; the adopted pool's controller (AzureASOManagedMachinePool) does the rest",
}

// TestFaultMatrix checks that the fault tests fail every controller's requests during each operation at least
// once: every controller (but those notInMatrix) × {create, update, scale, delete, pause} has a fault. The fault
// tests (runSteps) fail unless each of their faults meets a request.
func TestFaultMatrix(t *testing.T) {
	g := NewWithT(t)
	f := &plane.Fixture{Namespace: "matrix", ClusterName: "matrix", Vars: map[string]string{"RESOURCE_GROUP": "matrix-rg"}}
	covered := map[string][]string{}
	for _, steps := range [][]step{selfManagedSteps(f), aksSteps(f), asoManagedSteps(f)} {
		for _, s := range steps {
			g.Expect(s.faults).NotTo(BeEmpty(), "step %q fails nothing", s.name)
			for _, flt := range s.faults {
				g.Expect(setup.ControllerNames()).To(ContainElement(flt.controller), "step %q", s.name)
				g.Expect(matrixOps).To(ContainElement(flt.op), "step %q", s.name)
				cell := flt.controller + " × " + flt.op
				covered[cell] = append(covered[cell], s.name)
			}
		}
	}
	var missing []string
	for _, controller := range setup.ControllerNames() {
		if _, out := notInMatrix[controller]; out {
			continue
		}
		for _, op := range matrixOps {
			if len(covered[controller+" × "+op]) == 0 {
				missing = append(missing, controller+" × "+op)
			}
		}
	}
	g.Expect(missing).To(BeEmpty(), "cells of the fault matrix without a fault")
	for _, cell := range slices.Sorted(maps.Keys(covered)) {
		t.Logf("%s: %d faults", cell, len(covered[cell]))
	}
}
