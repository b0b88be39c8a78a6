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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/audit"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// This file records a side's performance figures while it runs (see metrics.go for what they are).

// writesAudit is what a side's audit log holds: every write (not reads, which are many).
var writesAudit = audit.Scope{Verbs: audit.WriteVerbs}

// auditLog is where a side's management API server logs its writes.
func auditLog(logDir, name string) string { return filepath.Join(logDir, name+"-audit.log") }

// auditFlags writes the audit policy and returns the kube-apiserver flags that log a side's writes to auditLog.
// The log replaces test/env's RBAC usage log for test/rbaccheck, which follows the provider's ServiceAccount only.
func auditFlags(logDir, name string) (map[string]string, error) {
	// kube-apiserver may run elsewhere than here.
	logDir, err := filepath.Abs(logDir)
	if err != nil {
		return nil, err
	}
	policy := filepath.Join(logDir, name+"-audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(writesAudit.Policy()), 0o600); err != nil {
		return nil, err
	}
	return map[string]string{
		"audit-policy-file": policy,
		"audit-log-path":    auditLog(logDir, name),
		// One file, never rotated.
		"audit-log-maxsize": "1000000",
	}, nil
}

// recorder records a side's figures: when each flavor was applied and first reached each milestone, the phases'
// ends, and the processes' CPU and memory at each end.
type recorder struct {
	s       *side
	flavors []Flavor

	mu         sync.Mutex
	applied    map[string]time.Time
	milestones map[string]*milestones
	// deleted is when each flavor's Cluster was gone (deleteAll).
	deleted map[string]time.Time
	phases  map[string]ProcessPhase
}

// milestones are the times a flavor's milestones were first seen.
type milestones struct {
	infrastructureReady, controlPlaneInitialized, machinesReady time.Time
}

func newRecorder(s *side, flavors []Flavor) *recorder {
	return &recorder{
		s: s, flavors: flavors, applied: map[string]time.Time{}, milestones: map[string]*milestones{},
		deleted: map[string]time.Time{}, phases: map[string]ProcessPhase{},
	}
}

// applying records that a flavor's apply starts.
func (r *recorder) applying(f Flavor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.applied[f.Name] = time.Now()
	r.milestones[f.Name] = &milestones{}
}

// observe reads a flavor's Cluster, Machines and MachinePools and records the milestones seen for the first time.
// It runs on the harness's polls (waitSettled), so a time is late by up to one poll.
func (r *recorder) observe(ctx context.Context, f Flavor) {
	r.mu.Lock()
	m := r.milestones[f.Name]
	r.mu.Unlock()
	if m == nil || !m.machinesReady.IsZero() && !m.infrastructureReady.IsZero() && !m.controlPlaneInitialized.IsZero() {
		return
	}
	now := time.Now()
	cluster := &clusterv1.Cluster{}
	if err := r.s.reader.Get(ctx, client.ObjectKey{Namespace: f.Namespace(), Name: f.Cluster}, cluster); err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.infrastructureReady.IsZero() && (ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) ||
		meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterInfrastructureReadyCondition)) {
		m.infrastructureReady = now
	}
	if m.controlPlaneInitialized.IsZero() && (ptr.Deref(cluster.Status.Initialization.ControlPlaneInitialized, false) ||
		meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition)) {
		m.controlPlaneInitialized = now
	}
	if m.machinesReady.IsZero() && r.machinesReady(ctx, f) {
		m.machinesReady = now
	}
}

// machinesReady tells whether every machine a flavor asks for is Ready: for a self-managed flavor, as many Ready
// Machines as its KubeadmControlPlane and MachineDeployments ask for; for an AKS flavor, every MachinePool with its
// replicas ready.
func (r *recorder) machinesReady(ctx context.Context, f Flavor) bool {
	if !f.SelfManaged {
		pools := &clusterv1.MachinePoolList{}
		if err := r.s.reader.List(ctx, pools, client.InNamespace(f.Namespace())); err != nil || len(pools.Items) == 0 {
			return false
		}
		for _, p := range pools.Items {
			if ptr.Deref(p.Status.ReadyReplicas, 0) < ptr.Deref(p.Spec.Replicas, 1) {
				return false
			}
		}
		return true
	}
	want := 0
	for _, kind := range []struct{ apiVersion, kind string }{
		{"controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane"}, {clusterv1.GroupVersion.String(), "MachineDeployment"},
	} {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(kind.apiVersion)
		list.SetKind(kind.kind + "List")
		if err := r.s.reader.List(ctx, list, client.InNamespace(f.Namespace())); err != nil {
			return false
		}
		for _, o := range list.Items {
			replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
			want += int(replicas)
		}
	}
	machines := &clusterv1.MachineList{}
	if err := r.s.reader.List(ctx, machines, client.InNamespace(f.Namespace())); err != nil {
		return false
	}
	ready := 0
	for _, m := range machines.Items {
		if m.DeletionTimestamp == nil && meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineReadyCondition) {
			ready++
		}
	}
	return want > 0 && ready >= want
}

// endPhase records the end of a phase that started at start: each process's CPU time and peak memory.
func (r *recorder) endPhase(phase string, start time.Time) {
	p := ProcessPhase{Start: start, End: time.Now()}
	pids := []struct {
		role string
		pid  int
	}{{RoleSide, os.Getpid()}}
	if r.s.capz != nil && r.s.capz.cmd != nil && r.s.capz.cmd.Process != nil {
		pids = append(pids, struct {
			role string
			pid  int
		}{WriterManager, r.s.capz.cmd.Process.Pid})
	}
	if r.s.provider != nil {
		pids = append(pids, struct {
			role string
			pid  int
		}{WriterManager, r.s.provider.PID()})
	}
	if r.s.management != nil {
		if pid := r.s.management.ASOPID(); pid != 0 {
			pids = append(pids, struct {
				role string
				pid  int
			}{WriterASO, pid})
		}
	}
	for _, x := range pids {
		st := ProcessStats{Role: x.role, PID: x.pid}
		cpu, rss, err := readProcess(x.pid)
		if err != nil {
			st.MeasuredError = err.Error()
		}
		st.CPUSeconds, st.PeakRSSBytes = cpu.Seconds(), rss
		p.Processes = append(p.Processes, st)
	}
	r.mu.Lock()
	r.phases[phase] = p
	r.mu.Unlock()
}

// steady waits d after settling, observing the flavors' milestones on the harness's poll period.
func (r *recorder) steady(ctx context.Context, d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		for _, f := range r.flavors {
			r.observe(ctx, f)
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(5*time.Second, time.Until(end))):
		}
	}
}

// deletedAt is when a flavor's Cluster was gone, if deleteAll saw it go.
func (r *recorder) deletedAt(f Flavor) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.deleted[f.Name]
	return t, ok
}

// deleteAll deletes every flavor's Cluster at once and waits until each is gone, or the timeout (PhaseDelete).
func (r *recorder) deleteAll(ctx context.Context, timeout time.Duration) error {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(r.flavors))
	for i, f := range r.flavors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = r.s.deleteCluster(ctx, f, timeout); errs[i] == nil {
				r.mu.Lock()
				r.deleted[f.Name] = time.Now()
				r.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.endPhase(PhaseDelete, start)
	return errors.Join(errs...)
}

// result turns what was recorded into the side's figures: ARM requests of each flavor's subscription and the audit
// log's writes, by phase.
func (r *recorder) result(logDir, name string) (*SideMetrics, error) {
	var events []audit.Event
	var auditErr error
	if raw, err := os.Open(auditLog(logDir, name)); err != nil {
		auditErr = err
	} else {
		auditErr = audit.Read(raw, func(e audit.Event) { events = append(events, e) })
		_ = raw.Close()
	}
	requests := r.s.arm.Requests()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &SideMetrics{Flavors: map[string]FlavorMetrics{}, Phases: map[string]ProcessPhase{}}
	for phase, p := range r.phases {
		p.Writes = CountWrites(events, "", p.Start, p.End)
		out.Phases[phase] = p
	}
	for _, f := range r.flavors {
		applied := r.applied[f.Name]
		ms := r.milestones[f.Name]
		fm := FlavorMetrics{Applied: applied, Phases: map[string]FlavorPhase{}}
		if ms != nil {
			since := func(t time.Time) *float64 {
				if t.IsZero() {
					return nil
				}
				return num(t.Sub(applied).Seconds())
			}
			fm.Ready = Ready{since(ms.infrastructureReady), since(ms.controlPlaneInitialized), since(ms.machinesReady)}
		}
		ofSubscription := subscriptionRequests(requests, f.Subscription)
		for phase, p := range r.phases {
			from, to := p.Start, p.End
			if phase == PhaseCreate {
				from = applied
			}
			if deleted, ok := r.deleted[f.Name]; ok && phase == PhaseDelete {
				to = deleted
			}
			fm.Phases[phase] = FlavorPhase{
				Seconds: to.Sub(from).Seconds(),
				ARM:     CountARM(ofSubscription, from, p.End),
				Writes:  CountWrites(events, f.Namespace(), from, p.End),
			}
		}
		out.Flavors[f.Name] = fm
	}
	if auditErr != nil {
		return out, fmt.Errorf("failed to read the audit log: %w", auditErr)
	}
	return out, nil
}

// subscriptionRequests are the requests of one subscription.
func subscriptionRequests(requests []fakearm.Request, subscription string) []fakearm.Request {
	prefix := strings.ToLower("/subscriptions/" + subscription + "/")
	var out []fakearm.Request
	for _, r := range requests {
		if strings.HasPrefix(strings.ToLower(r.Path), prefix) {
			out = append(out, r)
		}
	}
	return out
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times: USER_HZ, 100 on Linux whatever the kernel's HZ.
const clockTicks = 100

// readProcess reads a process's CPU time (user and system, /proc/<pid>/stat) and peak resident memory
// (/proc/<pid>/status VmHWM). Both include the process's whole life up to now.
func readProcess(pid int) (time.Duration, int64, error) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	cpu, err := parseStatCPU(string(stat))
	if err != nil {
		return 0, 0, err
	}
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return cpu, 0, err
	}
	rss, err := parseVmHWM(string(status))
	return cpu, rss, err
}

// parseStatCPU reads utime and stime (fields 14 and 15) of /proc/<pid>/stat. The command name (field 2) may hold
// spaces and parentheses: fields are counted after its last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no command name in /proc/<pid>/stat")
	}
	fields := strings.Fields(stat[i+1:])
	// fields[0] is field 3 (state): utime is fields[11], stime fields[12].
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/<pid>/stat has %d fields after the command name", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("failed to read a CPU time of /proc/<pid>/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// parseVmHWM reads the peak resident set size of /proc/<pid>/status, in bytes.
func parseVmHWM(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("failed to read VmHWM: %w", err)
		}
		return kb * 1024, nil
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// writeMetrics writes the run's figures to <logDir>/metrics.json.
func writeMetrics(logDir string, m Metrics) error {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(logDir, "metrics.json"), raw, 0o600)
}

// revision names the repository's commit, with -dirty when the tree has changes; "" when git cannot tell.
func revision(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// runMetrics gathers the side processes' figures into the run's (Run).
type runMetrics struct {
	mu sync.Mutex
	m  Metrics
}

func newRunMetrics(ctx context.Context, o Options) *runMetrics {
	m := Metrics{
		Steady: o.Steady.String(), Flavors: map[string]map[string]FlavorMetrics{},
		Processes: map[string]map[string]ProcessPhase{}, Sides: map[string]string{},
	}
	if root, err := env.RepoRoot(); err == nil {
		m.Revision = revision(ctx, root)
	}
	return &runMetrics{m: m}
}

// add takes a side process's figures; nil (a side that measured nothing) adds none.
func (r *runMetrics) add(p SideProcess, sm *SideMetrics) {
	if sm == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m.Sides[p.Name] = p.Side
	r.m.Processes[p.Name] = sm.Phases
	for name, f := range sm.Flavors {
		if r.m.Flavors[name] == nil {
			r.m.Flavors[name] = map[string]FlavorMetrics{}
		}
		r.m.Flavors[name][p.Side] = f
	}
}

// report prints the table and writes metrics.json into the log directory.
func (r *runMetrics) report(o Options) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	PrintMetrics(o.Out, r.m)
	return writeMetrics(o.LogDir, r.m)
}
