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

// Package parity compares the Azure Resource Manager requests of upstream CAPZ with the provider's, for the same
// cluster manifests (make parity, docs/capz-parity.md).
//
// The comparison is pure: Normalizer turns each side's recorded ARM writes (PUT and PATCH bodies, as test/fakearm
// logs them) into comparable form (generated names and GUIDs replaced, IDs in lower case, secrets redacted, fields
// that ARM computes dropped); Compare matches them resource by resource and reports, per field, the values each side
// sent as sets, because CAPZ's calls are concurrent and their order means nothing; ParseDeliberate reads the table of
// deliberate differences of docs/capz-parity.md, against which every difference is documented or not.
//
// The run itself (Run, and the command in cmd/parity) starts two management planes on a fake ARM each: one with
// CAPZ's manager and CRDs, one with the provider, both with Cluster API's controllers and ASO's own controller, and
// applies the same rendered flavors to both.
package parity
