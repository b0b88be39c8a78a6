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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// toolexec runs one of the go command's tools (compile, link, vet, ...) as go test -toolexec does, and records
// its CPU under the package the go command names in TOOLEXEC_IMPORTPATH. The go command asks each tool for its
// version (-V=full) to key its build cache; those calls go straight through, so the cache keys do not change.
func toolexec(dir string, args []string) int {
	if dir == "" || slices.Contains(args[1:], "-V=full") {
		if err := syscall.Exec(args[0], args, os.Environ()); err != nil {
			warnf("%v", err)
		}
		return 1
	}
	start := time.Now()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	rec := record{Kind: strings.TrimSuffix(filepath.Base(args[0]), ".exe"), Name: os.Getenv("TOOLEXEC_IMPORTPATH")}
	rec.measured(start, cmd.ProcessState)
	if werr := appendRecord(dir, rec); werr != nil {
		warnf("failed to record %s %s: %v", rec.Kind, rec.Name, werr)
	}
	if err != nil {
		return exitStatus(err)
	}
	return 0
}

// runCommand runs a command and records what it and every process it waited for used.
func runCommand(dir, name string, args []string) int {
	start := time.Now()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		warnf("%v", err)
		return 1
	}
	stopForwarding := forwardSignals(cmd.Process)
	err := cmd.Wait()
	stopForwarding()
	rec := record{Kind: kindCommand, Name: name}
	rec.measured(start, cmd.ProcessState)
	if werr := appendRecord(dir, rec); werr != nil {
		warnf("failed to record %s: %v", name, werr)
	}
	if err != nil {
		return exitStatus(err)
	}
	return 0
}
