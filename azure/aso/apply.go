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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/jsonsubset"
)

// patchError is a user patch that could not be applied to an object.
type patchError struct {
	source, kind, name string
	err                error
}

func (p *patchError) Error() string {
	return fmt.Sprintf("%s could not be applied to %s %s: %v", p.source, p.kind, p.name, p.err)
}

// engineAnnotations are the annotations in which the engine records its own state on an object.
var engineAnnotations = []string{HashAnnotation, PrePauseAnnotation, AdoptionAnnotation}

// render builds the object to apply: the translator's object with the user's patches, the provider's labels,
// annotations and owner reference, and the hash of all of it.
func (e *Engine) render(owner client.Object, ownerGVK, gvk schema.GroupVersionKind, r Resource, opts Options, adoption, policy string) (*unstructured.Unstructured, error) {
	u, err := toUnstructured(r.Object)
	if err != nil {
		return nil, err
	}
	u.SetGroupVersionKind(gvk)
	// Fields the server owns: never part of what we apply.
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")

	if r.Raw {
		// The engine's records are the engine's, even in an object the user wrote whole.
		annotations := u.GetAnnotations()
		for _, key := range engineAnnotations {
			delete(annotations, key)
		}
		u.SetAnnotations(annotations)
	}
	for _, p := range opts.Patches {
		if !p.selects(gvk, r.Object) {
			continue
		}
		if u, err = applyPatch(u, p); err != nil {
			return nil, &patchError{source: p.Source, kind: gvk.Kind, name: r.Object.GetName(), err: err}
		}
	}

	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[infrav1.ClusterNameLabel] = opts.ClusterName
	labels[infrav1.OwnedByLabel] = opts.ClusterName
	u.SetLabels(labels)

	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	switch {
	case r.Raw:
		// The user chose the object's credential; the credential policy checks it.
	case opts.CredentialSecret != "":
		annotations[asoannotations.PerResourceSecret] = opts.CredentialSecret
	default:
		delete(annotations, asoannotations.PerResourceSecret)
	}
	if policy != "" {
		annotations[asoannotations.ReconcilePolicy] = policy
	}
	if adoption != "" {
		annotations[AdoptionAnnotation] = adoption
	}
	u.SetAnnotations(annotations)

	// The hash leaves the owner reference out: its UID changes when clusterctl move recreates the owner, which is
	// no reason to apply again (needsApply compares the reference itself).
	hash, err := hashOf(u.Object)
	if err != nil {
		return nil, err
	}
	annotations[HashAnnotation] = hash
	u.SetAnnotations(annotations)
	u.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion:         ownerGVK.GroupVersion().String(),
		Kind:               ownerGVK.Kind,
		Name:               owner.GetName(),
		UID:                owner.GetUID(),
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}})
	return u, nil
}

// desiredPolicy is the reconcile-policy the engine states on an object: skip on a referenced one; manage on one it
// manages, as CAPZ does, because ASO gives an object without a policy its namespace's, and an administrator's skip or
// detach-on-delete there would keep the resource from being made, or leave it in Azure when its owner goes. None on
// a raw object (the user wrote it whole) or a supporting one (a Secret), nor where the object had another policy before any pause: a user's
// detach-on-delete, or a skip of its own (see takeOver: a resource CAPZ only referenced), which stays, unless it is
// the engine's probe or ASO found the resource missing from Azure, which the engine then makes.
func desiredPolicy(r Resource, live client.Object) string {
	switch {
	case r.Referenced:
		return string(asoannotations.ReconcilePolicySkip)
	case r.Raw, !isASOObject(r.Object):
		return ""
	case live == nil:
		return string(asoannotations.ReconcilePolicyManage)
	}
	switch asoannotations.ReconcilePolicyValue(policyBeforePause(live)) {
	case "", asoannotations.ReconcilePolicyManage:
		return string(asoannotations.ReconcilePolicyManage)
	case asoannotations.ReconcilePolicySkip:
		if live.GetAnnotations()[AdoptionAnnotation] == adoptionProbing || missingInAzure(live) {
			return string(asoannotations.ReconcilePolicyManage)
		}
	}
	return ""
}

// policyBeforePause is an object's reconcile-policy from before a pause, the engine's (PrePauseAnnotation) or CAPZ's
// (CAPZPrePauseAnnotation), or its policy when it is not paused.
func policyBeforePause(obj client.Object) string {
	annotations := obj.GetAnnotations()
	if previous, paused := annotations[PrePauseAnnotation]; paused {
		return previous
	}
	if previous, paused := annotations[CAPZPrePauseAnnotation]; paused {
		return previous
	}
	return reconcilePolicy(obj)
}

// applyPatch applies one user patch to an object.
func applyPatch(u *unstructured.Unstructured, p Patch) (*unstructured.Unstructured, error) {
	parsed, err := patch.Parse(p.Format, p.Text)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	out, err := parsed.Apply(doc)
	if err != nil {
		return nil, err
	}
	patched := &unstructured.Unstructured{}
	if err := patched.UnmarshalJSON(out); err != nil {
		return nil, fmt.Errorf("the patched object is not valid: %w", err)
	}
	return patched, nil
}

// hashOf hashes the JSON form of an object; encoding/json sorts map keys, so the hash is stable.
func hashOf(content map[string]any) (string, error) {
	data, err := json.Marshal(content)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16]), nil
}

// keepOwner gives the desired object the live object's spec.owner when it has one: ASO's webhooks refuse to change
// an object's owner, so the one it has is the only one it can keep. A switch from CAPZ meets it: CAPZ v1.26.0 owns
// a brought network by a ResourceGroup object of the network's resource group (azure/scope/cluster.go, GroupSpecs),
// where the provider names that group by ARM ID; the object keeps CAPZ's owner, which names the same group.
func keepOwner(desired *unstructured.Unstructured, live client.Object) error {
	want, wanted, _ := unstructured.NestedMap(desired.Object, "spec", "owner")
	if !wanted {
		return nil
	}
	// Every pass reaches here for every object: the live object is converted only when its owner differs.
	if k, ok := live.(genruntime.KubernetesResource); ok {
		name, _ := want["name"].(string)
		armID, _ := want["armId"].(string)
		group, hasGroup := want["group"].(string)
		kind, hasKind := want["kind"].(string)
		owner := k.Owner()
		if owner != nil && owner.Name == name && owner.ARMID == armID &&
			(!hasGroup || owner.Group == group) && (!hasKind || owner.Kind == kind) {
			return nil
		}
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return err
	}
	owner, found, err := unstructured.NestedMap(content, "spec", "owner")
	if err != nil || !found || len(owner) == 0 {
		return err
	}
	return unstructured.SetNestedMap(desired.Object, owner, "spec", "owner")
}

// needsApply reports whether the live object differs from the desired one: either the desired object changed
// since the last apply (its hash differs, which also releases fields the engine stopped setting), or someone
// changed a field the engine sets.
func needsApply(desired *unstructured.Unstructured, live client.Object) bool {
	if live.GetAnnotations()[HashAnnotation] != desired.GetAnnotations()[HashAnnotation] {
		return true
	}
	liveContent, err := toUnstructured(live)
	if err != nil {
		return true
	}
	want, got := desired.Object, liveContent.Object
	wantMeta, _ := want["metadata"].(map[string]any)
	gotMeta, _ := got["metadata"].(map[string]any)
	for _, field := range []string{"labels", "annotations"} {
		if !jsonsubset.Contains(gotMeta[field], wantMeta[field]) {
			return true
		}
	}
	if !hasOwnerReference(live, desired.GetOwnerReferences()[0]) {
		return true
	}
	for field, value := range want {
		if field == "metadata" || field == "status" {
			continue
		}
		if !jsonsubset.Contains(got[field], value) {
			return true
		}
	}
	return false
}

func hasOwnerReference(obj client.Object, want metav1.OwnerReference) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == want.UID && ref.Kind == want.Kind && ptr.Deref(ref.Controller, false) {
			return true
		}
	}
	return false
}
