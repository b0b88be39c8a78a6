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

// Command bench runs the provider's scale benchmark (make bench, test/bench): it starts a local management plane,
// creates the scenarios' clusters, measures convergence, API writes, latency, memory and CPU, prints the results
// table and writes results.json and results.md into its output folder (out/bench/<time> by default).
package main
