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

// Package contract is one table of the behaviours of Azure Service Operator that the provider depends on, run
// against two ASOs: the simulator (test/asosim, TestContract there) and ASO v2.18's own controllers against a fake
// Azure Resource Manager (test/fakearm, TestContract in test/realaso). Each scenario creates ASO objects in a
// namespace of its own, and states what ASO reports of one of them at each step: the Ready condition's status,
// severity and reason, its observedGeneration (always the object's generation), and the metadata ASO writes (its
// finalizer and the resource-id annotation), and, where the credential ASO takes is the question, the client IDs
// that reached Azure for a resource (Azure.ClientIDs). Both ASOs must give the same outcome, so that what the provider's
// tests prove on the fast simulator holds with ASO itself. A difference that is accepted is listed in the scenario
// (Differences), with why; a scenario then says so in the test output instead of comparing.
package contract
