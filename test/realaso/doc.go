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

// Package realaso runs clusters end to end on Azure Service Operator's own controllers: ASO, built unmodified from
// the module the provider requires, reconciles every ASO object the provider writes against a fake Azure Resource
// Manager (test/fakearm), in place of the ASO simulator the other suites use. Cluster API's reconcilers, the
// provider and a workload API server run as in test/e2e (test/plane). The tests check what users see (Cluster API
// Ready, conditions with ASO's reasons) and what Azure would receive (golden files of ARM request bodies).
package realaso
