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
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WithoutProviderSpec returns an ASO object's managed fields with nothing under spec owned by the engine's field
// managers (FieldManager and the pause's), and whether that changed anything: the way back to CAPZ
// (internal/switchback) hands the spec to CAPZ's apply alone. An entry left with no field goes. It refuses to leave
// no entry at all, since the API server reads an empty list as "unchanged" and resets [{}], handing every field to
// its "before-first-apply" manager at the next apply, which would then hold them as the provider did.
func WithoutProviderSpec(entries []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, bool, error) {
	spec := []string{"f:spec"}
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	changed := false
	for _, m := range entries {
		if (m.Manager != FieldManager && m.Manager != pauseFieldManager) || !ownsField(m, spec) {
			out = append(out, m)
			continue
		}
		changed = true
		fields, err := withoutField(m, spec)
		if err != nil {
			return nil, false, err
		}
		if fields.GetRawString() == "{}" {
			continue
		}
		m.FieldsV1 = fields
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, false, errors.New("no field manager would be left")
	}
	return out, changed, nil
}
