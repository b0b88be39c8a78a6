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

// Package armgolden compares what Azure receives for a flavor's cluster with golden files: the body of the first
// PUT of every Azure resource the cluster makes, normalised and filed by resource kind and role.
//
// The bodies come from one of two places, and both must match the same golden files:
//   - ASO's own controller against test/fakearm (FromFakeARM): the first PUT fakearm recorded for each ASO object's
//     resource ID. `make goldens` runs every flavor this way; test/realaso runs a few in `make test`.
//   - ASO's own ARM conversion, in process (Render): the ASO object as the ASO simulator had it when it created the
//     resource (asosim's Created, the moment ASO sends its first PUT), its references, secrets and config maps
//     resolved from the API server as ASO's resolver resolves them, converted with the object's ConvertToARM and
//     marshalled as ASO's ARM client marshals it. The templates tests render every flavor this way.
//
// Normalising replaces what changes from run to run (the subscription, the cluster, namespace and machine names,
// the API server's DNS label) with placeholders and redacts secrets and random values (custom data, passwords,
// SSH keys, principal IDs, role assignment names, the custom data hash), so that machines of one role share one
// golden file, a flavor's Cluster API v1beta2 and v1beta1 forms share all of them, and a real run and an in-process
// rendering can be compared.
//
// Golden files are written only when UPDATE_GOLDENS=1; a normal run compares and never writes.
package armgolden
