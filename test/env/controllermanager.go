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

package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// controllerManagerControllers are the kube-controller-manager controllers a management cluster needs beside
// Cluster API and the provider: the garbage collector (ownerReference cleanup) and the namespace controller (a
// deleted namespace's objects go).
const controllerManagerControllers = "garbagecollector,namespace"

// controllerManager is a kube-controller-manager process.
type controllerManager struct {
	cmd  *exec.Cmd
	dir  string
	done chan struct{} // closed when the process has exited
}

// startControllerManager runs kube-controller-manager from hack/tools/bin against the API server of kubeconfig,
// with only the controllers of controllerManagerControllers and no serving port. It runs in its own process group
// and until stop.
func startControllerManager(root string, kubeconfig []byte, out io.Writer) (*controllerManager, error) {
	binary, err := toolPath(root, "kube-controller-manager")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "capzaso-kube-controller-manager-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(binary,
		"--kubeconfig="+path,
		"--authentication-kubeconfig="+path,
		"--authorization-kubeconfig="+path,
		"--controllers="+controllerManagerControllers,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		// The test API server's objects are few: the default delays only slow the tests down.
		"--concurrent-gc-syncs=5",
		"--concurrent-namespace-syncs=5",
	)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("failed to start kube-controller-manager: %w", err)
	}
	m := &controllerManager{cmd: cmd, dir: dir, done: make(chan struct{})}
	go func() {
		// Its exit status is the answer to stop's SIGTERM (it runs until stop), so only the exit itself counts.
		_ = cmd.Wait()
		close(m.done)
	}()
	return m, nil
}

// stop ends the process group and removes the kubeconfig.
func (m *controllerManager) stop(ctx context.Context) error {
	defer func() { _ = os.RemoveAll(m.dir) }()
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-m.done:
		return nil
	case <-time.After(stopTimeout):
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
		return errors.New("kube-controller-manager did not stop in time; killed it")
	case <-ctx.Done():
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		return ctx.Err()
	}
}
