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

package plane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane/process"
)

// ReplicaStopGrace is how long a replica may take to stop on SIGTERM: what Kubernetes gives a Pod by default
// (terminationGracePeriodSeconds) before it kills it. A replica still running then fails the package
// (process.Process.Stop). The manager itself is told to wait longer for its runnables (replicaShutdownTimeout), so
// that it is still running when the harness asks for its goroutines.
const (
	ReplicaStopGrace       = 30 * time.Second
	replicaShutdownTimeout = 2 * ReplicaStopGrace
)

// Leader election of the replicas: a lease short enough that a killed leader's successor takes over within seconds,
// and a renew deadline long enough for a busy machine running the race detector (client-go gives each renewal
// half of it).
var leaderElectionArgs = []string{
	"--leader-elect=true",
	"--leader-election-namespace=" + env.ProviderNamespace,
	"--leader-elect-lease-duration=8s",
	"--leader-elect-renew-deadline=6s",
	"--leader-elect-retry-period=1s",
}

// Replicas run the provider as it runs in a Deployment: the manager built from main.go, each replica a process of
// its own (test/plane/process) with leader election on, as the provider's ServiceAccount. A replica can be killed
// (SIGKILL) at any moment, or stopped (SIGTERM) within ReplicaStopGrace. Replicas serve the provider's webhooks on
// ports of their own, which the API server does not call (the test environment's manager serves them).
type Replicas struct {
	binary, kubeconfig, certDir, logDir string

	mu      sync.Mutex
	running []*Replica
	started int
	// problems are what the replicas' logs showed that fails a test: a panic, a data race.
	problems []string
	// lost counts the replicas that exited by themselves after losing their lease.
	lost int
}

// Replica is one process of the provider.
type Replica struct {
	*process.Process
	// Name is replica-<n>, in the order they started; its log is <Name>.log in the log directory.
	Name   string
	leader atomic.Bool
	// stopped tells that the harness killed or stopped the replica: its exit is no problem, even when Running
	// sees it before Kill or Stop return.
	stopped atomic.Bool
}

// Leader reports whether the replica has acquired the leader election lease (and so runs the controllers).
func (r *Replica) Leader() bool { return r.leader.Load() }

// Replicas returns the plane's replicas, none running yet; the first call builds the manager (go build, with this
// test binary's flags), which is kept for the package. Their logs go to logDir.
func (p *Plane) Replicas(ctx context.Context, logDir string) (*Replicas, error) {
	p.buildOnce.Do(func() {
		var dir string
		if dir, p.buildErr = os.MkdirTemp("", "capzaso-manager-"); p.buildErr != nil {
			return
		}
		p.binaryDir = dir
		p.binary, p.buildErr = process.Build(ctx, env.Env.ControlPlane.RootDir, dir)
	})
	if p.buildErr != nil {
		return nil, p.buildErr
	}
	cfg, err := env.ProviderConfig(env.Env.Config)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(logDir, "provider.kubeconfig")
	if err := writeKubeconfig(cfg, kubeconfig); err != nil {
		return nil, err
	}
	return &Replicas{
		binary: p.binary, kubeconfig: kubeconfig, logDir: logDir,
		certDir: env.Env.ControlPlane.WebhookServerOptions().CertDir,
	}, nil
}

// writeKubeconfig writes a client configuration with client certificates as a kubeconfig file.
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["plane"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["provider"] = &clientcmdapi.Context{Cluster: "plane", AuthInfo: "provider"}
	kc.CurrentContext = "provider"
	return clientcmd.WriteToFile(*kc, path)
}

// Start starts one more replica and waits until it is ready (its webhook server serves); it runs the controllers
// once it holds the lease.
func (r *Replicas) Start(ctx context.Context) (*Replica, error) {
	r.mu.Lock()
	r.started++
	rep := &Replica{Name: "replica-" + strconv.Itoa(r.started)}
	r.mu.Unlock()
	// The webhook port is free when it is picked, but another process of the machine may take it before the
	// replica listens: a replica that could not listen is started again on another port.
	var err error
	for attempt := 1; ; attempt++ {
		var webhookAddr string
		if webhookAddr, err = process.FreeAddr(); err != nil {
			return nil, err
		}
		_, port, _ := strings.Cut(webhookAddr, ":")
		args := append(slices.Clone(leaderElectionArgs),
			"--webhook-port="+port, "--webhook-cert-dir="+r.certDir,
			"--diagnostics-address=0", "--insecure-diagnostics",
			"--graceful-shutdown-timeout="+replicaShutdownTimeout.String(),
		)
		log := filepath.Join(r.logDir, rep.Name+".log")
		rep.Process, err = process.Start(ctx, process.Options{
			Binary: r.binary, Kubeconfig: r.kubeconfig, Args: args, Name: "provider " + rep.Name,
			Log:  log,
			Line: func(line string) bool { r.read(rep, line); return true },
		})
		if err == nil {
			break
		}
		if content, readErr := os.ReadFile(log); attempt == 3 || readErr != nil || !strings.Contains(string(content), "address already in use") {
			return nil, err
		}
	}
	r.mu.Lock()
	r.running = append(r.running, rep)
	r.mu.Unlock()
	return rep, nil
}

// read follows a replica's log: when it acquires the lease, and what fails a test.
func (r *Replicas) read(rep *Replica, line string) {
	switch {
	case strings.Contains(line, "Successfully acquired lease"):
		rep.leader.Store(true)
	case strings.Contains(line, "WARNING: DATA RACE"), strings.HasPrefix(line, "panic: "), strings.Contains(line, "Observed a panic"):
		r.mu.Lock()
		r.problems = append(r.problems, fmt.Sprintf("%s: %s (see %s)", rep.Name, line, rep.LogPath()))
		r.mu.Unlock()
	}
}

// Running returns the replicas that run, forgetting those that exited by themselves: a replica that lost its
// lease (its renewals did not reach the API server within the renew deadline) exits, as the manager does in a Pod.
func (r *Replicas) Running() []*Replica {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.running[:0]
	for _, rep := range r.running {
		exited, err := rep.Exited()
		if !exited {
			kept = append(kept, rep)
			continue
		}
		if rep.stopped.Load() {
			continue
		}
		r.lost++
		r.problems = append(r.problems, lostLease(rep, err)...)
	}
	r.running = kept
	return slices.Clone(r.running)
}

// lostLease returns why a replica that exited by itself fails a test: nothing when its log says it lost its lease.
func lostLease(rep *Replica, exitErr error) []string {
	log, err := os.ReadFile(rep.LogPath())
	if err == nil && strings.Contains(string(log), "leader election lost") {
		return nil
	}
	return []string{fmt.Sprintf("%s exited by itself (%v); see %s", rep.Name, exitErr, rep.LogPath())}
}

// Leader returns the running replica that holds the lease, or nil.
func (r *Replicas) Leader() *Replica {
	for _, rep := range r.Running() {
		if rep.Leader() {
			return rep
		}
	}
	return nil
}

// Kill kills a replica with SIGKILL.
func (r *Replicas) Kill(rep *Replica) error {
	rep.stopped.Store(true)
	err := rep.Kill()
	r.forget(rep)
	return err
}

// Stop stops a replica with SIGTERM; one still running after ReplicaStopGrace fails (see process.Process.Stop).
func (r *Replicas) Stop(rep *Replica) error {
	rep.stopped.Store(true)
	err := rep.Stop(ReplicaStopGrace)
	r.forget(rep)
	return err
}

func (r *Replicas) forget(rep *Replica) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = slices.DeleteFunc(r.running, func(x *Replica) bool { return x == rep })
}

// StopAll stops every running replica with SIGTERM, all at once.
func (r *Replicas) StopAll() error {
	running := r.Running()
	errs := make([]error, len(running))
	var wg sync.WaitGroup
	for i, rep := range running {
		wg.Go(func() { errs[i] = r.Stop(rep) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Keep keeps want replicas running until the returned function is called: it starts one whenever fewer run (after
// a kill, or when a replica lost its lease and exited), and first stops (SIGTERM) those beyond want that do not
// lead. The returned function reports the first failure to start or stop one.
func (r *Replicas) Keep(ctx context.Context, want int) (stop func() error) {
	var errs []error
	running := r.Running()
	for _, rep := range running {
		if len(running) <= want {
			break
		}
		if !rep.Leader() {
			errs = append(errs, r.Stop(rep))
			running = r.Running()
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if len(r.Running()) < want {
				if _, err := r.Start(ctx); err != nil && ctx.Err() == nil {
					errs = append(errs, err)
				}
				continue
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() error {
		cancel()
		<-done
		return errors.Join(errs...)
	}
}

// Problems returns what the replicas' logs showed that fails a test (a panic, a data race, an exit other than
// after losing the lease), and how many replicas lost their lease and exited.
func (r *Replicas) Problems() (problems []string, lost int) {
	r.Running()
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.problems), r.lost
}
