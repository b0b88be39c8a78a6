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

package managed

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// KindsAnnotation records on an owner every kind of raw ASO object it ever applied, so that an object whose kind
// disappeared from spec.resources is still found and deleted.
const KindsAnnotation = "infrastructure.cluster.x-k8s.io/aso-kinds"

// InvalidResourcesReason means spec.resources cannot be applied as given.
const InvalidResourcesReason = "InvalidResources"

// RecordKinds adds the kinds of the objects to the owner's KindsAnnotation and patches the owner at once when
// new kinds appear, before any object of them is applied: a crash between the two must not orphan one. It
// returns every kind recorded.
func RecordKinds(ctx context.Context, c client.Client, owner client.Object, objs []*unstructured.Unstructured) ([]schema.GroupVersionKind, error) {
	recorded := map[string]bool{}
	for _, k := range strings.Split(owner.GetAnnotations()[KindsAnnotation], ";") {
		if k != "" {
			recorded[k] = true
		}
	}
	changed := false
	for _, u := range objs {
		key := kindKey(u.GroupVersionKind())
		if !recorded[key] {
			recorded[key], changed = true, true
		}
	}
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	annotations := owner.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	if changed {
		before := owner.DeepCopyObject().(client.Object)
		annotations[KindsAnnotation] = strings.Join(keys, ";")
		owner.SetAnnotations(annotations)
		if err := c.Patch(ctx, owner, client.MergeFrom(before)); err != nil {
			return nil, fmt.Errorf("failed to record the ASO kinds of %s: %w", client.ObjectKeyFromObject(owner), err)
		}
	}
	return RecordedKinds(owner), nil
}

// kindKey is how KindsAnnotation records a kind: <kind>.<version>.<group>, read back by RecordedKinds.
func kindKey(gvk schema.GroupVersionKind) string {
	return gvk.Kind + "." + gvk.Version + "." + gvk.Group
}

// RecordedKinds returns the kinds an owner recorded, for pausing and deleting its raw objects.
func RecordedKinds(owner client.Object) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range strings.Split(owner.GetAnnotations()[KindsAnnotation], ";") {
		parts := strings.SplitN(k, ".", 3)
		if len(parts) == 3 {
			out = append(out, schema.GroupVersionKind{Kind: parts[0], Version: parts[1], Group: parts[2]})
		}
	}
	return out
}
