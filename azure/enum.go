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

package azure

import "k8s.io/utils/ptr"

// Enum converts an optional string enum into another of the same values: a CAPZ enum into ASO's, or an ASO status
// enum into its spec twin. nil stays nil.
func Enum[T, S ~string](v *S) *T {
	if v == nil {
		return nil
	}
	return ptr.To(T(*v))
}
