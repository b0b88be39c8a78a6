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
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// CacheByObject restricts the manager's cache of each given ASO kind to the objects the provider labelled, so
// that a management cluster full of other ASO objects costs the provider no memory. Managed fields are stripped
// by the manager's default transform. Objects outside the cache are read from the API server when needed.
func CacheByObject(objs ...client.Object) map[client.Object]cache.ByObject {
	owned, err := labels.NewRequirement(infrav1.OwnedByLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant, valid label key
	}
	selector := labels.NewSelector().Add(*owned)
	out := make(map[client.Object]cache.ByObject, len(objs))
	for _, obj := range objs {
		out[obj] = cache.ByObject{Label: selector}
	}
	return out
}

// Owns makes a controller watch the ASO kinds it owns: a change of an object, including of ASO's status,
// enqueues the object's controller owner, so status reaches the owner without polling.
func Owns(b *builder.Builder, objs ...client.Object) *builder.Builder {
	for _, obj := range objs {
		b = b.Owns(obj)
	}
	return b
}
