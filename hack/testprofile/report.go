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
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// profile is what the records and events of one run say.
type profile struct {
	tools    []record
	commands []record
	// tests are the test binaries' runs by package.
	tests map[string]record
	// build is the CPU of the build actions by the test package they were run for ("" for the packages every test
	// binary shares) and by kind (compile, link, vet, ...); actions counts them the same way.
	build   map[string]map[string]float64
	actions map[string]map[string]int
	// shared is the CPU of compiling each shared package.
	shared map[string]float64
	// testTimes are the top-level tests' spans, by package.
	testTimes map[string][]testSpan
}

// testSpan is when a top-level test ran.
type testSpan struct {
	name       string
	start, end time.Time
	elapsed    float64
}

// testCPU is a top-level test's CPU, from the samples of its package's process tree.
type testCPU struct {
	pkg, name string
	cpu, wall float64
}

func loadProfile(dir string) (*profile, error) {
	p := &profile{
		tests: map[string]record{}, build: map[string]map[string]float64{}, actions: map[string]map[string]int{},
		shared: map[string]float64{}, testTimes: map[string][]testSpan{},
	}
	err := readLines(filepath.Join(dir, recordsFile), func(line []byte) error {
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		p.add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	starts := map[string]time.Time{}
	err = readLines(filepath.Join(dir, eventsFile), func(line []byte) error {
		var e event
		if json.Unmarshal(line, &e) != nil || e.Test == "" || strings.Contains(e.Test, "/") {
			return nil
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "run":
			starts[key] = e.Time
		case "pass", "fail", "skip":
			if start, ok := starts[key]; ok {
				p.testTimes[e.Package] = append(p.testTimes[e.Package], testSpan{name: e.Test, start: start, end: e.Time, elapsed: e.Elapsed})
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return p, nil
}

// add files a record.
func (p *profile) add(r record) {
	switch r.Kind {
	case kindTool:
		p.tools = append(p.tools, r)
	case kindCommand:
		p.commands = append(p.commands, r)
	case kindTest:
		if prev, ok := p.tests[r.Name]; ok { // the package ran more than once (-count): add up
			r.User, r.Sys, r.Unreaped, r.Wall = r.User+prev.User, r.Sys+prev.Sys, r.Unreaped+prev.Unreaped, r.Wall+prev.Wall
			r.MaxRSSKB = max(r.MaxRSSKB, prev.MaxRSSKB)
			r.Samples = nil
		}
		p.tests[r.Name] = r
	default:
		owner := testPackageOf(r.Name)
		if p.build[owner] == nil {
			p.build[owner], p.actions[owner] = map[string]float64{}, map[string]int{}
		}
		p.build[owner][r.Kind] += r.cpu()
		p.actions[owner][r.Kind]++
		if owner == "" && r.Kind == kindCompile {
			p.shared[r.Name] += r.cpu()
		}
	}
}

// testPackageOf is the test package a build action was run for: "P.test" (the test main package, and the link of
// the test binary) and "X [P.test]" (P's test variants, and packages recompiled against them) belong to P; every
// other package is shared by the binaries that import it.
func testPackageOf(desc string) string {
	if _, variant, ok := strings.Cut(desc, " ["); ok {
		return strings.TrimSuffix(strings.TrimSuffix(variant, "]"), ".test")
	}
	if pkg, ok := strings.CutSuffix(desc, ".test"); ok {
		return pkg
	}
	return ""
}

func readLines(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 64<<20)
	for s.Scan() {
		if len(s.Bytes()) == 0 {
			continue
		}
		if err := fn(s.Bytes()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return s.Err()
}

// cpuAt interpolates a process tree's CPU seconds at t from its samples.
func cpuAt(samples [][2]int64, t time.Time) float64 {
	ms := t.UnixMilli()
	if len(samples) == 0 {
		return 0
	}
	if ms <= samples[0][0] {
		return float64(samples[0][1]) / 1000
	}
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if ms <= b[0] {
			if b[0] == a[0] {
				return float64(b[1]) / 1000
			}
			frac := float64(ms-a[0]) / float64(b[0]-a[0])
			return (float64(a[1]) + frac*float64(b[1]-a[1])) / 1000
		}
	}
	return float64(samples[len(samples)-1][1]) / 1000
}

// testCPUs are the CPU of every top-level test, and of each package's TestMain outside its tests (starting and
// stopping the test environment), most first.
func (p *profile) testCPUs() []testCPU {
	var out []testCPU
	for pkg, rec := range p.tests {
		spans := p.testTimes[pkg]
		if len(rec.Samples) < 2 {
			continue
		}
		var inTests, testWall float64
		for _, s := range spans {
			cpu := cpuAt(rec.Samples, s.end) - cpuAt(rec.Samples, s.start)
			out = append(out, testCPU{pkg: pkg, name: s.name, cpu: cpu, wall: s.elapsed})
			inTests += cpu
			testWall += s.elapsed
		}
		out = append(out, testCPU{pkg: pkg, name: "(TestMain, outside the tests)", cpu: rec.cpu() - inTests, wall: max(rec.Wall-testWall, 0)})
	}
	slices.SortFunc(out, func(a, b testCPU) int {
		return cmp.Or(cmp.Compare(b.cpu, a.cpu), cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.name, b.name))
	})
	return out
}

func report(dir string, args []string, out io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	top := fs.Int("top", 15, "how many tests and shared compiles to list")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if dir == "" {
		warnf("%s is not set", profileDirEnvVar)
		return 2
	}
	p, err := loadProfile(dir)
	if err != nil {
		warnf("%v", err)
		return 1
	}
	p.write(out, modulePath("go.mod"), *top)
	return 0
}

// write prints the tables (Markdown, readable as text in a CI log).
func (p *profile) write(out io.Writer, module string, top int) {
	short := func(pkg string) string {
		if module == "" {
			return pkg
		}
		if pkg == module {
			return "."
		}
		if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
			return "./" + rest
		}
		return pkg
	}

	if len(p.tools) > 0 {
		fmt.Fprintf(out, "\nTool builds (only the tools built in this run; a tool copied from the cache costs nothing)\n\n")
		fmt.Fprintf(out, "| tool | wall | CPU-s | user | sys |\n|---|--:|--:|--:|--:|\n")
		var wall, user, sys float64
		for _, t := range p.tools {
			fmt.Fprintf(out, "| %s | %s | %.0f | %.0f | %.0f |\n", t.Name, duration(t.Wall), t.cpu(), t.User, t.Sys)
			wall, user, sys = wall+t.Wall, user+t.User, sys+t.Sys
		}
		fmt.Fprintf(out, "| **total** | %s | **%.0f** | %.0f | %.0f |\n", duration(wall), user+sys, user, sys)
	}

	var runCPU float64
	for _, r := range p.tests {
		runCPU += r.cpu()
	}
	sum := func(owner string, kinds ...string) (cpu float64, n int) {
		for _, k := range kinds {
			cpu += p.build[owner][k]
			n += p.actions[owner][k]
		}
		return cpu, n
	}
	var ownCompile, link, vet, other float64
	var links int
	for owner, byKind := range p.build {
		for kind, cpu := range byKind {
			switch {
			case owner == "":
			case kind == kindCompile:
				ownCompile += cpu
			case kind == kindLink:
				link += cpu
				links += p.actions[owner][kind]
			case kind == kindVet:
				vet += cpu
			default:
				other += cpu
			}
		}
	}
	sharedCompile, sharedN := sum("", kindCompile)
	var sharedOther float64
	for kind, cpu := range p.build[""] {
		if kind != kindCompile {
			sharedOther += cpu
		}
	}
	for _, c := range p.commands {
		fmt.Fprintf(out, "\n%s: %.0f CPU-s (user %.0f, sys %.0f), %s wall, max RSS %d MB\n", c.Name, c.cpu(), c.User, c.Sys, duration(c.Wall), c.MaxRSSKB/1024)
	}
	fmt.Fprintf(out, "\nWhere the CPU went (CPU-s): test binaries and the processes they started %.0f; compiling shared packages %.0f (%d packages); compiling the test packages %.0f; linking %.0f (%d binaries); vet %.0f; other build steps %.0f\n",
		runCPU, sharedCompile, sharedN, ownCompile, link, links, vet, other+sharedOther)

	pkgs := make([]string, 0, len(p.tests))
	for pkg := range p.tests {
		pkgs = append(pkgs, pkg)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		return cmp.Or(cmp.Compare(p.tests[b].cpu(), p.tests[a].cpu()), cmp.Compare(a, b))
	})
	fmt.Fprintf(out, "\nTest packages by CPU (run: the test binary with every process it started, by the kernel's accounting of the processes it waited for, plus the last sample of any it did not; build: compiling its own packages, linking, vet)\n\n")
	fmt.Fprintf(out, "| package | run CPU-s | user | sys | wall | max RSS MB | build CPU-s |\n|---|--:|--:|--:|--:|--:|--:|\n")
	var total, user, sys, wall, build float64
	for _, pkg := range pkgs {
		r := p.tests[pkg]
		b, _ := sum(pkg, kindCompile, kindLink, kindVet)
		fmt.Fprintf(out, "| %s | %.0f | %.0f | %.0f | %s | %d | %.0f |\n", short(pkg), r.cpu(), r.User, r.Sys, duration(r.Wall), r.MaxRSSKB/1024, b)
		total, user, sys, wall, build = total+r.cpu(), user+r.User, sys+r.Sys, wall+r.Wall, build+b
	}
	fmt.Fprintf(out, "| **total** (%d packages) | **%.0f** | %.0f | %.0f | %s | | %.0f |\n", len(pkgs), total, user, sys, duration(wall), build)

	p.writeProcesses(out, pkgs, short)

	if tests := p.testCPUs(); len(tests) > 0 {
		fmt.Fprintf(out, "\nTop %d tests by CPU (top-level tests, with what their package's processes used meanwhile)\n\n", min(top, len(tests)))
		fmt.Fprintf(out, "| package | test | CPU-s | wall |\n|---|---|--:|--:|\n")
		for _, t := range tests[:min(top, len(tests))] {
			fmt.Fprintf(out, "| %s | %s | %.0f | %s |\n", short(t.pkg), t.name, t.cpu, duration(t.wall))
		}
	}

	if len(p.shared) > 0 {
		names := make([]string, 0, len(p.shared))
		for name := range p.shared {
			names = append(names, name)
		}
		slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(p.shared[b], p.shared[a]), cmp.Compare(a, b)) })
		fmt.Fprintf(out, "\nTop %d shared packages by compile CPU\n\n| package | CPU-s |\n|---|--:|\n", min(top, len(names)))
		for _, name := range names[:min(top, len(names))] {
			fmt.Fprintf(out, "| %s | %.1f |\n", name, p.shared[name])
		}
	}
}

// writeProcesses prints each package's CPU by process: the test binary itself, and its descendants by command name
// (the most used names get a column each, the rest are "other").
func (p *profile) writeProcesses(out io.Writer, pkgs []string, short func(string) string) {
	totals := map[string]float64{}
	for _, pkg := range pkgs {
		for name, cpu := range p.tests[pkg].Children {
			totals[name] += cpu
		}
	}
	if len(totals) == 0 {
		return
	}
	names := make([]string, 0, len(totals))
	for name := range totals {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a, b)) })
	const columns = 5
	other := len(names) > columns
	names = names[:min(columns, len(names))]

	fmt.Fprintf(out, "\nTest packages' CPU-s by process (as last sampled, each second)\n\n| package | test binary | %s |", strings.Join(names, " | "))
	if other {
		fmt.Fprint(out, " other |")
	}
	fmt.Fprintf(out, "\n|---|--:|%s\n", strings.Repeat("--:|", len(names)+map[bool]int{true: 1}[other]))
	for _, pkg := range pkgs {
		r := p.tests[pkg]
		var children float64
		for _, cpu := range r.Children {
			children += cpu
		}
		fmt.Fprintf(out, "| %s | %.0f |", short(pkg), max(r.cpu()-children, 0))
		for _, name := range names {
			fmt.Fprintf(out, " %.0f |", r.Children[name])
			children -= r.Children[name]
		}
		if other {
			fmt.Fprintf(out, " %.0f |", children)
		}
		fmt.Fprintln(out)
	}
}

// duration formats seconds as 1h02m03s, 4m05s or 6s.
func duration(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second)).Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	default:
		return fmt.Sprintf("%ds", s)
	}
}
