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
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

const (
	// managerShutdownTimeout bounds the stop of the environment's manager. controller-runtime's default (30 s) is
	// short for a loaded CI machine running the race detector, and this manager's runnables stop whole managers and
	// API servers of their own (test/plane's provider, up to 2 min, and its workload cluster): their stop must fit
	// in this one.
	managerShutdownTimeout = 4 * time.Minute
	// slowStop is when a stop is slow enough to print why.
	slowStop = 20 * time.Second
)

// AwaitStop waits for done, the end of what (a manager) after its context was cancelled, and returns what done
// delivers. A stop still running after 20 s writes every goroutine's stack to standard error first: the runnable
// that outlives its cancellation is named there, whether or not the stop ends in time.
func AwaitStop[T any](what string, done <-chan T) T {
	start := time.Now()
	select {
	case v := <-done:
		return v
	case <-time.After(slowStop):
	}
	fmt.Fprintf(os.Stderr, "test/env: %s is slow to stop (still stopping after %s); the goroutines of the process:\n", what, slowStop)
	_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
	v := <-done
	fmt.Fprintf(os.Stderr, "test/env: %s stopped after %s\n", what, time.Since(start).Round(time.Second))
	return v
}
