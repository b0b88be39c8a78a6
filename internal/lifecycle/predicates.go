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
	"k8s.io/apimachinery/pkg/api/equality"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// IgnoreStatusOnlyUpdates drops the update events of objects whose status alone changed. A controller's own
// status patch would otherwise bring the object back for a pass that finds nothing to do: at a thousand machines
// these passes were a third of the AzureMachine controller's work. Creations, deletions, resyncs (the same
// resourceVersion) and any change outside status (spec, labels, annotations, finalizers, owners, deletion) pass.
//
// A status change that takes Ready from True to anything else passes too. The cache can miss a status the
// controller wrote (its watch broke and it relisted later): a pass that runs meanwhile starts from the cached
// status, computes Ready as it was there, finds no difference and writes nothing, so the API server keeps the
// older "not ready" status. When the cache catches up, this event is the only one that shows it; dropping it left
// the object not Ready until the next resync (fault suite, a watch cut during an update).
func IgnoreStatusOnlyUpdates() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		if o == nil || n == nil || o.GetResourceVersion() == n.GetResourceVersion() {
			return true
		}
		return o.GetGeneration() != n.GetGeneration() ||
			!equality.Semantic.DeepEqual(o.GetLabels(), n.GetLabels()) ||
			!equality.Semantic.DeepEqual(o.GetAnnotations(), n.GetAnnotations()) ||
			!equality.Semantic.DeepEqual(o.GetFinalizers(), n.GetFinalizers()) ||
			!equality.Semantic.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences()) ||
			!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
			lostReady(o, n)
	}}
}

// lostReady reports whether an object's Ready condition was True before and is not now.
func lostReady(o, n client.Object) bool {
	og, ok1 := o.(conditions.Getter)
	ng, ok2 := n.(conditions.Getter)
	return ok1 && ok2 && conditions.IsTrue(og, clusterv1.ReadyCondition) && !conditions.IsTrue(ng, clusterv1.ReadyCondition)
}
