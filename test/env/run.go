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

package env

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// KubeconfigEnvVar names an environment variable: when it is set, Run writes
// the admin kubeconfig of the test API server to that path, so that a running
// test can be inspected with kubectl.
const KubeconfigEnvVar = "CAPZASO_TEST_ENV_KUBECONFIG"

// timeoutMargin is how long before go test's -timeout the control plane is
// stopped, so that a test binary killed by its timeout leaves no process behind.
const timeoutMargin = 10 * time.Second

// Env is the environment started by Run, for the tests of the package.
var Env *Environment

// Run is for TestMain: it starts the environment once for the package, runs
// the tests, stops the environment and returns the exit code. The run fails
// when a reconciler or webhook panicked, or when a stop of the provider's
// manager outlived its grace period (ProviderStopFailed), even if every test
// passed.
//
// The control plane is also stopped on SIGINT/SIGTERM and shortly before go
// test's -timeout fires. A test that panics ends the process without running
// Run's cleanup; then kube-apiserver and etcd stay behind.
func Run(ctx context.Context, m *testing.M, opts Options) int {
	if flag.Lookup("v") == nil {
		klog.InitFlags(nil) // go test ./pkg -args -v=4 shows controller logs
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	ctrl.SetLogger(klog.Background())

	if fuzzingOnly(flag.CommandLine) {
		// Fuzz targets translate and validate in memory: a fuzzing worker, or a run that only fuzzes (make fuzz),
		// does not start an API server (one per worker would be started otherwise). Env stays nil.
		return m.Run()
	}

	start := time.Now()
	e, err := Start(ctx, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "test/env: failed to start the test environment: %v\n", err)
		return 1
	}
	Env = e
	fmt.Fprintf(os.Stderr, "test/env: started in %s\n", time.Since(start).Round(100*time.Millisecond))

	if path := os.Getenv(KubeconfigEnvVar); path != "" {
		if err := e.ControlPlane.WriteKubeconfig(path); err != nil {
			fmt.Fprintf(os.Stderr, "test/env: %v\n", err)
		}
	}

	stopGuards := guardStop(e)
	code := m.Run()
	stopGuards()

	if err := panicsReported(); err != nil {
		fmt.Fprintf(os.Stderr, "test/env: %v\n", err)
		code = max(code, 1)
	}
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "test/env: failed to stop the test environment: %v\n", err)
		code = max(code, 1)
	}
	// A provider that did not stop within its grace period fails the package, wherever the stop happened.
	if err := providerStopFailures(); err != nil {
		fmt.Fprintf(os.Stderr, "test/env: the provider did not stop in time: %v\n", err)
		code = max(code, 1)
	}
	return code
}

// fuzzingOnly reports whether the test binary only fuzzes: it is a fuzzing worker (-test.fuzzworker), or it
// fuzzes (-test.fuzz) and runs no test (-test.run '^$').
func fuzzingOnly(flags *flag.FlagSet) bool {
	value := func(name string) string {
		if f := flags.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return value("test.fuzzworker") == "true" || (value("test.fuzz") != "" && value("test.run") == "^$")
}

// guardStop stops e when the process is interrupted, or just before go test's
// -timeout ends it, because kube-apiserver and etcd run in their own process
// groups and would outlive the test binary. It returns a function that
// removes the guards.
func guardStop(e *Environment) func() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)

	var deadline <-chan time.Time
	var timer *time.Timer
	if f := flag.Lookup("test.timeout"); f != nil {
		if timeout, err := time.ParseDuration(f.Value.String()); err == nil && timeout > 2*timeoutMargin {
			timer = time.NewTimer(timeout - timeoutMargin)
			deadline = timer.C
		}
	}

	done := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(os.Stderr, "test/env: received %s, stopping the test environment\n", sig)
			_ = e.Stop()
			os.Exit(1)
		case <-deadline:
			fmt.Fprintf(os.Stderr, "test/env: the test binary is about to time out, stopping the test environment\n")
			_ = e.Stop()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(signals)
		if timer != nil {
			timer.Stop()
		}
		close(done)
	}
}

// panicsReported reports the panics that controller-runtime recovered in
// reconcilers and webhooks (its *_panics_total counters).
func panicsReported() error {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return fmt.Errorf("failed to read the panic metrics: %w", err)
	}
	var found []string
	for _, f := range families {
		if !strings.HasSuffix(f.GetName(), "_panics_total") {
			continue
		}
		for _, m := range f.GetMetric() {
			if n := m.GetCounter().GetValue(); n > 0 {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, l.GetName()+"="+l.GetValue())
				}
				found = append(found, fmt.Sprintf("%s{%s} = %.0f", f.GetName(), strings.Join(labels, ","), n))
			}
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("panics were recovered during the tests (see the logs): %s", strings.Join(found, "; "))
	}
	return nil
}
