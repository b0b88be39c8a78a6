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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestParseStat(t *testing.T) {
	g := NewWithT(t)
	// A command name with spaces and parentheses; utime 100, stime 20, cutime 3, cstime 4 ticks.
	s, err := parseStat([]byte("4242 (kube (api) server) S 17 4242 4242 0 -1 4194560 100 0 0 0 100 20 3 4 20 0 12 0 500 0 0\n"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s).To(Equal(procStat{pid: 4242, ppid: 17, comm: "kube (api) server", ownTicks: 120, cpuTicks: 127}))

	_, err = parseStat([]byte("4242 (x) S 1 2"))
	g.Expect(err).To(HaveOccurred())
}

func TestTreeCPU(t *testing.T) {
	g := NewWithT(t)
	procs := []procStat{
		{pid: 1, ppid: 0, comm: "init", ownTicks: 1000, cpuTicks: 1000},
		{pid: 10, ppid: 1, comm: "a.test", ownTicks: 5, cpuTicks: 5}, // the test binary
		{pid: 11, ppid: 10, comm: "etcd", ownTicks: 6, cpuTicks: 7},
		{pid: 12, ppid: 11, comm: "etcd", ownTicks: 9, cpuTicks: 9},
		{pid: 20, ppid: 1, comm: "go", ownTicks: 300, cpuTicks: 300}, // not in the tree
	}
	cpu, tree := treeCPU(procs, 10)
	g.Expect(cpu).To(Equal(int64(210)))
	g.Expect(tree).To(HaveLen(2))
	cpu, tree = treeCPU(procs, 99)
	g.Expect(cpu).To(Equal(int64(0)))
	g.Expect(tree).To(BeEmpty())

	// The largest time seen of each process counts, by name.
	pc := processCPU{}
	pc.add(procs[2:4])
	pc.add([]procStat{{pid: 11, ppid: 10, comm: "etcd", ownTicks: 100}})
	g.Expect(pc.byName()).To(Equal(map[string]float64{"etcd": 1.09}))
}

func TestTreeCPU_ThisProcess(t *testing.T) {
	g := NewWithT(t)
	procs, err := readProcs()
	g.Expect(err).NotTo(HaveOccurred())
	var self []procStat
	for _, p := range procs {
		if p.pid == os.Getpid() {
			self = append(self, p)
		}
	}
	g.Expect(self).To(HaveLen(1))
	g.Expect(self[0].ppid).To(Equal(os.Getppid()))
}

func TestCPUAt(t *testing.T) {
	g := NewWithT(t)
	samples := [][2]int64{{1000, 0}, {2000, 500}, {4000, 2500}}
	at := func(ms int64) float64 { return cpuAt(samples, time.UnixMilli(ms)) }
	g.Expect(at(500)).To(Equal(0.0))
	g.Expect(at(1500)).To(Equal(0.25))
	g.Expect(at(3000)).To(Equal(1.5))
	g.Expect(at(9000)).To(Equal(2.5))
}

func TestTestPackageOf(t *testing.T) {
	g := NewWithT(t)
	g.Expect(testPackageOf("example.com/m/templates.test")).To(Equal("example.com/m/templates"))
	g.Expect(testPackageOf("example.com/m/templates [example.com/m/templates.test]")).To(Equal("example.com/m/templates"))
	g.Expect(testPackageOf("example.com/m/templates_test [example.com/m/templates.test]")).To(Equal("example.com/m/templates"))
	g.Expect(testPackageOf("k8s.io/api/core/v1")).To(Equal(""))
}

func TestRender(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Output":"PASS\n"}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`,
		`{"Action":"pass","Package":"p"}`,
		`{"Action":"output","Package":"q","Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output","Package":"q","Test":"TestB","Output":"    b_test.go:1: boom\n"}`,
		`{"Action":"output","Package":"q","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}`,
		`{"Action":"fail","Package":"q","Test":"TestB"}`,
		`{"Action":"output","Package":"q","Output":"FAIL\tq\t0.1s\n"}`,
		`{"Action":"fail","Package":"q"}`,
		`{"Action":"build-output","ImportPath":"r","Output":"r/x.go:1: syntax error\n"}`,
		"go: some message that is not an event",
	}, "\n") + "\n"
	var out bytes.Buffer
	g.Expect(render(dir, strings.NewReader(in), &out)).To(Equal(1))
	g.Expect(out.String()).To(Equal("ok  \tp\t0.1s\n" +
		"    b_test.go:1: boom\n--- FAIL: TestB (0.00s)\nFAIL\tq\t0.1s\n" +
		"r/x.go:1: syntax error\n" +
		"go: some message that is not an event\n"))
	kept, err := os.ReadFile(filepath.Join(dir, eventsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(strings.Count(string(kept), "\n")).To(Equal(15))
}

func TestReport(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, r := range []record{
		{Kind: kindTool, Name: "etcd", Wall: 40, User: 50, Sys: 10},
		{Kind: kindCommand, Name: "go test", Wall: 600, User: 900, Sys: 100},
		{Kind: kindCompile, Name: "k8s.io/api/core/v1", User: 30},
		{Kind: kindCompile, Name: "m/a [m/a.test]", User: 2},
		{Kind: kindCompile, Name: "m/a.test", User: 1},
		{Kind: kindLink, Name: "m/a.test", User: 10},
		{Kind: kindTest, Name: "m/a", Wall: 100, User: 300, Sys: 50, Samples: [][2]int64{{0, 0}, {50_000, 100_000}, {100_000, 350_000}},
			Children: map[string]float64{"kube-apiserver": 100, "etcd": 20}},
	} {
		g.Expect(appendRecord(dir, r)).To(Succeed())
	}
	events := `{"Time":"1970-01-01T00:00:10Z","Action":"run","Package":"m/a","Test":"TestX"}
{"Time":"1970-01-01T00:01:00Z","Action":"pass","Package":"m/a","Test":"TestX","Elapsed":50}
`
	g.Expect(os.WriteFile(filepath.Join(dir, eventsFile), []byte(events), 0o600)).To(Succeed())

	var out bytes.Buffer
	p, err := loadProfile(dir)
	g.Expect(err).NotTo(HaveOccurred())
	p.write(&out, "m", 10)
	text := out.String()
	g.Expect(text).To(ContainSubstring("| etcd | 40s | 60 | 50 | 10 |"))
	g.Expect(text).To(ContainSubstring("go test: 1000 CPU-s (user 900, sys 100), 10m00s wall"))
	g.Expect(text).To(ContainSubstring("test binaries and the processes they started 350; compiling shared packages 30 (1 packages); compiling the test packages 3; linking 10 (1 binaries)"))
	g.Expect(text).To(ContainSubstring("| ./a | 350 | 300 | 50 | 1m40s | 0 | 13 |"))
	// TestX ran from 10s (20 CPU-s) to 60s (150 CPU-s).
	g.Expect(text).To(ContainSubstring("| ./a | TestX | 130 | 50s |"))
	g.Expect(text).To(ContainSubstring("| ./a | (TestMain, outside the tests) | 220 | 50s |"))
	g.Expect(text).To(ContainSubstring("| k8s.io/api/core/v1 | 30.0 |"))
	g.Expect(text).To(ContainSubstring("| package | test binary | kube-apiserver | etcd |"))
	g.Expect(text).To(ContainSubstring("| ./a | 230 | 100 | 20 |"))
}

func TestDuration(t *testing.T) {
	g := NewWithT(t)
	g.Expect(duration(6.4)).To(Equal("6s"))
	g.Expect(duration(245)).To(Equal("4m05s"))
	g.Expect(duration(3723)).To(Equal("1h02m03s"))
}

func TestVerbose(t *testing.T) {
	g := NewWithT(t)
	g.Expect(verbose([]string{"-test.paniconexit0", "-test.v=test2json", "-test.timeout=30m"})).To(Equal(
		[]string{"-test.paniconexit0", "-test.v=true", "-test.timeout=30m"}))
}
