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

// Package azuremachinetemplate writes the <template>-azure-json Secret of every AzureMachineTemplate whose Cluster
// is an Azure cluster: cloud-provider-azure's configuration, which CAPZ's cluster templates (and ours) hand to
// their machines as a KubeadmConfig file. It is the only writer of those Secrets (internal/azurejson says how);
// it owns no ASO object and deletes nothing: the Secret goes with its template through its owner reference. It also
// writes the template's status for cluster-autoscaler's scale from zero: nodeInfo from the spec, capacity from the
// Node of a machine of the template (the provider never calls Azure for a VM size's capacity).
package azuremachinetemplate
