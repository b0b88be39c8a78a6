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
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// clockTicksPerSecond is Linux's USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every architecture Go
// supports (the kernel scales its internal tick to it).
const clockTicksPerSecond = 100

// procStat is what testprofile reads from /proc/<pid>/stat.
type procStat struct {
	pid, ppid int
	// comm is the command name (at most 15 bytes).
	comm string
	// ownTicks is the process's own user and system time; cpuTicks adds those of the children it has waited for.
	ownTicks, cpuTicks int64
}

// parseStat parses the content of /proc/<pid>/stat. The command name (field 2) is in parentheses and may contain
// spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(data []byte) (procStat, error) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("malformed stat %q", data)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return procStat{}, fmt.Errorf("malformed stat %q: %w", data, err)
	}
	// After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
	// cstime ... (proc(5) fields 3 to 17).
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 15 {
		return procStat{}, fmt.Errorf("malformed stat %q", data)
	}
	s := procStat{pid: pid, comm: string(data[open+1 : end])}
	if s.ppid, err = strconv.Atoi(string(fields[1])); err != nil {
		return procStat{}, fmt.Errorf("malformed stat %q: %w", data, err)
	}
	for i, f := range fields[11:15] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("malformed stat %q: %w", data, err)
		}
		if i < 2 {
			s.ownTicks += n
		}
		s.cpuTicks += n
	}
	return s, nil
}

// readProcs reads the stat of every process.
func readProcs() ([]procStat, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []procStat
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it ended meanwhile
		}
		if s, err := parseStat(data); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// treeCPU is the CPU time, in milliseconds, of root and its descendants: of each live process its own time and
// that of the children it has waited for. A process that ended and was waited for counts in its parent; one that
// was never waited for (an orphan) drops out. It also returns the descendants (without root).
func treeCPU(procs []procStat, root int) (int64, []procStat) {
	children := map[int][]procStat{}
	var ticks int64
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
		if p.pid == root {
			ticks += p.cpuTicks
		}
	}
	var tree []procStat
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			ticks += c.cpuTicks
			tree = append(tree, c)
			queue = append(queue, c.pid)
		}
	}
	return ticksToMillis(ticks), tree
}

func ticksToMillis(ticks int64) int64 { return ticks * 1000 / clockTicksPerSecond }

// processCPU keeps the largest own CPU time seen of each process of a tree, to tell by command name where a test
// binary's CPU went. A process's last second before it ends is not seen.
type processCPU map[int]procStat

func (pc processCPU) add(tree []procStat) {
	for _, p := range tree {
		if p.ownTicks >= pc[p.pid].ownTicks {
			pc[p.pid] = p
		}
	}
}

// byName sums the CPU seconds by command name.
func (pc processCPU) byName() map[string]float64 {
	out := map[string]float64{}
	for _, p := range pc {
		out[p.comm] += float64(ticksToMillis(p.ownTicks)) / 1000
	}
	return out
}
