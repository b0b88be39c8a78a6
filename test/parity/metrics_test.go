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
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// User agents as the fake ARM and the API server saw them in a make parity run.
const (
	asoARMAgent  = "azsdk-go-armclient/v1.21.0 (go1.26.0; linux) aso-controller/v2.18.0"
	capzARMAgent = "azsdk-go-armcompute/v6.4.0 (go1.24.9; linux) cluster-api-provider-azure/v1.26.0"
)

var t0 = time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// TestCountARM: requests in the window are counted by method, by client (from the User-Agent) and by 4xx and 429
// answers; HEAD counts in the total only.
func TestCountARM(t *testing.T) {
	g := NewWithT(t)
	requests := []fakearm.Request{
		{Method: "PUT", Status: 201, Time: at(1), UserAgent: asoARMAgent},
		{Method: "GET", Status: 200, Time: at(2), UserAgent: asoARMAgent},
		{Method: "GET", Status: 404, Time: at(3), UserAgent: capzARMAgent},
		{Method: "patch", Status: 429, Time: at(4), UserAgent: capzARMAgent},
		{Method: "POST", Status: 200, Time: at(5), UserAgent: "curl/8.0"},
		{Method: "DELETE", Status: 202, Time: at(6), UserAgent: asoARMAgent},
		{Method: "HEAD", Status: 204, Time: at(7), UserAgent: asoARMAgent},
		{Method: "GET", Status: 200, Time: at(100), UserAgent: asoARMAgent},
	}
	c := CountARM(requests, t0, at(100))
	g.Expect(c.Total).To(Equal(7), "the request at the window's end is out of it")
	g.Expect(c.ByMethod).To(Equal(map[string]int{"PUT": 1, "GET": 2, "PATCH": 1, "POST": 1, "DELETE": 1, "HEAD": 1}))
	g.Expect(c.ByClient).To(Equal(map[string]int{ClientASO: 4, ClientCAPZSDK: 2, ClientOther: 1}))
	g.Expect(c.ClientErrors).To(Equal(2))
	g.Expect(c.Throttled).To(Equal(1))

	g.Expect(CountARM(requests, at(50), time.Time{}).Total).To(Equal(1), "a zero end leaves the window open")
}

// TestWriterOf: the API server's writers are told apart by the User-Agent of their client.
func TestWriterOf(t *testing.T) {
	for _, tt := range []struct {
		name, userAgent, want string
	}{
		{"CAPZ's manager", "cluster-api-provider-azure-manager", WriterManager},
		{"our provider (main.go)", "cluster-api-provider-azure-aso-manager", WriterManager},
		{"ASO", "aso-controller/v0.0.0 (linux/amd64) kubernetes/$Format", WriterASO},
		{"kube-controller-manager", "kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:namespace-controller", WriterKube},
		{"kube-apiserver", "kube-apiserver/v1.36.3 (linux/amd64) kubernetes/abc", WriterAPIServer},
		{"the side's process", "parity/v0.0.0 (linux/amd64) kubernetes/$Format", WriterClusterAPI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(writerOf(tt.userAgent)).To(Equal(tt.want))
		})
	}
}

// auditLine is one audit event as the API server logs it.
func auditLine(stage, verb, userAgent, group, resource, sub, namespace string, code int, ts time.Time) string {
	e := map[string]any{
		"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata", "stage": stage, "verb": verb,
		"userAgent": userAgent, "user": map[string]any{"username": "admin"},
		"objectRef":      map[string]any{"resource": resource, "namespace": namespace, "apiGroup": group, "subresource": sub, "apiVersion": "v1"},
		"responseStatus": map[string]any{"metadata": map[string]any{}, "code": code},
		"stageTimestamp": ts.Format(time.RFC3339Nano), "requestReceivedTimestamp": ts.Format(time.RFC3339Nano),
	}
	raw, _ := json.Marshal(e)
	return string(raw)
}

// TestCountWrites: completed writes are counted by writer, Events apart, failures and resources noted; reads, other
// stages, other namespaces and writes out of the window are not.
func TestCountWrites(t *testing.T) {
	g := NewWithT(t)
	capz := "cluster-api-provider-azure-manager"
	lines := []string{
		auditLine("ResponseComplete", "patch", capz, "infrastructure.cluster.x-k8s.io", "azureclusters", "status", "ns", 200, at(1)),
		auditLine("ResponseComplete", "create", capz, "resources.azure.com", "resourcegroups", "", "ns", 201, at(2)),
		auditLine("ResponseComplete", "update", capz, "infrastructure.cluster.x-k8s.io", "azureclusters", "", "ns", 409, at(3)),
		auditLine("ResponseComplete", "create", capz, "", "events", "", "ns", 201, at(4)),
		auditLine("ResponseComplete", "get", capz, "", "secrets", "", "ns", 200, at(5)),
		auditLine("ResponseStarted", "patch", capz, "", "secrets", "", "ns", 200, at(5)),
		auditLine("ResponseComplete", "patch", "aso-controller/v0.0.0", "resources.azure.com", "resourcegroups", "status", "ns", 200, at(6)),
		auditLine("ResponseComplete", "create", "parity/v0.0.0", "cluster.x-k8s.io", "machines", "", "ns", 201, at(7)),
		auditLine("ResponseComplete", "patch", capz, "", "namespaces", "", "", 200, at(8)),
		auditLine("ResponseComplete", "patch", capz, "", "secrets", "", "other", 200, at(9)),
		auditLine("ResponseComplete", "delete", capz, "", "secrets", "", "ns", 200, at(100)),
	}
	var events []audit.Event
	g.Expect(audit.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), func(e audit.Event) { events = append(events, e) })).To(Succeed())
	g.Expect(events).To(HaveLen(len(lines)))

	byWriter := CountWrites(events, "ns", t0, at(100))
	g.Expect(byWriter).To(HaveLen(3))
	g.Expect(byWriter[WriterManager]).To(Equal(WriteCounts{Writes: 3, Events: 1, Failed: 1, ByResource: map[string]int{
		"infrastructure.cluster.x-k8s.io/azureclusters/status": 1, "infrastructure.cluster.x-k8s.io/azureclusters": 1,
		"resources.azure.com/resourcegroups": 1,
	}}))
	g.Expect(byWriter[WriterASO].Writes).To(Equal(1))
	g.Expect(byWriter[WriterClusterAPI].Writes).To(Equal(1))

	all := CountWrites(events, "", t0, time.Time{})
	g.Expect(all[WriterManager].Writes).To(Equal(6), "every namespace, cluster-scoped objects and an open end")
}

// TestParseProc: CPU time from /proc/<pid>/stat (a command name with spaces and parentheses) and the peak resident
// memory from /proc/<pid>/status.
func TestParseProc(t *testing.T) {
	g := NewWithT(t)
	stat := "4242 (my (odd) proc) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 12 0 100 1000000 2000 18446744073709551615"
	cpu, err := parseStatCPU(stat)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cpu).To(Equal(3250 * time.Millisecond))
	_, err = parseStatCPU("4242 (x) S 1 2")
	g.Expect(err).To(HaveOccurred())

	rss, err := parseVmHWM("Name:\tmanager\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40000 kB\n")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rss).To(Equal(int64(51200 * 1024)))
	_, err = parseVmHWM("Name:\tzombie\n")
	g.Expect(err).To(HaveOccurred())

	// This process reads its own.
	_, rss, err = readProcess(os.Getpid())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rss).To(BeNumerically(">", 0))
}

// sampleMetrics are a run's figures for one flavor, with steady state.
func sampleMetrics() Metrics {
	ready := func(v float64) *float64 { return &v }
	return Metrics{
		Revision: "abc123", Steady: "10m0s",
		Sides: map[string]string{SideOurs: SideOurs, SideCAPZ: SideCAPZ},
		Flavors: map[string]map[string]FlavorMetrics{"default": {
			SideOurs: {
				Applied: t0, Ready: Ready{InfrastructureReady: ready(40), ControlPlaneInitialized: ready(60)},
				Phases: map[string]FlavorPhase{
					PhaseCreate: {Seconds: 100, ARM: ARMCounts{Total: 50, ByMethod: map[string]int{"GET": 30, "PUT": 20}, ByClient: map[string]int{ClientASO: 50}},
						Writes: map[string]WriteCounts{WriterManager: {Writes: 40}}},
					PhaseSteady: {Seconds: 600, ARM: ARMCounts{Total: 30, ByMethod: map[string]int{"GET": 30}, ByClient: map[string]int{ClientASO: 30}},
						Writes: map[string]WriteCounts{WriterManager: {Writes: 0}}},
				},
			},
			SideCAPZ: {
				Applied: t0, Ready: Ready{InfrastructureReady: ready(80), ControlPlaneInitialized: ready(120), MachinesReady: ready(200)},
				Phases: map[string]FlavorPhase{
					PhaseCreate: {Seconds: 250, ARM: ARMCounts{Total: 100, ByMethod: map[string]int{"GET": 90, "PUT": 10}, ByClient: map[string]int{ClientASO: 40, ClientCAPZSDK: 60}, ClientErrors: 4, Throttled: 1},
						Writes: map[string]WriteCounts{WriterManager: {Writes: 80}, WriterASO: {Writes: 20}}},
					PhaseSteady: {Seconds: 600, ARM: ARMCounts{Total: 60, ByMethod: map[string]int{"GET": 60}, ByClient: map[string]int{ClientCAPZSDK: 60}},
						Writes: map[string]WriteCounts{WriterManager: {Writes: 20}}},
				},
			},
		}},
		Processes: map[string]map[string]ProcessPhase{
			SideOurs: {
				PhaseCreate: {
					Processes: []ProcessStats{
						{Role: RoleSide, PID: 1, CPUSeconds: 30, PeakRSSBytes: 300 << 20}, {Role: WriterManager, PID: 6, CPUSeconds: 10, PeakRSSBytes: 50 << 20},
						{Role: WriterASO, PID: 2, CPUSeconds: 5, PeakRSSBytes: 100 << 20},
					},
					Writes: map[string]WriteCounts{WriterManager: {Writes: 28}},
				},
				PhaseSteady: {Processes: []ProcessStats{
					{Role: RoleSide, PID: 1, CPUSeconds: 36, PeakRSSBytes: 310 << 20}, {Role: WriterManager, PID: 6, CPUSeconds: 13, PeakRSSBytes: 60 << 20},
					{Role: WriterASO, PID: 2, CPUSeconds: 7, PeakRSSBytes: 100 << 20},
				}},
			},
			SideCAPZ: {
				PhaseCreate: {
					Processes: []ProcessStats{
						{Role: RoleSide, PID: 3, CPUSeconds: 20, PeakRSSBytes: 250 << 20}, {Role: WriterManager, PID: 4, CPUSeconds: 16, PeakRSSBytes: 120 << 20},
						{Role: WriterASO, PID: 5, CPUSeconds: 4, PeakRSSBytes: 100 << 20, MeasuredError: ""},
					},
					Writes: map[string]WriteCounts{WriterManager: {Writes: 90}},
				},
				PhaseSteady: {Processes: []ProcessStats{
					{Role: RoleSide, PID: 3, CPUSeconds: 23, PeakRSSBytes: 250 << 20}, {Role: WriterManager, PID: 4, CPUSeconds: 22, PeakRSSBytes: 130 << 20},
					{Role: WriterASO, PID: 5, CPUSeconds: 0, MeasuredError: "no such process"},
				}},
			},
		},
	}
}

// TestFlavorRows: counts in creation, per minute in steady state, milestones only in creation; ratios ours/CAPZ.
func TestFlavorRows(t *testing.T) {
	g := NewWithT(t)
	m := sampleMetrics()
	f := m.Flavors["default"]
	byName := func(rows []row) map[string]row {
		out := map[string]row{}
		for _, r := range rows {
			out[strings.TrimSpace(r.name)] = r
		}
		return out
	}
	create := byName(flavorRows(PhaseCreate, f[SideOurs], f[SideCAPZ]))
	g.Expect(figure(create["ARM requests"].ours)).To(Equal("50"))
	g.Expect(ratio(create["ARM requests"].ours, create["ARM requests"].capz)).To(Equal("0.50"))
	g.Expect(ratio(create["PUT"].ours, create["PUT"].capz)).To(Equal("2.00"))
	g.Expect(figure(create["PATCH"].ours)).To(Equal("0"))
	g.Expect(ratio(create["PATCH"].ours, create["PATCH"].capz)).To(Equal("-"), "no ratio to 0")
	g.Expect(figure(create["by CAPZ SDK"].capz)).To(Equal("60"))
	g.Expect(figure(create["429 answers"].capz)).To(Equal("1"))
	g.Expect(ratio(create["control plane initialized (s)"].ours, create["control plane initialized (s)"].capz)).To(Equal("0.50"))
	g.Expect(figure(create["all machines Ready (s)"].ours)).To(Equal("-"), "not seen")
	g.Expect(figure(create["manager API writes"].capz)).To(Equal("80"))

	steady := byName(flavorRows(PhaseSteady, f[SideOurs], f[SideCAPZ]))
	g.Expect(figure(steady["ARM requests /min"].ours)).To(Equal("3"))
	g.Expect(figure(steady["ARM requests /min"].capz)).To(Equal("6"))
	g.Expect(figure(steady["manager API writes /min"].capz)).To(Equal("2"))
	g.Expect(steady).NotTo(HaveKey("infrastructure ready (s)"))

	missing := byName(flavorRows(PhaseSteady, f[SideOurs], FlavorMetrics{}))
	g.Expect(figure(missing["ARM requests /min"].capz)).To(Equal("-"), "a side without the phase has no figure")
}

// TestProcessRows: each side's manager, ASO and side process are measured alike; CPU in steady state is the phase's
// own; a process that could not be read counts for nothing.
func TestProcessRows(t *testing.T) {
	g := NewWithT(t)
	m := sampleMetrics()
	rows := map[string]row{}
	for _, r := range processRows(m, PhaseCreate) {
		rows[r.name] = r
	}
	g.Expect(figure(rows["manager CPU s"].ours)).To(Equal("10"))
	g.Expect(figure(rows["manager CPU s"].capz)).To(Equal("16"))
	g.Expect(figure(rows["manager peak RSS MB"].ours)).To(Equal("50"))
	g.Expect(figure(rows["manager peak RSS MB"].capz)).To(Equal("120"))
	g.Expect(figure(rows["side process CPU s"].ours)).To(Equal("30"))
	g.Expect(figure(rows["side process peak RSS MB"].capz)).To(Equal("250"))
	g.Expect(figure(rows["ASO peak RSS MB"].capz)).To(Equal("100"))
	g.Expect(figure(rows["manager API writes, every namespace"].ours)).To(Equal("28"))
	g.Expect(figure(rows["manager API writes, every namespace"].capz)).To(Equal("90"))
	g.Expect(figure(rows["ASO API writes, every namespace"].ours)).To(Equal("-"), "none seen")

	rows = map[string]row{}
	for _, r := range processRows(m, PhaseSteady) {
		rows[r.name] = r
	}
	g.Expect(figure(rows["manager CPU s in the phase"].ours)).To(Equal("3"), "13 at its end less 10 at creation's")
	g.Expect(figure(rows["manager CPU s in the phase"].capz)).To(Equal("6"))
	g.Expect(figure(rows["ASO CPU s in the phase"].ours)).To(Equal("2"))
	g.Expect(figure(rows["ASO CPU s in the phase"].capz)).To(Equal("-"))
	g.Expect(rows).NotTo(HaveKey("ASO peak RSS MB"), "the peak is the creation's row")
}

// TestMetricsJSON: metrics.json's shape, which scripts read.
func TestMetricsJSON(t *testing.T) {
	g := NewWithT(t)
	raw, err := json.Marshal(sampleMetrics())
	g.Expect(err).NotTo(HaveOccurred())
	var doc map[string]any
	g.Expect(json.Unmarshal(raw, &doc)).To(Succeed())
	g.Expect(doc).To(HaveKeyWithValue("revision", "abc123"))
	g.Expect(doc).To(HaveKeyWithValue("steady", "10m0s"))
	g.Expect(doc).To(HaveKeyWithValue("sides", HaveKeyWithValue(SideCAPZ, SideCAPZ)))
	ours := doc["flavors"].(map[string]any)["default"].(map[string]any)[SideOurs].(map[string]any)
	g.Expect(ours).To(HaveKeyWithValue("ready", And(HaveKeyWithValue("infrastructureReady", 40.0), HaveKeyWithValue("machinesReady", BeNil()))))
	create := ours["phases"].(map[string]any)[PhaseCreate].(map[string]any)
	g.Expect(create).To(HaveKeyWithValue("seconds", 100.0))
	g.Expect(create).To(HaveKeyWithValue("arm", And(
		HaveKeyWithValue("total", 50.0), HaveKeyWithValue("byMethod", HaveKeyWithValue("PUT", 20.0)),
		HaveKeyWithValue("byClient", HaveKeyWithValue(ClientASO, 50.0)), HaveKey("clientErrors"), HaveKey("throttled"))))
	g.Expect(create).To(HaveKeyWithValue("writes", HaveKeyWithValue(WriterManager, HaveKeyWithValue("writes", 40.0))))
	proc := doc["processes"].(map[string]any)[SideCAPZ].(map[string]any)[PhaseSteady].(map[string]any)["processes"].([]any)
	g.Expect(proc).To(ContainElement(And(HaveKeyWithValue("role", WriterASO), HaveKeyWithValue("error", "no such process"))))
	g.Expect(proc).To(ContainElement(And(HaveKeyWithValue("role", WriterManager), HaveKeyWithValue("cpuSeconds", 22.0), HaveKeyWithValue("peakRSSBytes", float64(130<<20)))))
}

// TestPrintMetrics: the table has both phases, each figure with both sides and the ratio.
func TestPrintMetrics(t *testing.T) {
	g := NewWithT(t)
	var out bytes.Buffer
	PrintMetrics(&out, sampleMetrics())
	text := out.String()
	g.Expect(text).To(ContainSubstring("== performance (revision abc123"))
	g.Expect(text).To(ContainSubstring("-- creation, from apply until settled"))
	g.Expect(text).To(ContainSubstring("-- steady state, 10m0s after settling"))
	g.Expect(text).To(MatchRegexp(`\n  ARM requests +50 +100 +0\.50\n`))
	g.Expect(text).To(MatchRegexp(`\n  ARM requests /min +3 +6 +0\.50\n`))

	m := sampleMetrics()
	m.Steady = "0s"
	out.Reset()
	PrintMetrics(&out, m)
	g.Expect(out.String()).NotTo(ContainSubstring("steady state"))
}

// TestDeletePhase: the deletion's rows count its requests and give each side's time until the Cluster was gone;
// its CPU is the phase's own, after steady state or, without it, after creation.
func TestDeletePhase(t *testing.T) {
	g := NewWithT(t)
	m := sampleMetrics()
	for side, del := range map[string]FlavorPhase{
		SideOurs: {Seconds: 40.4, ARM: ARMCounts{Total: 30, ByMethod: map[string]int{"DELETE": 12, "GET": 18}}},
		SideCAPZ: {Seconds: 80, ARM: ARMCounts{Total: 50, ByMethod: map[string]int{"DELETE": 10, "GET": 40}}},
	} {
		f := m.Flavors["default"][side]
		phases := map[string]FlavorPhase{PhaseDelete: del}
		for k, v := range f.Phases {
			phases[k] = v
		}
		f.Phases = phases
		m.Flavors["default"][side] = f
	}
	m.Processes[SideOurs][PhaseDelete] = ProcessPhase{Processes: []ProcessStats{{Role: RoleSide, PID: 1, CPUSeconds: 40}, {Role: WriterManager, PID: 6, CPUSeconds: 16}}}
	m.Processes[SideCAPZ][PhaseDelete] = ProcessPhase{Processes: []ProcessStats{{Role: RoleSide, PID: 3, CPUSeconds: 24}, {Role: WriterManager, PID: 4, CPUSeconds: 30}}}

	g.Expect(previousPhase(m.Processes[SideOurs], PhaseDelete)).To(Equal(PhaseSteady))
	g.Expect(previousPhase(map[string]ProcessPhase{PhaseCreate: {}, PhaseDelete: {}}, PhaseDelete)).To(Equal(PhaseCreate))
	g.Expect(previousPhase(m.Processes[SideOurs], PhaseCreate)).To(BeEmpty())

	rows := map[string]row{}
	for _, r := range flavorRows(PhaseDelete, m.Flavors["default"][SideOurs], m.Flavors["default"][SideCAPZ]) {
		rows[strings.TrimSpace(r.name)] = r
	}
	g.Expect(figure(rows["DELETE"].ours)).To(Equal("12"))
	g.Expect(ratio(rows["ARM requests"].ours, rows["ARM requests"].capz)).To(Equal("0.60"))
	g.Expect(figure(rows["time until the Cluster is gone (s)"].ours)).To(Equal("40"))
	g.Expect(ratio(rows["time until the Cluster is gone (s)"].ours, rows["time until the Cluster is gone (s)"].capz)).To(Equal("0.50"))
	g.Expect(rows).NotTo(HaveKey("infrastructure ready (s)"))

	cpu, _ := processTotals(m, SideCAPZ, PhaseDelete, WriterManager)
	g.Expect(*cpu).To(Equal(8.0), "30 at its end less 22 at steady state's")

	var out bytes.Buffer
	PrintMetrics(&out, m)
	g.Expect(out.String()).To(ContainSubstring("-- deletion, from deleting every Cluster until all are gone"))
	g.Expect(out.String()).To(MatchRegexp(`\n  manager CPU s in the phase +3 +8 +0\.38\n`), "ours: 16 less 13")
}
