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

// Package plane is a management cluster for suites that drive the provider end to end: a real API server with
// Cluster API's, ASO's and the provider's CRDs; Cluster API's reconcilers and webhooks (its CRDs convert through
// them, as on a real management cluster), the provider's webhooks and the ASO simulator in the test environment's
// manager; kube-controller-manager's garbage collector and namespace controller; a second API server that plays every workload cluster, whose Nodes
// simulated kubelets register; and the provider's controllers in a manager of their own (Provider), which a suite
// can stop and start again with a fresh cache and whose requests can pass through a fault injector (test/faults).
//
// Fixtures prepare a namespace per test (the workload cluster's kubeconfig, the kubelets, a recorder of the VMs'
// bootstrap data) and apply the cluster manifests of testdata/ with clusterctl-style ${VARIABLES}.
package plane
