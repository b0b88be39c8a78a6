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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// The controllers watch the metadata of every Secret (SecretToUsers), to follow the Secrets identities read.
//
// +kubebuilder:rbac:groups="",resources=secrets,verbs=list;watch

const (
	// identityIndex indexes the objects that reference an identity by its <namespace>/<name>.
	identityIndex = "identities.spec.identityRef"
	// secretIndex indexes identities by the <namespace>/<name> of the Secret they read.
	secretIndex = "identities.spec.clientSecret"
	// rawCredentialIndex indexes the AzureASOManaged* objects by the <namespace>/<name> of the credential Secrets
	// their raw resources name in credential-from.
	rawCredentialIndex = "identities.spec.resources.credentialFrom"
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
	for _, obj := range RawOwners() {
		if err := indexer.IndexField(ctx, obj, rawCredentialIndex, rawCredentials); err != nil {
			return fmt.Errorf("failed to index %T by credential: %w", obj, err)
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

// RawOwners are the kinds whose objects apply raw ASO objects (spec.resources), each naming its own credential.
func RawOwners() []client.Object {
	return []client.Object{&infrav1.AzureASOManagedCluster{}, &infrav1.AzureASOManagedControlPlane{}, &infrav1.AzureASOManagedMachinePool{}}
}

// rawCredentials is the index value of an AzureASOManaged* object: the credential Secrets its resources name.
func rawCredentials(o client.Object) []string {
	var resources []runtime.RawExtension
	switch obj := o.(type) {
	case *infrav1.AzureASOManagedCluster:
		resources = obj.Spec.Resources
	case *infrav1.AzureASOManagedControlPlane:
		resources = obj.Spec.Resources
	case *infrav1.AzureASOManagedMachinePool:
		resources = obj.Spec.Resources
	}
	var out []string
	for _, raw := range resources {
		var resource struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw.Raw, &resource) != nil {
			continue
		}
		name := resource.Metadata.Annotations[asoannotations.PerResourceSecret]
		if key := o.GetNamespace() + "/" + name; name != "" && !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	return out
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

// SecretToUsers maps a Secret (metadata) to the objects of a list's kind that reference an identity reading it,
// and a cluster's credential Secret, <cluster>-aso-secret, to the objects of that cluster: a change of the Secret
// (a tenant who edits or replaces it) is checked, and the provider's content restored, within seconds.
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
		if cluster, ok := strings.CutSuffix(o.GetName(), credentialSecretSuffix); ok {
			out = append(out, ofCluster(ctx, c, list, o.GetNamespace(), cluster)...)
		}
		return out
	})
}

// credentialSecretSuffix ends the name of a cluster's credential Secret (aso.CredentialSecretName).
const credentialSecretSuffix = "-aso-secret"

// ofCluster lists the objects of a list's kind in a namespace that belong to a cluster: owned by its Cluster, or
// labelled with its name.
func ofCluster(ctx context.Context, c client.Client, list client.ObjectList, namespace, cluster string) []ctrl.Request {
	list = list.DeepCopyObject().(client.ObjectList)
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Failed to list the objects of a cluster", "cluster", cluster)
		return nil
	}
	var out []ctrl.Request
	for _, obj := range objects(list) {
		owned := obj.GetLabels()[clusterv1.ClusterNameLabel] == cluster
		for _, ref := range obj.GetOwnerReferences() {
			owned = owned || (ref.Kind == "Cluster" && ref.Name == cluster)
		}
		if owned {
			out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
	}
	return out
}

// CredentialToRawOwners maps a Secret (metadata) to the AzureASOManaged* objects of a list's kind whose raw
// resources name it in credential-from: the credential policy judges its content again when it changes.
func CredentialToRawOwners(c client.Client, list client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
		list := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, list, client.MatchingFields{rawCredentialIndex: o.GetNamespace() + "/" + o.GetName()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Failed to list the users of a credential Secret")
			return nil
		}
		return requests(objects(list))
	})
}

// IdentityToAll maps an AzureClusterIdentity to every object of a list's kind: what the identity vouches for, for
// raw resources' credentials, depends on its client ID and its allowed namespaces, which any change may alter.
func IdentityToAll(c client.Client, list client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []ctrl.Request {
		list := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, list); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Failed to list the objects an AzureClusterIdentity may vouch for")
			return nil
		}
		return requests(objects(list))
	})
}

// objects returns the items of a list.
func objects(list client.ObjectList) []client.Object {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	out := make([]client.Object, 0, len(items))
	for _, item := range items {
		if obj, ok := item.(client.Object); ok {
			out = append(out, obj)
		}
	}
	return out
}

// requests are the reconcile requests of objects.
func requests(objs []client.Object) []ctrl.Request {
	out := make([]ctrl.Request, 0, len(objs))
	for _, obj := range objs {
		out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	}
	return out
}

// users lists the objects of a list's kind that reference the identity.
func users(ctx context.Context, c client.Client, list client.ObjectList, identity string) []ctrl.Request {
	list = list.DeepCopyObject().(client.ObjectList)
	if err := c.List(ctx, list, client.MatchingFields{identityIndex: identity}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Failed to list the users of an AzureClusterIdentity", "identity", identity)
		return nil
	}
	return requests(objects(list))
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
		return requests(objects(list))
	})
}
