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
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// DeleteOptions describe how to delete an owner's objects.
type DeleteOptions struct {
	// ClusterName is the Cluster API cluster the owner belongs to.
	ClusterName string
	// Kinds are every ASO kind the owner may own.
	Kinds []schema.GroupVersionKind
	// Order lists groups of kinds, first group first (deepest resources first, e.g. network interfaces before
	// subnets): no object of a later group is deleted while one of an earlier group remains. Kinds not listed
	// are deleted last, together.
	Order [][]schema.GroupKind
	// GoesWith, when set, says of a kind whether Azure deletes its resources with an ancestor resource, and the
	// ancestor's kind, when that ancestor is deleted too: a resource group with everything in it (CAPZ deletes only
	// the group of a deleted cluster), a managed cluster with its agent pools (AKS refuses to delete the last System
	// pool on its own). Such an object is left to go with its nearest ancestor of the kind rather than deleted, when
	// that ancestor is the provider's and ASO deletes it in Azure (see leaveToAncestor). Set only when the ancestor
	// goes too, e.g. while the whole Cluster is deleted.
	GoesWith func(kind schema.GroupKind) (ancestor schema.GroupKind, ok bool)
	// Credentials are the owner's credentials as the deletion pass resolved them (EnsureCredentials,
	// ClusterCredentials); nil when the owner has none of its own (its raw objects name theirs).
	Credentials *Credentials
}

func (o DeleteOptions) goesWith(kind schema.GroupKind) (schema.GroupKind, bool) {
	if o.GoesWith == nil {
		return schema.GroupKind{}, false
	}
	return o.GoesWith(kind)
}

// waitingForDependents is the message of an object whose group's turn to be deleted has not come.
const waitingForDependents = "waiting for resources that depend on it to be deleted first"

// Delete deletes the owner's objects, one group at a time. It returns done once no owned object remains, that
// is once ASO has deleted the Azure resources and removed its finalizers; until then the owner must keep its
// own finalizer. Objects the owner does not control are never deleted.
func (e *Engine) Delete(ctx context.Context, owner client.Object, opts DeleteOptions) (done bool, result *Result, err error) {
	objs, err := e.owned(ctx, owner, opts.ClusterName, opts.Kinds)
	if err != nil {
		return false, nil, err
	}
	leftovers, err := e.capzLeftovers(ctx, owner, opts.ClusterName, opts.Kinds)
	if err != nil {
		return false, nil, err
	}
	objs = append(objs, leftovers...)
	result = &Result{}
	if len(objs) == 0 {
		return true, result, nil
	}
	groupOf := map[schema.GroupKind]int{}
	for i, group := range opts.Order {
		for _, gk := range group {
			groupOf[gk] = i
		}
	}
	group := func(obj client.Object) int {
		if i, ok := groupOf[obj.GetObjectKind().GroupVersionKind().GroupKind()]; ok {
			return i
		}
		return len(opts.Order)
	}
	current := len(opts.Order)
	for _, obj := range objs {
		current = min(current, group(obj))
	}
	verdicts := map[string]credentialVerdict{}
	for _, obj := range objs {
		gvk := obj.GetObjectKind().GroupVersionKind()
		state := newState(gvk, obj.GetName(), "")
		state.notReady(infrav1.DeletingReason, "ASO is deleting the resource", false)
		ancestorKind, goesWith := opts.goesWith(gvk.GroupKind())
		waiting := group(obj) != current
		switch {
		case waiting && !goesWith:
			state.message = waitingForDependents
		case obj.GetDeletionTimestamp().IsZero():
			held, err := e.vetBeforeDelete(ctx, owner, obj, opts.Credentials, verdicts)
			if err != nil {
				return false, result, err
			}
			if held != "" {
				state.notReady(CredentialNotAllowedReason, held, false)
				break
			}
			// An object that goes with an ancestor is left to it whatever its group: once the ancestor's object is
			// gone (it may come first in the order, as a managed cluster before its maintenance configurations),
			// nothing says the ancestor took the resource with it.
			if goesWith {
				left, err := e.leaveToAncestor(ctx, owner, obj, opts.ClusterName, ancestorKind)
				if err != nil {
					return false, result, err
				}
				if left != "" {
					result.Writes++
					state.notReady(infrav1.DeletingReason, left, false)
					break
				}
			}
			if waiting {
				state.message = waitingForDependents
				break
			}
			if held, err := e.settleProbe(ctx, obj, opts.ClusterName); err != nil || held != "" {
				if err != nil {
					return false, result, err
				}
				state.notReady(infrav1.DeletionHeldReason, held, false)
				break
			}
			if held, err := e.settleDeleteWithOwner(ctx, obj); err != nil || held != "" {
				if err != nil {
					return false, result, err
				}
				state.notReady(infrav1.DeletionHeldReason, held, false)
				break
			}
			if err := e.releaseCAPZPause(ctx, obj); err != nil {
				return false, result, err
			}
			if err := e.delete(ctx, obj, result); err != nil {
				return false, result, err
			}
		}
		result.add(state)
	}
	return false, result, nil
}

// vetBeforeDelete says why an object may not be deleted now, judged by the credential it names (ASO's
// credential-from annotation): ASO deletes the Azure resource with it, reading it again on every try, so it is vetted
// as on an apply, before every delete. "" when it is the owner's credentials that the pass vetted (creds), or one the
// credential policy accepts. A credential the provider revoked holds the deletion until what it named may be used
// again; then the object names it again, so that ASO can delete the resource with it.
func (e *Engine) vetBeforeDelete(ctx context.Context, owner, obj client.Object, creds *Credentials, verdicts map[string]credentialVerdict) (string, error) {
	name := obj.GetAnnotations()[asoannotations.PerResourceSecret]
	what := fmt.Sprintf("%s %s is not deleted: ", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
	revoked := IsRevokedCredential(name)
	if revoked {
		name = strings.TrimPrefix(name, RevokedCredentialPrefix)
		what += "its credential is revoked (" + RevokedCredentialPrefix + name + "): "
		if name == "" {
			return what + "it named no credential before, and ASO's default credential is never handed back", nil
		}
	}
	var refused string
	switch verdict, known := verdicts[name]; {
	case creds != nil && creds.Reason != "" && name == creds.SecretName:
		if !creds.Ready {
			refused = creds.Message
		}
	case known:
		refused = verdict.refused
	default:
		verdict, err := e.vetCredential(ctx, owner.GetNamespace(), name)
		if err != nil {
			return "", err
		}
		verdicts[name], refused = verdict, verdict.refused
	}
	if refused != "" {
		return what + refused, nil
	}
	if revoked {
		return "", e.nameCredential(ctx, obj, name)
	}
	return "", nil
}

// deleteOrphans deletes owned objects that are no longer desired and reports them as deleting. With a hold
// reason it deletes nothing and reports them as kept, with that reason.
func (e *Engine) deleteOrphans(ctx context.Context, owner client.Object, opts Options, wanted map[objectKey]bool, hold string, result *Result) ([]resourceState, error) {
	objs, err := e.owned(ctx, owner, opts.ClusterName, opts.Kinds)
	if err != nil {
		return nil, err
	}
	// The controller reconciles only with credentials it vetted in the pass: the cluster's credential secret, or
	// none (raw objects name theirs, which the policy judges).
	var creds *Credentials
	if opts.CredentialSecret != "" {
		creds = &Credentials{SecretName: opts.CredentialSecret, Ready: true, Reason: CredentialsReadyReason}
	}
	verdicts := map[string]credentialVerdict{}
	var states []resourceState
	for _, obj := range objs {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if wanted[keyOf(gvk, obj.GetName())] {
			continue
		}
		state := newState(gvk, obj.GetName(), "")
		switch {
		case hold != "" && obj.GetDeletionTimestamp().IsZero():
			state.notReady(infrav1.DeletionHeldReason, hold, false)
		case !obj.GetDeletionTimestamp().IsZero():
			state.notReady(infrav1.DeletingReason, "no longer desired; ASO is deleting the resource", false)
		default:
			held, err := e.vetBeforeDelete(ctx, owner, obj, creds, verdicts)
			if err != nil {
				state.failed(err)
				return append(states, state), err
			}
			if held != "" {
				state.notReady(CredentialNotAllowedReason, held, false)
				break
			}
			if err := e.delete(ctx, obj, result); err != nil {
				state.failed(err)
				return append(states, state), err
			}
			state.notReady(infrav1.DeletingReason, "no longer desired; ASO is deleting the resource", false)
		}
		states = append(states, state)
	}
	return states, nil
}

// delete deletes one object unless it is already being deleted.
func (e *Engine) delete(ctx context.Context, obj client.Object, result *Result) error {
	if !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	if err := e.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to delete %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	result.Writes++
	return nil
}

// owned lists the objects of the given kinds that the owner controls, from the cache.
func (e *Engine) owned(ctx context.Context, owner client.Object, clusterName string, kinds []schema.GroupVersionKind) ([]client.Object, error) {
	return e.controlled(ctx, e.Client, owner, kinds, client.MatchingLabels{infrav1.OwnedByLabel: clusterName}, nil)
}

// capzLeftovers lists the objects of the given kinds that the owner controls and the provider never applied: ASO
// objects CAPZ made for the cluster before a switch (labelled with the cluster's name, without the provider's label)
// that the provider does not desire, such as CAPZ's NAT gateway of a brought network. The garbage collector would
// delete them after the owner, with CAPZ's pause still on them, so ASO would leave in Azure what CAPZ managed. They
// are read from the API server: the cache holds only the provider's objects.
func (e *Engine) capzLeftovers(ctx context.Context, owner client.Object, clusterName string, kinds []schema.GroupVersionKind) ([]client.Object, error) {
	notOurs := func(obj client.Object) bool {
		_, ours := obj.GetLabels()[infrav1.OwnedByLabel]
		return !ours
	}
	return e.controlled(ctx, e.APIReader, owner, kinds, client.MatchingLabels{clusterv1.ClusterNameLabel: clusterName}, notOurs)
}

// controlled lists, through reader, the objects of the given kinds with these labels that the owner controls and
// keep (nil: all) accepts.
func (e *Engine) controlled(ctx context.Context, reader client.Reader, owner client.Object, kinds []schema.GroupVersionKind,
	labels client.MatchingLabels, keep func(client.Object) bool) ([]client.Object, error) {
	var out []client.Object
	for _, gvk := range kinds {
		objList, err := e.newList(gvk)
		if err != nil {
			return nil, err
		}
		if err := reader.List(ctx, objList, client.InNamespace(owner.GetNamespace()), labels); err != nil {
			return nil, fmt.Errorf("failed to list %s: %w", gvk.Kind, err)
		}
		items, err := meta.ExtractList(objList)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			obj, ok := item.(client.Object)
			if !ok || !isControlledBy(obj, owner) || (keep != nil && !keep(obj)) {
				continue
			}
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			out = append(out, obj)
		}
	}
	return out, nil
}

// settleProbe decides, before deleting it, about an object the engine is still probing (AdoptionAnnotation probing:
// applied with reconcile-policy skip so that ASO looks the resource up), as the next apply would have: deleting it at
// skip would leave in Azure a resource another controller (CAPZ) made for the cluster, such as the VM of a machine
// deleted before its takeover. It returns why the object is not deleted yet: ASO has not answered. A resource ASO
// found with the cluster's owned tag is taken over (reconcile-policy manage), so that ASO deletes it in Azure; the
// user's own resource and a resource Azure does not have keep skip, so that ASO deletes nothing.
func (e *Engine) settleProbe(ctx context.Context, obj client.Object, clusterName string) (string, error) {
	if obj.GetAnnotations()[AdoptionAnnotation] != adoptionProbing {
		return "", nil
	}
	adoption, waiting := adoptionOf(obj, clusterName)
	if waiting {
		return fmt.Sprintf("%s %s is not deleted yet: waiting for ASO to look the resource up in Azure, so that what the cluster owns there goes with it",
			obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName()), nil
	}
	if adoption != adoptionTakenOver {
		return "", nil
	}
	annotations := map[string]any{AdoptionAnnotation: adoption, asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicyManage)}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return "", err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("failed to record the adoption of %s %s before deleting it: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return "", nil
}

// releaseCAPZPause gives an object CAPZ paused (CAPZPrePauseAnnotation) back the reconcile-policy it had before, as
// CAPZ would on resuming, so that its deletion deletes in Azure what CAPZ managed and keeps what CAPZ only referenced.
func (e *Engine) releaseCAPZPause(ctx context.Context, obj client.Object) error {
	previous, paused := obj.GetAnnotations()[CAPZPrePauseAnnotation]
	if !paused {
		return nil
	}
	annotations := map[string]any{CAPZPrePauseAnnotation: nil, asoannotations.ReconcilePolicy: nil}
	if previous != "" {
		annotations[asoannotations.ReconcilePolicy] = previous
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to restore CAPZ's reconcile policy of %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// newList returns an empty list of a kind: typed when the kind is in the scheme, unstructured otherwise.
func (e *Engine) newList(gvk schema.GroupVersionKind) (client.ObjectList, error) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	list, err := e.Client.Scheme().New(listGVK)
	if runtime.IsNotRegisteredError(err) {
		u := &unstructured.UnstructuredList{}
		u.SetGroupVersionKind(listGVK)
		return u, nil
	}
	if err != nil {
		return nil, err
	}
	objList, ok := list.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", listGVK.Kind)
	}
	return objList, nil
}
