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
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// leaveToParent leaves an object to go with its parent resource (DeleteOptions.GoWithParent): it removes the
// owner's reference, so that the object is no longer the owner's, and Kubernetes' garbage collector deletes it once
// its parent's object is gone, that is once ASO has deleted the parent, and the resource with it, in Azure. The
// object gets reconcile-policy detach-on-delete: ASO then sends no DELETE of a resource already gone, and needs no
// credential for it (the owner's credential secret may be gone by then). It says what it did, or "" when it left
// nothing because the parent's deletion cannot be relied on: the object is then deleted as any other. The parent
// must be the object's owner in ASO's terms (spec.owner), hold the reference ASO sets to it, be the provider's
// object of the same cluster, and have reconcile-policy manage as ASO reads it, so that ASO deletes it in Azure.
func (e *Engine) leaveToParent(ctx context.Context, owner, obj client.Object, clusterName string) (string, error) {
	parentName := specOwnerName(obj)
	if parentName == "" {
		return "", nil
	}
	var keep []metav1.OwnerReference
	var parentRef *metav1.OwnerReference
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == owner.GetUID() {
			continue
		}
		keep = append(keep, ref)
		// ASO's reference to the object's owner: not a controller, of an ASO group, named as spec.owner.
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Controller == nil && strings.HasSuffix(gv.Group, ".azure.com") && ref.Name == parentName {
			parentRef = &ref
		}
	}
	if parentRef == nil {
		return "", nil
	}
	parent := &metav1.PartialObjectMetadata{}
	parent.SetGroupVersionKind(schema.FromAPIVersionAndKind(parentRef.APIVersion, parentRef.Kind))
	if err := e.APIReader.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: parentRef.Name}, parent); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	if parent.UID != parentRef.UID || parent.Labels[infrav1.OwnedByLabel] != clusterName || !controlledByProvider(parent) {
		return "", nil
	}
	if policy, err := e.reconcilePolicyOf(ctx, parent); err != nil || policy != asoannotations.ReconcilePolicyManage {
		return "", err
	}
	before := obj.DeepCopyObject().(client.Object)
	obj.SetOwnerReferences(keep)
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[asoannotations.ReconcilePolicy] = string(asoannotations.ReconcilePolicyDetachOnDelete)
	obj.SetAnnotations(annotations)
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if err := e.Client.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("failed to leave %s %s to its %s: %w", kind, client.ObjectKeyFromObject(obj), parentRef.Kind, err)
	}
	return fmt.Sprintf("%s %s goes with its %s %s: Azure deletes it with its parent", kind, obj.GetName(), parentRef.Kind, parentRef.Name), nil
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

// specOwnerName is the name of an ASO object's owner (spec.owner.name), "" when it has none or an ARM ID: typed, or
// unstructured when the object's version is not in the scheme (a raw resource at another version).
func specOwnerName(obj client.Object) string {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		name, _, _ := unstructured.NestedString(u.Object, "spec", "owner", "name")
		return name
	}
	if owned, ok := obj.(genruntime.ARMOwnedMetaObject); ok && owned.Owner() != nil {
		return owned.Owner().Name
	}
	return ""
}
