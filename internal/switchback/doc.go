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

// Package switchback is the step of the way back to CAPZ (docs/migrating-from-capz.md, "The way back"), in two parts
// around `clusterctl init --infrastructure azure:v1.26.0`. With the provider stopped, it leaves the management
// cluster as CAPZ v1.26.0 can take it again:
//
//   - BeforeInit records each AzureCluster's status.failureDomains, which the provider writes as Cluster API's v1beta2
//     contract reads them (a list), in CAPZ's form (a map, v1beta1) in an annotation, and AfterInit, once CAPZ's CRDs
//     are installed, writes that map into the status. CAPZ cannot decode the list, so that its manager would not
//     start; it cannot be converted in one step, since the provider's CRDs refuse the map and CAPZ's prune the list's
//     items on read; and removing the failure domains is not enough: CAPZ gives a MachineDeployment's machine an
//     availability set when its AzureCluster has none (MachineScope.AvailabilitySet), and its machines may be
//     reconciled before their AzureCluster writes its map again;
//   - BeforeInit also releases the provider's ownership of every ASO object's spec, so that the spec CAPZ applies again is CAPZ's
//     alone, as before the first switch. Otherwise a field the provider applied with the value CAPZ applies
//     stays shared, and when CAPZ's pause drops it (CAPZ applies spec.resources again, without what it added at
//     reconcile) the field stays without the rest of its object: an AKS ManagedCluster keeps
//     operatorSpec.secrets.adminCredentials.key without its name, which the API server refuses, so CAPZ can never
//     pause the cluster for the next switch. The values stay; only their ownership goes.
//
// cmd/capz-switch-back runs both.
package switchback
