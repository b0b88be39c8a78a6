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

package aso

import (
	"fmt"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// UserPatches turns the spec.asoPatches of an owner into the engine's patches, in order.
func UserPatches(in []infrav1.ASOPatch) []Patch {
	out := make([]Patch, 0, len(in))
	for i, p := range in {
		out = append(out, Patch{Kind: p.Target.Kind, Name: p.Target.Name, Source: fmt.Sprintf("spec.asoPatches[%d]", i),
			Format: patch.Format(p.Type), Text: p.Patch})
	}
	return out
}

// MergePatches turns CAPZ's per-kind patch lists (asoManagedClusterPatches, asoManagedClustersAgentPoolPatches:
// JSON merge patches of the one object of a kind) into the engine's patches; field names the list for errors.
func MergePatches(kind, field string, texts []string) []Patch {
	out := make([]Patch, 0, len(texts))
	for i, text := range texts {
		out = append(out, Patch{Kind: kind, Source: fmt.Sprintf("spec.%s[%d]", field, i), Format: patch.Merge, Text: text})
	}
	return out
}
