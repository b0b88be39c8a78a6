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

// Package chaos proves the provider's failure semantics end to end (docs/failure-semantics.md): with Cluster API's
// reconcilers, the ASO simulator and the provider in its own manager (test/plane), the fault table fails the
// provider's API requests (test/faults) while users create, change, scale, upgrade, pause, move and delete
// clusters of every kind (every controller × {create, update, scale, delete, pause}, TestFaultMatrix), and the
// crash suite kills the provider, run as processes of its own with leader election (test/plane's Replicas), at
// random points of such work, some right after the Nth write of a pass. After every step it checks the
// invariants: no ASO object still desired was deleted (or deleted and recreated) or lost its reconcile-policy,
// nothing the user brought was written, nothing owned is left behind after a completed delete, the failure shows
// in the owner's conditions with the API's message, and once the fault clears everything converges without
// duplicates of any ASO kind.
//
// `make test` runs the fault table and a short seeded crash run; `make chaos` runs 100 kills per scenario.
package chaos
