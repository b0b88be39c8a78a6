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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Kinds of record.
const (
	kindTool    = "tool"    // a tool build of hack/ensure-tool.sh
	kindCommand = "command" // a command run by testprofile run
	kindTest    = "test"    // a test binary run by testprofile exec
	// The other kinds are the go command's tools run by testprofile toolexec: compile, link, asm, cgo, vet, ...
	kindCompile = "compile"
	kindLink    = "link"
	kindVet     = "vet"
)

// recordsFile is the file of the records in the profile directory, one JSON object a line; eventsFile keeps go
// test's JSON events (render).
const (
	recordsFile = "records.jsonl"
	eventsFile  = "events.jsonl"
)

// record is what one process used.
type record struct {
	Kind string `json:"kind"`
	// Name is the tool, the command, the test package, or the go command's TOOLEXEC_IMPORTPATH of a build action
	// ("pkg", "pkg [pkg.test]", "pkg.test").
	Name string `json:"name"`
	// Start is when it started (Unix milliseconds); Wall, User and Sys are seconds; MaxRSSKB is the largest
	// resident set of the process or of any process it waited for.
	Start    int64   `json:"start,omitempty"`
	Wall     float64 `json:"wall"`
	User     float64 `json:"user"`
	Sys      float64 `json:"sys"`
	MaxRSSKB int64   `json:"maxRSSKB,omitempty"`
	Exit     int     `json:"exit,omitempty"`
	// Samples are the CPU of a test binary's process tree over time: [Unix milliseconds, CPU milliseconds].
	Samples [][2]int64 `json:"samples,omitempty"`
	// Children are the CPU seconds of a test binary's descendants by command name (kube-apiserver, etcd, ...), as
	// last sampled; the test binary's own CPU is the rest.
	Children map[string]float64 `json:"children,omitempty"`
	// Unreaped is the CPU seconds of a test binary's descendants that it never waited for, as last sampled: the
	// kernel's User and Sys miss them.
	Unreaped float64 `json:"unreaped,omitempty"`
}

// cpu is the record's CPU seconds.
func (r record) cpu() float64 { return r.User + r.Sys + r.Unreaped }

// measured fills the record from a finished process.
func (r *record) measured(start time.Time, state *os.ProcessState) {
	r.Start = start.UnixMilli()
	r.Wall = time.Since(start).Seconds()
	if state == nil {
		return
	}
	r.User, r.Sys = state.UserTime().Seconds(), state.SystemTime().Seconds()
	if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKB = ru.Maxrss
	}
	r.Exit = state.ExitCode()
}

// appendRecord adds r to the records of dir with one write, so that concurrent processes do not interleave their
// lines. Without a directory it does nothing.
func appendRecord(dir string, r record) error {
	if dir == "" {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, recordsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// warnf reports a problem of the profiler itself; it never changes the wrapped command's result.
func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testprofile: "+format+"\n", args...)
}

// exitStatus is the status to exit with for a command that ended with err: the command's own status, or, when it
// was killed by a signal, the shell's 128+signal.
func exitStatus(err error) int {
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		warnf("%v", err)
		return 1
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return exitErr.ExitCode()
}
