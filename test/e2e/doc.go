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

// Package e2e runs Cluster API end to end in one process (test/plane): Cluster API's own Cluster, Machine,
// MachineSet, MachineDeployment and KubeadmConfig reconcilers and its ClusterCache, the provider's webhooks, and the
// provider's controllers in a manager of their own, on a real API server, with ASO played by test/asosim and a
// second real API server standing in for the workload cluster. The tests apply CAPZ-style manifests and follow a
// cluster from creation to deletion.
//
// Nothing in the package calls Azure. Most tests make their control plane of stand-alone Machines; the kubeadm
// control plane provider runs too, for the tests of Cluster API v1beta1 manifests, and test/kubeletsim plays the
// kubelets, static pods and etcd members it checks.
package e2e
