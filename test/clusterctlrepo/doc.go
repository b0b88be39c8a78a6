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

// Package clusterctlrepo builds a local clusterctl provider repository for the provider: the release assets that
// make release-manifests writes (infrastructure-components.yaml and metadata.yaml, built fresh from config/) and the
// committed cluster templates, laid out as clusterctl reads a file:// provider URL. templates/ and test/clusterctl use
// it, through clusterctl's library and through the clusterctl binary.
package clusterctlrepo
