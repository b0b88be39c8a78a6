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

// Package process runs the provider's manager (main.go at the repository root) as a process of its own, built with
// go build: its memory and CPU are its own (test/bench), and it can be killed between any two writes, as an OOM
// kill or a lost node kills it (test/chaos). A Process waits for the manager's readiness probe, copies what it logs
// to a file (a caller may read each line first), stops it with SIGTERM within a grace period and, past it, makes it
// print its goroutines (SIGQUIT) and fails with the provider's goroutines that still ran (test/env's
// ProviderStopFailed).
package process
