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

// Package switchcheck is the dry run of a switch from CAPZ (docs/migrating-from-capz.md, "Before you start"): it
// reads a management cluster that runs CAPZ, before `clusterctl delete --infrastructure azure`, and reports what
// would block or endanger the switch, each finding naming its object and what to do:
//
//   - an infrastructure provider azure that clusterctl records at another version than CAPZ v1.26.0;
//   - CRDs of the provider's kinds that store another version than v1beta1 (the provider's CRDs could not replace
//     them);
//   - objects of the provider's kinds that its webhooks would refuse: fields the provider does not implement,
//     judged by the provider's own admission (api/v1beta1 AdmissionFor and ValidateImplementedFields) as creating
//     the object would judge it (restoring a `clusterctl move --to-directory` copy creates objects), and updates it
//     would refuse (the takeover updates every object);
//   - clusters not ready to switch: Machines without a provider ID or being deleted, MachineDeployments,
//     MachineSets, KubeadmControlPlanes and MachinePools rolling out, infrastructure objects not Ready;
//   - what could delete a machine before the provider takes it over: Clusters not paused, MachineHealthChecks
//     without the paused annotation, and (a warning: the autoscaler runs elsewhere) node groups of the
//     cluster-autoscaler.
//
// It only reads. cmd/capz-switch-check prints its findings.
package switchcheck
