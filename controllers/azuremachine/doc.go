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

// Package azuremachine implements the AzureMachine controller: it translates an AzureMachine into the ASO objects
// of one virtual machine (network interfaces, public IP, VM, extensions, role assignment), hands them to the
// engine, and reports the provider ID, addresses and state back. It reads the cluster's infrastructure object
// generically, by its AzureCluster-shaped fields, so it works with any InfraCluster kind that has them.
package azuremachine
