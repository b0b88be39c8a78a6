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

// Package cloudconfig translates a cluster into the configuration file of cloud-provider-azure, azure.json, and
// the <machine template>-azure-json Secret that carries it to the machines' bootstrap configuration, as CAPZ does:
// CAPZ's cluster templates write the Secret's control-plane-azure.json or worker-node-azure.json key to
// /etc/kubernetes/azure.json through KubeadmConfig files. Pure functions of resolved inputs, no client.
package cloudconfig
