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
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// managerStopGrace is how long the manager may take to stop on SIGTERM.
const managerStopGrace = 45 * time.Second

// buildManager builds the provider's manager (main.go at the repository root) into dir.
func buildManager(ctx context.Context, root, dir string) (string, error) {
	return process.Build(ctx, root, dir)
}

// managerOptions say how to run the provider's manager.
type managerOptions struct {
	binary     string
	kubeconfig string
	// webhookPort and certDir are where the API server expects the provider's webhooks.
	webhookPort int
	certDir     string
	args        []string
	log         string
}

// managerProcess is the provider's manager running as its own process (test/plane/process), so that its memory
// and CPU are its own, and the heap sizes its garbage collector reports.
type managerProcess struct {
	*process.Process
	metricsAddr string

	mu sync.Mutex
	// gcs are the heap sizes the Go runtime reported after each collection (GODEBUG=gctrace=1).
	gcs []gcSample
}

// gcSample is the heap after one garbage collection.
type gcSample struct {
	at time.Time
	// liveMB is the heap marked live by the collection: what the manager's caches and work hold.
	liveMB float64
}

// gcLine matches the gctrace summary of a collection: "... 45->46->23 MB, 47 MB goal, ...".
var gcLine = regexp.MustCompile(`^gc \d+ @.* (\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

func startManager(ctx context.Context, o managerOptions) (*managerProcess, error) {
	metricsAddr, err := process.FreeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{
		// Metrics over plain HTTP: authenticating each scrape would add TokenReviews and SubjectAccessReviews to
		// the provider's requests in the audit log.
		"--diagnostics-address=" + metricsAddr,
		"--insecure-diagnostics",
		"--webhook-port=" + strconv.Itoa(o.webhookPort),
		"--webhook-cert-dir=" + o.certDir,
		"--leader-elect=false",
		// The benchmark's clusters name no identity: ASO's default credential is the simulator's, as on a
		// single-tenant management cluster.
		"--allow-aso-default-credential",
	}
	m := &managerProcess{metricsAddr: metricsAddr}
	m.Process, err = process.Start(ctx, process.Options{
		Binary: o.binary, Kubeconfig: o.kubeconfig, Args: append(args, o.args...), Log: o.log,
		Env: []string{"GODEBUG=gctrace=1"}, Line: m.recordGC,
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// recordGC records the garbage collector's reports, and keeps them out of the log.
func (m *managerProcess) recordGC(line string) bool {
	match := gcLine.FindStringSubmatch(line)
	if match == nil {
		return true
	}
	live, _ := strconv.ParseFloat(match[3], 64)
	m.mu.Lock()
	m.gcs = append(m.gcs, gcSample{at: time.Now(), liveMB: live})
	m.mu.Unlock()
	return false
}

// pid is the manager's process ID.
func (m *managerProcess) pid() int { return m.PID() }

// heap returns the live heap after the last collection before to, and the highest one in [from, to] (that last
// one when no collection ran in between).
func (m *managerProcess) heap(from, to time.Time) (last, peak float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, gc := range m.gcs {
		if gc.at.After(to) {
			break
		}
		last = gc.liveMB
		if !gc.at.Before(from) {
			peak = max(peak, gc.liveMB)
		}
	}
	return last, max(peak, last)
}

// exited reports whether the manager has stopped, and why.
func (m *managerProcess) exited() (bool, error) { return m.Exited() }

// stop stops the manager (SIGTERM); one that is still running after managerStopGrace fails, named by the
// goroutines of the provider's code it still ran.
func (m *managerProcess) stop() error { return m.Stop(managerStopGrace) }
