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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/annotations"
	"sigs.k8s.io/cluster-api/util/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Object is a kind the provider reconciles into ASO objects.
type Object interface {
	client.Object
	conditions.Setter
}

// Kind describes one kind to Reconcile. S is the kind's scope: the data its phases fill and its status reads.
type Kind[T Object, S any] struct {
	// New returns an empty object of the kind.
	New func() T
	// Finalizer is held while the object may own ASO objects.
	Finalizer string
	// Owners finds the object's owners (see ClusterOwner, MachineOwner, MachinePoolOwner, ClusterLabel).
	Owners OwnerLookup
	// ExternallyManaged lets the user manage the object (cluster.x-k8s.io/managed-by): infrastructure cluster kinds
	// then do nothing, as the Cluster API contract asks.
	ExternallyManaged bool
	// Scope returns the scope of one pass.
	Scope func(obj T, owners *Owners) *S
	// PauseKinds are the ASO kinds the object may own: Pause sets reconcile-policy skip on them.
	PauseKinds func(obj client.Object) []schema.GroupVersionKind
	// Normal reconciles a live object.
	Normal func(ctx context.Context, s *S) (ctrl.Result, error)
	// WhilePaused, when set, runs in the passes of a paused object before its ASO objects are paused: it resolves
	// the object's credentials (aso.Engine.ClusterCredentials), so that a revoked identity is revoked at once, not
	// after the pause, and records them in the scope.
	WhilePaused func(ctx context.Context, s *S) error
	// Delete deletes the object's ASO objects; done releases the finalizer.
	Delete func(ctx context.Context, s *S) (done bool, err error)
	// Status sets the object's status and conditions from the scope and the pass's error (nil on success), and
	// returns the condition types it owns. With Paused, they are every condition of the object: the lifecycle is
	// their only writer, and its status patch carries the whole list.
	Status func(s *S, err error) []string
}

// Reconcile runs one pass of a kind's lifecycle for the object of req.
func Reconcile[T Object, S any](ctx context.Context, c client.Client, engine *aso.Engine, k *Kind[T, S], req ctrl.Request) (_ ctrl.Result, reterr error) {
	obj := k.New()
	if err := c.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	owners, waitingFor, err := k.Owners(ctx, c, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if owners == nil {
		log.Info("Waiting for " + waitingFor)
		return ctrl.Result{}, nil
	}
	log = owners.addTo(log)
	ctx = ctrl.LoggerInto(ctx, log)

	if k.ExternallyManaged && annotations.IsExternallyManaged(obj) {
		log.V(4).Info("Skipping an externally managed object")
		return ctrl.Result{}, nil
	}
	isPaused, paused := pausedCondition(c, owners.Cluster, obj)
	if obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, k.Finalizer) {
		// The finalizer is written before any ASO object, so that deleting the object always goes through Delete;
		// the pass goes on. The block on clusterctl move, which a live object's pass sets anyway, goes with it.
		original := obj.DeepCopyObject().(client.Object)
		controllerutil.AddFinalizer(obj, k.Finalizer)
		if !isPaused {
			aso.SetBlockMove(obj, true)
		}
		if err := c.Patch(ctx, obj, client.MergeFrom(original)); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add the finalizer to %s: %w", klog.KObj(obj), err)
		}
	}
	s := k.Scope(obj, owners)
	p := newPatcher(c, obj)

	// One deferred patch writes what the pass changed: metadata and spec, then status, each only when it changed.
	defer func() {
		k.Status(s, reterr)
		conditions.Set(obj, paused)
		if err := p.patch(ctx, obj, reterr == nil && !isPaused); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if isPaused {
		if k.WhilePaused != nil && obj.GetDeletionTimestamp().IsZero() {
			if err := k.WhilePaused(ctx, s); err != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{}, pause(ctx, engine, obj, owners.Cluster.Name, k.PauseKinds(obj))
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		done, err := k.Delete(ctx, s)
		if err != nil || !done {
			return ctrl.Result{}, err
		}
		log.Info("Removing the finalizer: every ASO object is gone")
		controllerutil.RemoveFinalizer(obj, k.Finalizer)
		return ctrl.Result{}, nil
	}
	// The ASO objects may change from now on: clusterctl move waits until pause has set them to skip.
	aso.SetBlockMove(obj, true)
	return k.Normal(ctx, s)
}

// pausedCondition is the Paused condition of Cluster API's contract: true while the Cluster or the object is
// paused. It is written with the rest of the status, at the end of the pass.
func pausedCondition(c client.Client, cluster *clusterv1.Cluster, obj client.Object) (bool, metav1.Condition) {
	var why []string
	if ptr.Deref(cluster.Spec.Paused, false) {
		why = append(why, "the Cluster is paused (spec.paused)")
	}
	if annotations.HasPaused(obj) {
		kind := "the object"
		if gvk, err := apiutil.GVKForObject(obj, c.Scheme()); err == nil {
			kind = "the " + gvk.Kind
		}
		why = append(why, kind+" has the "+clusterv1.PausedAnnotation+" annotation")
	}
	if len(why) == 0 {
		return false, metav1.Condition{Type: clusterv1.PausedCondition, Status: metav1.ConditionFalse, Reason: clusterv1.NotPausedReason}
	}
	return true, metav1.Condition{Type: clusterv1.PausedCondition, Status: metav1.ConditionTrue, Reason: clusterv1.PausedReason, Message: strings.Join(why, "; ")}
}

// pause sets reconcile-policy skip on every ASO object of the object, so that nothing changes in Azure while the
// Cluster is paused (clusterctl move relies on it), and lifts the block on clusterctl move once that is done.
func pause(ctx context.Context, engine *aso.Engine, obj client.Object, clusterName string, kinds []schema.GroupVersionKind) error {
	done, _, err := engine.Pause(ctx, obj, clusterName, kinds)
	if err != nil || !done {
		return err
	}
	aso.SetBlockMove(obj, false)
	return nil
}
