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
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Object is a kind the provider reconciles.
type Object interface {
	client.Object
	conditions.Setter
}

// Kind is one controller: what its kind owns and watches, how a pass finds the object's owners, and its phases.
// Setup and Reconcile do the rest. S is the kind's scope: the data its phases fill and its status reads.
type Kind[T Object, S Scope] struct {
	// Client reads from the manager's cache and writes; Engine applies, pauses and deletes the ASO objects.
	Client client.Client
	Engine *aso.Engine
	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
	// Needs are the kind's other dependencies, by name (e.g. "API reader"): Setup refuses a nil one.
	Needs map[string]any

	// New returns an empty object of the kind.
	New func() T
	// ForPredicates filter the events of the kind's own objects (e.g. IgnoreStatusOnlyUpdates).
	ForPredicates []predicate.Predicate
	// Cluster says which of the kind's objects a Cluster's events reach.
	Cluster ClusterWatch
	// Watches are the kind's other watches.
	Watches []Watch
	// Owns are the ASO kinds the object may own, at the versions the translators produce: the controller watches
	// them, and the lifecycle pauses them and hands them to the phases (State.Kinds). A kind that owns none has no
	// ASO objects to pause and never blocks clusterctl move.
	Owns []azure.Object
	// OwnedKinds, when set, are the ASO kinds one object may own (raw resources, which it records); the controller
	// then watches every kind of aso.Kinds().
	OwnedKinds func(obj client.Object) []schema.GroupVersionKind

	// Finalizer is held while the object may own ASO objects; empty for a kind that owns none, whose deleted
	// objects are left alone.
	Finalizer string
	// CAPZFinalizer is the finalizer CAPZ v1.26.0 puts on the kind when it is not Finalizer (CAPZ's
	// exp/controllers/azuremachinepool_controller.go and controllers/*machinepool*_controller.go,
	// azureasomanagedcluster_controller.go): on an object CAPZ made, the provider replaces it with Finalizer, so
	// that a deletion no longer waits for CAPZ (docs/migrating-from-capz.md).
	CAPZFinalizer string
	// Owners finds the object's owners (see ClusterOwner, MachineOwner, MachinePoolOwner, ClusterLabel).
	Owners OwnerLookup
	// ExternallyManaged lets the user manage the object (cluster.x-k8s.io/managed-by): infrastructure cluster kinds
	// then do nothing, as the Cluster API contract asks.
	ExternallyManaged bool
	// Scope returns the scope of one pass.
	Scope func(obj T, owners *Owners) S
	// Identity, when set, is the cluster identity the object carries (an AzureCluster's, an AKS control plane's):
	// before the Phases, a first phase turns it into ASO's credential secret (aso.Engine.EnsureCredentials) and
	// records the credentials in the scope, or makes the object wait while the identity may not be used; in a
	// paused pass it is checked (aso.Engine.ClusterCredentials), so that a revoked identity is revoked at once, not
	// after the pause; a deletion pass ensures it as a live pass does before any ASO object is deleted. The
	// lifecycle sets the input's Kinds.
	Identity func(obj T, s S) aso.CredentialsInput
	// WhilePaused, when set, runs in the passes of a paused object before its ASO objects are paused, and before
	// the ASO objects of a deleted object are deleted: it resolves the credentials the object uses (its cluster's),
	// so that a revoked identity is revoked at once, and records them in the scope, which the deletion vets the
	// objects' credentials against.
	WhilePaused func(ctx context.Context, s S) error
	// Phases reconcile a live object, in order (see Phase).
	Phases []Phase[S]
	// Deletes says what deleting the object deletes, for Ready (e.g. "the machine's Azure resources").
	Deletes string
	// BeforeDelete, when set, runs first when the object is deleted; until it is done the ASO objects (and the
	// finalizer) stay.
	BeforeDelete func(ctx context.Context, s S) (done bool, err error)
	// DeleteOrder orders the deletion of the ASO objects (aso.DeleteOptions.Order).
	DeleteOrder [][]schema.GroupKind
	// GoWithCluster, when set, says which ASO kinds Azure deletes with an ancestor resource, and of which kind:
	// while the whole Cluster is deleted their objects are left to go with it (aso.DeleteOptions.GoesWith), as
	// CAPZ leaves a machine's resources to its cluster's resource group and AKS deletes a managed cluster's agent
	// pools with the cluster.
	GoWithCluster func(kind schema.GroupKind) (ancestor schema.GroupKind, ok bool)
	// GoWithOwner, when set, says which ASO kinds Azure deletes with an ancestor resource that the object's own
	// deletion deletes too (a VM's extensions go with the VM): their objects are left to go with it whenever the
	// object is deleted. GoWithCluster takes its place while the whole Cluster is deleted.
	GoWithOwner func(kind schema.GroupKind) (ancestor schema.GroupKind, ok bool)
	// Status, when set, sets the object's status and conditions (SetConditions) from the scope and the pass's
	// error (nil on success). With Paused, the conditions are every condition of the object: the lifecycle is their only
	// writer, and its status patch carries the whole list.
	Status func(s S, err error)

	// kinds are the GroupVersionKinds of Owns, resolved by Setup.
	kinds []schema.GroupVersionKind
}

// ClusterWatch says which of a kind's objects a Cluster's events reach: those labelled with the Cluster's name,
// or the one a reference of the Cluster names (ByInfrastructureRef, ByControlPlaneRef), or Map's.
type ClusterWatch struct {
	ByInfrastructureRef, ByControlPlaneRef bool
	// Map, when set, maps a Cluster to the objects.
	Map handler.MapFunc
	// Provisioned passes the Cluster's infrastructure becoming provisioned too, besides pause and unpause: the
	// kind waits for it.
	Provisioned bool
}

// Watch is one more watch of a kind: Object's events, or its metadata's (Metadata), mapped by Handler and filtered
// by Predicates; or a raw Source.
type Watch struct {
	Object     client.Object
	Metadata   bool
	Handler    handler.EventHandler
	Predicates []predicate.Predicate
	Source     source.Source
}

// Reconcile runs one pass of the kind's lifecycle for the object of req.
func (k *Kind[T, S]) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	c := k.Client
	obj := k.New()
	if err := c.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if k.Finalizer == "" && !obj.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, nil
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
	owns := k.owns()
	isPaused, paused := pausedCondition(c, owners.Cluster, obj)
	if k.Finalizer != "" && obj.GetDeletionTimestamp().IsZero() && (!controllerutil.ContainsFinalizer(obj, k.Finalizer) || k.hasCAPZFinalizer(obj)) {
		// The finalizer is written before any ASO object, so that deleting the object always goes through the
		// deletion; the pass goes on. The block on clusterctl move, which a live object's pass sets anyway, goes
		// with it. CAPZ's finalizer, if any, gives way to it.
		original := obj.DeepCopyObject().(client.Object)
		controllerutil.AddFinalizer(obj, k.Finalizer)
		k.removeCAPZFinalizer(obj)
		if !isPaused && owns {
			aso.SetBlockMove(obj, true)
		}
		if err := c.Patch(ctx, obj, client.MergeFrom(original)); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add the finalizer to %s: %w", klog.KObj(obj), err)
		}
	}
	s := k.Scope(obj, owners)
	st := s.state()
	st.Kinds = k.kinds
	if k.OwnedKinds != nil {
		st.Kinds = k.OwnedKinds(obj)
	}
	p := newPatcher(c, obj)
	dropForeignConditions(obj)

	// One deferred patch writes what the pass changed: metadata and spec, then status, each only when it changed.
	defer func() {
		if k.Status != nil {
			k.Status(s, reterr)
		}
		conditions.Set(obj, paused)
		if err := p.patch(ctx, obj, reterr == nil && !isPaused); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if isPaused {
		if obj.GetDeletionTimestamp().IsZero() {
			if k.Identity != nil {
				if err := k.checkCredentialsWhilePaused(ctx, obj, s); err != nil {
					return ctrl.Result{}, err
				}
			}
			if k.WhilePaused != nil {
				if err := k.WhilePaused(ctx, s); err != nil {
					return ctrl.Result{}, err
				}
			}
		}
		if !owns {
			return ctrl.Result{RequeueAfter: st.RequeueAfter}, nil
		}
		return ctrl.Result{RequeueAfter: st.RequeueAfter}, pause(ctx, k.Engine, obj, owners.Cluster.Name, k.pauseKinds(obj))
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		done, err := k.delete(ctx, s, obj, owners.Cluster)
		if err != nil || !done {
			return ctrl.Result{}, err
		}
		log.Info("Removing the finalizer: every ASO object is gone")
		controllerutil.RemoveFinalizer(obj, k.Finalizer)
		k.removeCAPZFinalizer(obj)
		return ctrl.Result{}, nil
	}
	if owns {
		// The ASO objects may change from now on: clusterctl move waits until pause has set them to skip.
		aso.SetBlockMove(obj, true)
	}
	phases := k.Phases
	if k.Identity != nil {
		phases = append([]Phase[S]{k.ensureCredentials(obj)}, phases...)
	}
	requeueAfter, err := runPhases(ctx, s, phases)
	return ctrl.Result{RequeueAfter: requeueAfter}, err
}

// owns reports whether the kind may own ASO objects.
func (k *Kind[T, S]) owns() bool {
	return len(k.Owns) > 0 || k.OwnedKinds != nil
}

// pauseKinds are the ASO kinds to pause of an object.
func (k *Kind[T, S]) pauseKinds(obj client.Object) []schema.GroupVersionKind {
	if k.OwnedKinds != nil {
		return k.OwnedKinds(obj)
	}
	return k.kinds
}

// delete deletes the object's ASO objects, after BeforeDelete, in their order; done once ASO has deleted them all.
func (k *Kind[T, S]) delete(ctx context.Context, s S, obj T, cluster *clusterv1.Cluster) (bool, error) {
	st := s.state()
	st.Deleting = k.Deletes
	if k.BeforeDelete != nil {
		if done, err := k.BeforeDelete(ctx, s); err != nil || !done {
			return false, err
		}
	}
	if err := k.credentialsBeforeDelete(ctx, obj, s); err != nil {
		return false, err
	}
	opts := aso.DeleteOptions{ClusterName: cluster.Name, Kinds: st.Kinds, Order: k.DeleteOrder, Credentials: st.Credentials, GoesWith: k.GoWithOwner}
	if k.GoWithCluster != nil {
		deleting, err := k.clusterDeleting(ctx, cluster)
		if err != nil {
			return false, err
		}
		if deleting {
			opts.GoesWith = k.GoWithCluster
		}
	}
	done, result, err := k.Engine.Delete(ctx, obj, opts)
	st.Result = result
	return done, err
}

// clusterDeleting reports whether the Cluster is being deleted. The cache may not have seen the Cluster's deletion
// yet when Cluster API's deletion of its descendants reaches the object (each kind has its own informer), so a
// Cluster the cache shows live is read again from the API server: Cluster API deletes descendants only after the
// Cluster's deletion is stored.
func (k *Kind[T, S]) clusterDeleting(ctx context.Context, cluster *clusterv1.Cluster) (bool, error) {
	if !cluster.DeletionTimestamp.IsZero() {
		return true, nil
	}
	live := &clusterv1.Cluster{}
	if err := k.Engine.APIReader.Get(ctx, client.ObjectKeyFromObject(cluster), live); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return !live.DeletionTimestamp.IsZero(), nil
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

// hasCAPZFinalizer reports whether an object carries CAPZ's finalizer of the kind (CAPZFinalizer).
func (k *Kind[T, S]) hasCAPZFinalizer(obj client.Object) bool {
	return k.CAPZFinalizer != "" && controllerutil.ContainsFinalizer(obj, k.CAPZFinalizer)
}

// removeCAPZFinalizer removes CAPZ's finalizer of the kind, if it has one, from an object.
func (k *Kind[T, S]) removeCAPZFinalizer(obj client.Object) {
	if k.CAPZFinalizer != "" {
		controllerutil.RemoveFinalizer(obj, k.CAPZFinalizer)
	}
}
