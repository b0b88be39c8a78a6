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
	"context"
	"encoding/json"
	"fmt"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// PrePauseAnnotation remembers an object's reconcile-policy from before the pause ("" when it had none).
	PrePauseAnnotation = "infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy"

	// pauseFieldManager owns only the annotations pause writes, so that pausing never releases the fields the
	// main field manager applied.
	pauseFieldManager = FieldManager + "-pause"
)

// Pause sets reconcile-policy skip on every object the owner controls, so that ASO neither changes nor deletes
// their Azure resources (e.g. while clusterctl move copies them). It remembers each previous policy. done is
// true once every owned object is skipped.
func (e *Engine) Pause(ctx context.Context, owner client.Object, clusterName string, kinds []schema.GroupVersionKind) (done bool, writes int, err error) {
	objs, err := e.owned(ctx, owner, clusterName, kinds)
	if err != nil {
		return false, 0, err
	}
	for _, obj := range objs {
		if _, paused := obj.GetAnnotations()[PrePauseAnnotation]; paused && reconcilePolicy(obj) == string(asoannotations.ReconcilePolicySkip) {
			continue
		}
		previous := reconcilePolicy(obj)
		if previous == string(asoannotations.ReconcilePolicySkip) {
			if _, paused := obj.GetAnnotations()[PrePauseAnnotation]; !paused {
				// Already skipped by its own spec (a referenced resource): nothing to remember or restore.
				continue
			}
		}
		if err := e.applyPauseAnnotations(ctx, obj, map[string]string{
			asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicySkip),
			PrePauseAnnotation:             previous,
		}); err != nil {
			return false, writes, err
		}
		writes++
	}
	return true, writes, nil
}

// resume restores the reconcile-policy an object had before a pause and removes the record, whoever wrote it. A
// referenced object (a resource the user brought) gets no policy back: the main field manager keeps it at skip,
// whatever the record says, so that no record can turn the user's resource into one ASO writes and deletes.
func (e *Engine) resume(ctx context.Context, obj client.Object, referenced bool) (bool, error) {
	previous, paused := obj.GetAnnotations()[PrePauseAnnotation]
	if !paused {
		return false, nil
	}
	annotations := map[string]any{PrePauseAnnotation: nil}
	if !referenced {
		annotations[asoannotations.ReconcilePolicy] = nil
		if previous != "" {
			annotations[asoannotations.ReconcilePolicy] = previous
		}
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return false, err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data), client.FieldOwner(pauseFieldManager)); err != nil {
		return false, fmt.Errorf("failed to restore the reconcile policy of %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return true, nil
}

// applyPauseAnnotations server-side-applies exactly these annotations with the pause field manager; any
// annotation the pause manager set before and is not listed is released.
func (e *Engine) applyPauseAnnotations(ctx context.Context, obj client.Object, annotations map[string]string) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(obj.GetNamespace())
	u.SetName(obj.GetName())
	u.SetAnnotations(annotations)
	if err := e.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(pauseFieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to set the reconcile policy of %s %s: %w", gvk.Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// SetBlockMove adds or removes clusterctl's block-move annotation on an owner (in memory; the caller's patch
// persists it). Controllers block clusterctl move while their ASO objects may still change in Azure, and lift the
// block once Pause has set reconcile-policy skip on every one of them.
func SetBlockMove(owner client.Object, block bool) {
	annotations := owner.GetAnnotations()
	if block {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[clusterctlv1.BlockMoveAnnotation] = "true"
	} else {
		delete(annotations, clusterctlv1.BlockMoveAnnotation)
	}
	owner.SetAnnotations(annotations)
}
