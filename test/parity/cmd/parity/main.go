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

// Command parity runs make parity: upstream CAPZ and the provider side by side on the same flavors against fake
// Azure Resource Managers, and a report of their ARM requests resource by resource (test/parity). It exits 1 when a
// difference is not documented in docs/capz-parity.md or a flavor did not settle, 2 when it could not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/parity"
)

func main() {
	os.Exit(run())
}

func run() int {
	var o parity.Options
	var flavors, logDir string
	flag.StringVar(&o.CAPZ.Src, "capz-src", os.Getenv("CAPZ_SRC"), "CAPZ's source tree at "+parity.CAPZVersion+" (default $CAPZ_SRC).")
	flag.StringVar(&o.CAPZ.Manager, "capz-manager", os.Getenv("CAPZ_MANAGER"), "CAPZ's "+parity.CAPZVersion+" manager binary (default $CAPZ_MANAGER).")
	var names []string
	for _, f := range parity.Flavors {
		names = append(names, f.Name)
	}
	var more []string
	for _, f := range parity.MoreFlavors {
		more = append(more, f.Name)
	}
	flag.StringVar(&flavors, "flavors", "", "Comma-separated flavors to compare (default "+strings.Join(names, ",")+"; with --switch "+strings.Join(parity.SwitchDefaults, ",")+
		"; not yet documented, on request: "+strings.Join(more, ",")+").")
	flag.StringVar(&o.Docs, "docs", "", "The document of deliberate differences (default docs/capz-parity.md of the repository).")
	flag.StringVar(&o.SwitchDocs, "switch-docs", "", "With --switch, the document whose table of what a switch changes in Azure is the verdict's (default docs/migrating-from-capz.md of the repository).")
	flag.Func("inject", "With --switch, for the tests of the verdict only: a change made in the fake ARM after a switch, before Azure is compared, which must fail the run: "+
		"<switch|back|again>:<set|copy|delete>:<resource type>:<name glob>[:<field>=<JSON or (absent)> | :<new name>]; may be repeated.", func(v string) error {
		in, err := parity.ParseInjection(v)
		if err == nil {
			o.Inject = append(o.Inject, in)
		}
		return err
	})
	flag.StringVar(&logDir, "log-dir", "", "Where the logs and ARM requests of both sides go (default out/parity/<time>).")
	flag.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "How long to wait for the flavors to settle on both sides.")
	flag.DurationVar(&o.Quiet, "quiet", 45*time.Second, "How long Azure must receive no write of a flavor for it to have settled.")
	clusters := flag.Int("clusters", 0, "Scale variant: this many copies of each flavor (named <flavor>-<n>), each with a cluster and subscription of its own; 0: each flavor once. Each self-managed copy starts an API server of its own on each side.")
	workers := flag.Int("workers", 0, "Scale variant: each cluster's worker machines (the templates' WORKER_MACHINE_COUNT); 0: 1.")
	flag.BoolVar(&o.Delete, "delete", false, "After steady state, delete every flavor's Cluster at once on each side and report the deletion's figures.")
	flag.BoolVar(&o.Lifecycle, "lifecycle", true, "After creation (and steady state), scale every MachineDeployment and MachinePool out and back in, upgrade Kubernetes to "+parity.UpgradeVersion+" and delete every Cluster, on both sides, and compare each phase's ARM writes as creation's; false: creation only.")
	flag.DurationVar(&o.Steady, "steady", 0, "How long each side runs on in steady state after settling, its ARM requests and API writes per minute reported (metrics.json); 0: none.")
	var side, sideName, sideResult string
	flag.StringVar(&side, "side", "", "Run one side only ("+parity.SideCAPZ+" or "+parity.SideOurs+") and write its result to --side-result; the comparison runs each side so.")
	flag.StringVar(&sideName, "side-name", "", "The name of --side's logs (default the side).")
	flag.StringVar(&sideResult, "side-result", "", "Where --side writes its result.")
	switchOnly := flag.Bool("switch", false, "Instead of comparing, switch the flavors from CAPZ to the provider on one management plane (docs/migrating-from-capz.md) and report every ARM write and every change to Azure each switch (to the provider, back to CAPZ, to the provider again) made; exit 1 on a created or deleted resource or a change docs/migrating-from-capz.md does not list.")
	flag.StringVar(&o.CAPZ.FeatureGates, "capz-feature-gates", "", "Feature gates of CAPZ's manager besides MachinePool=true (with --side; the comparison sets each flavor's).")
	flag.Parse()

	if err := o.CAPZ.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n", err)
		return 2
	}
	root, err := env.RepoRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n", err)
		return 2
	}
	if o.Docs == "" {
		o.Docs = filepath.Join(root, "docs", "capz-parity.md")
	}
	if o.SwitchDocs == "" {
		o.SwitchDocs = filepath.Join(root, "docs", "migrating-from-capz.md")
	}
	switch {
	case flavors != "":
	case *switchOnly:
		flavors = strings.Join(parity.SwitchDefaults, ",")
	default:
		flavors = strings.Join(names, ",")
	}
	for _, name := range strings.Split(flavors, ",") {
		f, ok := parity.FlavorNamed(strings.TrimSpace(name))
		if !ok {
			known := names
			for _, f := range parity.SwitchFlavors {
				known = append(known, f.Name+" (--switch)")
			}
			fmt.Fprintf(os.Stderr, "make parity: no flavor %q (known: %s)\n", name, strings.Join(known, ", "))
			return 2
		}
		o.Flavors = append(o.Flavors, f)
	}
	// The sides get the flavors' own names and scale them alike.
	base := map[string]string{}
	var scaled []parity.Flavor
	for _, f := range o.Flavors {
		for _, c := range parity.Scale([]parity.Flavor{f}, *clusters, *workers) {
			base[c.Name] = f.Name
			scaled = append(scaled, c)
		}
	}
	o.Flavors = scaled
	if logDir == "" {
		logDir = filepath.Join(root, "out", "parity", time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n", err)
		return 2
	}
	o.LogDir = logDir
	start := time.Now()
	o.Logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "parity [%6s] %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if side != "" {
		if sideName == "" {
			sideName = side
		}
		return runSide(ctx, o, side, sideName, sideResult)
	}

	if *switchOnly {
		return runSwitch(ctx, o, start)
	}

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n", err)
		return 2
	}
	o.SideCommand = func(p parity.SideProcess, resultFile string) *exec.Cmd {
		var flavors []string
		for _, f := range p.Flavors {
			if len(flavors) > 0 && flavors[len(flavors)-1] == base[f.Name] {
				continue
			}
			flavors = append(flavors, base[f.Name])
		}
		return exec.CommandContext(ctx, self, "--capz-src="+o.CAPZ.Src, "--capz-manager="+o.CAPZ.Manager, "--flavors="+strings.Join(flavors, ","),
			"--docs="+o.Docs, "--log-dir="+logDir, "--timeout="+o.Timeout.String(), "--quiet="+o.Quiet.String(), "--steady="+o.Steady.String(), "--delete="+strconv.FormatBool(o.Delete), "--lifecycle="+strconv.FormatBool(o.Lifecycle),
			"--clusters="+strconv.Itoa(*clusters), "--workers="+strconv.Itoa(*workers),
			"--side="+p.Side, "--side-name="+p.Name, "--capz-feature-gates="+p.CAPZFeatureGates, "--side-result="+resultFile)
	}
	o.Out = os.Stdout
	o.Logf("Logs and ARM requests go to %s", logDir)
	result, err := parity.Run(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n(logs: %s)\n", err, logDir)
		return 2
	}
	fmt.Printf("make parity: %d flavors in %s; %d undocumented differences, %d problems (logs: %s)\n",
		len(o.Flavors), time.Since(start).Round(time.Second), len(result.Undocumented), len(result.Problems), logDir)
	if len(result.Undocumented) > 0 || len(result.Problems) > 0 {
		return 1
	}
	return 0
}

// runSide runs one side; the in-process controllers (Cluster API's) and client-go log to <side>-controllers.log.
func runSide(ctx context.Context, o parity.Options, side, name, resultFile string) int {
	closeLog, err := logControllers(&o, name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity: %v\n", err)
		return 2
	}
	defer closeLog()
	if err := parity.RunSide(ctx, o, side, name, resultFile); err != nil {
		o.Logf("%s: %v", name, err)
		return 2
	}
	return 0
}

// runSwitch runs the switch from CAPZ to the provider in this process; the in-process controllers (Cluster API's)
// log to switch-controllers.log.
func runSwitch(ctx context.Context, o parity.Options, start time.Time) int {
	closeLog, err := logControllers(&o, parity.SideSwitch)
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity-switch: %v\n", err)
		return 2
	}
	defer closeLog()
	o.Out = os.Stdout
	o.Logf("Logs and ARM requests go to %s", o.LogDir)
	result, err := parity.RunSwitch(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "make parity-switch: %v\n(logs: %s)\n", err, o.LogDir)
		return 2
	}
	failed := 0
	for _, f := range result.Flavors {
		if f.Failed() {
			failed++
		}
	}
	fmt.Printf("make parity-switch: %d flavors in %s; %d failed: a switch changed Azure in a way the table of %q in %s does not list, or a problem (logs: %s)\n",
		len(o.Flavors), time.Since(start).Round(time.Second), failed, parity.SwitchSection, o.SwitchDocs, o.LogDir)
	if failed > 0 {
		return 1
	}
	return 0
}

// logControllers sends what the in-process controllers (Cluster API's) and client-go log to <name>-controllers.log in
// the log directory, and sets o.Logger to it.
func logControllers(o *parity.Options, name string) (func(), error) {
	logFile, err := os.Create(filepath.Join(o.LogDir, name+"-controllers.log"))
	if err != nil {
		return nil, err
	}
	logger := zap.New(zap.WriteTo(logFile), zap.Level(zapcore.InfoLevel))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)
	o.Logger = logger
	return func() { _ = logFile.Close() }, nil
}
