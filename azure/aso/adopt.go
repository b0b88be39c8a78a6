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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// AdoptionAnnotation records, on the ASO object of an adoptable resource (azure.Resource.Adoptable), what the
// engine found: probing (applied with reconcile-policy skip so that ASO looks the resource up), created (it did
// not exist: the provider made and manages it), taken-over (it existed with the cluster's owned tag, made for the
// cluster by another controller such as CAPZ: the provider manages it from now on) or referenced (the user's own
// resource: only read). The decision travels with the object, e.g. through clusterctl move.
const AdoptionAnnotation = "infrastructure.cluster.x-k8s.io/adoption"

// HandOverAnnotation ("true") on an ASO object nobody controls hands it to the provider: the first owner that
// desires an object of that kind and name takes it over (controller reference, labels, the fields it sets) instead
// of only reading it. It is CAPZ's adopt annotation, which also makes the AzureASOManaged adoption controllers
// create the Cluster API objects around an existing AKS cluster.
const HandOverAnnotation = "sigs.k8s.io/cluster-api-provider-azure-adopt"

const (
	adoptionProbing    = "probing"
	adoptionCreated    = "created"
	adoptionTakenOver  = "taken-over"
	adoptionReferenced = "referenced"
	// adoptionMissing is what a probe finds when ASO reports the resource missing from Azure; never recorded: the
	// engine creates the resource (adoptionCreated), unless the owner knows it existed (azure.Resource.MustExist).
	adoptionMissing = "missing"
)

// DeletedOutsideReason means a resource its owner knows existed (azure.Resource.MustExist) is missing from Azure:
// it was deleted outside Cluster API, and the engine does not create it again.
const DeletedOutsideReason = "DeletedOutsideClusterAPI"

// reasonAzureResourceNotFound is ASO's reason for a skipped resource that does not exist in Azure.
const reasonAzureResourceNotFound = "AzureResourceNotFound"

// adoptionOf decides how to treat an adoptable resource given its live ASO object. waiting means ASO has not
// answered the probe yet; adoptionMissing that ASO answered it: the resource is not in Azure.
func adoptionOf(live client.Object, clusterName string) (adoption string, waiting bool) {
	if live == nil {
		return adoptionProbing, false
	}
	switch a := live.GetAnnotations()[AdoptionAnnotation]; a {
	case adoptionCreated:
		return adoptionCreated, false
	case adoptionTakenOver, adoptionReferenced:
		return a, false
	case "":
		if !skipOfItsOwn(live) {
			// Made without a record: by the provider before it kept one, or by CAPZ, which manages what it created.
			return adoptionCreated, false
		}
		// Made by someone else with reconcile-policy skip of its own: CAPZ keeps skip on a resource that existed
		// before the cluster (kubernetes-sigs/cluster-api-provider-azure v1.26.0, azure/services/aso/aso.go,
		// CreateOrUpdateResource: skip at creation, manage only once ASO reports it missing or it carries the
		// cluster's owned tag, WasManaged). What ASO reports of it decides, as for a probe: never "created".
	}
	ready := readyCondition(live)
	switch {
	case ready == nil || ready.ObservedGeneration < live.GetGeneration():
		return adoptionProbing, true
	case ready.Status == metav1.ConditionTrue && ownedByCluster(live, clusterName):
		return adoptionTakenOver, false
	case ready.Status == metav1.ConditionTrue:
		return adoptionReferenced, false
	case ready.Reason == reasonAzureResourceNotFound:
		return adoptionMissing, false
	}
	return adoptionProbing, true
}

// Adopted reports what the engine found out about an adoptable resource from its live ASO object: known is false
// while nothing is (no object yet, or ASO has not answered the probe); users is true for the user's own resource.
func Adopted(live client.Object) (users, known bool) {
	if live == nil {
		return false, false
	}
	switch live.GetAnnotations()[AdoptionAnnotation] {
	case adoptionCreated, adoptionTakenOver:
		return false, true
	case adoptionReferenced:
		return true, true
	}
	return false, false
}

// AdoptionRecorded reports whether a live object carries the engine's finding about it (AdoptionAnnotation): it was
// applied as an adoptable resource.
func AdoptionRecorded(live client.Object) bool {
	_, ok := live.GetAnnotations()[AdoptionAnnotation]
	return ok
}

// TakenOver reports whether the engine found an adoptable resource in Azure, made for the cluster by another
// controller (CAPZ), and took it over: the provider manages it, but it was not made from the provider's spec.
func TakenOver(live client.Object) bool {
	return live != nil && live.GetAnnotations()[AdoptionAnnotation] == adoptionTakenOver
}

// ownedByCluster reports whether ASO saw the cluster's owned tag on the Azure resource.
func ownedByCluster(obj client.Object, clusterName string) bool {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false
	}
	status, _ := content["status"].(map[string]any)
	tags, _ := status["tags"].(map[string]any)
	return tags[azure.ClusterTagKey(clusterName)] == infrav1.ResourceLifecycleOwned
}

// IsManaged reports whether a live ASO object is one the owner created and manages: controlled by the owner, and
// neither referenced (reconcile-policy skip of its own, not a pause's) nor adopted as the user's resource. Deleting
// a managed resource group, for instance, deletes everything in it.
func IsManaged(obj, owner client.Object) bool {
	if obj == nil || !isControlledBy(obj, owner) {
		return false
	}
	if obj.GetAnnotations()[AdoptionAnnotation] == adoptionReferenced || obj.GetAnnotations()[AdoptionAnnotation] == adoptionProbing {
		return false
	}
	return !skipOfItsOwn(obj)
}

// CAPZPrePauseAnnotation is CAPZ's record of the reconcile-policy an ASO object had before CAPZ paused it
// (kubernetes-sigs/cluster-api-provider-azure v1.26.0, azure/services/aso/aso.go, PauseResource); CAPZ restores it
// and removes the record when it resumes.
const CAPZPrePauseAnnotation = "sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy"

// skipOfItsOwn reports whether an object has reconcile-policy skip of its own, which makes ASO only read its
// resource and never delete it: not skip a pause set, the engine's (PrePauseAnnotation, which never records skip) or
// CAPZ's (CAPZPrePauseAnnotation: the policy from before the pause decides; capzAppliedPause, told only by the
// managed fields, which objects read from the cache do not have).
func skipOfItsOwn(obj client.Object) bool {
	if reconcilePolicy(obj) != string(asoannotations.ReconcilePolicySkip) || capzAppliedPause(obj) {
		return false
	}
	annotations := obj.GetAnnotations()
	if _, paused := annotations[PrePauseAnnotation]; paused {
		return false
	}
	if previous, paused := annotations[CAPZPrePauseAnnotation]; paused {
		return previous == string(asoannotations.ReconcilePolicySkip)
	}
	return true
}

// CAPZ v1.26.0's field managers on the ASO objects it writes (kubernetes-sigs/cluster-api-provider-azure v1.26.0).
const (
	// capzUpdateManager: the typed services (azure/services/aso/aso.go, createOrUpdateResource and PauseResource)
	// create and merge-patch ASO objects without a field owner, so the API server records operation Update under
	// the manager named by the client's User-Agent, which main.go sets to this.
	capzUpdateManager = "cluster-api-provider-azure-manager"
	// capzApplyManager: the raw resources of the AzureASOManaged kinds are server-side applied with this field
	// owner (controllers/resource_reconciler.go), operation Apply.
	capzApplyManager = "capz-manager"
)

// capzAppliedPause reports whether reconcile-policy skip on an object is CAPZ's pause of a resource of an
// AzureASOManaged kind: CAPZ v1.26.0 pauses them by applying the owner's spec.resources again with skip as
// capzApplyManager (controllers/resource_reconciler.go Pause, pkg/mutators Pause) and records no policy from before.
// Its other applies set the policy only where spec.resources does, and the provider's desired object then sets it
// too. It reads the managed fields: false for an object without them (one read from the cache).
func capzAppliedPause(obj client.Object) bool {
	return reconcilePolicy(obj) == string(asoannotations.ReconcilePolicySkip) &&
		slices.ContainsFunc(obj.GetManagedFields(), func(m metav1.ManagedFieldsEntry) bool {
			return m.Manager == capzApplyManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" && ownsField(m, reconcilePolicyField)
		})
}

// unownedByCAPZPause reports whether a live object that nothing controls was applied by CAPZ's capzApplyManager: a
// resource of an AzureASOManaged kind that CAPZ paused. CAPZ v1.26.0's pause applies the owner's spec.resources
// without the controller reference its reconcile sets (controllers/resource_reconciler.go, Pause and reconcile), so
// the apply drops the reference; the owner whose spec.resources names the object takes it, as CAPZ's next reconcile
// would. It reads the managed fields from the API server when the object has none (one read from the cache).
func (e *Engine) unownedByCAPZPause(ctx context.Context, live client.Object) (bool, error) {
	if metav1.GetControllerOf(live) != nil {
		return false, nil
	}
	live, err := e.withManagedFields(ctx, live)
	if err != nil || live == nil {
		return false, err
	}
	return slices.ContainsFunc(live.GetManagedFields(), func(m metav1.ManagedFieldsEntry) bool {
		return m.Manager == capzApplyManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == ""
	}), nil
}

// withManagedFields returns a live object with its managed fields: read again from the API server when it has none
// (the cache strips them); nil when it is gone.
func (e *Engine) withManagedFields(ctx context.Context, live client.Object) (client.Object, error) {
	if len(live.GetManagedFields()) > 0 {
		return live, nil
	}
	return e.getLive(ctx, live.GetObjectKind().GroupVersionKind(), client.ObjectKeyFromObject(live))
}

// formerOwner reports whether a field manager is CAPZ's: a controller the provider replaces, not a user.
func formerOwner(manager string) bool {
	return manager == capzUpdateManager || manager == capzApplyManager
}

// takeOver makes the provider the owner of the fields that other writers own on an object it is about to apply, so
// that its server-side apply drops the fields it does not set. Otherwise they stay with their old owners beside the
// provider's: a subnet would keep CAPZ's security group ARM ID next to the provider's reference to the same group by
// name, which ASO's webhook refuses.
//
//   - CAPZ's fields (formerOwner), whenever they appear: on an object CAPZ created for the same owner (a switch from
//     CAPZ, docs/migrating-from-capz.md), and on one the provider owns already, which CAPZ writes again after the way
//     back to CAPZ (its subnets' references as ARM IDs, its pause's annotations). CAPZ's updates are upgraded as
//     csaupgrade does; the fields of its applies move into the provider's apply entry.
//   - The spec fields other clients wrote with updates, only on an object the provider has not labelled yet (one
//     CAPZ created under another manager name, or one the user hands over). A user's later updates of an object the
//     provider owns stay the user's, and the managers that wrote no spec field (ASO's own, which writes its
//     annotations and finalizer) keep their fields.
//
// The reconcile-policy of an object with skip of its own (a resource that existed before CAPZ's cluster, which CAPZ
// only references) stays with the manager that wrote it: an apply that does not set it then keeps it, and ASO never
// writes or deletes the resource, whatever the provider desires of the object. Unless ASO reported the resource
// missing: CAPZ would then switch the object to manage and have ASO create it, and so does the provider.
//
// The cache holds no managed fields: an object read from it is read again from the API server.
func (e *Engine) takeOver(ctx context.Context, live client.Object) error {
	live, err := e.withManagedFields(ctx, live)
	if err != nil || live == nil {
		return err
	}
	_, ours := live.GetLabels()[infrav1.OwnedByLabel]
	updaters, appliers := sets.New[string](), sets.New[string]()
	for _, m := range live.GetManagedFields() {
		if m.Manager == FieldManager || m.Subresource != "" {
			continue
		}
		switch m.Operation {
		case metav1.ManagedFieldsOperationUpdate:
			if formerOwner(m.Manager) || (!ours && ownsSpec(m)) {
				updaters.Insert(m.Manager)
			}
		case metav1.ManagedFieldsOperationApply:
			if formerOwner(m.Manager) {
				appliers.Insert(m.Manager)
			}
		}
	}
	if updaters.Len() == 0 && appliers.Len() == 0 {
		return nil
	}
	keepPolicy := skipOfItsOwn(live) && !missingInAzure(live)
	fields := live.GetManagedFields()
	if updaters.Len() > 0 {
		upgraded, ok := live.DeepCopyObject().(client.Object)
		if !ok {
			return fmt.Errorf("%T is not an object", live)
		}
		aligned, err := atOneVersion(upgraded.GetManagedFields(), updaters)
		if err != nil {
			return err
		}
		upgraded.SetManagedFields(aligned)
		if err := csaupgrade.UpgradeManagedFields(upgraded, updaters, FieldManager); err != nil {
			return err
		}
		fields = upgraded.GetManagedFields()
		if keepPolicy {
			var err error
			if fields, err = keepField(live.GetManagedFields(), fields, updaters, reconcilePolicyField); err != nil {
				return err
			}
		}
	}
	if appliers.Len() > 0 {
		var keep []string
		if keepPolicy && !slices.ContainsFunc(live.GetManagedFields(), func(m metav1.ManagedFieldsEntry) bool {
			return m.Manager == FieldManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" && ownsField(m, reconcilePolicyField)
		}) {
			keep = reconcilePolicyField
		}
		var err error
		if fields, err = takeApplied(fields, appliers, keep); err != nil {
			return err
		}
	}
	if reflect.DeepEqual(fields, live.GetManagedFields()) {
		return nil
	}
	// As csaupgrade.UpgradeManagedFieldsPatch: the managed fields, guarded by the resource version.
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": fields},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
	})
	if err != nil {
		return err
	}
	if err := e.Client.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("failed to take over the fields of %s %s/%s that %v wrote: %w", live.GetObjectKind().GroupVersionKind().Kind, live.GetNamespace(), live.GetName(), sets.List(updaters.Union(appliers)), err)
	}
	return nil
}

// atOneVersion merges the Update entries of each of managers (on the main resource) into one, at the API version of
// FieldManager's apply entry when there is one, for csaupgrade: it merges into the apply entry only an Update entry of
// the apply entry's version, and drops a manager's other entries with their fields, which then no manager owns and
// no apply removes. CAPZ writes some kinds at an older ASO version than the provider applies (subnets at
// v1api20201101, whose security group reference by ARM ID then stayed beside the provider's by name); the paths of
// the fields CAPZ sets are the same in ASO's versions of a kind.
func atOneVersion(entries []metav1.ManagedFieldsEntry, managers sets.Set[string]) ([]metav1.ManagedFieldsEntry, error) {
	version := ""
	for _, m := range entries {
		if m.Manager == FieldManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" {
			version = m.APIVersion
			break
		}
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	first := map[string]int{}
	for _, m := range entries {
		if !managers.Has(m.Manager) || m.Operation != metav1.ManagedFieldsOperationUpdate || m.Subresource != "" {
			out = append(out, m)
			continue
		}
		i, seen := first[m.Manager]
		if !seen {
			if version != "" {
				m.APIVersion = version
			}
			first[m.Manager] = len(out)
			out = append(out, m)
			continue
		}
		merged, err := fieldSet(out[i].FieldsV1)
		if err != nil {
			return nil, err
		}
		more, err := fieldSet(m.FieldsV1)
		if err != nil {
			return nil, err
		}
		raw, err := merged.Union(more).ToJSON()
		if err != nil {
			return nil, err
		}
		out[i].FieldsV1 = metav1.NewFieldsV1(string(raw))
	}
	return out, nil
}

// takeApplied moves the fields of the apply entries of managers (on the main resource) into FieldManager's apply
// entry, which is made if there is none: the provider's next apply then owns them alone and drops those it does not
// set. Nothing is deleted by the move itself. The field at keep (nil: none) stays in the entry that owned it.
func takeApplied(entries []metav1.ManagedFieldsEntry, managers sets.Set[string], keep []string) ([]metav1.ManagedFieldsEntry, error) {
	taken := &fieldpath.Set{}
	var first *metav1.ManagedFieldsEntry
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries)+1)
	for i, m := range entries {
		if !managers.Has(m.Manager) || m.Operation != metav1.ManagedFieldsOperationApply || m.Subresource != "" {
			out = append(out, m)
			continue
		}
		if first == nil {
			first = &entries[i]
		}
		fields := m.FieldsV1
		if keep != nil && ownsField(m, keep) {
			var err error
			if fields, err = withoutField(m, keep); err != nil {
				return nil, err
			}
			only := m
			only.FieldsV1 = fieldsOnly(keep)
			out = append(out, only)
		}
		set, err := fieldSet(fields)
		if err != nil {
			return nil, err
		}
		taken = taken.Union(set)
	}
	if first == nil {
		return entries, nil
	}
	for i, m := range out {
		if m.Manager != FieldManager || m.Operation != metav1.ManagedFieldsOperationApply || m.Subresource != "" {
			continue
		}
		set, err := fieldSet(m.FieldsV1)
		if err != nil {
			return nil, err
		}
		raw, err := set.Union(taken).ToJSON()
		if err != nil {
			return nil, err
		}
		out[i].FieldsV1 = metav1.NewFieldsV1(string(raw))
		return out, nil
	}
	raw, err := taken.ToJSON()
	if err != nil {
		return nil, err
	}
	return append(out, metav1.ManagedFieldsEntry{
		Manager:    FieldManager,
		Operation:  metav1.ManagedFieldsOperationApply,
		APIVersion: first.APIVersion,
		Time:       first.Time,
		FieldsType: "FieldsV1",
		FieldsV1:   metav1.NewFieldsV1(string(raw)),
	}), nil
}

// fieldSet reads the fields of a managed fields entry; nil reads as none.
func fieldSet(fields *metav1.FieldsV1) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	if fields == nil || len(fields.GetRawBytes()) == 0 {
		return set, nil
	}
	if err := set.FromJSON(bytes.NewReader(fields.GetRawBytes())); err != nil {
		return nil, err
	}
	return set, nil
}

// fieldsOnly is the FieldsV1 of exactly the field at path.
func fieldsOnly(path []string) *metav1.FieldsV1 {
	raw := "{}"
	for i := len(path) - 1; i >= 0; i-- {
		key, _ := json.Marshal(path[i])
		raw = "{" + string(key) + ":" + raw + "}"
	}
	return metav1.NewFieldsV1(raw)
}

// pausedByCAPZ reports whether CAPZ's pause is on a live object the provider is about to reconcile. After the way
// back CAPZ pauses the objects the provider made too, when their Cluster is paused for the next switch; nothing the
// provider sets differs then, yet only taking over CAPZ's fields and applying lifts the pause. CAPZ's typed services
// record their pause (CAPZPrePauseAnnotation); its pause of an AzureASOManaged kind's resources is told by the managed
// fields (capzAppliedPause), read from the API server only for an object at skip that the desired object does not skip
// and the engine did not pause.
func (e *Engine) pausedByCAPZ(ctx context.Context, live client.Object, desired *unstructured.Unstructured) (bool, error) {
	annotations := live.GetAnnotations()
	if _, paused := annotations[CAPZPrePauseAnnotation]; paused {
		return true, nil
	}
	if _, paused := annotations[PrePauseAnnotation]; paused ||
		reconcilePolicy(live) != string(asoannotations.ReconcilePolicySkip) ||
		desired.GetAnnotations()[asoannotations.ReconcilePolicy] == string(asoannotations.ReconcilePolicySkip) {
		return false, nil
	}
	live, err := e.withManagedFields(ctx, live)
	if err != nil || live == nil {
		return false, err
	}
	return capzAppliedPause(live), nil
}

// ownsSpec reports whether a managed fields entry owns a field of the spec.
func ownsSpec(m metav1.ManagedFieldsEntry) bool {
	if m.FieldsV1 == nil {
		return false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(m.FieldsV1.GetRawBytes(), &fields); err != nil {
		return false
	}
	_, ok := fields["f:spec"]
	return ok
}

// MissingInAzure reports whether ASO reported that the resource of an object it only reads (reconcile-policy skip,
// e.g. an adoptable resource the engine is looking up) does not exist in Azure; false for no object.
func MissingInAzure(live client.Object) bool {
	return live != nil && missingInAzure(live)
}

// missingInAzure reports whether ASO reported that the resource of a skipped object does not exist in Azure.
func missingInAzure(obj client.Object) bool {
	ready := readyCondition(obj)
	return ready != nil && ready.Status == metav1.ConditionFalse && ready.Reason == reasonAzureResourceNotFound
}

// reconcilePolicyField is the path of ASO's reconcile-policy annotation in a managed fields entry (FieldsV1).
var reconcilePolicyField = []string{"f:metadata", "f:annotations", "f:" + asoannotations.ReconcilePolicy}

// keepField gives a field back to the manager that owned it before the takeover: before are the managed fields of
// the live object, after those csaupgrade made of them, in which FieldManager took over every field of managers. The
// field leaves FieldManager's entry (unless FieldManager owned it before) and returns to the first of managers whose
// update owned it, in an update entry of its own.
func keepField(before, after []metav1.ManagedFieldsEntry, managers sets.Set[string], path []string) ([]metav1.ManagedFieldsEntry, error) {
	var owner *metav1.ManagedFieldsEntry
	for i, m := range before {
		if m.Manager == FieldManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" && ownsField(m, path) {
			return after, nil
		}
		if owner == nil && managers.Has(m.Manager) && m.Operation == metav1.ManagedFieldsOperationUpdate && m.Subresource == "" && ownsField(m, path) {
			owner = &before[i]
		}
	}
	if owner == nil {
		return after, nil
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(after)+1)
	for _, m := range after {
		if m.Manager == FieldManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" {
			fields, err := withoutField(m, path)
			if err != nil {
				return nil, err
			}
			m.FieldsV1 = fields
		}
		out = append(out, m)
	}
	only := map[string]any{}
	for i := len(path) - 1; i >= 0; i-- {
		only = map[string]any{path[i]: only}
	}
	raw, err := json.Marshal(only)
	if err != nil {
		return nil, err
	}
	return append(out, metav1.ManagedFieldsEntry{
		Manager:    owner.Manager,
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: owner.APIVersion,
		Time:       owner.Time,
		FieldsType: "FieldsV1",
		FieldsV1:   metav1.NewFieldsV1(string(raw)),
	}), nil
}

// ownsField reports whether a managed fields entry owns the field at path (FieldsV1 keys).
func ownsField(m metav1.ManagedFieldsEntry, path []string) bool {
	if m.FieldsV1 == nil {
		return false
	}
	var fields map[string]any
	if err := json.Unmarshal(m.FieldsV1.GetRawBytes(), &fields); err != nil {
		return false
	}
	for _, key := range path {
		child, ok := fields[key].(map[string]any)
		if !ok {
			return false
		}
		fields = child
	}
	return true
}

// withoutField returns a managed fields entry's fields without the field at path; the maps that held nothing else
// go too, since an empty map in FieldsV1 owns the field itself.
func withoutField(m metav1.ManagedFieldsEntry, path []string) (*metav1.FieldsV1, error) {
	if m.FieldsV1 == nil {
		return nil, nil
	}
	var fields map[string]any
	if err := json.Unmarshal(m.FieldsV1.GetRawBytes(), &fields); err != nil {
		return nil, err
	}
	var remove func(fields map[string]any, path []string)
	remove = func(fields map[string]any, path []string) {
		if len(path) == 1 {
			delete(fields, path[0])
			return
		}
		child, ok := fields[path[0]].(map[string]any)
		if !ok {
			return
		}
		remove(child, path[1:])
		if len(child) == 0 {
			delete(fields, path[0])
		}
	}
	remove(fields, path)
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return metav1.NewFieldsV1(string(raw)), nil
}
