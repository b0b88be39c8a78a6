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

// Package azuremachinepoolmachine implements the AzureMachinePoolMachine controller: it makes the VM (network
// interfaces, extensions, role assignment) of an instance of a Flexible scale set from the instance's model
// (spec.model), in the AzureMachinePool's scale set, reports the instance's state, and deletes its objects when
// the instance goes. The AzureMachinePool controller creates AzureMachinePoolMachines; Cluster API makes a
// Machine for each.
package azuremachinepoolmachine
