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
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWithoutProviderSpec(t *testing.T) {
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, FieldsV1: metav1.NewFieldsV1(fields)}
	}
	const (
		specAndLabels = `{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:location":{}}}`
		labels        = `{"f:metadata":{"f:labels":{"f:a":{}}}}`
		specOnly      = `{"f:spec":{"f:location":{}}}`
	)
	tests := []struct {
		name    string
		in      []metav1.ManagedFieldsEntry
		want    []metav1.ManagedFieldsEntry
		changed bool
		wantErr bool
	}{{
		name:    "the provider's spec goes, its labels stay",
		in:      []metav1.ManagedFieldsEntry{entry(FieldManager, specAndLabels), entry("capz-manager", specOnly)},
		want:    []metav1.ManagedFieldsEntry{entry(FieldManager, labels), entry("capz-manager", specOnly)},
		changed: true,
	}, {
		name:    "an entry left empty goes",
		in:      []metav1.ManagedFieldsEntry{entry(FieldManager, specOnly), entry(pauseFieldManager, labels), entry("capz-manager", specOnly)},
		want:    []metav1.ManagedFieldsEntry{entry(pauseFieldManager, labels), entry("capz-manager", specOnly)},
		changed: true,
	}, {
		name: "another manager's spec stays",
		in:   []metav1.ManagedFieldsEntry{entry(FieldManager, labels), entry("user", specOnly)},
		want: []metav1.ManagedFieldsEntry{entry(FieldManager, labels), entry("user", specOnly)},
	}, {
		name:    "no entry would be left",
		in:      []metav1.ManagedFieldsEntry{entry(FieldManager, specOnly)},
		wantErr: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := WithoutProviderSpec(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tc.wantErr)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("managed fields (-want +got):\n%s", diff)
			}
		})
	}
}
