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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

const (
	// pollInterval is how often a phase looks at its progress.
	pollInterval = 500 * time.Millisecond
	// quietPeriod is how long the provider must not write after convergence for a phase to end: its last status
	// patches still belong to the phase.
	quietPeriod = 5 * time.Second
	// quietTimeout bounds the wait for quiet; a provider that keeps writing is reported by the next phase.
	quietTimeout = 2 * time.Minute
	// progressEvery is how often progress is logged.
	progressEvery = 15 * time.Second
)

// Phase names.
const (
	PhaseMachinesCreate = "machines: create"
	PhaseMachinesScale  = "machines: scale to 0"
	PhaseAKSCreate      = "aks: create"
	PhaseFlexCreate     = "flex: create"
	PhaseSteady         = "steady state"
)

// Run starts a management plane, runs the configured phases and returns their figures; it writes them into
// cfg.OutputDir (results.json, results.md). A phase that fails is recorded with its error and ends the run.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	out, err := filepath.Abs(cfg.OutputDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	res := &Results{
		Command: cfg.Command, Started: time.Now(), ManagerArgs: cfg.ManagerArgs,
		Host: Host{CPUs: runtime.NumCPU(), LoadAvgStart: loadAvg(), GoVersion: runtime.Version()},
	}
	runErr := run(ctx, &cfg, out, res)
	res.DurationSeconds = time.Since(res.Started).Seconds()
	res.Host.LoadAvgEnd = loadAvg()
	res.Goals = goals(res)
	if err := res.write(out); err != nil {
		runErr = errors.Join(runErr, err)
	}
	return res, runErr
}

func run(ctx context.Context, cfg *Config, out string, res *Results) (reterr error) {
	start := time.Now()
	p, err := startPlane(ctx, cfg, out)
	defer func() {
		cfg.logf("Stopping the manager, Cluster API, the simulators and the API servers")
		reterr = errors.Join(reterr, p.stop())
		if !cfg.KeepAuditLog {
			_ = os.Remove(p.audit.path)
		}
	}()
	if err != nil {
		return err
	}
	cfg.logf("Management plane running (started in %s); provider manager PID %d", time.Since(start).Round(time.Second), p.manager.pid())
	tracker, err := startLatencyTracker(ctx, p.observer, p.scheme)
	if err != nil {
		return err
	}
	changes, err := startChangeLog(ctx, p.observer)
	if err != nil {
		return err
	}
	r := &runner{cfg: cfg, p: p, latency: tracker, changes: changes, res: res}

	var phases []phaseSpec
	if n := cfg.MachineClusters; n > 0 {
		phases = append(phases, r.machinesCreate())
	}
	if cfg.AKSClusters > 0 {
		phases = append(phases, r.aksCreate())
	}
	if cfg.FlexClusters > 0 {
		phases = append(phases, r.flexCreate())
	}
	creates := len(phases)
	if cfg.Steady > 0 {
		phases = append(phases, phaseSpec{name: PhaseSteady, steady: cfg.Steady, act: func(context.Context) error { return nil }})
	}
	if cfg.MachineClusters > 0 && cfg.ScaleToZero {
		phases = append(phases, r.machinesScale())
	}
	for i, spec := range phases {
		ph := r.run(ctx, spec)
		res.Phases = append(res.Phases, ph)
		if ph.Error != "" {
			return fmt.Errorf("phase %s: %s", ph.Name, ph.Error)
		}
		if i == creates-1 {
			if res.Memory, err = r.memory(ctx, ph.Name); err != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("The memory breakdown failed: %v", err))
			}
		}
	}
	if cfg.Translation {
		cfg.logf("Running BenchmarkMachineResources")
		if res.Translation, err = translationBenchmark(ctx, p.management.RootDir); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("BenchmarkMachineResources failed: %v", err))
		}
	}
	return nil
}

// phaseSpec describes a phase: what it does, how many units it is about, and when it is done.
type phaseSpec struct {
	name, unit string
	units      int
	namespaces []string
	act        func(ctx context.Context) error
	// progress says how far the phase got; nil for steady state, which lasts steady.
	progress func(ctx context.Context) (progress, error)
	steady   time.Duration
	rawFloor bool
	// unitKind is the Go type of the provider's object per unit (as %T names it), for Provisioning.
	unitKind string
}

type runner struct {
	cfg     *Config
	p       *plane
	latency *latencyTracker
	changes *changeLog
	res     *Results
}

func (r *runner) machinesCreate() phaseSpec {
	cfg := r.cfg
	names := clusterNames(machinesPrefix, cfg.MachineClusters)
	want := cfg.MachineClusters * cfg.MachinesPerCluster
	return phaseSpec{
		name: PhaseMachinesCreate, unit: "machine", units: want, namespaces: names, rawFloor: cfg.RawFloor,
		unitKind: fmt.Sprintf("%T", &infrav1.AzureMachine{}),
		act: r.createClusters(names, true, func(name string) []client.Object {
			return append(selfManagedCluster(name), machineDeployment(name, cfg.MachinesPerCluster)...)
		}),
		progress: func(ctx context.Context) (progress, error) { return machinesProgress(ctx, r.p.observer, names, want) },
	}
}

func (r *runner) machinesScale() phaseSpec {
	cfg := r.cfg
	names := clusterNames(machinesPrefix, cfg.MachineClusters)
	want := cfg.MachineClusters * cfg.MachinesPerCluster
	return phaseSpec{
		name: PhaseMachinesScale, unit: "machine", units: want, namespaces: names,
		act: func(ctx context.Context) error {
			for _, name := range names {
				md := &clusterv1.MachineDeployment{}
				if err := r.p.admin.Get(ctx, client.ObjectKey{Namespace: name, Name: name + "-md-0"}, md); err != nil {
					return err
				}
				before := md.DeepCopy()
				md.Spec.Replicas = ptr.To[int32](0)
				if err := r.p.admin.Patch(ctx, md, client.MergeFrom(before)); err != nil {
					return fmt.Errorf("failed to scale MachineDeployment %s: %w", client.ObjectKeyFromObject(md), err)
				}
			}
			return nil
		},
		progress: func(ctx context.Context) (progress, error) { return goneProgress(ctx, r.p.observer, names, want) },
	}
}

func (r *runner) aksCreate() phaseSpec {
	cfg := r.cfg
	names := clusterNames(aksPrefix, cfg.AKSClusters)
	want := cfg.AKSClusters * cfg.AKSPools
	return phaseSpec{
		name: PhaseAKSCreate, unit: "pool", units: want, namespaces: names, rawFloor: cfg.RawFloor,
		unitKind: fmt.Sprintf("%T", &infrav1.AzureManagedMachinePool{}),
		act: r.createClusters(names, false, func(name string) []client.Object {
			return aksCluster(name, cfg.AKSPools, cfg.AKSNodes)
		}),
		progress: func(ctx context.Context) (progress, error) { return aksProgress(ctx, r.p.observer, names, want) },
	}
}

func (r *runner) flexCreate() phaseSpec {
	cfg := r.cfg
	names := clusterNames(flexPrefix, cfg.FlexClusters)
	want := cfg.FlexClusters * cfg.FlexPools * cfg.FlexInstances
	return phaseSpec{
		name: PhaseFlexCreate, unit: "instance", units: want, namespaces: names, rawFloor: cfg.RawFloor,
		unitKind: fmt.Sprintf("%T", &infrav1exp.AzureMachinePoolMachine{}),
		act: r.createClusters(names, true, func(name string) []client.Object {
			return append(selfManagedCluster(name), flexPools(name, cfg.FlexPools, cfg.FlexInstances)...)
		}),
		progress: func(ctx context.Context) (progress, error) { return flexProgress(ctx, r.p.observer, names, want) },
	}
}

// createClusters returns the act of a create phase: for each cluster, its namespace's base objects (clusterBase)
// and then what objects returns for it, created in that order.
func (r *runner) createClusters(names []string, selfManaged bool, objects func(name string) []client.Object) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, name := range names {
			objs, err := r.clusterBase(name, selfManaged)
			if err != nil {
				return err
			}
			if err := createAll(ctx, r.p.admin, append(objs, objects(name)...)...); err != nil {
				return err
			}
		}
		return nil
	}
}

// clusterBase starts the kubelets of a cluster's namespace and returns the objects its namespace holds before
// its Cluster; selfManaged clusters get a kubeconfig Secret (AKS clusters get theirs from ASO) and bootstrap data.
func (r *runner) clusterBase(name string, selfManaged bool) ([]client.Object, error) {
	if err := r.p.startKubelets(name); err != nil {
		return nil, err
	}
	var kubeconfig []byte
	if selfManaged {
		w, err := r.p.workloadOf(name)
		if err != nil {
			return nil, err
		}
		kubeconfig = w.KubeConfig
	}
	return clusterBase(name, kubeconfig, selfManaged), nil
}

// snapshot is what the benchmark reads from metrics endpoints at a phase's edges.
type snapshot struct {
	apiServer, manager metricFamilies
}

func (r *runner) snapshot(ctx context.Context) snapshot {
	var s snapshot
	var err error
	if s.apiServer, err = apiServerMetrics(ctx, r.p.adminConfig); err != nil {
		r.note(fmt.Sprintf("The API server's metrics could not be read: %v", err))
	}
	if s.manager, err = r.p.metrics.scrape(ctx); err != nil {
		r.note(fmt.Sprintf("The manager's metrics could not be read (reconciles and Go memory gauges are missing): %v", err))
	}
	return s
}

// note records a note once.
func (r *runner) note(n string) {
	for _, existing := range r.res.Notes {
		if existing == n {
			return
		}
	}
	r.res.Notes = append(r.res.Notes, n)
}

// run runs one phase and measures it.
func (r *runner) run(ctx context.Context, spec phaseSpec) *Phase {
	ph := &Phase{Name: spec.name, Unit: spec.unit, Units: spec.units}
	r.cfg.logf("Phase %s: %d %ss", spec.name, spec.units, spec.unit)
	before := r.snapshot(ctx)
	start := time.Now()
	if err := spec.act(ctx); err != nil {
		ph.Error = err.Error()
		return ph
	}
	var end time.Time
	if spec.progress == nil {
		select {
		case <-ctx.Done():
			ph.Error = ctx.Err().Error()
			return ph
		case <-time.After(spec.steady):
		}
		end = time.Now()
	} else {
		converged, nodes, err := r.waitConverged(ctx, spec, start)
		ph.ConvergeSeconds, ph.NodesSeconds = converged.Seconds(), nodes.Seconds()
		if err != nil {
			ph.Error = err.Error()
		} else {
			ph.UnitsPerSecond = float64(spec.units) / ph.ConvergeSeconds
		}
		end = r.waitQuiet(ctx, start.Add(max(converged, nodes)))
	}
	after := r.snapshot(ctx)
	r.measure(ph, spec, start, end, before, after)
	r.cfg.logf("Phase %s: %s", spec.name, summary(ph))
	if spec.rawFloor && ph.Error == "" {
		qps, burst, workers := r.cfg.managerLimits()
		r.cfg.logf("Measuring the raw floor of %s (server-side apply of copies at %.0f QPS, burst %d, %d workers)", spec.name, qps, burst, workers)
		target := "raw-" + strings.ReplaceAll(strings.SplitN(spec.name, ":", 2)[0], " ", "-")
		raw, err := measureRawFloor(ctx, r.p.admin, r.p.observer, r.p.rawConfig, spec.namespaces, target, qps, burst, workers)
		if err != nil {
			r.note(fmt.Sprintf("The raw floor of %s failed: %v", spec.name, err))
		} else {
			raw.UnitsPerSecond = float64(spec.units) / raw.Seconds
			ph.RawFloor = raw
			if ph.UnitsPerSecond > 0 {
				ph.RateRatio = ph.UnitsPerSecond / raw.UnitsPerSecond
			}
			r.cfg.logf("Raw floor: %d objects in %.1f s (%.1f %ss/s); ratio %.2f", raw.Objects, raw.Seconds, raw.UnitsPerSecond, spec.unit, ph.RateRatio)
		}
	}
	return ph
}

// waitConverged polls a phase's progress until the provider has every unit ready (converged) and Cluster API
// every Node (nodes), or the timeout.
func (r *runner) waitConverged(ctx context.Context, spec phaseSpec, start time.Time) (converged, nodes time.Duration, err error) {
	deadline := start.Add(r.cfg.ConvergeTimeout)
	lastLog := start
	var last progress
	for {
		if exited, err := r.p.manager.exited(); exited {
			return converged, nodes, fmt.Errorf("the manager exited: %v", err)
		}
		p, err := spec.progress(ctx)
		if err == nil {
			last = p
			if converged == 0 && p.infra >= p.want {
				converged = time.Since(start)
			}
			if nodes == 0 && p.nodes >= p.want {
				nodes = time.Since(start)
			}
			if converged > 0 && nodes > 0 {
				return converged, nodes, nil
			}
		}
		if time.Since(lastLog) >= progressEvery {
			r.cfg.logf("  %s after %s: %s", spec.name, time.Since(start).Round(time.Second), last)
			lastLog = time.Now()
		}
		if time.Now().After(deadline) {
			return converged, nodes, fmt.Errorf("not converged within %s: %s", r.cfg.ConvergeTimeout, last)
		}
		select {
		case <-ctx.Done():
			return converged, nodes, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// waitQuiet waits, from the moment a phase converged, until the provider has not written for quietPeriod, and
// returns the phase's end.
func (r *runner) waitQuiet(ctx context.Context, convergedAt time.Time) time.Time {
	deadline := time.Now().Add(quietTimeout)
	for {
		if err := r.p.audit.sync(); err != nil {
			r.note(fmt.Sprintf("The audit log could not be read: %v", err))
		}
		last := r.p.audit.lastWrite(actorProvider)
		if last.Before(convergedAt) {
			last = convergedAt
		}
		if time.Since(last) >= quietPeriod || time.Now().After(deadline) || ctx.Err() != nil {
			return time.Now()
		}
		time.Sleep(time.Second)
	}
}

// measure fills a phase's figures for [start, end).
func (r *runner) measure(ph *Phase, spec phaseSpec, start, end time.Time, before, after snapshot) {
	if err := r.p.audit.sync(); err != nil {
		r.note(fmt.Sprintf("The audit log could not be read: %v", err))
	}
	reqs := r.p.audit.between(start, end)
	ph.WindowSeconds = end.Sub(start).Seconds()
	ph.ProviderWrites = countBy(reqs, func(q request) bool { return q.actor == actorProvider && q.isWrite() })
	ph.ProviderReads = countBy(reqs, func(q request) bool { return q.actor == actorProvider && q.isRead() })
	ph.ProviderWritesTotal, ph.ProviderReadsTotal = total(ph.ProviderWrites), total(ph.ProviderReads)
	if ph.Units > 0 {
		ph.WritesPerUnit = float64(ph.ProviderWritesTotal) / float64(ph.Units)
		ph.ReadsPerUnit = float64(ph.ProviderReadsTotal) / float64(ph.Units)
	}
	ph.WritesByActor = writesByActor(reqs)
	ph.Latency = r.latency.between(start, end)
	ph.Changes = r.changes.between(start, end)
	if spec.unitKind != "" {
		ph.Provisioning = r.latency.provisioning(spec.unitKind, start, end)
	}
	ph.Manager = r.p.sampler.stats("manager", start, end)
	ph.APIServer = r.p.sampler.stats("apiserver", start, end)
	ph.Etcd = r.p.sampler.stats("etcd", start, end)
	ph.Bench = r.p.sampler.stats("bench", start, end)
	ph.ManagerHeapLiveMB, ph.ManagerHeapPeakMB = r.p.manager.heap(start, end)
	if before.apiServer != nil && after.apiServer != nil {
		ph.APIServerWrites = delta(apiServerWrites(before.apiServer), apiServerWrites(after.apiServer))
	}
	if before.manager != nil && after.manager != nil {
		ph.Controllers = controllerStats(before.manager, after.manager)
		ph.ClientRequests = delta(before.manager.sum("rest_client_requests_total", "method", "code"), after.manager.sum("rest_client_requests_total", "method", "code"))
		ph.ManagerGauges = map[string]float64{}
		for _, name := range []string{"go_memstats_heap_alloc_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes", "process_resident_memory_bytes"} {
			ph.ManagerGauges[strings.TrimSuffix(name, "_bytes")+"_mb"] = after.manager.value(name) / (1 << 20)
		}
	}
}

// controllerStats are the controllers' reconciles, errors, reconcile times and queue waits between two scrapes.
func controllerStats(before, after metricFamilies) map[string]*ControllerStats {
	out := map[string]*ControllerStats{}
	reconciles := delta(before.sum("controller_runtime_reconcile_total", "controller"), after.sum("controller_runtime_reconcile_total", "controller"))
	errs := delta(before.sum("controller_runtime_reconcile_errors_total", "controller"), after.sum("controller_runtime_reconcile_errors_total", "controller"))
	rtB, rcB := before.histogram("controller_runtime_reconcile_time_seconds", "controller")
	rtA, rcA := after.histogram("controller_runtime_reconcile_time_seconds", "controller")
	qwB, qcB := before.histogram("workqueue_queue_duration_seconds", "name")
	qwA, qcA := after.histogram("workqueue_queue_duration_seconds", "name")
	mean := func(sumA, sumB, countA, countB float64) float64 {
		if countA-countB <= 0 {
			return 0
		}
		return 1000 * (sumA - sumB) / (countA - countB)
	}
	for name, n := range reconciles {
		out[name] = &ControllerStats{
			Reconciles:     n,
			Errors:         errs[name],
			AvgReconcileMS: mean(rtA[name], rtB[name], rcA[name], rcB[name]),
			AvgQueueWaitMS: mean(qwA[name], qwB[name], qcA[name], qcB[name]),
		}
	}
	return out
}

func summary(ph *Phase) string {
	var parts []string
	if ph.Error != "" {
		parts = append(parts, "FAILED: "+ph.Error)
	}
	if ph.ConvergeSeconds > 0 {
		parts = append(parts, fmt.Sprintf("converged in %.1f s (Nodes %.1f s, %.1f %ss/s)", ph.ConvergeSeconds, ph.NodesSeconds, ph.UnitsPerSecond, ph.Unit))
	}
	if ph.Units > 0 {
		parts = append(parts, fmt.Sprintf("provider writes %d (%.1f/%s), API reads %d", ph.ProviderWritesTotal, ph.WritesPerUnit, ph.Unit, ph.ProviderReadsTotal))
	} else {
		parts = append(parts, fmt.Sprintf("provider writes %d, API reads %d in %.0f s", ph.ProviderWritesTotal, ph.ProviderReadsTotal, ph.WindowSeconds))
	}
	if ph.Latency != nil {
		parts = append(parts, fmt.Sprintf("ASO→owner p50 %.0f ms p99 %.0f ms", ph.Latency.P50MS, ph.Latency.P99MS))
	}
	if ph.Manager != nil {
		parts = append(parts, fmt.Sprintf("manager RSS peak %.0f MB, live heap %.0f MB, CPU %.1f s", ph.Manager.RSSPeakMB, ph.ManagerHeapLiveMB, ph.Manager.CPUSeconds))
	}
	return strings.Join(parts, "; ")
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ")
}
