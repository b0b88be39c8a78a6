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

// Package switchback is the step between `clusterctl delete --infrastructure azure` and `clusterctl init
// --infrastructure azure:v1.26.0` on the way back to CAPZ (docs/migrating-from-capz.md, "The way back"). With the
// provider stopped, it leaves the management cluster as CAPZ v1.26.0 can take it again:
//
//   - it removes each AzureCluster's status.failureDomains, which the provider writes as Cluster API's v1beta2
//     contract reads them (a list) and CAPZ, on the v1beta1 contract, cannot decode (a map), so that CAPZ's manager
//     would not start;
//   - it releases the provider's ownership of every ASO object's spec, so that the spec CAPZ applies again is CAPZ's
//     alone, as before the first switch. Otherwise a field the provider applied with the value CAPZ applies
//     stays shared, and when CAPZ's pause drops it (CAPZ applies spec.resources again, without what it added at
//     reconcile) the field stays without the rest of its object: an AKS ManagedCluster keeps
//     operatorSpec.secrets.adminCredentials.key without its name, which the API server refuses, so CAPZ can never
//     pause the cluster for the next switch. The values stay; only their ownership goes.
//
// cmd/capz-switch-back runs it.
package switchback
