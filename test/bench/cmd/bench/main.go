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
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capzaso/cluster-api-provider-azure/test/bench"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	os.Exit(run())
}

// run is the command; it returns the exit code, so that its deferred cleanup runs before main exits.
func run() int {
	// --smoke selects the configuration the other flags then change, so it is looked at first.
	cfg := bench.FullConfig()
	for _, arg := range os.Args[1:] {
		if strings.TrimLeft(arg, "-") == "smoke" || strings.TrimLeft(arg, "-") == "smoke=true" {
			cfg = bench.SmokeConfig()
		}
	}
	flag.Bool("smoke", false, "Start from the small smoke configuration (2 clusters of 5 machines, 10 s of steady state) instead of the full one; other flags still apply.")
	var managerArgs stringList
	var docs string
	flag.IntVar(&cfg.MachineClusters, "machine-clusters", cfg.MachineClusters, "Self-managed clusters with a MachineDeployment (0 skips the scenario).")
	flag.IntVar(&cfg.MachinesPerCluster, "machines-per-cluster", cfg.MachinesPerCluster, "Machines of each MachineDeployment.")
	flag.BoolVar(&cfg.ScaleToZero, "scale-to-zero", cfg.ScaleToZero, "Scale the MachineDeployments to 0 at the end.")
	flag.IntVar(&cfg.AKSClusters, "aks-clusters", cfg.AKSClusters, "AKS clusters (0 skips the scenario).")
	flag.IntVar(&cfg.AKSPools, "aks-pools", cfg.AKSPools, "Agent pools of each AKS cluster.")
	flag.IntVar(&cfg.AKSNodes, "aks-nodes", cfg.AKSNodes, "Nodes of each agent pool.")
	flag.IntVar(&cfg.FlexClusters, "flex-clusters", cfg.FlexClusters, "Self-managed clusters with Flexible AzureMachinePools (0 skips the scenario).")
	flag.IntVar(&cfg.FlexPools, "flex-pools", cfg.FlexPools, "Flexible AzureMachinePools of each cluster.")
	flag.IntVar(&cfg.FlexInstances, "flex-instances", cfg.FlexInstances, "Instances of each Flexible pool.")
	flag.DurationVar(&cfg.Steady, "steady", cfg.Steady, "How long to count writes with everything Ready (0 skips it).")
	flag.BoolVar(&cfg.RawFloor, "raw-floor", cfg.RawFloor, "Measure the API server's raw server-side-apply rate after each create phase.")
	flag.BoolVar(&cfg.Translation, "translation", cfg.Translation, "Run BenchmarkMachineResources.")
	flag.DurationVar(&cfg.ConvergeTimeout, "timeout", cfg.ConvergeTimeout, "How long each phase may take to converge.")
	flag.StringVar(&cfg.ManagerBinary, "manager-binary", "", "A built manager to run; empty builds main.go.")
	flag.Var(&managerArgs, "manager-arg", "An extra flag of the provider's manager, e.g. --manager-arg=--kube-api-qps=50 (repeatable).")
	flag.StringVar(&cfg.OutputDir, "out", filepath.Join("out", "bench", time.Now().UTC().Format("20060102-150405")), "The run's output folder.")
	flag.BoolVar(&cfg.KeepAuditLog, "keep-audit-log", false, "Keep the API server's audit log in the output folder.")
	flag.StringVar(&docs, "update-docs", "", "Write the results into this markdown file (docs/performance.md), between its results markers.")
	klog.InitFlags(nil)
	flag.Parse()
	cfg.ManagerArgs = managerArgs
	cfg.Command = "make bench"
	if args := os.Args[1:]; len(args) > 0 {
		cfg.Command = fmt.Sprintf("make bench BENCH_ARGS='%s'", strings.Join(args, " "))
	}
	cfg.Logf = func(format string, args ...any) {
		fmt.Printf("%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
	if err := os.MkdirAll(cfg.OutputDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Cluster API's and the simulators' logs go to a file; the terminal shows progress and the results.
	logFile, err := os.Create(filepath.Join(cfg.OutputDir, "bench.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer logFile.Close()
	_ = flag.Set("logtostderr", "false")
	_ = flag.Set("stderrthreshold", "FATAL")
	_ = flag.Set("one_output", "true")
	klog.SetOutput(logFile)
	ctrl.SetLogger(klog.Background())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg.Logf("Output folder: %s", cfg.OutputDir)
	res, err := bench.Run(ctx, cfg)
	if res != nil {
		fmt.Println()
		fmt.Print(res.Markdown())
		if docs != "" {
			if derr := bench.UpdateDocs(docs, res); derr != nil {
				fmt.Fprintln(os.Stderr, derr)
				err = derr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}
