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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
)

// Issue #14's goals.
const (
	goalRateRatio     = 0.5
	goalWritesPerUnit = 8
	goalLatencyP99MS  = 1000
	goalMemoryMB      = 150
	goalTranslationUS = 50
)

// goals compares a run's figures with issue #14's goals.
func goals(r *Results) []Goal {
	var out []Goal
	for _, p := range r.Phases {
		if p.RateRatio > 0 {
			out = append(out, Goal{
				Goal: "converge rate / raw floor rate (" + p.Name + ")", Target: fmt.Sprintf(">= %.1f", goalRateRatio),
				Measured: fmt.Sprintf("%.2f (%.1f vs %.1f %ss/s)", p.RateRatio, p.UnitsPerSecond, p.RawFloor.UnitsPerSecond, p.Unit),
				Met:      p.RateRatio >= goalRateRatio,
			})
		}
	}
	for _, name := range []string{PhaseMachinesCreate, PhaseFlexCreate} {
		if p := r.phase(name); p != nil && p.Units > 0 {
			out = append(out, Goal{
				Goal: "provider writes per " + p.Unit + ", status included (" + p.Name + ")", Target: fmt.Sprintf("<= %d", goalWritesPerUnit),
				Measured: fmt.Sprintf("%.1f", p.WritesPerUnit), Met: p.WritesPerUnit <= goalWritesPerUnit,
			})
		}
	}
	if p := r.phase(PhaseSteady); p != nil {
		out = append(out, Goal{
			Goal: "provider writes in steady state", Target: "0",
			Measured: fmt.Sprintf("%d in %.0f s", p.ProviderWritesTotal, p.WindowSeconds), Met: p.ProviderWritesTotal == 0 && p.Error == "",
		})
	}
	for _, p := range r.Phases {
		if p.Latency != nil && p.Units > 0 && p.Name != PhaseMachinesScale {
			out = append(out, Goal{
				Goal: "ASO Ready → owner status p99 (" + p.Name + ")", Target: fmt.Sprintf("< %d ms", goalLatencyP99MS),
				Measured: fmt.Sprintf("%.0f ms (p50 %.0f ms, %d samples)", p.Latency.P99MS, p.Latency.P50MS, p.Latency.Samples),
				Met:      p.Latency.P99MS < goalLatencyP99MS,
			})
		}
	}
	if m := r.Memory; m != nil {
		out = append(out, Goal{
			Goal: "manager live heap with every scenario's objects (" + m.AtPhase + ")", Target: fmt.Sprintf("< %d MB", goalMemoryMB),
			Measured: fmt.Sprintf("%.0f MB (RSS %.0f MB)", m.HeapLiveMB, m.RSSMB), Met: m.HeapLiveMB > 0 && m.HeapLiveMB < goalMemoryMB,
		})
	}
	for _, t := range r.Translation {
		if t.Name == "BenchmarkMachineResources/translate" {
			out = append(out, Goal{
				Goal: "translation per AzureMachine", Target: fmt.Sprintf("< %d µs", goalTranslationUS),
				Measured: fmt.Sprintf("%.1f µs", t.NsPerOp/1000), Met: t.NsPerOp/1000 < goalTranslationUS,
			})
		}
	}
	return out
}

// benchLine matches a line of go test -bench -benchmem output.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

// translationBenchmark runs BenchmarkMachineResources three times and returns the median of each sub-benchmark.
func translationBenchmark(ctx context.Context, root string) ([]GoBenchmark, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "./azure/compute", "-run", "^$", "-bench", "BenchmarkMachineResources", "-benchmem", "-count", "3")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	runs := map[string][]GoBenchmark{}
	var order []string
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		m := benchLine.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		b := GoBenchmark{Name: m[1]}
		b.NsPerOp, _ = strconv.ParseFloat(m[2], 64)
		b.BytesPerOp, _ = strconv.ParseFloat(m[3], 64)
		b.AllocsPerOp, _ = strconv.ParseFloat(m[4], 64)
		if _, seen := runs[b.Name]; !seen {
			order = append(order, b.Name)
		}
		runs[b.Name] = append(runs[b.Name], b)
	}
	var results []GoBenchmark
	for _, name := range order {
		rs := runs[name]
		sort.Slice(rs, func(i, j int) bool { return rs[i].NsPerOp < rs[j].NsPerOp })
		results = append(results, rs[len(rs)/2])
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("no benchmark results in: %s", out)
	}
	return results, nil
}
