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
	"bytes"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestRun_ExitCodes runs the command against a real API server through a kubeconfig file: with nothing to change each
// part says so and exits 0; no part, or a kubeconfig that does not exist, exits 2. internal/switchback's tests cover
// what it changes.
func TestRun_ExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	g := NewWithT(t)
	cp, err := env.StartControlPlane(t.Context(), env.ControlPlaneOptions{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = cp.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfig, cp.KubeConfig, 0o600)).To(Succeed())

	var out, errOut bytes.Buffer
	g.Expect(run([]string{"before-init", "--kubeconfig", kubeconfig}, &out, &errOut)).To(Equal(0), errOut.String())
	g.Expect(out.String()).To(Equal("failure domains recorded for 0 AzureCluster(s); the provider's fields released from 0 ASO object(s)\n"))
	out.Reset()
	g.Expect(run([]string{"after-init", "--kubeconfig", kubeconfig}, &out, &errOut)).To(Equal(0), errOut.String())
	g.Expect(out.String()).To(Equal("failure domains written in CAPZ's form for 0 AzureCluster(s)\n"))

	errOut.Reset()
	g.Expect(run([]string{"--kubeconfig", kubeconfig}, &out, &errOut)).To(Equal(2), "the part is required")
	g.Expect(errOut.String()).To(ContainSubstring("usage: capz-switch-back before-init|after-init"))

	errOut.Reset()
	g.Expect(run([]string{"before-init", "--kubeconfig", filepath.Join(t.TempDir(), "missing")}, &out, &errOut)).To(Equal(2))
	g.Expect(errOut.String()).To(ContainSubstring("capz-switch-back:"))
}
