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
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// TestSmoke runs the smoke variant of the benchmark (2 clusters of 5 machines, created and scaled to 0, with 10
// seconds of steady state in between) and checks correctness only: every phase converges, the audit log
// attributes the provider's writes, and the provider writes nothing in steady state. Timings are never asserted.
func TestSmoke(t *testing.T) {
	g := NewWithT(t)
	out, err := os.MkdirTemp("", "capzaso-bench-smoke-")
	g.Expect(err).NotTo(HaveOccurred())
	// The logs of Cluster API and the simulators go to a file, kept when the test fails.
	logFile, err := os.Create(filepath.Join(out, "bench.log"))
	g.Expect(err).NotTo(HaveOccurred())
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for name, value := range map[string]string{"logtostderr": "false", "stderrthreshold": "FATAL", "one_output": "true"} {
		g.Expect(klogFlags.Set(name, value)).To(Succeed())
	}
	klog.SetOutput(logFile)
	ctrl.SetLogger(klog.Background())
	t.Cleanup(func() {
		_ = klogFlags.Set("logtostderr", "true")
		_ = logFile.Close()
		if t.Failed() {
			t.Logf("The run's logs, results and audit log are in %s", out)
			return
		}
		_ = os.RemoveAll(out)
	})

	cfg := SmokeConfig()
	cfg.OutputDir, cfg.Logf, cfg.KeepAuditLog = out, t.Logf, true
	cfg.Command = "go test ./test/bench -run TestSmoke"
	res, err := Run(t.Context(), cfg)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Phases).To(HaveLen(3))
	for _, p := range res.Phases {
		g.Expect(p.Error).To(BeEmpty(), p.Name)
	}

	create := res.phase(PhaseMachinesCreate)
	g.Expect(create.ConvergeSeconds).To(BeNumerically(">", 0), "every AzureMachine became Ready")
	g.Expect(create.NodesSeconds).To(BeNumerically(">", 0), "every Machine got its Node")
	g.Expect(create.ProviderWrites).To(ContainElement(And(HaveField("Resource", "virtualmachines"), HaveField("Verb", "patch"))),
		"the audit log attributes the provider's server-side applies to it")
	g.Expect(create.Changes).To(ContainElement(HaveField("Kind", "AzureMachine")), "the writes of AzureMachines are explained")

	steady := res.phase(PhaseSteady)
	g.Expect(steady.ProviderWrites).To(BeEmpty(), "the provider writes nothing while everything is Ready")

	scale := res.phase(PhaseMachinesScale)
	g.Expect(scale.ConvergeSeconds).To(BeNumerically(">", 0), "every AzureMachine is gone")
	g.Expect(scale.ProviderWrites).To(ContainElement(And(HaveField("Resource", "virtualmachines"), HaveField("Verb", "delete"))))

	for _, f := range []string{"results.json", "results.md"} {
		g.Expect(filepath.Join(out, f)).To(BeARegularFile())
	}
}
