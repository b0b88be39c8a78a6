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

package identities

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

const (
	// identityIndex indexes the objects that reference an identity by its <namespace>/<name>.
	identityIndex = "identities.spec.identityRef"
	// secretIndex indexes identities by the <namespace>/<name> of the Secret they read.
	secretIndex = "identities.spec.clientSecret"
)

// Users are the kinds whose objects reference an identity in spec.identityRef.
func Users() []client.Object {
	return []client.Object{&infrav1.AzureCluster{}, &infrav1.AzureManagedControlPlane{}}
}

// AddIndexes registers the field indexes the handlers read; once per manager.
func AddIndexes(ctx context.Context, mgr ctrl.Manager) error {
	indexer := mgr.GetFieldIndexer()
	for _, obj := range Users() {
		if err := indexer.IndexField(ctx, obj, identityIndex, identityOf); err != nil {
			return fmt.Errorf("failed to index %T by identity: %w", obj, err)
		}
	}
	if err := indexer.IndexField(ctx, &infrav1.AzureClusterIdentity{}, secretIndex, func(o client.Object) []string {
		identity, ok := o.(*infrav1.AzureClusterIdentity)
		if !ok || identity.Spec.ClientSecret.Name == "" {
			return nil
		}
		namespace := identity.Spec.ClientSecret.Namespace
		if namespace == "" {
			namespace = identity.Namespace
		}
		return []string{namespace + "/" + identity.Spec.ClientSecret.Name}
	}); err != nil {
		return fmt.Errorf("failed to index AzureClusterIdentities by secret: %w", err)
	}
	return nil
}

// identityOf is the index value of an object's spec.identityRef.
func identityOf(o client.Object) []string {
	var ref *corev1.ObjectReference
	switch obj := o.(type) {
	case *infrav1.AzureCluster:
		ref = obj.Spec.IdentityRef
	case *infrav1.AzureManagedControlPlane:
		ref = obj.Spec.IdentityRef
	}
	if ref == nil || ref.Name == "" {
		return nil
	}
	namespace := ref.Namespace
	if namespace == "" {
		namespace = o.GetNamespace()
	}
	return []string{namespace + "/" + ref.Name}
}

// IdentityToUsers maps an AzureClusterIdentity to the objects of a list's kind that reference it.
func IdentityToUsers(c client.Client, list client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
		return users(ctx, c, list, o.GetNamespace()+"/"+o.GetName())
	})
}

// SecretToUsers maps a Secret (metadata) to the objects of a list's kind that reference an identity reading it.
func SecretToUsers(c client.Client, list client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
		identities := &infrav1.AzureClusterIdentityList{}
		if err := c.List(ctx, identities, client.MatchingFields{secretIndex: o.GetNamespace() + "/" + o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Failed to list the AzureClusterIdentities of a Secret")
			return nil
		}
		var out []ctrl.Request
		for _, identity := range identities.Items {
			out = append(out, users(ctx, c, list, identity.Namespace+"/"+identity.Name)...)
		}
		return out
	})
}

// users lists the objects of a list's kind that reference the identity.
func users(ctx context.Context, c client.Client, list client.ObjectList, identity string) []ctrl.Request {
	list = list.DeepCopyObject().(client.ObjectList)
	if err := c.List(ctx, list, client.MatchingFields{identityIndex: identity}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Failed to list the users of an AzureClusterIdentity", "identity", identity)
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	out := make([]ctrl.Request, 0, len(items))
	for _, item := range items {
		if obj, ok := item.(client.Object); ok {
			out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
	}
	return out
}

// CredentialsChanged passes the updates of an object whose CredentialsReady condition changed: the cluster's
// identity was allowed, revoked or fixed, which the cluster's machines follow.
func CredentialsChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, ok1 := e.ObjectOld.(conditions.Getter)
			after, ok2 := e.ObjectNew.(conditions.Getter)
			if !ok1 || !ok2 {
				return false
			}
			b, a := conditions.Get(before, infrav1.CredentialsReadyCondition), conditions.Get(after, infrav1.CredentialsReadyCondition)
			return (b == nil) != (a == nil) || (a != nil && (a.Status != b.Status || a.Reason != b.Reason))
		},
	}
}

// ClusterMembers maps an object labelled with its cluster's name (an infrastructure cluster) to the objects of a
// list's kind labelled with the same cluster.
func ClusterMembers(c client.Client, list client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster := o.GetLabels()[clusterv1.ClusterNameLabel]
		if cluster == "" {
			return nil
		}
		list := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, list, client.InNamespace(o.GetNamespace()), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}); err != nil {
			return nil
		}
		items, _ := meta.ExtractList(list)
		out := make([]ctrl.Request, 0, len(items))
		for _, item := range items {
			if obj, ok := item.(client.Object); ok {
				out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			}
		}
		return out
	})
}
