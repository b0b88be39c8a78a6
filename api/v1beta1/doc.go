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

// Package v1beta1 contains the infrastructure.cluster.x-k8s.io/v1beta1 API of the provider.
//
// The spec of every kind is compatible with cluster-api-provider-azure (CAPZ) v1beta1, so that existing CAPZ
// manifests apply unchanged; the status follows the Cluster API v1beta2 contract (metav1.Condition conditions,
// status.initialization, failure domains as a list).
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.cluster.x-k8s.io
package v1beta1
