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

package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Results are the figures of one run.
type Results struct {
	Command         string    `json:"command"`
	Started         time.Time `json:"started"`
	DurationSeconds float64   `json:"durationSeconds"`
	Host            Host      `json:"host"`
	// ManagerArgs are the extra flags the provider's manager ran with (none: its defaults).
	ManagerArgs []string `json:"managerArgs,omitempty"`
	Phases      []*Phase `json:"phases"`
	// Memory is what the provider's caches hold once every scenario's objects exist.
	Memory      *Memory       `json:"memory,omitempty"`
	Translation []GoBenchmark `json:"translation,omitempty"`
	Goals       []Goal        `json:"goals,omitempty"`
	// Notes are what the run could not measure, and why.
	Notes []string `json:"notes,omitempty"`
}

// Host describes the machine: its CPUs and how busy other work kept them.
type Host struct {
	CPUs         int    `json:"cpus"`
	LoadAvgStart string `json:"loadAvgStart"`
	LoadAvgEnd   string `json:"loadAvgEnd"`
	GoVersion    string `json:"goVersion"`
}

// Phase holds the figures of one phase: creating a scenario's objects until they converge, scaling down, or
// waiting in steady state. Requests are counted from the phase's start until the provider has been quiet for a
// few seconds after convergence.
type Phase struct {
	Name  string `json:"name"`
	Unit  string `json:"unit"`
	Units int    `json:"units"`
	// ConvergeSeconds is how long until the provider reported every unit ready (or, scaling down, gone);
	// NodesSeconds until Cluster API saw each unit's Node (or every Machine gone).
	ConvergeSeconds float64 `json:"convergeSeconds,omitempty"`
	NodesSeconds    float64 `json:"nodesSeconds,omitempty"`
	// WindowSeconds is how long requests were counted.
	WindowSeconds  float64 `json:"windowSeconds"`
	UnitsPerSecond float64 `json:"unitsPerSecond,omitempty"`
	// RawFloor and RateRatio (UnitsPerSecond over the raw floor's) compare with the API server's own rate.
	RawFloor  *RawFloor `json:"rawFloor,omitempty"`
	RateRatio float64   `json:"rateRatio,omitempty"`

	// ProviderWrites and ProviderReads are the provider's requests by resource and verb (audit log); reads are
	// those that reached the API server instead of the cache.
	ProviderWrites      []Count `json:"providerWrites"`
	ProviderWritesTotal int     `json:"providerWritesTotal"`
	WritesPerUnit       float64 `json:"writesPerUnit,omitempty"`
	ProviderReads       []Count `json:"providerReads"`
	ProviderReadsTotal  int     `json:"providerReadsTotal"`
	ReadsPerUnit        float64 `json:"readsPerUnit,omitempty"`
	// WritesByActor are everyone's writes: provider, capi, asosim, raw, other.
	WritesByActor map[string]int `json:"writesByActor"`
	// APIServerWrites are the mutating requests the API server's metrics counted (every user), a cross-check.
	APIServerWrites map[string]float64 `json:"apiServerWrites,omitempty"`

	// Latency is from ASO reporting an object Ready to its owner's status showing it.
	Latency *Latency `json:"latency,omitempty"`
	// Provisioning is, for the phase's units, when Cluster API had created the last one and how long each took
	// from creation to Ready.
	Provisioning *Provisioning `json:"provisioning,omitempty"`
	// Changes explain the writes of the per-unit objects (AzureMachine, AzureMachinePoolMachine,
	// AzureManagedMachinePool): which field manager changed which fields, how many times.
	Changes []ChangeCount `json:"changes,omitempty"`

	// Manager is the provider's process: RSS and CPU (/proc), its live heap after GC (gctrace), its reconciles by
	// controller and memory gauges (its metrics endpoint, when reachable).
	Manager           *ProcessStats               `json:"manager,omitempty"`
	ManagerHeapLiveMB float64                     `json:"managerHeapLiveMB,omitempty"`
	ManagerHeapPeakMB float64                     `json:"managerHeapPeakMB,omitempty"`
	Controllers       map[string]*ControllerStats `json:"controllers,omitempty"`
	ManagerGauges     map[string]float64          `json:"managerGauges,omitempty"`
	// ClientRequests are the manager's requests by HTTP method and response code (its client's metrics).
	ClientRequests map[string]float64 `json:"clientRequests,omitempty"`
	// APIServer, Etcd and Bench (Cluster API, the simulators and this harness) are the other processes.
	APIServer *ProcessStats `json:"apiServer,omitempty"`
	Etcd      *ProcessStats `json:"etcd,omitempty"`
	Bench     *ProcessStats `json:"bench,omitempty"`

	// Error says why the phase did not complete.
	Error string `json:"error,omitempty"`
}

// ControllerStats are a controller's figures in a phase, from the manager's metrics.
type ControllerStats struct {
	Reconciles float64 `json:"reconciles"`
	Errors     float64 `json:"errors,omitempty"`
	// AvgReconcileMS is the mean time of a reconcile; AvgQueueWaitMS the mean time an object waited in the work
	// queue before a worker took it (what a status change waits for under load).
	AvgReconcileMS float64 `json:"avgReconcileMS"`
	AvgQueueWaitMS float64 `json:"avgQueueWaitMS"`
}

// Memory breaks down what the provider's caches hold: the objects of each list its informers made, as JSON with
// managedFields stripped (decoded Go objects take roughly two to three times as much).
type Memory struct {
	AtPhase     string      `json:"atPhase"`
	Caches      []CacheSize `json:"caches"`
	TotalJSONMB float64     `json:"totalJSONMB"`
	HeapLiveMB  float64     `json:"heapLiveMB"`
	RSSMB       float64     `json:"rssMB"`
}

// CacheSize is one list of the provider's: its objects' JSON size, whole and metadata only. MetadataOnly says the
// provider watches only the metadata (the total counts that size).
type CacheSize struct {
	List         string  `json:"list"`
	Objects      int     `json:"objects"`
	JSONMB       float64 `json:"jsonMB"`
	MetadataMB   float64 `json:"metadataMB"`
	MetadataOnly bool    `json:"metadataOnly,omitempty"`
}

// GoBenchmark is the result of a Go benchmark (the median of its runs).
type GoBenchmark struct {
	Name        string  `json:"name"`
	NsPerOp     float64 `json:"nsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
	AllocsPerOp float64 `json:"allocsPerOp"`
}

// Goal is one of issue #14's goals and what the run measured.
type Goal struct {
	Goal     string `json:"goal"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// phase returns the phase of that name, or nil.
func (r *Results) phase(name string) *Phase {
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// write writes results.json and results.md into dir.
func (r *Results) write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(r.Markdown()), 0o644)
}

// Markdown renders the results: the summary table, the goals, then the details.
func (r *Results) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("Run of %s, %s, %.0f min on %d CPUs (load average %s at the start, %s at the end).\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Host.GoVersion, r.DurationSeconds/60, r.Host.CPUs, r.Host.LoadAvgStart, r.Host.LoadAvgEnd)
	w("Command: `%s`\n\n", r.Command)
	if len(r.ManagerArgs) > 0 {
		w("Manager flags: `%s`\n\n", strings.Join(r.ManagerArgs, " "))
	} else {
		w("Manager flags: defaults (--kube-api-qps=%d --kube-api-burst=%d, %d workers per controller).\n\n", managerDefaultQPS, managerDefaultBurst, 10)
	}

	w("| phase | units | converged s (Nodes s) | units/s | raw floor units/s | ratio | provider writes/unit | provider API reads/unit | ASO Ready → owner p50 / p99 ms | manager RSS peak / live heap MB | manager CPU ms/unit |\n")
	w("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		units := fmt.Sprintf("%d %ss", p.Units, p.Unit)
		converged, rate, raw, ratio := "–", "–", "–", "–"
		if p.ConvergeSeconds > 0 {
			converged = fmt.Sprintf("%.0f (%.0f)", p.ConvergeSeconds, p.NodesSeconds)
			rate = fmt.Sprintf("%.1f", p.UnitsPerSecond)
		}
		if p.Units == 0 {
			units = fmt.Sprintf("%.0f s", p.WindowSeconds)
		}
		if p.RawFloor != nil {
			raw = fmt.Sprintf("%.1f (%d objects in %.0f s)", p.RawFloor.UnitsPerSecond, p.RawFloor.Objects, p.RawFloor.Seconds)
			ratio = fmt.Sprintf("%.2f", p.RateRatio)
		}
		writes, reads := fmt.Sprintf("%d total", p.ProviderWritesTotal), fmt.Sprintf("%d total", p.ProviderReadsTotal)
		if p.Units > 0 {
			writes, reads = fmt.Sprintf("%.1f", p.WritesPerUnit), fmt.Sprintf("%.1f", p.ReadsPerUnit)
		}
		latency := "–"
		if p.Latency != nil {
			latency = fmt.Sprintf("%.0f / %.0f (%d)", p.Latency.P50MS, p.Latency.P99MS, p.Latency.Samples)
		}
		memory, cpu := "–", "–"
		if p.Manager != nil {
			memory = fmt.Sprintf("%.0f / %.0f", p.Manager.RSSPeakMB, p.ManagerHeapLiveMB)
			cpu = fmt.Sprintf("%.1f s", p.Manager.CPUSeconds)
			if p.Units > 0 {
				cpu = fmt.Sprintf("%.0f", 1000*p.Manager.CPUSeconds/float64(p.Units))
			}
		}
		name := p.Name
		if p.Error != "" {
			name += " (FAILED: " + p.Error + ")"
		}
		w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, units, converged, rate, raw, ratio, writes, reads, latency, memory, cpu)
	}
	for _, t := range r.Translation {
		w("\nTranslation (`%s`): %.1f µs, %.0f allocations per AzureMachine.", t.Name, t.NsPerOp/1000, t.AllocsPerOp)
	}
	w("\n")
	w("\nUnits per phase: when Cluster API had created the last one, and how long each took from creation to Ready:\n\n| phase | units seen | last created s | creation → Ready p50 / p99 s | never Ready |\n|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		if v := p.Provisioning; v != nil {
			w("| %s | %d | %.0f | %.1f / %.1f | %d |\n", p.Name, v.Units, v.LastCreatedSeconds, v.ReadyP50Seconds, v.ReadyP99Seconds, v.NotReady)
		}
	}

	if len(r.Goals) > 0 {
		w("\n### Goals (issue #14)\n\n| goal | target | measured | met |\n|---|---|---|---|\n")
		for _, g := range r.Goals {
			met := "no"
			if g.Met {
				met = "yes"
			}
			w("| %s | %s | %s | %s |\n", g.Goal, g.Target, g.Measured, met)
		}
	}

	w("\n### Provider writes by resource and verb\n")
	for _, p := range r.Phases {
		w("\n%s:\n\n", p.Name)
		writeCounts(&b, p.ProviderWrites, p.Units)
	}
	w("\n### Provider reads that reached the API server (not the cache)\n")
	for _, p := range r.Phases {
		w("\n%s:\n\n", p.Name)
		writeCounts(&b, p.ProviderReads, p.Units)
	}

	w("\n### What each write of the per-unit objects changed (watch diffs; writer from managedFields)\n")
	for _, p := range r.Phases {
		if len(p.Changes) == 0 {
			continue
		}
		w("\n%s:\n\n| kind | writer | fields changed | count | per unit |\n|---|---|---|---|---|\n", p.Name)
		for i, c := range p.Changes {
			if i == maxChangeRows {
				w("| … | | %d more signatures in results.json | | |\n", len(p.Changes)-i)
				break
			}
			per := "–"
			if p.Units > 0 {
				per = fmt.Sprintf("%.2f", float64(c.Count)/float64(p.Units))
			}
			w("| %s | %s | %s | %d | %s |\n", c.Kind, c.Writer, c.Fields, c.Count, per)
		}
	}

	w("\n### Writes by actor\n\n| phase | provider | capi | asosim | raw floor | other |\n|---|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		a := p.WritesByActor
		w("| %s | %d | %d | %d | %d | %d |\n", p.Name, a[actorProvider], a[actorCAPI], a[actorASO], a[actorRaw], a[actorOther])
	}

	w("\n### Controllers (manager metrics)\n\n| phase | controller | reconciles | per unit | errors | mean reconcile ms | mean queue wait ms |\n|---|---|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		for _, k := range sortedKeys(p.Controllers) {
			c := p.Controllers[k]
			per := "–"
			if p.Units > 0 {
				per = fmt.Sprintf("%.1f", c.Reconciles/float64(p.Units))
			}
			w("| %s | %s | %.0f | %s | %.0f | %.0f | %.0f |\n", p.Name, k, c.Reconciles, per, c.Errors, c.AvgReconcileMS, c.AvgQueueWaitMS)
		}
	}
	w("\nThe manager's requests by method and response code (its client's metrics; 409 is a conflict, 429 API priority and fairness throttling):\n\n| phase | requests |\n|---|---|\n")
	for _, p := range r.Phases {
		if p.ClientRequests == nil {
			continue
		}
		var parts []string
		for _, k := range sortedKeys(p.ClientRequests) {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, p.ClientRequests[k]))
		}
		w("| %s | %s |\n", p.Name, strings.Join(parts, ", "))
	}

	w("\n### CPU seconds by process\n\n| phase | manager | kube-apiserver | etcd | Cluster API + simulators + harness |\n|---|---|---|---|---|\n")
	for _, p := range r.Phases {
		w("| %s | %s | %s | %s | %s |\n", p.Name, cpuOf(p.Manager), cpuOf(p.APIServer), cpuOf(p.Etcd), cpuOf(p.Bench))
	}

	if m := r.Memory; m != nil {
		w("\n### Memory of the provider's caches (after %s)\n\n", m.AtPhase)
		w("Manager RSS %.0f MB, live heap %.0f MB; the objects its informers listed, as JSON without managedFields, %.1f MB (decoded Go objects take two to three times their JSON):\n\n", m.RSSMB, m.HeapLiveMB, m.TotalJSONMB)
		w("| list | objects | JSON MB | metadata only MB |\n|---|---|---|---|\n")
		for _, c := range m.Caches {
			if c.Objects == 0 {
				continue
			}
			meta := fmt.Sprintf("%.2f", c.MetadataMB)
			if c.MetadataOnly {
				meta += " (watched as metadata)"
			}
			w("| `%s` | %d | %.2f | %s |\n", c.List, c.Objects, c.JSONMB, meta)
		}
	}
	if len(r.Translation) > 0 {
		w("\n### Translation (go test ./azure/compute -bench BenchmarkMachineResources)\n\n| benchmark | µs/op | B/op | allocs/op |\n|---|---|---|---|\n")
		for _, t := range r.Translation {
			w("| %s | %.1f | %.0f | %.0f |\n", t.Name, t.NsPerOp/1000, t.BytesPerOp, t.AllocsPerOp)
		}
	}
	if len(r.Notes) > 0 {
		w("\nNotes:\n")
		for _, n := range r.Notes {
			w("- %s\n", n)
		}
	}
	return b.String()
}

func writeCounts(b *strings.Builder, counts []Count, units int) {
	if len(counts) == 0 {
		b.WriteString("none\n")
		return
	}
	b.WriteString("| resource | verb | count | per unit | failed |\n|---|---|---|---|---|\n")
	for _, c := range counts {
		per := "–"
		if units > 0 {
			per = fmt.Sprintf("%.2f", float64(c.Count)/float64(units))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %d |\n", c.Resource, c.Verb, c.Count, per, c.Failed)
	}
}

func cpuOf(s *ProcessStats) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f", s.CPUSeconds)
}

// maxChangeRows bounds the change table of a phase in results.md.
const maxChangeRows = 30

// Markers of the results section of docs/performance.md.
const (
	docsStart = "<!-- bench results: start (written by make bench BENCH_ARGS=--update-docs=docs/performance.md) -->"
	docsEnd   = "<!-- bench results: end -->"
)

// UpdateDocs replaces the results section of a markdown file with a run's results.
func UpdateDocs(path string, r *Results) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(data)
	start, end := strings.Index(s, docsStart), strings.Index(s, docsEnd)
	if start < 0 || end < start {
		return fmt.Errorf("%s has no results section (%s ... %s)", path, docsStart, docsEnd)
	}
	s = s[:start+len(docsStart)] + "\n" + r.Markdown() + s[end:]
	return os.WriteFile(path, []byte(s), 0o644)
}
