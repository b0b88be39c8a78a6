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

package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
)

// TestLocalPlane runs the local management plane as make run does, applies config/samples/ with kubectl, stops it
// with Ctrl-C (SIGINT) and checks that it exits cleanly, leaving no kube-apiserver or etcd behind.
func TestLocalPlane(t *testing.T) {
	g := NewWithT(t)
	root, err := filepath.Abs("../..")
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()
	binary := filepath.Join(dir, "localplane")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	g.Expect(build.Run()).To(Succeed())

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	state := filepath.Join(dir, "state")
	cmd := exec.CommandContext(ctx, binary, "--state-dir", state)
	cmd.Dir = root
	stdout, err := cmd.StdoutPipe()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cmd.Start()).To(Succeed())
	defer func() { _ = cmd.Process.Kill() }()

	lines := make(chan string, 100)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	var output []string
	waitFor := func(text string) {
		t.Helper()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("localplane exited before printing %q:\n%s", text, strings.Join(output, "\n"))
				}
				output = append(output, line)
				if strings.Contains(line, text) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %q:\n%s", text, strings.Join(output, "\n"))
			}
		}
	}
	waitFor("Press Ctrl-C to stop.")
	kubeconfig := filepath.Join(state, "kubeconfig")
	g.Expect(strings.Join(output, "\n")).To(ContainSubstring("kubeconfig:  " + kubeconfig))

	kubectl := filepath.Join(root, "hack", "tools", "bin", "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("kubectl is not built (make kubectl); the plane started and printed its kubeconfig")
	}
	apply := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "apply", "-f", "config/samples/")
	apply.Dir = root
	out, err := apply.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	g.Expect(strings.Count(string(out), " created")).To(Equal(20), string(out)) // 19 kinds and the identity's Secret
	get := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "azureclusters,azuremachines", "-o", "name")
	out, err = get.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	g.Expect(string(out)).To(ContainSubstring("azurecluster.infrastructure.cluster.x-k8s.io/sample"))

	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	server, err := url.Parse(config.Host)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(apiServerProcesses(server.Port())).NotTo(BeEmpty(), "the API server runs while the plane is up")

	g.Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
	g.Expect(cmd.Wait()).To(Succeed(), "Ctrl-C stops the plane cleanly")
	g.Expect(apiServerProcesses(server.Port())).To(BeEmpty(), "no kube-apiserver is left behind")
}

// apiServerProcesses lists the processes serving the API server's port, from /proc.
func apiServerProcesses(port string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(cmdline), "--secure-port="+port) {
			out = append(out, e.Name())
		}
	}
	return out
}
