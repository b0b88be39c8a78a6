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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// Read returns the live object of ref's kind and name in the namespace, from the manager's cache (which holds the
// ASO objects the provider labelled); nil when there is none. ref is any object of the kind with that name, e.g. a
// translator's desired object: only its kind and name count. Phases read through it what they need to know before
// they hand their objects to Reconcile (whether the VM exists, the port of an SSH rule); afterwards Result.Live
// has what the pass read. The translators' readers interpret the object.
func (e *Engine) Read(ctx context.Context, namespace string, ref azure.Object) (azure.Object, error) {
	gvk, err := apiutil.GVKForObject(ref, e.Client.Scheme())
	if err != nil {
		return nil, err
	}
	obj, err := e.newObject(gvk)
	if err != nil {
		return nil, err
	}
	key := client.ObjectKey{Namespace: namespace, Name: ref.GetName()}
	if err := e.Client.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to get %s %s: %w", gvk.Kind, key, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// ReadThrough is Read, from the API server when the cache does not hold the object: one the provider has not
// labelled yet, such as an object the user hands over for adoption.
func (e *Engine) ReadThrough(ctx context.Context, namespace string, ref azure.Object) (azure.Object, error) {
	gvk, err := apiutil.GVKForObject(ref, e.Client.Scheme())
	if err != nil {
		return nil, err
	}
	obj, err := e.get(ctx, gvk, client.ObjectKey{Namespace: namespace, Name: ref.GetName()})
	if err != nil || obj == nil {
		return nil, err
	}
	return obj, nil
}

// List returns the objects of ref's kind in the namespace that the manager's cache holds.
func (e *Engine) List(ctx context.Context, namespace string, ref azure.Object) ([]azure.Object, error) {
	gvk, err := apiutil.GVKForObject(ref, e.Client.Scheme())
	if err != nil {
		return nil, err
	}
	list, err := e.newList(gvk)
	if err != nil {
		return nil, err
	}
	if err := e.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("failed to list %s: %w", gvk.Kind, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]azure.Object, 0, len(items))
	for _, item := range items {
		if obj, ok := item.(azure.Object); ok {
			out = append(out, obj)
		}
	}
	return out, nil
}
