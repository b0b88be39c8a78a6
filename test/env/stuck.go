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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
)

// The import path prefixes of the provider's code, of the test harness and stand-ins (test/), and of this package,
// whose frames are the stop path itself.
const (
	providerModule = "github.com/capzaso/cluster-api-provider-azure/"
	harnessPrefix  = providerModule + "test/"
	envPrefix      = harnessPrefix + "env."
)

// StuckGoroutine is a goroutine that runs code of the provider, of the test harness or of Cluster API after a
// manager should have stopped it.
type StuckGoroutine struct {
	// Header is the goroutine's first line (its number and state); Frame its innermost function.
	Header, Frame string
	// ProviderFrame is the innermost frame of the provider's own code (not the test harness's) anywhere in the
	// stack, its creator included; empty when there is none.
	ProviderFrame string
}

// Provider tells whether the goroutine runs, or was started by, the provider's own code: whatever it is blocked in
// (Cluster API, controller-runtime, client-go), the provider called it.
func (g StuckGoroutine) Provider() bool { return g.ProviderFrame != "" }

func (g StuckGoroutine) String() string {
	if g.ProviderFrame == "" || g.ProviderFrame == g.Frame {
		return g.Header + " in " + g.Frame
	}
	return g.Header + " in " + g.Frame + ", from " + g.ProviderFrame
}

// stuckGoroutines lists the goroutines of this process that run the provider's, the harness's or Cluster API's
// code, leaving out this package's own stop path. After a manager's stop timed out they name what outlived its
// cancellation, in a line each, short enough to survive a CI log's truncation.
func stuckGoroutines() []StuckGoroutine {
	var dump bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&dump, 2)
	return ParseGoroutines(dump.String(), false)
}

// ParseGoroutines reads a goroutine dump in the format a Go program prints on a panic or SIGQUIT (and
// runtime/pprof with debug=2), and returns the goroutines that run the provider's, the test harness's or Cluster
// API's code anywhere in their stack, leaving out this package's stop path. With process, the dump is of the
// provider's own binary: its main package is the provider's code too.
func ParseGoroutines(dump string, process bool) []StuckGoroutine {
	isProvider := func(fn string) bool {
		return (strings.HasPrefix(fn, providerModule) && !strings.HasPrefix(fn, harnessPrefix)) ||
			(process && strings.HasPrefix(fn, "main."))
	}
	isKnown := func(fn string) bool {
		return strings.HasPrefix(fn, providerModule) || strings.HasPrefix(fn, "sigs.k8s.io/cluster-api/") || isProvider(fn)
	}
	var out []StuckGoroutine
	for _, block := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		g := StuckGoroutine{Header: strings.TrimSuffix(lines[0], ":")}
		stopPath := false
		for _, line := range lines[1:] {
			if strings.HasPrefix(line, "\t") {
				continue
			}
			fn, created := strings.CutPrefix(line, "created by ")
			if created {
				fn, _, _ = strings.Cut(fn, " in goroutine ")
			}
			if !created && strings.HasPrefix(fn, envPrefix) {
				stopPath = true
				break
			}
			if g.ProviderFrame == "" && isProvider(fn) {
				g.ProviderFrame = fn
			}
			if g.Frame == "" && !created && isKnown(fn) {
				g.Frame = fn
			}
		}
		if stopPath || (g.Frame == "" && g.ProviderFrame == "") {
			continue
		}
		if g.Frame == "" {
			g.Frame = g.ProviderFrame
		}
		out = append(out, g)
	}
	return out
}

// maxStuckShown bounds the goroutines judgeSlowStop prints.
const maxStuckShown = 12

// printStuck prints the goroutines a line each, at most maxStuckShown of them.
func printStuck(stuck []StuckGoroutine) {
	for i, g := range stuck {
		if i < maxStuckShown {
			fmt.Fprintf(os.Stderr, "test/env: still running after the stop: %s\n", g)
		}
	}
	if len(stuck) > maxStuckShown {
		fmt.Fprintf(os.Stderr, "test/env: ... and %d more goroutines\n", len(stuck)-maxStuckShown)
	}
}

// judgeSlowStop decides what a manager's stop error means once the manager has returned. A stop that outlived the
// grace period names, a line each, the goroutines still running the provider's, the harness's or Cluster API's code
// (the full dump was printed at slowStop). It stays an error when the provider's own code is anywhere in one of
// their stacks, or when nothing explains it; a stop held up only by Cluster API's controllers or the test harness
// is reported and forgiven: the tests have passed or failed by then, and that slowness is not the provider's.
func judgeSlowStop(stopErr error, stuck []StuckGoroutine) error {
	if !errors.Is(stopErr, context.DeadlineExceeded) {
		return stopErr
	}
	printStuck(stuck)
	for _, g := range stuck {
		if g.Provider() {
			return stopErr
		}
	}
	if len(stuck) == 0 {
		return stopErr
	}
	fmt.Fprintf(os.Stderr, "test/env: the manager's stop outlived its grace period in Cluster API's or the test harness's code, not the provider's: %v (not failing the tests for it)\n", stopErr)
	return nil
}

// ProviderStopError is a stop of the provider's manager that did not finish within its grace period, and the
// goroutines of the provider's code that still ran then.
type ProviderStopError struct {
	// What names the manager (the provider, a replica).
	What string
	// Err is what the stop returned.
	Err error
	// Stuck are the goroutines with the provider's code anywhere in their stacks.
	Stuck []StuckGoroutine
}

func (e *ProviderStopError) Error() string {
	if len(e.Stuck) == 0 {
		return fmt.Sprintf("%s did not stop within its grace period (no goroutine runs the provider's code; see the goroutine dump): %v", e.What, e.Err)
	}
	names := make([]string, 0, min(len(e.Stuck), maxStuckShown))
	for i, g := range e.Stuck {
		if i == maxStuckShown {
			names = append(names, fmt.Sprintf("... and %d more", len(e.Stuck)-maxStuckShown))
			break
		}
		names = append(names, g.String())
	}
	return fmt.Sprintf("%s did not stop within its grace period: %v; still running the provider's code: %s", e.What, e.Err, strings.Join(names, "; "))
}

func (e *ProviderStopError) Unwrap() error { return e.Err }

// newProviderStopError keeps, of the goroutines of a stopping process, those that run the provider's code.
func newProviderStopError(what string, err error, stuck []StuckGoroutine) *ProviderStopError {
	var provider []StuckGoroutine
	for _, g := range stuck {
		if g.Provider() {
			provider = append(provider, g)
		}
	}
	return &ProviderStopError{What: what, Err: err, Stuck: provider}
}

// stopFailures are the provider stops that outlived their grace period in this process (see ProviderStopFailed).
var stopFailures struct {
	mu   sync.Mutex
	errs []error
}

// ProviderStopFailed records a stop of the provider's manager that did not finish within its grace period, so that
// Run fails the package even when the stop happened where nobody reads its error (a runnable's error after a
// manager's shutdown began is only logged), and returns the error that names the cause. stuck are the goroutines of
// the stopping process, from which those running the provider's code are kept: for a manager in this process,
// stuckGoroutines(); for the provider's own process, ParseGoroutines of the dump it printed on SIGQUIT.
func ProviderStopFailed(what string, err error, stuck []StuckGoroutine) error {
	failure := newProviderStopError(what, err, stuck)
	fmt.Fprintf(os.Stderr, "test/env: %v\n", failure)
	stopFailures.mu.Lock()
	defer stopFailures.mu.Unlock()
	stopFailures.errs = append(stopFailures.errs, failure)
	return failure
}

// JudgeProviderStop judges the error a stop of the provider's manager in this process returned: a stop that
// outlived its grace period (context.DeadlineExceeded) is a failure of the provider whatever held it up, named by
// the goroutines that run the provider's code (ProviderStopFailed); other errors are returned as they are.
func JudgeProviderStop(what string, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return ProviderStopFailed(what, err, stuckGoroutines())
}

// providerStopFailures returns the recorded provider stop failures, joined.
func providerStopFailures() error {
	stopFailures.mu.Lock()
	defer stopFailures.mu.Unlock()
	return errors.Join(stopFailures.errs...)
}
