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
	"errors"
	"flag"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// helperEnv makes the test binary play a manager (see helperManager) instead of running the tests.
const helperEnv = "PROCESS_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		helperManager(mode)
		return
	}
	os.Exit(m.Run())
}

// helperManager serves a readiness probe on --health-addr and, on SIGTERM, exits (mode "stops") or goes on
// (mode "stuck"), as a manager whose runnables ignore their cancellation does.
func helperManager(mode string) {
	fs := flag.NewFlagSet("helper", flag.ContinueOnError)
	addr := fs.String("health-addr", "", "")
	_ = fs.Parse(os.Args[1:])
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	go func() {
		_ = http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	}()
	if _, err := os.Stderr.WriteString("helper: ready\n"); err != nil {
		os.Exit(2) // the test expects this line in the log
	}
	<-terms
	if mode == "stuck" {
		helperStuck()
	}
	os.Exit(0)
}

// helperStuck never returns.
func helperStuck() {
	select {}
}

func startHelper(t *testing.T, g *WithT, mode string, lines *[]string) *Process {
	t.Helper()
	p, err := Start(t.Context(), Options{
		Binary: os.Args[0], Env: []string{helperEnv + "=" + mode}, Log: filepath.Join(t.TempDir(), "manager.log"),
		Name: "the helper", StartTimeout: time.Minute,
		Line: func(line string) bool {
			if lines != nil {
				*lines = append(*lines, line)
			}
			return true
		},
	})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = p.Kill() })
	return p
}

// TestStop: a manager that exits on SIGTERM stops without an error; its lines went through Line to its log.
func TestStop(t *testing.T) {
	g := NewWithT(t)
	var lines []string
	p := startHelper(t, g, "stops", &lines)
	g.Expect(p.Stop(30 * time.Second)).To(Succeed())
	g.Expect(lines).To(ContainElement("helper: ready"))
	log, err := os.ReadFile(p.LogPath())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(log)).To(ContainSubstring("helper: ready"))
}

// TestStop_Stuck: a manager still running after its grace period is made to print its goroutines, and the stop
// fails naming them.
func TestStop_Stuck(t *testing.T) {
	g := NewWithT(t)
	p := startHelper(t, g, "stuck", nil)
	err := p.Stop(time.Second)
	var stuck *env.ProviderStopError
	g.Expect(errors.As(err, &stuck)).To(BeTrue(), "%v", err)
	frames := make([]string, 0, len(stuck.Stuck))
	for _, s := range stuck.Stuck {
		frames = append(frames, s.String())
	}
	g.Expect(strings.Join(frames, "\n")).To(ContainSubstring("process.helperStuck"))
	exited, _ := p.Exited()
	g.Expect(exited).To(BeTrue())
}

// TestKill: a killed manager is gone when Kill returns, and did not exit by itself.
func TestKill(t *testing.T) {
	g := NewWithT(t)
	p := startHelper(t, g, "stops", nil)
	g.Expect(p.Kill()).To(Succeed())
	exited, err := p.Exited()
	g.Expect(exited).To(BeTrue())
	g.Expect(err).To(MatchError(ContainSubstring("killed")))
}
