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

// Package bench measures the provider at the scale platform teams run it (make bench; issue #14): hundreds of
// clusters, thousands of machines, on a real management plane.
//
// The provider's manager runs as its own process (main.go, built with go build), under its generated RBAC role,
// against a real kube-apiserver and etcd (test/env) with its webhooks served to the API server: its memory and CPU
// are its own. Cluster API's reconcilers (test/capiplane), the ASO simulator (test/asosim) and the simulated
// kubelets (test/kubeletsim, on a second API server playing every workload cluster) run in the benchmark's
// process. Every actor has a user of its own, and the API server's audit log attributes each request to one.
//
// A run goes through phases (self-managed clusters with a MachineDeployment created then scaled to 0, AKS clusters
// with agent pools, clusters with Flexible machine pools, steady state) and reports for each: the time to
// converge and its ratio to the raw floor (server-side-applying copies of the same ASO objects with the manager's
// client settings, in the same run); the provider's writes and API reads by resource and verb, per unit; the
// latency from ASO reporting an object Ready to its owner's status showing it (p50/p99); the manager's RSS, live
// heap and CPU; and what its caches hold. Timings depend on the machine and on whatever else runs on it; request
// counts do not. Tests assert correctness only (TestSmoke): everything converges, no write in steady state.
package bench
