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
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// This file holds the pure part of make parity's performance figures: counting ARM requests and API server writes,
// and the table and JSON (metrics.json) that set each side's figures beside the other's. measure.go records them.

// Phase names: creation runs from a flavor's apply until every flavor of its side settled; steady state is the
// --steady period after that; then, with --lifecycle, each change of lifecycleSteps until the flavors settle again.
const (
	PhaseCreate   = "create"
	PhaseSteady   = "steady"
	PhaseScaleOut = "scale-out"
	PhaseScaleIn  = "scale-in"
	PhaseUpgrade  = "upgrade"
	// PhaseDelete (--delete, --lifecycle) runs from deleting every flavor's Cluster at once until all are gone; a flavor's
	// seconds are until its own Cluster was gone.
	PhaseDelete = "delete"
)

// phaseOrder is the order in which the phases run.
var phaseOrder = []string{PhaseCreate, PhaseSteady, PhaseScaleOut, PhaseScaleIn, PhaseUpgrade, PhaseDelete}

// previousPhase is the phase a side process measured before phase ("" for none): the CPU of phase is its end's
// less the previous phase's.
func previousPhase(phases map[string]ProcessPhase, phase string) string {
	prev := ""
	for _, p := range phaseOrder {
		if p == phase {
			return prev
		}
		if _, ok := phases[p]; ok {
			prev = p
		}
	}
	return ""
}

// ARM clients, told apart by the User-Agent the fake ARM saw.
const (
	ClientASO     = "ASO"
	ClientCAPZSDK = "CAPZ SDK"
	ClientOther   = "other"
)

// ARMMethods are the methods the figures count one by one; any other (HEAD) counts in the total only.
var ARMMethods = []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodPost, http.MethodDelete}

// armClient tells which client sent an ARM request from its User-Agent: ASO's generic client appends
// aso-controller/<version>, CAPZ's SDK clients cluster-api-provider-azure/<version>.
func armClient(userAgent string) string {
	switch {
	case strings.Contains(userAgent, "aso-controller/"):
		return ClientASO
	case strings.Contains(userAgent, "cluster-api-provider-azure/"):
		return ClientCAPZSDK
	}
	return ClientOther
}

// ARMCounts counts ARM requests.
type ARMCounts struct {
	Total    int            `json:"total"`
	ByMethod map[string]int `json:"byMethod"`
	ByClient map[string]int `json:"byClient"`
	// ClientErrors are the 4xx answers (429 included); Throttled the 429 answers.
	ClientErrors int `json:"clientErrors"`
	Throttled    int `json:"throttled"`
}

// CountARM counts the requests received in [from, to) (a zero to: no end).
func CountARM(requests []fakearm.Request, from, to time.Time) ARMCounts {
	c := ARMCounts{ByMethod: map[string]int{}, ByClient: map[string]int{}}
	for _, r := range requests {
		if r.Time.Before(from) || (!to.IsZero() && !r.Time.Before(to)) {
			continue
		}
		c.Total++
		c.ByMethod[strings.ToUpper(r.Method)]++
		c.ByClient[armClient(r.UserAgent)]++
		if r.Status >= 400 && r.Status < 500 {
			c.ClientErrors++
		}
		if r.Status == http.StatusTooManyRequests {
			c.Throttled++
		}
	}
	return c
}

// Writers of the management API server, told apart by the User-Agent of their requests.
const (
	// WriterManager is the infrastructure provider's manager, a process of its own on each side: CAPZ's (it sets
	// cluster-api-provider-azure-manager) or ours (the provider's main sets cluster-api-provider-azure-aso-manager).
	WriterManager = "manager"
	WriterASO     = "ASO"
	// WriterClusterAPI is the side's process: Cluster API's controllers and the harness (the flavor's objects, the
	// kubelets).
	WriterClusterAPI = "Cluster API and harness"
	WriterKube       = "kube-controller-manager"
	WriterAPIServer  = "kube-apiserver"
)

// writerOf tells who sent a request to the API server from its User-Agent. client-go's default agent starts with the
// binary's name (aso-controller, kube-controller-manager).
func writerOf(userAgent string) string {
	switch {
	case strings.HasPrefix(userAgent, "cluster-api-provider-azure-"):
		return WriterManager
	case strings.HasPrefix(userAgent, "aso-controller"):
		return WriterASO
	case strings.HasPrefix(userAgent, "kube-controller-manager"):
		return WriterKube
	case strings.HasPrefix(userAgent, "kube-apiserver"):
		return WriterAPIServer
	}
	return WriterClusterAPI
}

// WriteCounts counts one writer's completed writes to the API server.
type WriteCounts struct {
	// Writes are the writes other than Events; Events the Events written.
	Writes int `json:"writes"`
	Events int `json:"events"`
	// Failed are the writes answered with an error (a conflict, a refusal).
	Failed int `json:"failed"`
	// ByResource counts Writes by group/resource[/subresource].
	ByResource map[string]int `json:"byResource,omitempty"`
}

// CountWrites counts the completed writes in [from, to) (a zero to: no end) by writer, those in namespace only when
// namespace is set.
func CountWrites(events []audit.Event, namespace string, from, to time.Time) map[string]WriteCounts {
	out := map[string]WriteCounts{}
	for _, e := range events {
		if !e.Logged() || !audit.IsWrite(e.Verb) {
			continue
		}
		if e.StageTimestamp.Before(from) || (!to.IsZero() && !e.StageTimestamp.Before(to)) {
			continue
		}
		if namespace != "" && e.ObjectRef.Namespace != namespace {
			continue
		}
		w := writerOf(e.UserAgent)
		c := out[w]
		if e.ObjectRef.Resource == "events" {
			c.Events++
			out[w] = c
			continue
		}
		c.Writes++
		if e.Code() >= 300 {
			c.Failed++
		}
		if c.ByResource == nil {
			c.ByResource = map[string]int{}
		}
		key := e.ObjectRef.Resource
		if e.ObjectRef.APIGroup != "" {
			key = e.ObjectRef.APIGroup + "/" + key
		}
		if e.ObjectRef.Subresource != "" {
			key += "/" + e.ObjectRef.Subresource
		}
		c.ByResource[key]++
		out[w] = c
	}
	return out
}

// Ready are the seconds from a flavor's apply until its side first saw each milestone; nil: not seen while it
// watched (creation and steady state).
type Ready struct {
	InfrastructureReady     *float64 `json:"infrastructureReady"`
	ControlPlaneInitialized *float64 `json:"controlPlaneInitialized"`
	MachinesReady           *float64 `json:"machinesReady"`
}

// FlavorPhase is what a flavor received on one side in one phase.
type FlavorPhase struct {
	Seconds float64                `json:"seconds"`
	ARM     ARMCounts              `json:"arm"`
	Writes  map[string]WriteCounts `json:"writes"`
}

// FlavorMetrics are one flavor's figures on one side.
type FlavorMetrics struct {
	Applied time.Time              `json:"applied"`
	Ready   Ready                  `json:"ready"`
	Phases  map[string]FlavorPhase `json:"phases"`
}

// ProcessStats are one process's CPU time and peak resident memory (VmHWM) from /proc at the end of a phase.
type ProcessStats struct {
	// Role is WriterManager (the side's manager: CAPZ's or ours), WriterASO, or "side" (the side's own process:
	// Cluster API's controllers, the fake ARM, the kubelets).
	Role          string  `json:"role"`
	PID           int     `json:"pid"`
	CPUSeconds    float64 `json:"cpuSeconds"`
	PeakRSSBytes  int64   `json:"peakRSSBytes"`
	MeasuredError string  `json:"error,omitempty"`
}

// Process roles besides WriterManager and WriterASO.
const RoleSide = "side"

// ProcessPhase is what a side's process measured over a phase, for all its flavors.
type ProcessPhase struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Processes are cumulative at End (CPU since the process started; the peak over its life).
	Processes []ProcessStats `json:"processes"`
	// Writes are the API server writes of the phase in every namespace, by writer.
	Writes map[string]WriteCounts `json:"writes"`
}

// SideMetrics are one side process's figures (SideResult.Metrics).
type SideMetrics struct {
	Flavors map[string]FlavorMetrics `json:"flavors"`
	Phases  map[string]ProcessPhase  `json:"phases"`
}

// Metrics are a run's figures, metrics.json.
type Metrics struct {
	Revision string `json:"revision,omitempty"`
	// Steady is the length of the steady-state phase ("0s": none).
	Steady string `json:"steady"`
	// Flavors are each flavor's figures by side (SideOurs, SideCAPZ).
	Flavors map[string]map[string]FlavorMetrics `json:"flavors"`
	// Processes are each side process's figures by its name (ours, CAPZ, CAPZ+<gates>), without the flavors.
	Processes map[string]map[string]ProcessPhase `json:"processes"`
	// Sides are the side of each side process.
	Sides map[string]string `json:"sides"`
}

// ratio is ours/CAPZ, "-" when CAPZ's figure is 0 or either is missing.
func ratio(ours, capz *float64) string {
	if ours == nil || capz == nil || *capz == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", *ours / *capz)
}

// figure prints a figure; "-" when missing.
func figure(v *float64) string {
	if v == nil {
		return "-"
	}
	if v2 := math.Round(*v); math.Abs(*v-v2) < 1e-9 {
		return fmt.Sprintf("%.0f", *v)
	}
	return fmt.Sprintf("%.1f", *v)
}

func num[T int | int64 | float64](v T) *float64 {
	f := float64(v)
	return &f
}

// row is one line of the table: a name and both sides' figures.
type row struct {
	name       string
	ours, capz *float64
}

// flavorRows are a flavor's rows for a phase: ARM requests (per minute in steady state), milestones (creation only),
// the managers' writes.
func flavorRows(phase string, ours, capz FlavorMetrics) []row {
	po, okO := ours.Phases[phase]
	pc, okC := capz.Phases[phase]
	perMinute := phase == PhaseSteady
	val := func(ok bool, p FlavorPhase, n int) *float64 {
		if !ok {
			return nil
		}
		if perMinute {
			if p.Seconds <= 0 {
				return nil
			}
			return num(float64(n) * 60 / p.Seconds)
		}
		return num(n)
	}
	unit := ""
	if perMinute {
		unit = " /min"
	}
	rows := []row{{"ARM requests" + unit, val(okO, po, po.ARM.Total), val(okC, pc, pc.ARM.Total)}}
	for _, m := range ARMMethods {
		rows = append(rows, row{"  " + m, val(okO, po, po.ARM.ByMethod[m]), val(okC, pc, pc.ARM.ByMethod[m])})
	}
	for _, c := range []string{ClientASO, ClientCAPZSDK, ClientOther} {
		rows = append(rows, row{"  by " + c, val(okO, po, po.ARM.ByClient[c]), val(okC, pc, pc.ARM.ByClient[c])})
	}
	rows = append(rows,
		row{"  4xx answers", val(okO, po, po.ARM.ClientErrors), val(okC, pc, pc.ARM.ClientErrors)},
		row{"  429 answers", val(okO, po, po.ARM.Throttled), val(okC, pc, pc.ARM.Throttled)},
	)
	if phase == PhaseDelete {
		rows = append(rows, row{"time until the Cluster is gone (s)", val(okO, po, int(math.Round(po.Seconds))), val(okC, pc, int(math.Round(pc.Seconds)))})
	}
	if phase == PhaseCreate {
		rows = append(rows,
			row{"infrastructure ready (s)", ours.Ready.InfrastructureReady, capz.Ready.InfrastructureReady},
			row{"control plane initialized (s)", ours.Ready.ControlPlaneInitialized, capz.Ready.ControlPlaneInitialized},
			row{"all machines Ready (s)", ours.Ready.MachinesReady, capz.Ready.MachinesReady},
		)
	}
	rows = append(rows,
		row{"manager API writes" + unit, val(okO, po, po.Writes[WriterManager].Writes), val(okC, pc, pc.Writes[WriterManager].Writes)},
		row{"ASO API writes" + unit, val(okO, po, po.Writes[WriterASO].Writes), val(okC, pc, pc.Writes[WriterASO].Writes)},
	)
	return rows
}

// processTotals sums a side's processes of a role over its side processes, for a phase: CPU seconds (the phase's
// own in steady state: end minus the creation's end) and peak RSS in MB (the sum of the processes' peaks).
func processTotals(m Metrics, side, phase, role string) (cpu, rss *float64) {
	var c, r float64
	found := false
	for name, phases := range m.Processes {
		if m.Sides[name] != side {
			continue
		}
		p, ok := phases[phase]
		if !ok {
			continue
		}
		for _, s := range p.Processes {
			if s.Role != role || s.MeasuredError != "" {
				continue
			}
			found = true
			c += s.CPUSeconds
			r += float64(s.PeakRSSBytes) / (1 << 20)
			if prev := previousPhase(phases, phase); prev != "" {
				for _, before := range phases[prev].Processes {
					if before.Role == role && before.PID == s.PID && before.MeasuredError == "" {
						c -= before.CPUSeconds
					}
				}
			}
		}
	}
	if !found {
		return nil, nil
	}
	return &c, &r
}

// processRows are the rows of the processes of both sides for a phase: each side's manager (CAPZ's, ours), ASO and
// side process (Cluster API's controllers and the harness), each a process of its own, measured alike.
func processRows(m Metrics, phase string) []row {
	unit := ""
	if phase != PhaseCreate {
		unit = " in the phase"
	}
	oursCPU, oursRSS := processTotals(m, SideOurs, phase, WriterManager)
	capzCPU, capzRSS := processTotals(m, SideCAPZ, phase, WriterManager)
	oursASOCPU, oursASORSS := processTotals(m, SideOurs, phase, WriterASO)
	capzASOCPU, capzASORSS := processTotals(m, SideCAPZ, phase, WriterASO)
	oursSideCPU, oursSideRSS := processTotals(m, SideOurs, phase, RoleSide)
	capzSideCPU, capzSideRSS := processTotals(m, SideCAPZ, phase, RoleSide)
	rows := []row{
		{"manager CPU s" + unit, oursCPU, capzCPU},
		{"ASO CPU s" + unit, oursASOCPU, capzASOCPU},
		{"side process CPU s" + unit, oursSideCPU, capzSideCPU},
	}
	oursWrites, capzWrites := sideWrites(m, SideOurs, phase), sideWrites(m, SideCAPZ, phase)
	rows = append(rows,
		row{"manager API writes" + unit + ", every namespace", oursWrites[WriterManager], capzWrites[WriterManager]},
		row{"ASO API writes" + unit + ", every namespace", oursWrites[WriterASO], capzWrites[WriterASO]},
	)
	if phase == PhaseCreate {
		rows = append(rows,
			row{"manager peak RSS MB", oursRSS, capzRSS},
			row{"ASO peak RSS MB", oursASORSS, capzASORSS},
			row{"side process peak RSS MB", oursSideRSS, capzSideRSS},
		)
	}
	return rows
}

// PrintMetrics prints the performance table: per flavor and phase, both sides' figures and ours/CAPZ, then the
// processes.
func PrintMetrics(w io.Writer, m Metrics) {
	flavors := make([]string, 0, len(m.Flavors))
	for f := range m.Flavors {
		flavors = append(flavors, f)
	}
	sort.Strings(flavors)
	var phases []string
	for _, phase := range phaseOrder {
		ran := phase == PhaseCreate || (phase == PhaseSteady && m.Steady != "" && m.Steady != "0s")
		for _, sides := range m.Flavors {
			_, ok := sides[SideOurs].Phases[phase]
			ran = ran || (ok && phase != PhaseSteady)
		}
		if ran {
			phases = append(phases, phase)
		}
	}
	title := map[string]string{
		PhaseCreate: "creation, from apply until settled", PhaseSteady: "steady state, " + m.Steady + " after settling",
		PhaseScaleOut: "scale out, one more replica of every MachineDeployment and MachinePool, until settled",
		PhaseScaleIn:  "scale in, one fewer replica again, until settled",
		PhaseUpgrade:  "upgrade to " + UpgradeVersion + ", until rolled out and settled",
		PhaseDelete:   "deletion, from deleting every Cluster until all are gone",
	}
	printRows := func(rows []row) {
		for _, r := range rows {
			fmt.Fprintf(w, "  %-44s %10s %10s %10s\n", r.name, figure(r.ours), figure(r.capz), ratio(r.ours, r.capz))
		}
	}
	header := func(name string) {
		fmt.Fprintf(w, "  %-44s %10s %10s %10s\n", name, "ours", "CAPZ", "ours/CAPZ")
	}
	fmt.Fprintf(w, "\n== performance (revision %s; make parity's processes share one machine)\n", m.Revision)
	for _, phase := range phases {
		fmt.Fprintf(w, "\n-- %s\n", title[phase])
		for _, f := range flavors {
			header("flavor " + f)
			printRows(flavorRows(phase, m.Flavors[f][SideOurs], m.Flavors[f][SideCAPZ]))
		}
		if len(flavors) > 1 {
			header(fmt.Sprintf("all %d flavors (times: the last flavor's)", len(flavors)))
			printRows(flavorRows(phase, totalFlavors(m, SideOurs), totalFlavors(m, SideCAPZ)))
		}
		header("processes (all flavors)")
		printRows(processRows(m, phase))
	}
	fmt.Fprintln(w)
}

// totalFlavors sums a side's flavors: requests and writes added up, a phase as long as its longest flavor's, a
// milestone when the last flavor reached it (none when a flavor never did). Per minute figures of the total are so
// the side's rate over the phase.
func totalFlavors(m Metrics, side string) FlavorMetrics {
	out := FlavorMetrics{Phases: map[string]FlavorPhase{}}
	latest := func(total **float64, v *float64, first bool) {
		switch {
		case first:
			*total = v
		case *total == nil || v == nil:
			*total = nil
		case *v > **total:
			*total = v
		}
	}
	n := 0
	for _, sides := range m.Flavors {
		f, ok := sides[side]
		if !ok {
			continue
		}
		first := n == 0
		n++
		latest(&out.Ready.InfrastructureReady, f.Ready.InfrastructureReady, first)
		latest(&out.Ready.ControlPlaneInitialized, f.Ready.ControlPlaneInitialized, first)
		latest(&out.Ready.MachinesReady, f.Ready.MachinesReady, first)
		for phase, p := range f.Phases {
			t, ok := out.Phases[phase]
			if !ok {
				t = FlavorPhase{ARM: ARMCounts{ByMethod: map[string]int{}, ByClient: map[string]int{}}, Writes: map[string]WriteCounts{}}
			}
			t.Seconds = max(t.Seconds, p.Seconds)
			t.ARM.Total += p.ARM.Total
			t.ARM.ClientErrors += p.ARM.ClientErrors
			t.ARM.Throttled += p.ARM.Throttled
			for k, v := range p.ARM.ByMethod {
				t.ARM.ByMethod[k] += v
			}
			for k, v := range p.ARM.ByClient {
				t.ARM.ByClient[k] += v
			}
			for w, c := range p.Writes {
				tc := t.Writes[w]
				tc.Writes += c.Writes
				tc.Events += c.Events
				tc.Failed += c.Failed
				t.Writes[w] = tc
			}
			out.Phases[phase] = t
		}
	}
	return out
}

// sideWrites are a side's API writes (Events apart) in a phase in every namespace and cluster-wide (the provider's
// labels on ASO's CRDs, for one), by writer, over its side processes; nil for a writer none of them saw.
func sideWrites(m Metrics, side, phase string) map[string]*float64 {
	out := map[string]*float64{}
	for name, phases := range m.Processes {
		p, ok := phases[phase]
		if m.Sides[name] != side || !ok {
			continue
		}
		for w, c := range p.Writes {
			if out[w] == nil {
				out[w] = num(0)
			}
			*out[w] += float64(c.Writes)
		}
	}
	return out
}
