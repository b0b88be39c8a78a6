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

package armgolden

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// FromSimulator renders the entries of a namespace's ASO objects as the ASO simulator created their resources
// (asosim.Options.RecordCreates), with ASO's own ARM conversion (Render).
func FromSimulator(ctx context.Context, reader client.Reader, scheme *runtime.Scheme, created []asosim.Created, names Names) (Set, error) {
	out := Set{}
	for _, c := range created {
		body, err := Render(ctx, reader, scheme, c.Object)
		if err != nil {
			return nil, err
		}
		if err := out.add(ctx, reader, c.Object, c.ID, names, body); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FromFakeARM reads the entries of a namespace's ASO objects from the requests fakearm received: for each object,
// the first PUT of its resource ID (its resource-id annotation). An object that ASO has not sent is an error.
func FromFakeARM(ctx context.Context, reader client.Reader, requests []fakearm.Request, objects []client.Object, names Names) (Set, error) {
	first := map[string][]byte{}
	for _, r := range requests {
		if r.Method == "PUT" {
			if _, seen := first[strings.ToLower(r.Path)]; !seen {
				first[strings.ToLower(r.Path)] = r.Body
			}
		}
	}
	out := Set{}
	for _, o := range objects {
		obj, ok := o.(genruntime.ARMMetaObject)
		if !ok {
			return nil, fmt.Errorf("%T is not an ASO object", o)
		}
		id := obj.GetAnnotations()[genruntime.ResourceIDAnnotation]
		raw, ok := first[strings.ToLower(id)]
		if id == "" || !ok {
			return nil, fmt.Errorf("ASO sent no PUT for %T %s (resource ID %q)", o, o.GetName(), id)
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, fmt.Errorf("the PUT of %s is not JSON: %w", id, err)
		}
		if err := out.add(ctx, reader, obj, id, names, body); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s Set) add(ctx context.Context, reader client.Reader, obj genruntime.ARMMetaObject, id string, names Names, body map[string]any) error {
	role, err := RoleOf(ctx, reader, obj, names.Cluster)
	if err != nil {
		return err
	}
	e, err := NewEntry(id, role, names, body)
	if err != nil {
		return err
	}
	return s.Add(e)
}
