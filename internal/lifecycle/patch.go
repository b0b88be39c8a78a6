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

package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// patcher writes what a pass changed: at most one merge patch of metadata and spec, then at most one merge patch
// of status, conditions included (Cluster API's patch helper writes conditions and the rest of status in two
// patches). The lifecycle is the only writer of its kinds' status, so the patch carries the whole conditions
// list the pass computed, without a resourceVersion to conflict on.
type patcher struct {
	c      client.Client
	before client.Object
}

func newPatcher(c client.Client, obj client.Object) *patcher {
	return &patcher{c: c, before: obj.DeepCopyObject().(client.Object)}
}

// patch writes obj's changes since the patcher was made. A metadata or spec change comes first: when it moves the
// generation (spec.providerID, say), the status written next already observes the new one, instead of a second
// status patch in the next pass. observedGeneration sets status.observedGeneration.
func (p *patcher) patch(ctx context.Context, obj Object, observedGeneration bool) error {
	before, err := split(p.before)
	if err != nil {
		return err
	}
	after, err := split(obj)
	if err != nil {
		return err
	}
	oldGeneration := obj.GetGeneration()
	if data, changed, err := mergePatch(before.rest, after.rest); err != nil {
		return err
	} else if changed {
		// The response replaces the object; a copy keeps the status this pass computed.
		written := obj.DeepCopyObject().(client.Object)
		if err := p.c.Patch(ctx, written, client.RawPatch(types.MergePatchType, data)); err != nil {
			return fmt.Errorf("failed to patch %s: %w", klog.KObj(obj), err)
		}
		obj.SetResourceVersion(written.GetResourceVersion())
		obj.SetGeneration(written.GetGeneration())
		if gone := !written.GetDeletionTimestamp().IsZero() && len(written.GetFinalizers()) == 0; gone {
			return nil
		}
	}
	if generation := obj.GetGeneration(); generation != oldGeneration {
		conds := obj.GetConditions()
		for i := range conds {
			if conds[i].ObservedGeneration == oldGeneration {
				conds[i].ObservedGeneration = generation
			}
		}
		obj.SetConditions(conds)
		if after, err = split(obj); err != nil {
			return err
		}
	}
	if observedGeneration {
		if after.status == nil {
			after.status = map[string]any{}
		}
		after.status["observedGeneration"] = obj.GetGeneration()
	}
	data, changed, err := mergePatch(map[string]any{"status": before.status}, map[string]any{"status": after.status})
	if err != nil || !changed {
		return err
	}
	if err := p.c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil {
		// The metadata patch released the last finalizer: the object is gone, and its status with it.
		if apierrors.IsNotFound(err) && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 {
			return nil
		}
		return fmt.Errorf("failed to patch the status of %s: %w", klog.KObj(obj), err)
	}
	return nil
}

// parts are an object as JSON fields: status, and everything else.
type parts struct {
	status map[string]any
	rest   map[string]any
}

func split(obj client.Object) (parts, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return parts{}, fmt.Errorf("failed to convert %s: %w", klog.KObj(obj), err)
	}
	status, _ := content["status"].(map[string]any)
	delete(content, "status")
	// The server sets these; a patch never carries them.
	if meta, ok := content["metadata"].(map[string]any); ok {
		for _, f := range []string{"resourceVersion", "generation", "managedFields", "creationTimestamp"} {
			delete(meta, f)
		}
	}
	return parts{status: status, rest: content}, nil
}

// mergePatch returns the JSON merge patch from before to after, and whether it changes anything.
func mergePatch(before, after map[string]any) ([]byte, bool, error) {
	b, err := json.Marshal(before)
	if err != nil {
		return nil, false, err
	}
	a, err := json.Marshal(after)
	if err != nil {
		return nil, false, err
	}
	data, err := jsonpatch.CreateMergePatch(b, a)
	if err != nil {
		return nil, false, fmt.Errorf("failed to compute a merge patch: %w", err)
	}
	return data, strings.TrimSpace(string(data)) != "{}", nil
}
