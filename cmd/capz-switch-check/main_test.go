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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestRun_ExitCodes runs the command against a real API server through a kubeconfig file: nothing to switch exits
// 0; a Cluster of an AzureCluster that is not paused is printed as a blocking row and exits 1; a kubeconfig that
// does not exist exits 2.
func TestRun_ExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	g := NewWithT(t)
	ctx := t.Context()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Scheme: scheme.New(), WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = cp.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfig, cp.KubeConfig, 0o600)).To(Succeed())
	c, err := client.New(cp.Config, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())

	var out, errOut bytes.Buffer
	g.Expect(run([]string{"--kubeconfig", kubeconfig}, &out, &errOut)).To(Equal(0), errOut.String())
	g.Expect(out.String()).To(Equal("nothing blocks the switch\n"))

	g.Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}})).To(Succeed())
	g.Expect(c.Create(ctx, &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: "team-a"},
		Spec: clusterv1.ClusterSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureCluster", Name: "workload"},
		},
	})).To(Succeed())
	out.Reset()
	g.Expect(run([]string{"--kubeconfig", kubeconfig, "--namespace", "team-a"}, &out, &errOut)).To(Equal(1), errOut.String())
	g.Expect(out.String()).To(And(
		ContainSubstring("SEVERITY  CHECK"),
		MatchRegexp(`block\s+remediation\s+Cluster team-a/workload\s+is not paused`),
		ContainSubstring("1 finding(s), 1 blocking"),
	))
	out.Reset()
	g.Expect(run([]string{"--kubeconfig", kubeconfig, "--namespace", "team-b"}, &out, &errOut)).To(Equal(0), "another namespace")

	errOut.Reset()
	g.Expect(run([]string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, &out, &errOut)).To(Equal(2))
	g.Expect(errOut.String()).To(ContainSubstring("capz-switch-check:"))
}
