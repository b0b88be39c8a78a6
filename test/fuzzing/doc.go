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

// Package fuzzing holds what the provider's fuzz targets share: inputs decoded from fuzz data (JSON as the API
// server decodes it, or random structured values), seeds read from the samples and flavors, and the properties
// every webhook and translator must keep (rejections name their fields; translated objects are valid ASO objects).
// The targets (func FuzzXxx) live next to the code they fuzz; make fuzz runs them.
package fuzzing
