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
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// managerStartTimeout bounds the wait for the manager's webhook server; on two busy cores the manager's first
// cache sync of every kind takes a while.
const managerStartTimeout = 3 * time.Minute

// buildManager builds the provider's manager (main.go at the repository root) into dir.
func buildManager(ctx context.Context, root, dir string) (string, error) {
	out := filepath.Join(dir, "manager")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = root
	if data, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("failed to build the manager: %w: %s", err, data)
	}
	return out, nil
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

// managerProcess is the provider's manager running as its own process, so that its memory and CPU are its own.
type managerProcess struct {
	cmd         *exec.Cmd
	metricsAddr string
	log         *os.File
	done        chan struct{}
	waitErr     error

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
	metricsAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	healthAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(o.log)
	if err != nil {
		return nil, err
	}
	args := []string{
		// Metrics over plain HTTP: authenticating each scrape would add TokenReviews and SubjectAccessReviews to
		// the provider's requests in the audit log.
		"--diagnostics-address=" + metricsAddr,
		"--insecure-diagnostics",
		"--health-addr=" + healthAddr,
		"--webhook-port=" + strconv.Itoa(o.webhookPort),
		"--webhook-cert-dir=" + o.certDir,
		"--leader-elect=false",
	}
	args = append(args, o.args...)
	cmd := exec.Command(o.binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+o.kubeconfig, "GODEBUG=gctrace=1")
	// The manager dies with the benchmark, even if the benchmark is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("failed to start the manager: %w", err)
	}
	m := &managerProcess{cmd: cmd, metricsAddr: metricsAddr, log: logFile, done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		m.readStderr(stderr)
	}()
	go func() {
		<-copied
		m.waitErr = cmd.Wait()
		close(m.done)
	}()
	if err := m.waitReady(ctx, healthAddr); err != nil {
		return nil, errors.Join(err, m.stop())
	}
	return m, nil
}

// readStderr copies the manager's logs to its log file and records the garbage collector's reports.
func (m *managerProcess) readStderr(r io.Reader) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if match := gcLine.FindStringSubmatch(line); match != nil {
			live, _ := strconv.ParseFloat(match[3], 64)
			m.mu.Lock()
			m.gcs = append(m.gcs, gcSample{at: time.Now(), liveMB: live})
			m.mu.Unlock()
			continue
		}
		fmt.Fprintln(m.log, line)
	}
}

// waitReady waits until the manager's readiness probe (its webhook server) answers.
func (m *managerProcess) waitReady(ctx context.Context, healthAddr string) error {
	ctx, cancel := context.WithTimeout(ctx, managerStartTimeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+healthAddr+"/readyz", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-m.done:
			return fmt.Errorf("the manager exited while starting (%v); see %s", m.waitErr, m.log.Name())
		case <-ctx.Done():
			return fmt.Errorf("the manager was not ready within %s; see %s", managerStartTimeout, m.log.Name())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// pid is the manager's process ID.
func (m *managerProcess) pid() int { return m.cmd.Process.Pid }

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
func (m *managerProcess) exited() (bool, error) {
	select {
	case <-m.done:
		return true, m.waitErr
	default:
		return false, nil
	}
}

// stop asks the manager to stop and kills it if it does not within its graceful shutdown time.
func (m *managerProcess) stop() error {
	defer m.log.Close()
	if exited, _ := m.exited(); exited {
		return nil
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
		return nil
	case <-time.After(45 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
		return errors.New("the manager did not stop within 45s and was killed")
	}
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
