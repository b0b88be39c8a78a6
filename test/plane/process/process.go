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

package process

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
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// Build builds the provider's manager (main.go in root, the repository) into dir.
func Build(ctx context.Context, root, dir string) (string, error) {
	out := filepath.Join(dir, "manager")
	if err := GoBuild(ctx, root, out); err != nil {
		return "", fmt.Errorf("failed to build the manager: %w", err)
	}
	return out, nil
}

// GoBuild builds the main package in dir into out with the go build flags this binary was built with (-race,
// -gcflags, -ldflags, ...), so that the packages the two share come from the build cache instead of being compiled
// again with other flags (under make test's -race, all but the main package's own).
func GoBuild(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, buildFlags()...), "-o", out, ".")...)
	cmd.Dir = dir
	if data, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, data)
	}
	return nil
}

// buildFlags are the go build flags of the running binary, from its build information.
func buildFlags() []string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range info.Settings {
		switch s.Key {
		case "-race", "-msan", "-asan", "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case "-gcflags", "-ldflags", "-asmflags", "-tags":
			flags = append(flags, s.Key+"="+s.Value)
		}
	}
	return flags
}

// Options say how to run the provider's manager.
type Options struct {
	// Binary is the built manager (Build).
	Binary string
	// Kubeconfig is the kubeconfig file it reaches the API server with.
	Kubeconfig string
	// Args are its flags. Start adds --health-addr (a free port, for the readiness probe) unless Args set it.
	Args []string
	// Env are extra environment variables (NAME=value).
	Env []string
	// Log is the file that receives what the manager writes to standard output and standard error.
	Log string
	// Line, when set, sees every line the manager writes to standard error before the log does; it returns false
	// to keep a line out of the log (test/bench keeps the garbage collector's reports out).
	Line func(line string) bool
	// Name names the process in errors (default "the provider's manager").
	Name string
	// StartTimeout bounds the wait for the readiness probe (default 3 min: on two busy cores the manager's first
	// cache sync of every kind takes a while).
	StartTimeout time.Duration
}

// Process is the provider's manager running as a process of its own.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	// done is closed when the process has exited and its output is copied; waitErr is then its exit status.
	done    chan struct{}
	waitErr error

	mu sync.Mutex
	// dumping is set once the process was sent SIGQUIT; dump then collects what it prints.
	dumping bool
	dump    strings.Builder
}

// Start starts the manager and waits until its readiness probe answers.
func Start(ctx context.Context, o Options) (*Process, error) {
	if o.Name == "" {
		o.Name = "the provider's manager"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 3 * time.Minute
	}
	healthAddr := flagValue(o.Args, "health-addr")
	args := o.Args
	if healthAddr == "" {
		var err error
		if healthAddr, err = FreeAddr(); err != nil {
			return nil, err
		}
		args = append(args[:len(args):len(args)], "--health-addr="+healthAddr)
	}
	logFile, err := os.Create(o.Log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Binary, args...)
	// GOTRACEBACK=all: SIGQUIT prints every goroutine (Stop past its grace).
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+o.Kubeconfig, "GOTRACEBACK=all"), o.Env...)
	// The manager dies with the test, even if the test is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd.Stdout = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("failed to start %s: %w", o.Name, err)
	}
	p := &Process{name: o.Name, cmd: cmd, log: logFile, done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		p.readStderr(stderr, o.Line)
	}()
	go func() {
		<-copied
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	if err := p.waitReady(ctx, healthAddr, o.StartTimeout); err != nil {
		return nil, errors.Join(err, p.Kill())
	}
	return p, nil
}

// flagValue returns the value of --name=value in args, or "".
func flagValue(args []string, name string) string {
	for _, arg := range args {
		if value, ok := strings.CutPrefix(arg, "--"+name+"="); ok {
			return value
		}
	}
	return ""
}

// readStderr copies the manager's standard error to its log, a line at a time, through line; after SIGQUIT it
// keeps the goroutine dump.
func (p *Process) readStderr(r io.Reader, line func(string) bool) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		text := s.Text()
		p.mu.Lock()
		if p.dumping {
			p.dump.WriteString(text)
			p.dump.WriteByte('\n')
		}
		p.mu.Unlock()
		if line != nil && !line(text) {
			continue
		}
		fmt.Fprintln(p.log, text)
	}
	// A line longer than the buffer ends the scan: drain the rest, so that the manager never blocks on its stderr.
	_, _ = io.Copy(p.log, r)
}

// waitReady waits until the manager's readiness probe answers.
func (p *Process) waitReady(ctx context.Context, healthAddr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
		case <-p.done:
			return fmt.Errorf("%s exited while starting (%v); see %s", p.name, p.waitErr, p.log.Name())
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready within %s; see %s", p.name, timeout, p.log.Name())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// PID is the manager's process ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath is the manager's log file.
func (p *Process) LogPath() string { return p.log.Name() }

// Done is closed once the manager has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the manager has exited, and its exit status.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// Kill kills the manager with SIGKILL, as an OOM kill or a lost node does: it stops between any two instructions,
// with no chance to finish a write or release its leader election lease. It returns once the process is gone.
func (p *Process) Kill() error {
	if exited, _ := p.Exited(); exited {
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("failed to kill %s: %w", p.name, err)
	}
	<-p.done
	return nil
}

// Stop asks the manager to stop with SIGTERM, as Kubernetes stops a container, and waits for it for grace. A
// manager still running then is stuck: it is sent SIGQUIT, which makes the Go runtime print every goroutine and
// exit, and Stop returns the failure (recorded by env.ProviderStopFailed, so that the package fails) naming the
// goroutines that ran the provider's code. A manager that exits on SIGTERM with an error is a failure too.
func (p *Process) Stop(grace time.Duration) error {
	if exited, err := p.Exited(); exited {
		return p.exitError(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("failed to stop %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return p.exitError(p.waitErr)
	case <-time.After(grace):
	}
	p.mu.Lock()
	p.dumping = true
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.mu.Lock()
	dump := p.dump.String()
	p.mu.Unlock()
	err := fmt.Errorf("%s was still running %s after SIGTERM (see %s): %w", p.name, grace, p.log.Name(), context.DeadlineExceeded)
	return env.ProviderStopFailed(p.name, err, env.ParseGoroutines(dump, true))
}

// exitError is the error of a manager that exited by itself or on SIGTERM: none when its exit status is 0.
func (p *Process) exitError(waitErr error) error {
	if waitErr == nil {
		return nil
	}
	return fmt.Errorf("%s exited with an error (see %s): %w", p.name, p.log.Name(), waitErr)
}

// FreeAddr returns a loopback address with a port nothing listens on now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
