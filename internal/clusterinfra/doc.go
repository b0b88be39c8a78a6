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

// Package clusterinfra reads what machines need from their cluster's infrastructure object: location, resource
// group, subscription, virtual network, subnets, load balancers and identity. It reads AzureCluster-shaped fields
// by name rather than a kind, so that any InfraCluster exposing them (an AzureCluster managed by the provider or
// by someone else, or another kind) works. The AzureMachine and AzureMachinePool controllers share it.
package clusterinfra
