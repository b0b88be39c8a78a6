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
// Package capiplane runs Cluster API's own reconcilers in-process, in the manager that runs the provider: core
// (Cluster, Machine, MachineSet, MachineDeployment, MachinePool, ClusterResourceSet), ClusterClass and topology,
// the kubeadm bootstrap provider and, optionally, the kubeadm control plane provider. With test/env (a real API
// server) and test/asosim (ASO), it is a whole management cluster in one process, for end-to-end tests and the
// local management plane (make run).
//
// Only what Cluster API's main.go files wire is wired, with their defaults; nothing is faked. Webhooks registers
// Cluster API's conversion, defaulting and validating webhooks, which the API server reaches when test/env installs
// them (env.Options.ClusterAPIWebhooks).
package capiplane
