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

// Package azure holds what every translator shares: the resolved facts about a cluster (Cluster), its Azure
// tags, the Kubernetes names of ASO objects and Azure resource IDs.
//
// The translators live in one package per Azure area (azure/resources, azure/network, azure/compute,
// azure/authorization, azure/aks). They are pure: a translator function takes plain inputs, already resolved by a
// controller, and returns typed ASO objects. It never reads the cluster, logs or fails on I/O, so every mapping is
// tested with tables and golden files.
package azure
