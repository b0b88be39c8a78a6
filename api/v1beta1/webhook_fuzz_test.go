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

package v1beta1_test

import (
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

// FuzzWebhooks runs the defaulting and validating webhooks of every kind on arbitrary objects: JSON (seeded with
// the samples, the flavors and the invalid manifests of the admission tests) or random structured values. No
// webhook panics, every rejection names its fields, defaulting is idempotent (see fuzzing.CheckAdmission).
func FuzzWebhooks(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	kinds := fuzzing.Kinds(f, infrav1.AddToScheme, infrav1.AdmissionFor, manifests)
	index := map[string]uint8{}
	for i, k := range kinds {
		index[k.Name] = uint8(i)
		for _, m := range manifests[k.Name] {
			f.Add(uint8(i), false, m)
		}
		f.Add(uint8(i), true, []byte(k.Name))
	}
	for _, tt := range invalidManifests {
		i, ok := index[tt.kind]
		if !ok || len(manifests[tt.kind]) == 0 {
			continue
		}
		patch, err := yaml.YAMLToJSON([]byte(tt.patch))
		if err != nil {
			f.Fatal(err)
		}
		patched, err := jsonpatch.MergePatch(manifests[tt.kind][0], patch)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(i, false, patched)
	}

	f.Fuzz(func(t *testing.T, kind uint8, structured bool, data []byte) {
		k := kinds[int(kind)%len(kinds)]
		obj := k.New()
		if !fuzzing.Decode(obj, structured, data) {
			return
		}
		if _, err := fuzzing.CheckAdmission(k.Admission, obj, k.Stored); err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
	})
}
