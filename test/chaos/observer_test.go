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

package chaos

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// observer records what happens to the ASO objects of a namespace that the invariants speak of: every deletion
// (a deletion timestamp appearing, or the object disappearing), with the object's controlling owner, and every
// loss of reconcile-policy skip. It reads the test environment's cache, which holds the objects the provider
// labelled.
type observer struct {
	namespace string

	mu        sync.Mutex
	deletions []deletion
	unskipped []string
}

// deletion is an ASO object the provider deleted, and its controlling owner then.
type deletion struct {
	object string
	owner  *metav1.OwnerReference
}

// observe starts an observer for a namespace; it stops when the test ends.
func observe(t *testing.T, namespace string) *observer {
	t.Helper()
	o := &observer{namespace: namespace}
	for _, kind := range asosim.Kinds() {
		informer, err := env.Env.Manager.GetCache().GetInformer(t.Context(), kind)
		if err != nil {
			t.Fatal(err)
		}
		registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			UpdateFunc: func(before, after any) { o.updated(before, after) },
			DeleteFunc: func(obj any) { o.removed(obj) },
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = informer.RemoveEventHandler(registration) })
	}
	return o
}

func (o *observer) updated(before, after any) {
	b, ok1 := before.(client.Object)
	a, ok2 := after.(client.Object)
	if !ok1 || !ok2 || a.GetNamespace() != o.namespace {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if b.GetDeletionTimestamp().IsZero() && !a.GetDeletionTimestamp().IsZero() {
		o.deletions = append(o.deletions, deletion{object: describe(a), owner: metav1.GetControllerOf(a)})
	}
	if lostSkip(b, a) {
		o.unskipped = append(o.unskipped, describe(a))
	}
}

func (o *observer) removed(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	gone, ok := obj.(client.Object)
	if !ok || gone.GetNamespace() != o.namespace || !gone.GetDeletionTimestamp().IsZero() {
		return // its deletion was recorded when it got its timestamp
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.deletions = append(o.deletions, deletion{object: describe(gone), owner: metav1.GetControllerOf(gone)})
}

// lostSkip reports an object that ASO was told to leave alone and now is not: neither the end of a pause (the
// object remembers its policy from before) nor an adoption probe that found the resource is the cluster's own.
func lostSkip(before, after client.Object) bool {
	skip := string(asoannotations.ReconcilePolicySkip)
	if before.GetAnnotations()[asoannotations.ReconcilePolicy] != skip || after.GetAnnotations()[asoannotations.ReconcilePolicy] == skip {
		return false
	}
	if _, paused := before.GetAnnotations()[aso.PrePauseAnnotation]; paused {
		return false
	}
	return !(before.GetAnnotations()[aso.AdoptionAnnotation] == "probing" && after.GetAnnotations()[aso.AdoptionAnnotation] == "created")
}

func describe(obj client.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if gvk, err := apiutil.GVKForObject(obj, env.Env.Scheme()); err == nil {
		kind = gvk.Kind
	}
	return kind + " " + obj.GetName()
}

// violations returns, and forgets, what broke the invariants since the last call: deletions of objects whose owner
// is neither deleted nor being deleted (a failure, not an intent, deleted them), and lost reconcile-policy skips.
func (o *observer) violations(ctx context.Context) []string {
	o.mu.Lock()
	deletions, unskipped := o.deletions, o.unskipped
	o.deletions, o.unskipped = nil, nil
	o.mu.Unlock()
	var out []string
	for _, d := range deletions {
		if !ownerGoing(ctx, o.namespace, d.owner) {
			out = append(out, fmt.Sprintf("%s was deleted while its owner %s lives", d.object, ownerName(d.owner)))
		}
	}
	for _, name := range unskipped {
		out = append(out, name+" lost reconcile-policy skip")
	}
	sort.Strings(out)
	return out
}

// ownerGoing reports whether an owner is deleted or being deleted.
func ownerGoing(ctx context.Context, namespace string, ref *metav1.OwnerReference) bool {
	if ref == nil {
		return false
	}
	owner := &unstructured.Unstructured{}
	owner.SetAPIVersion(ref.APIVersion)
	owner.SetKind(ref.Kind)
	err := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, owner)
	if apierrors.IsNotFound(err) {
		return true
	}
	return err == nil && (owner.GetUID() != ref.UID || !owner.GetDeletionTimestamp().IsZero())
}

func ownerName(ref *metav1.OwnerReference) string {
	if ref == nil {
		return "(none)"
	}
	return ref.Kind + " " + ref.Name
}
