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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// event is one event of go test -json (go doc test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// render reads go test -json and prints what go test prints without it: a line per package, and the output of a
// package that fails (without the === RUN/PAUSE/CONT lines that -json's verbose mode adds). It keeps the events in
// the profile directory for the report. It exits 1 when a package failed.
func render(dir string, in io.Reader, out io.Writer) int {
	keep := io.Discard // an io.Writer: the events file replaces it when there is a profile directory
	if dir != "" {
		f, err := os.OpenFile(filepath.Join(dir, eventsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			warnf("%v", err)
		} else {
			defer f.Close()
			buffered := bufio.NewWriter(f)
			defer func() {
				// Keeping the events is best-effort (render's result is go test's), but say when some were lost.
				if err := buffered.Flush(); err != nil {
					warnf("keeping go test's events: %v", err)
				}
			}()
			keep = buffered
		}
	}
	r := newRenderer(out)
	s := bufio.NewScanner(in)
	s.Buffer(make([]byte, 1<<20), 64<<20)
	for s.Scan() {
		line := s.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // not an event: go test's own messages
			continue
		}
		_, _ = keep.Write(append(line, '\n'))
		r.add(e)
	}
	if err := s.Err(); err != nil && !errors.Is(err, io.EOF) {
		warnf("reading go test's events: %v", err)
		return 1
	}
	if r.failed {
		return 1
	}
	return 0
}

// renderer holds each package's output until the package ends.
type renderer struct {
	out    io.Writer
	output map[string][]string
	failed bool
}

func newRenderer(out io.Writer) *renderer {
	return &renderer{out: out, output: map[string][]string{}}
}

func (r *renderer) add(e event) {
	switch {
	case e.Action == "build-output":
		fmt.Fprint(r.out, e.Output)
	case e.Action == "output":
		r.output[e.Package] = append(r.output[e.Package], e.Output)
	case e.Test != "":
		// A test's end: its lines are already kept.
	case e.Action == "pass" || e.Action == "skip":
		// go test prints the summary line of a package that passes (ok, or ? without test files).
		for _, line := range r.output[e.Package] {
			if strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "? ") {
				fmt.Fprint(r.out, line)
			}
		}
		delete(r.output, e.Package)
	case e.Action == "fail":
		r.failed = true
		for _, line := range r.output[e.Package] {
			if !strings.HasPrefix(line, "=== ") {
				fmt.Fprint(r.out, line)
			}
		}
		delete(r.output, e.Package)
	}
}
