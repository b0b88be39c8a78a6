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

// Package aks translates AKS clusters (AzureManagedControlPlane) and their agent pools (AzureManagedMachinePool)
// into ASO containerservice.azure.com objects: one file per ASO kind, each a pure function of resolved inputs.
// ControlPlaneResources and MachinePoolResources assemble everything a control plane or a machine pool needs,
// across packages, in the order the engine applies it.
package aks
