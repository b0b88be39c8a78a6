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

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

// FuzzWebhooks runs the defaulting and validating webhooks of the experimental kinds on arbitrary objects: JSON
// (seeded with the samples and flavors) or random structured values. No webhook panics, every rejection names its
// fields, defaulting is idempotent (see fuzzing.CheckAdmission).
func FuzzWebhooks(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	kinds := fuzzing.Kinds(f, infrav1exp.AddToScheme, infrav1exp.AdmissionFor, manifests)
	for i, k := range kinds {
		for _, m := range manifests[k.Name] {
			f.Add(uint8(i), false, m)
		}
		f.Add(uint8(i), true, []byte(k.Name))
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
