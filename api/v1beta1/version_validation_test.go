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

package v1beta1

import (
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateKubernetesVersion(t *testing.T) {
	valid := []string{"v1.33.2", "1.33.2", "v1.34.0-rc.1", "v1.33.2+build.1"}
	invalid := []string{"v1.33", "latest", "v1.033.2", " v1.33.2" /* a leading space */, "v1.33.2.1"}
	for _, version := range append(valid, invalid...) {
		t.Run(version, func(t *testing.T) {
			g := NewWithT(t)
			errs := validateKubernetesVersion(field.NewPath("spec", "version"), version)
			if slices.Contains(valid, version) {
				g.Expect(errs).To(BeEmpty())
			} else {
				g.Expect(errs).To(ConsistOf(HaveField("Field", "spec.version")))
			}
		})
	}
}

func TestValidateVersionUpgrade(t *testing.T) {
	tests := []struct {
		name          string
		old, new      string
		autoUpgraded  string
		wantErr       bool
		wantInMessage string
	}{
		{name: "unchanged", old: "v1.33.2", new: "v1.33.2"},
		{name: "unchanged below the auto-upgraded version", old: "v1.33.2", new: "v1.33.2", autoUpgraded: "v1.34.0"},
		{name: "patch", old: "v1.33.2", new: "v1.33.9"},
		{name: "one minor", old: "v1.33.2", new: "v1.34.0"},
		{name: "one minor without v", old: "1.33.2", new: "v1.34.0"},
		{name: "two minors", old: "v1.33.2", new: "v1.35.0", wantErr: true, wantInMessage: "upgrade to v1.34 first"},
		{name: "major", old: "v1.33.2", new: "v2.0.0", wantErr: true},
		{name: "patch downgrade", old: "v1.33.2", new: "v1.33.1", wantErr: true, wantInMessage: "cannot be downgraded"},
		{name: "minor downgrade", old: "v1.33.2", new: "v1.32.2", wantErr: true},
		{name: "release candidate to release", old: "v1.34.0-rc.1", new: "v1.34.0"},
		{name: "below the auto-upgraded version", old: "v1.33.2", new: "v1.34.0", autoUpgraded: "v1.34.2", wantErr: true, wantInMessage: "auto-upgraded"},
		{name: "one minor past the auto-upgraded version", old: "v1.33.2", new: "v1.35.1", autoUpgraded: "v1.34.2"},
		{name: "auto-upgraded version older than the spec", old: "v1.33.2", new: "v1.34.0", autoUpgraded: "v1.32.0"},
		{name: "invalid new version is left to syntax validation", old: "v1.33.2", new: "v1.x"},
		{name: "first version", old: "", new: "v1.35.0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := validateVersionUpgrade(field.NewPath("spec", "version"), tc.old, tc.new, tc.autoUpgraded)
			if !tc.wantErr {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errs).To(HaveLen(1))
			g.Expect(errs[0].Field).To(Equal("spec.version"))
			g.Expect(errs[0].Detail).To(ContainSubstring(tc.wantInMessage))
		})
	}
}
