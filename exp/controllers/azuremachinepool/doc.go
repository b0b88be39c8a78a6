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

// Package azuremachinepool implements the AzureMachinePool controller: it turns an AzureMachinePool and its
// MachinePool into an ASO VirtualMachineScaleSet and, for a Flexible scale set, into one AzureMachinePoolMachine
// per instance (Cluster API's MachinePool Machines), which it scales and rolls.
//
// Flexible (one VM per instance): each instance is an AzureMachinePoolMachine named <pool>-<5 random characters>,
// whose VM, network interfaces and extensions the AzureMachinePoolMachine controller makes from the instance's
// model (spec.model: the pool's settings when the instance was created). Cluster API's MachinePool controller
// creates a Machine of the same name for each, so a replica, its AzureMachinePoolMachine, its Machine, its VM and
// its Node (by provider ID, the VM's ID) map one to one. Scale-down and rolling updates delete an instance's
// Machine (Cluster API drains the Node and deletes the AzureMachinePoolMachine, whose controller deletes the
// VM); instances whose Machine carries the delete-machine annotation go first, then those not ready, then per
// strategy.rollingUpdate.deletePolicy. A rolling update honours maxSurge and maxUnavailable. providerIDList
// lists the instances' VMs.
//
// Uniform (Azure makes the instances): the scale set's capacity follows the MachinePool's replicas and its VM
// profile holds the template and the MachinePool's bootstrap data. ASO cannot act on one instance, so a Uniform
// pool has no AzureMachinePoolMachines (no MachinePool Machines), accepts only deletePolicy Oldest, and rolls
// a template change by capacity: it surges (or shrinks) by a batch and lets Azure scale in its oldest
// instances. providerIDList lists the scale set's Nodes in the workload cluster.
//
// Taken over from CAPZ (docs/migrating-from-capz.md): CAPZ makes a Flexible scale set with a VM profile too, and
// Azure makes its instances (VMs named <scale set>_<8 characters>) from it. The provider keeps that: such a pool is
// run as a Uniform one (capacity, profile, Nodes), ordering its instances by their Nodes' creation, and gets no
// AzureMachinePoolMachines. Until ASO has read the scale set, the provider makes no instance.
package azuremachinepool
