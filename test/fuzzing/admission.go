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
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// CheckAdmission runs a kind's webhooks on obj as the API server would on a create, and on updates from stored to
// obj and from obj to stored (stored is an admitted object of the kind, or nil), and checks that
//   - every rejection is a list of field errors, each naming its field (see CheckRejection);
//   - defaulting is idempotent: defaulting an admitted object again changes nothing, and it stays valid;
//   - an admitted object may always be updated to itself.
//
// It returns the admitted, defaulted object, or nil when the create was rejected.
func CheckAdmission(adm infrav1.Admission, obj, stored client.Object) (client.Object, error) {
	ctx := context.Background()
	created := obj.DeepCopyObject().(client.Object)
	err := adm.Create(ctx, created)
	if err := CheckRejection(err); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	if stored != nil {
		if err := CheckRejection(adm.Update(ctx, stored.DeepCopyObject(), obj.DeepCopyObject())); err != nil {
			return nil, fmt.Errorf("update from the stored object: %w", err)
		}
	}
	if err != nil {
		return nil, nil
	}

	again := created.DeepCopyObject().(client.Object)
	if err := adm.Create(ctx, again); err != nil {
		return nil, fmt.Errorf("defaulted object is rejected when defaulted again: %w", err)
	}
	if !equality.Semantic.DeepEqual(created, again) {
		return nil, fmt.Errorf("defaulting is not idempotent (-once +twice):\n%s", jsonDiff(created, again))
	}
	if err := adm.Update(ctx, created.DeepCopyObject(), created.DeepCopyObject()); err != nil {
		return nil, fmt.Errorf("update of an admitted object to itself is rejected: %w", err)
	}
	if stored != nil {
		if err := CheckRejection(adm.Update(ctx, created.DeepCopyObject(), stored.DeepCopyObject())); err != nil {
			return nil, fmt.Errorf("update to the stored object: %w", err)
		}
	}
	return created, nil
}

// jsonDiff shows the difference of the JSON forms of two objects (cmp cannot compare types with unexported fields
// such as resource.Quantity).
func jsonDiff(a, b any) string {
	var ja, jb any
	for _, p := range []struct {
		from any
		to   *any
	}{{a, &ja}, {b, &jb}} {
		data, err := json.Marshal(p.from)
		if err != nil {
			return err.Error()
		}
		if err := json.Unmarshal(data, p.to); err != nil {
			return err.Error()
		}
	}
	return cmp.Diff(ja, jb)
}
