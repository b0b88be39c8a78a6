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

package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in /proc/<pid>/stat (100 on Linux).
const clockTicks = 100

// procSample is a process's resident memory and CPU time at one moment.
type procSample struct {
	at      time.Time
	rssKB   int64
	cpuTime time.Duration
}

// readProc reads a process's resident set size (VmRSS) and CPU time (utime + stime) from /proc.
func readProc(pid int) (procSample, error) {
	s := procSample{at: time.Now()}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				s.rssKB, _ = strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	// The command name (field 2) may hold spaces: the fields that follow start after its closing parenthesis.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return s, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(stat[i+1:]))
	// After the name: state(3) ... utime(14) stime(15), so indexes 11 and 12 here.
	if len(fields) < 13 {
		return s, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	s.cpuTime = time.Duration(utime+stime) * time.Second / clockTicks
	return s, nil
}

// findProcess returns the PID of a running process whose command line holds every one of the given words (for
// the API server and etcd that envtest started), or 0.
func findProcess(words ...string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			continue
		}
		line := string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		match := true
		for _, w := range words {
			if !strings.Contains(line, w) {
				match = false
				break
			}
		}
		if match {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			return pid
		}
	}
	return 0
}

// sampler records the memory and CPU time of some processes every second.
type sampler struct {
	mu      sync.Mutex
	pids    map[string]int
	samples map[string][]procSample
	stop    chan struct{}
	done    chan struct{}
}

func startSampler(pids map[string]int) *sampler {
	s := &sampler{pids: pids, samples: map[string][]procSample{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, pid := range s.pids {
		if pid == 0 {
			continue
		}
		if p, err := readProc(pid); err == nil {
			s.samples[name] = append(s.samples[name], p)
		}
	}
}

func (s *sampler) close() {
	close(s.stop)
	<-s.done
}

// ProcessStats are a process's figures over a phase.
type ProcessStats struct {
	// RSSPeakMB and RSSEndMB are its resident memory, the highest sampled in the phase and at its end.
	RSSPeakMB float64 `json:"rssPeakMB"`
	RSSEndMB  float64 `json:"rssEndMB"`
	// CPUSeconds is the CPU time it used in the phase.
	CPUSeconds float64 `json:"cpuSeconds"`
}

// stats summarises a process's samples in [from, to].
func (s *sampler) stats(name string, from, to time.Time) *ProcessStats {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	var first, last *procSample
	out := &ProcessStats{}
	samples := s.samples[name]
	for i := range samples {
		p := &samples[i]
		// The last sample before the phase is its CPU baseline.
		if p.at.Before(from) {
			first = p
			continue
		}
		if p.at.After(to) {
			break
		}
		if first == nil {
			first = p
		}
		last = p
		out.RSSPeakMB = max(out.RSSPeakMB, float64(p.rssKB)/1024)
	}
	if first == nil || last == nil {
		return nil
	}
	out.RSSEndMB = float64(last.rssKB) / 1024
	out.CPUSeconds = (last.cpuTime - first.cpuTime).Seconds()
	return out
}
