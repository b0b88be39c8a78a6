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
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Setup sets up the kind's controller with the manager: its own objects, filtered by the watch-filter label; the
// Cluster (pause and unpause, and the infrastructure becoming provisioned for a kind that waits for it); the kind's
// other watches; and the ASO kinds it owns. It returns the controller, for watches a phase adds later (a workload
// cluster's Nodes).
func (k *Kind[T, S]) Setup(ctx context.Context, mgr ctrl.Manager, options controller.Options) (capicontroller.Controller, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	var err error
	if k.kinds, err = aso.GVKs(mgr.GetScheme(), k.Owns...); err != nil {
		return nil, err
	}
	owned := make([]client.Object, 0, len(k.Owns))
	for _, obj := range k.Owns {
		owned = append(owned, obj)
	}
	if k.OwnedKinds != nil {
		// Raw objects may be of any ASO kind the manager caches: a change of one brings its owner back.
		owned = aso.Kinds()
	}
	log := ctrl.LoggerFrom(ctx)
	clusterToObjects, err := k.clusterMapper(ctx, mgr)
	if err != nil {
		return nil, err
	}
	clusterEvents := predicates.ClusterPausedTransitions(mgr.GetScheme(), log)
	if k.Cluster.Provisioned {
		clusterEvents = predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log)
	}
	b := capicontroller.NewControllerManagedBy(mgr, log).
		For(k.New(), builder.WithPredicates(k.ForPredicates...)).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, k.WatchFilterValue)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToObjects), clusterEvents)
	for _, w := range k.Watches {
		switch {
		case w.Source != nil:
			b = b.WatchesRawSource(drainedSource{Source: w.Source})
		case w.Metadata:
			b = b.WatchesMetadata(w.Object, w.Handler, w.Predicates...)
		default:
			b = b.Watches(w.Object, w.Handler, w.Predicates...)
		}
	}
	for _, obj := range owned {
		b = b.Owns(obj)
	}
	return b.Build(ctx, k)
}

// check refuses a kind whose dependencies are missing.
func (k *Kind[T, S]) check() error {
	var missing []string
	if k.Client == nil {
		missing = append(missing, "client")
	}
	if k.owns() && k.Engine == nil {
		missing = append(missing, "engine")
	}
	for name, v := range k.Needs {
		if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the %T controller needs: %s", k.New(), strings.Join(missing, ", "))
	}
	return nil
}

// clusterMapper maps a Cluster to the kind's objects (see ClusterWatch).
func (k *Kind[T, S]) clusterMapper(ctx context.Context, mgr ctrl.Manager) (handler.MapFunc, error) {
	gvk, err := apiutil.GVKForObject(k.New(), mgr.GetScheme())
	if err != nil {
		return nil, err
	}
	switch {
	case k.Cluster.Map != nil:
		return k.Cluster.Map, nil
	case k.Cluster.ByInfrastructureRef:
		return util.ClusterToInfrastructureMapFunc(ctx, gvk, mgr.GetClient(), k.New()), nil
	case k.Cluster.ByControlPlaneRef:
		return ClusterToControlPlane(gvk.Kind), nil
	}
	return ClusterToObjects(mgr, gvk)
}

// ClusterToObjects maps a Cluster to the objects of a kind labelled with its name (cluster.x-k8s.io/cluster-name).
func ClusterToObjects(mgr ctrl.Manager, gvk schema.GroupVersionKind) (handler.MapFunc, error) {
	list, err := mgr.GetScheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, err
	}
	objList, ok := list.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%sList is not a list", gvk.Kind)
	}
	return util.ClusterToTypedObjectsMapper(mgr.GetClient(), objList, mgr.GetScheme())
}

// ClusterToControlPlane maps a Cluster to its control plane when the control plane is of this kind.
func ClusterToControlPlane(kind string) handler.MapFunc {
	return func(_ context.Context, o client.Object) []ctrl.Request {
		cluster, ok := o.(*clusterv1.Cluster)
		if !ok || cluster.Spec.ControlPlaneRef.Kind != kind {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Spec.ControlPlaneRef.Name}}}
	}
}
