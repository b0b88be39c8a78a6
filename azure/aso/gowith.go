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
	"fmt"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/util/annotations"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// maxAncestors bounds the walk from an object up to the ancestor it goes with: ARM nests resources a few levels
// deep (a resource group, a network, its subnet).
const maxAncestors = 8

// leaveToAncestor leaves an object to go with its nearest ancestor resource of a kind (DeleteOptions.GoesWith): it
// removes the owner's reference, so that the object is no longer the owner's, and Kubernetes' garbage collector
// deletes it once its parent's object is gone (through the reference ASO sets to spec.owner, or, for an object
// whose owner is an ARM ID, one to the ancestor's object that it gets here), that is once ASO has deleted the
// ancestor, and the resource with it, in Azure. The object gets reconcile-policy detach-on-delete: ASO then sends no
// DELETE of a resource already gone, and needs no credential for it (the owner's credential secret may be gone by
// then). It says what it did, or "" when it left nothing because the ancestor's deletion cannot be relied on
// (goingAncestor): the object is then deleted as any other.
func (e *Engine) leaveToAncestor(ctx context.Context, owner, obj client.Object, clusterName string, ancestorKind schema.GroupKind) (string, error) {
	ancestor, byARMID, err := e.goingAncestor(ctx, obj, clusterName, ancestorKind)
	if ancestor == nil || err != nil {
		return "", err
	}
	before := obj.DeepCopyObject().(client.Object)
	var keep []metav1.OwnerReference
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID != owner.GetUID() {
			keep = append(keep, ref)
		}
	}
	if byARMID {
		gvk := ancestor.GetObjectKind().GroupVersionKind()
		keep = append(keep, metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: ancestor.GetName(), UID: ancestor.GetUID()})
	}
	obj.SetOwnerReferences(keep)
	annotations.AddAnnotations(obj, map[string]string{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicyDetachOnDelete)})
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if err := e.Client.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("failed to leave %s %s to its %s: %w", kind, client.ObjectKeyFromObject(obj), ancestorKind.Kind, err)
	}
	return fmt.Sprintf("%s %s goes with its %s %s: Azure deletes it with that resource", kind, obj.GetName(), ancestorKind.Kind, ancestor.GetName()), nil
}

// goingAncestor finds an object's nearest ancestor of a kind, and returns it when ASO deletes it in Azure, else
// nil. It climbs from the object to its parent's object, and on, through the references ASO sets to each one's
// owner (spec.owner); an owner given by ARM ID has no object to climb to, and is taken to be inside the ancestor
// whose resource ID contains it (byARMID, when that is the object's own owner). Every object on the way must be one
// of the cluster's, labelled so (an object the provider left to go with its own ancestor keeps its label); the
// ancestor must also be the provider's, made by it (not a user's resource it references or still probes for), and
// have reconcile-policy manage as ASO reads it.
func (e *Engine) goingAncestor(ctx context.Context, obj client.Object, clusterName string, kind schema.GroupKind) (ancestor client.Object, byARMID bool, err error) {
	current := obj
	for hop := range maxAncestors {
		var parent client.Object
		if ref := asoParentRef(current); ref != nil {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
			if err := e.APIReader.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, u); err != nil {
				return nil, false, client.IgnoreNotFound(err)
			}
			if u.GetUID() != ref.UID {
				return nil, false, nil
			}
			parent = u
		} else if _, id := specOwner(current); id != "" {
			if parent, err = e.objectContaining(ctx, obj.GetNamespace(), kind, id, clusterName); parent == nil || err != nil {
				return nil, false, err
			}
			byARMID = hop == 0
		} else {
			return nil, false, nil
		}
		if parent.GetLabels()[infrav1.OwnedByLabel] != clusterName {
			return nil, false, nil
		}
		if parent.GetObjectKind().GroupVersionKind().GroupKind() != kind {
			current = parent
			continue
		}
		switch parent.GetAnnotations()[AdoptionAnnotation] {
		case adoptionReferenced, adoptionProbing:
			return nil, false, nil
		}
		if !controlledByProvider(parent) {
			return nil, false, nil
		}
		if policy, err := e.reconcilePolicyOf(ctx, parent); err != nil || policy != asoannotations.ReconcilePolicyManage {
			return nil, false, err
		}
		return parent, byARMID, nil
	}
	return nil, false, nil
}

// objectContaining is the cluster's object of a kind in a namespace whose resource (ASO's resource ID) is or
// contains the resource of an ARM ID, nil when there is none.
func (e *Engine) objectContaining(ctx context.Context, namespace string, kind schema.GroupKind, armID, clusterName string) (client.Object, error) {
	mapping, err := e.Client.RESTMapper().RESTMapping(kind)
	if err != nil {
		return nil, fmt.Errorf("failed to find the version of %s: %w", kind, err)
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(mapping.GroupVersionKind.GroupVersion().WithKind(mapping.GroupVersionKind.Kind + "List"))
	if err := e.APIReader.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{infrav1.OwnedByLabel: clusterName}); err != nil {
		return nil, fmt.Errorf("failed to list %s: %w", kind, err)
	}
	armID = strings.ToLower(armID)
	for i := range list.Items {
		id := strings.ToLower(list.Items[i].Annotations[genruntime.ResourceIDAnnotation])
		if id != "" && (armID == id || strings.HasPrefix(armID, id+"/")) {
			obj := &list.Items[i]
			obj.SetGroupVersionKind(mapping.GroupVersionKind)
			return obj, nil
		}
	}
	return nil, nil
}

// asoParentRef is the reference ASO sets from an object to its owner's object (spec.owner): not a controller, of an
// ASO group, named as spec.owner; nil when the object has none (no owner, an ARM ID, or ASO has not claimed it).
func asoParentRef(obj client.Object) *metav1.OwnerReference {
	parentName, _ := specOwner(obj)
	if parentName == "" {
		return nil
	}
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && !ptr.Deref(ref.Controller, false) && strings.HasSuffix(gv.Group, ".azure.com") && ref.Name == parentName {
			return &ref
		}
	}
	return nil
}

// reconcilePolicyOf is the reconcile-policy ASO applies to an object (internal/reconcilers/generic, mergeReconcilePolicy):
// its own, else its namespace's, else ASO's default, manage; a value ASO does not know is its default too. The
// provider's objects state theirs; a raw object the user wrote whole may not.
func (e *Engine) reconcilePolicyOf(ctx context.Context, obj client.Object) (asoannotations.ReconcilePolicyValue, error) {
	policy := obj.GetAnnotations()[asoannotations.ReconcilePolicy]
	if policy == "" {
		ns := &corev1.Namespace{}
		if err := e.APIReader.Get(ctx, client.ObjectKey{Name: obj.GetNamespace()}, ns); err != nil {
			return "", fmt.Errorf("failed to get Namespace %s: %w", obj.GetNamespace(), err)
		}
		policy = ns.Annotations[asoannotations.ReconcilePolicy]
	}
	switch v := asoannotations.ReconcilePolicyValue(policy); v {
	case asoannotations.ReconcilePolicySkip, asoannotations.ReconcilePolicyDetachOnDelete:
		return v, nil
	}
	return asoannotations.ReconcilePolicyManage, nil
}

// specOwner is an ASO object's owner (spec.owner): its name, or the ARM ID it is given by; both "" when it has
// none. Typed, or unstructured when the object's version is not in the scheme (a raw resource at another version).
func specOwner(obj client.Object) (name, armID string) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		name, _, _ = unstructured.NestedString(u.Object, "spec", "owner", "name")
		armID, _, _ = unstructured.NestedString(u.Object, "spec", "owner", "armId")
		return name, armID
	}
	if owned, ok := obj.(genruntime.ARMOwnedMetaObject); ok && owned.Owner() != nil {
		return owned.Owner().Name, owned.Owner().ARMID
	}
	return "", ""
}
