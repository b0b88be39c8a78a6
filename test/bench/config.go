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
	"strconv"
	"strings"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

// The manager's client rate limits when no --kube-api-qps/--kube-api-burst is given (main.go's defaults); the raw
// floor uses the same unless the manager's arguments say otherwise.
const (
	managerDefaultQPS   = 100
	managerDefaultBurst = 200
)

// Config says what a run creates and measures. A scenario with zero clusters is skipped.
type Config struct {
	// MachineClusters self-managed clusters (AzureCluster, no control plane provider) with one MachineDeployment
	// of MachinesPerCluster workers each: created, then, with ScaleToZero, scaled to 0.
	MachineClusters, MachinesPerCluster int
	ScaleToZero                         bool
	// AKSClusters AKS clusters (AzureManagedControlPlane) with AKSPools agent pools of AKSNodes nodes each.
	AKSClusters, AKSPools, AKSNodes int
	// FlexClusters self-managed clusters with FlexPools Flexible AzureMachinePools of FlexInstances instances each.
	FlexClusters, FlexPools, FlexInstances int

	// Steady is how long everything stays Ready while the writes are counted (the goal is none); 0 skips it.
	Steady time.Duration
	// RawFloor measures, after each create phase, the API server's rate for the same ASO objects.
	RawFloor bool
	// Translation runs BenchmarkMachineResources (azure/compute) and reports it.
	Translation bool
	// ConvergeTimeout bounds each phase.
	ConvergeTimeout time.Duration

	// ManagerBinary is a built manager; empty builds main.go into the output folder.
	ManagerBinary string
	// ManagerArgs are extra flags of the provider's manager (for example --kube-api-qps=50).
	ManagerArgs []string

	// OutputDir receives results.json, results.md, the manager's log and the API server's audit log.
	OutputDir string
	// KeepAuditLog keeps the audit log (it is large) in OutputDir; otherwise it is removed at the end.
	KeepAuditLog bool
	// Command is the command line of the run, written with the results.
	Command string
	// Logf reports progress; nil discards it.
	Logf func(format string, args ...any)
}

// FullConfig is issue #14's scale: 10 clusters of 100 machines scaled to 0, 20 AKS clusters of 5 pools, 5
// clusters of 4 Flexible pools of 50 instances, and 10 minutes of steady state.
func FullConfig() Config {
	return Config{
		MachineClusters: 10, MachinesPerCluster: 100, ScaleToZero: true,
		AKSClusters: 20, AKSPools: 5, AKSNodes: 2,
		FlexClusters: 5, FlexPools: 4, FlexInstances: 50,
		Steady: 10 * time.Minute, RawFloor: true, Translation: true,
		ConvergeTimeout: 30 * time.Minute,
	}
}

// SmokeConfig is the small variant make test runs (correctness only): 2 clusters of 5 machines, scaled to 0, and
// 10 seconds of steady state. Most of its time is starting the plane; more machines would prove nothing more.
func SmokeConfig() Config {
	return Config{
		MachineClusters: 2, MachinesPerCluster: 5, ScaleToZero: true,
		Steady: 10 * time.Second, ConvergeTimeout: 5 * time.Minute,
	}
}

// scenarios returns the cluster name prefixes of the scenarios the run has.
func (c *Config) scenarios() []string {
	var out []string
	if c.MachineClusters > 0 {
		out = append(out, machinesPrefix)
	}
	if c.AKSClusters > 0 {
		out = append(out, aksPrefix)
	}
	if c.FlexClusters > 0 {
		out = append(out, flexPrefix)
	}
	return out
}

func (c *Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// managerLimits returns the manager's client rate limits and the concurrency of its controllers, from its
// arguments or its defaults; the raw floor uses them.
func (c *Config) managerLimits() (qps float32, burst, workers int) {
	qps, burst, workers = managerDefaultQPS, managerDefaultBurst, setup.DefaultConcurrency
	for _, arg := range c.ManagerArgs {
		name, value, ok := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !ok {
			continue
		}
		switch name {
		case "kube-api-qps":
			if v, err := strconv.ParseFloat(value, 32); err == nil {
				qps = float32(v)
			}
		case "kube-api-burst":
			if v, err := strconv.Atoi(value); err == nil {
				burst = v
			}
		case setup.AzureMachineController + "-concurrency":
			if v, err := strconv.Atoi(value); err == nil {
				workers = v
			}
		}
	}
	return qps, burst, workers
}
