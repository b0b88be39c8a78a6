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
)

// The import path prefixes of the provider's code, of the test harness and stand-ins (test/), and of this package,
// whose frames are the stop path itself.
const (
	providerModule = "github.com/capzaso/cluster-api-provider-azure/"
	harnessPrefix  = providerModule + "test/"
	envPrefix      = harnessPrefix + "env."
)

// stuckGoroutine is a goroutine that runs code of the provider, of the test harness or of Cluster API after a
// manager should have stopped it: the goroutine's header and the innermost frame of that code.
type stuckGoroutine struct {
	header, frame string
	// provider tells whether the frame is the provider's own code (not the test harness's, not Cluster API's).
	provider bool
}

func (g stuckGoroutine) String() string { return g.header + " in " + g.frame }

// stuckGoroutines lists the goroutines of this process that run the provider's, the harness's or Cluster API's
// code, leaving out this package's own stop path. After a manager's stop timed out they name what outlived its cancellation, in
// a line each, short enough to survive a CI log's truncation.
func stuckGoroutines() []stuckGoroutine {
	var dump bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&dump, 2)
	return parseStuck(dump.String())
}

// parseStuck reads a goroutine dump in the format of runtime/pprof's debug=2 (as a panic prints it).
func parseStuck(dump string) []stuckGoroutine {
	var out []stuckGoroutine
	for _, block := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		for _, line := range lines[1:] {
			if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by ") {
				continue
			}
			if strings.HasPrefix(line, envPrefix) {
				break
			}
			provider := strings.HasPrefix(line, providerModule) && !strings.HasPrefix(line, harnessPrefix)
			if strings.HasPrefix(line, providerModule) || strings.HasPrefix(line, "sigs.k8s.io/cluster-api/") {
				out = append(out, stuckGoroutine{header: strings.TrimSuffix(lines[0], ":"), frame: line, provider: provider})
				break
			}
		}
	}
	return out
}

// maxStuckShown bounds the goroutines judgeSlowStop prints.
const maxStuckShown = 12

// judgeSlowStop decides what a manager's stop error means once the manager has returned. A stop that outlived the
// grace period names, a line each, the goroutines still running the provider's, the harness's or Cluster API's code
// (the full dump was printed at slowStop). It stays an error when the provider's own code is among them, or when
// nothing explains it; a stop held up only by Cluster API's controllers or the test harness is reported and
// forgiven: the tests have passed or failed by then, and that slowness is not the provider's.
func judgeSlowStop(stopErr error, stuck []stuckGoroutine) error {
	if !errors.Is(stopErr, context.DeadlineExceeded) {
		return stopErr
	}
	provider := false
	for i, g := range stuck {
		provider = provider || g.provider
		if i < maxStuckShown {
			fmt.Fprintf(os.Stderr, "test/env: still running after the stop: %s\n", g)
		}
	}
	if len(stuck) > maxStuckShown {
		fmt.Fprintf(os.Stderr, "test/env: ... and %d more goroutines\n", len(stuck)-maxStuckShown)
	}
	if provider || len(stuck) == 0 {
		return stopErr
	}
	fmt.Fprintf(os.Stderr, "test/env: the manager's stop outlived its grace period in Cluster API's or the test harness's code, not the provider's: %v (not failing the tests for it)\n", stopErr)
	return nil
}
