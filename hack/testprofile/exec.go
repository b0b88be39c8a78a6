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
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// sampleInterval is how often the CPU of a test binary's process tree is read.
const sampleInterval = time.Second

// execTest runs a test binary as go test -exec does, and records the CPU of its process tree over time and in
// total (from the kernel's accounting of the binary and of every process it waited for).
func execTest(dir string, args []string) int {
	start := time.Now()
	cmd := exec.Command(args[0], verbose(args[1:])...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		warnf("%v", err)
		return 1
	}
	stopForwarding := forwardSignals(cmd.Process)

	rec := record{Kind: kindTest, Name: packageOf(args[0]), Samples: [][2]int64{{start.UnixMilli(), 0}}}
	children := processCPU{}
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		if dir == "" {
			return
		}
		ticker := time.NewTicker(sampleInterval)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-ticker.C:
				if procs, err := readProcs(); err == nil {
					cpu, tree := treeCPU(procs, cmd.Process.Pid)
					rec.Samples = append(rec.Samples, [2]int64{now.UnixMilli(), cpu})
					children.add(tree)
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-sampled
	stopForwarding()

	rec.measured(start, cmd.ProcessState)
	rec.Children = children.byName()
	// A binary that dies (go test's timeout) leaves its API servers unwaited for: the kernel's total misses them,
	// the last sample has them.
	last := rec.Samples[len(rec.Samples)-1][1]
	if total := int64(rec.cpu() * 1000); total < last {
		rec.Unreaped = float64(last-total) / 1000
	}
	rec.Samples = append(rec.Samples, [2]int64{time.Now().UnixMilli(), max(last, int64(rec.cpu()*1000))})
	if werr := appendRecord(dir, rec); werr != nil {
		warnf("failed to record %s: %v", rec.Name, werr)
	}
	if err != nil {
		return exitStatus(err)
	}
	return 0
}

// verbose turns go test -json's -test.v=test2json into -test.v=true. With test2json, testing.M.Run points
// os.Stderr at os.Stdout, which races with the goroutines a TestMain has started before it (a test environment's
// manager logging to os.Stderr), and the race detector fails the package. go test's converter reads -test.v=true's
// output as well: it only insists on test2json's framing marks once it has seen one.
func verbose(args []string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		if arg == "-test.v=test2json" {
			arg = "-test.v=true"
		}
		out[i] = arg
	}
	return out
}

// forwardSignals passes the signals that stop a command on to it, and keeps the wrapper alive until the command
// has ended, so that what it used is still recorded: go test stops a test binary that overruns its timeout with
// SIGQUIT (for the goroutine dump), Ctrl-C sends SIGINT. It returns a function that stops forwarding.
func forwardSignals(p *os.Process) func() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	go func() {
		for s := range signals {
			_ = p.Signal(s)
		}
	}()
	return func() { signal.Stop(signals); close(signals) }
}

// packageOf names the package of a test binary: go test runs it in the package's directory, so the import path is
// the module path joined with that directory's path in the module. Without a go.mod above it, the binary's name.
func packageOf(binary string) string {
	fallback := strings.TrimSuffix(filepath.Base(binary), ".test")
	wd, err := os.Getwd()
	if err != nil {
		return fallback
	}
	for root := wd; ; root = filepath.Dir(root) {
		if module := modulePath(filepath.Join(root, "go.mod")); module != "" {
			rel, err := filepath.Rel(root, wd)
			if err != nil || rel == "." {
				return module
			}
			return module + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return fallback
		}
	}
}

// modulePath reads the module path of a go.mod file; empty if there is none.
func modulePath(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), "\"")
		}
	}
	return ""
}
