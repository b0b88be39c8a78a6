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

package parity

import (
	"bytes"
	"testing"

	. "github.com/onsi/gomega"
)

// TestScale: each copy has a name, namespace, cluster and subscription of its own, renders the flavor's template
// and asks for the workers; the named flavor is unchanged.
func TestScale(t *testing.T) {
	g := NewWithT(t)
	def, _ := FlavorNamed("default")
	flex, _ := FlavorNamed("machinepool-flex")
	copies := Scale([]Flavor{def, flex}, 3, 10)
	g.Expect(copies).To(HaveLen(6))
	seen := map[string]bool{}
	for _, c := range copies {
		for _, v := range []string{c.Name, c.Namespace(), c.Cluster, c.Subscription} {
			g.Expect(seen).NotTo(HaveKey(v), v)
			seen[v] = true
		}
		g.Expect(c.Variables()).To(HaveKeyWithValue("WORKER_MACHINE_COUNT", "10"))
		_, named := FlavorNamed(c.Name)
		g.Expect(named).To(BeFalse(), "a copy's name is no flavor's")
	}
	for _, f := range append(Flavors, SwitchFlavors...) {
		g.Expect(seen).NotTo(HaveKey(f.Subscription), "no copy shares a named flavor's subscription")
	}
	g.Expect(copies[0]).To(And(HaveField("Name", "default-1"), HaveField("Cluster", "pdef1"), HaveField("Template", "default")))
	g.Expect(copies[0].templateFile("t")).To(Equal(def.templateFile("t")))
	g.Expect(copies[3]).To(And(HaveField("Name", "machinepool-flex-1"), HaveField("Template", "machinepool"), HaveField("Edits", flex.Edits)))
	g.Expect(def.Vars).NotTo(HaveKey("WORKER_MACHINE_COUNT"), "the named flavor is unchanged")

	g.Expect(Scale([]Flavor{def}, 0, 0)).To(Equal([]Flavor{def}))
	one := Scale([]Flavor{def}, 0, 5)
	g.Expect(one).To(HaveLen(1))
	g.Expect(one[0].Name).To(Equal("default"))
	g.Expect(one[0].Variables()).To(HaveKeyWithValue("WORKER_MACHINE_COUNT", "5"))
}

// TestTotalFlavors: a side's flavors add up; the phase and milestones are the last flavor's, none when one flavor
// never reached it.
func TestTotalFlavors(t *testing.T) {
	g := NewWithT(t)
	m := sampleMetrics()
	second := m.Flavors["default"][SideCAPZ]
	late := 300.0
	second.Ready.InfrastructureReady = &late
	second.Phases = map[string]FlavorPhase{PhaseCreate: {Seconds: 400, ARM: ARMCounts{Total: 10, ByMethod: map[string]int{"PUT": 10}, ByClient: map[string]int{ClientASO: 10}, Throttled: 2},
		Writes: map[string]WriteCounts{WriterManager: {Writes: 5, Events: 1}}}}
	m.Flavors["default-2"] = map[string]FlavorMetrics{SideCAPZ: second, SideOurs: m.Flavors["default"][SideOurs]}

	capz := totalFlavors(m, SideCAPZ)
	create := capz.Phases[PhaseCreate]
	g.Expect(create.Seconds).To(Equal(400.0))
	g.Expect(create.ARM.Total).To(Equal(110))
	g.Expect(create.ARM.ByMethod).To(HaveKeyWithValue("PUT", 20))
	g.Expect(create.ARM.ByClient).To(HaveKeyWithValue(ClientASO, 50))
	g.Expect(create.ARM.Throttled).To(Equal(3))
	g.Expect(create.Writes[WriterManager]).To(Equal(WriteCounts{Writes: 85, Events: 1}))
	g.Expect(*capz.Ready.InfrastructureReady).To(Equal(300.0))
	g.Expect(*capz.Ready.MachinesReady).To(Equal(200.0))
	g.Expect(capz.Phases[PhaseSteady].ARM.Total).To(Equal(60), "only the flavor with the phase")

	ours := totalFlavors(m, SideOurs)
	g.Expect(ours.Ready.MachinesReady).To(BeNil(), "a flavor never had its machines Ready")
	g.Expect(*ours.Ready.ControlPlaneInitialized).To(Equal(60.0))

	var out bytes.Buffer
	PrintMetrics(&out, m)
	g.Expect(out.String()).To(MatchRegexp(`\n  all 2 flavors \(times: the last flavor's\) +ours +CAPZ +ours/CAPZ\n  ARM requests +100 +110 +0\.91\n`))
}
