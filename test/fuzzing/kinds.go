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

package fuzzing

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// Kind is a kind of the provider's API with its webhooks.
type Kind struct {
	// Name is the kind's name.
	Name string
	// New returns an empty object of the kind.
	New func() client.Object
	// Admission runs the kind's webhooks.
	Admission infrav1.Admission
	// Stored is an admitted object of the kind (the first manifest of Manifests that is admitted), or nil.
	Stored client.Object
}

// Kinds returns every kind an API package adds to a scheme, sorted by name, with its admission. It fails when a
// kind has none: every kind must be in the package's AdmissionFor.
func Kinds(tb testing.TB, addToScheme func(*runtime.Scheme) error, admissionFor func(runtime.Object) infrav1.Admission,
	manifests map[string][][]byte) []Kind {
	tb.Helper()
	scheme := runtime.NewScheme()
	if err := addToScheme(scheme); err != nil {
		tb.Fatal(err)
	}
	var kinds []Kind
	for gvk, t := range scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || t.PkgPath() == reflect.TypeFor[metav1.Status]().PkgPath() {
			continue
		}
		newObj := func() client.Object { return reflect.New(t).Interface().(client.Object) }
		k := Kind{Name: gvk.Kind, New: newObj, Admission: admissionFor(newObj())}
		if k.Admission == nil {
			tb.Fatalf("kind %s has no admission: add it to AdmissionFor", gvk.Kind)
		}
		for _, m := range manifests[gvk.Kind] {
			obj := newObj()
			if Decode(obj, false, m) && k.Admission.Create(context.Background(), obj) == nil {
				k.Stored = obj
				break
			}
		}
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Name < kinds[j].Name })
	return kinds
}

// Admitted returns the seeds (JSON) that the webhooks admit as objects of a kind, and fails when none is: a
// translator fuzz target whose seeds all get rejected would test nothing until the fuzzer found a valid object.
func Admitted(tb testing.TB, adm infrav1.Admission, newObj func() client.Object, seeds [][]byte) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, s := range seeds {
		obj := newObj()
		if Decode(obj, false, s) && adm.Create(context.Background(), obj) == nil {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		tb.Fatalf("none of the %d seeds of %T is admitted", len(seeds), newObj())
	}
	return out
}
