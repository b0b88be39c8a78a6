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

// Package azurejson writes the <name>-azure-json Secrets with cloud-provider-azure's configuration that CAPZ's
// cluster templates read as KubeadmConfig files: one per AzureMachineTemplate and one per AzureMachinePool. The
// content comes from azure/cloudconfig; this package resolves its inputs (the cluster's infrastructure, its
// identity) and writes the Secret. A Secret is not an ASO object, so the engine is not involved; the rules are
// the engine's all the same: nothing is deleted here (the Secret goes with its owner, through its owner
// reference), a Secret of that name that the provider did not write is the user's and is left alone, and an
// unchanged Secret is not written again. Secret values are never logged.
package azurejson
