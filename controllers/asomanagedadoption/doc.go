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

// Package asomanagedadoption brings existing AKS clusters under Cluster API. An ASO ManagedCluster the user
// annotates with sigs.k8s.io/cluster-api-provider-azure-adopt: "true" (CAPZ's annotation, aso.HandOverAnnotation)
// gets a Cluster, an AzureASOManagedCluster and an AzureASOManagedControlPlane holding it in spec.resources; an
// annotated ManagedClustersAgentPool of an adopted cluster gets a MachinePool and an AzureASOManagedMachinePool.
// The controllers only create Cluster API objects: the AzureASOManaged controllers then take the ASO objects over
// through the engine, which honours the annotation on objects nobody controls.
//
// The controllers watch ASO objects the provider does not label yet, so they read them from a cache of their own
// (see NewCache), not from the manager's, which holds only the provider's ASO objects.
package asomanagedadoption
