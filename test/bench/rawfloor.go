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

package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// rawFieldManager is the field manager of the raw floor's applies.
const rawFieldManager = "capzaso-bench-raw"

// RawFloor is the API server's own rate for a phase's ASO objects: the time to server-side-apply copies of them
// with the provider's client settings and no provider logic.
type RawFloor struct {
	// Objects is how many ASO objects were applied, Seconds how long it took.
	Objects int     `json:"objects"`
	Seconds float64 `json:"seconds"`
	// QPS, Burst and Workers are the client settings: the manager's rate limits and its controllers' concurrency.
	QPS     float32 `json:"qps"`
	Burst   int     `json:"burst"`
	Workers int     `json:"workers"`
	// UnitsPerSecond is the phase's units divided by Seconds.
	UnitsPerSecond float64 `json:"unitsPerSecond"`
}

// rawCopies reads the ASO objects of namespaces and makes copies to apply into target: what the provider applied
// (spec, labels, annotations), without the server's fields, the owner (the provider must not see them) or status.
func rawCopies(ctx context.Context, r client.Reader, s *runtime.Scheme, namespaces []string, target string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, kind := range aso.Kinds() {
		gvk, err := apiutil.GVKForObject(kind, s)
		if err != nil {
			return nil, err
		}
		for _, ns := range namespaces {
			list, err := s.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err != nil {
				return nil, err
			}
			if err := r.List(ctx, list.(client.ObjectList), client.InNamespace(ns)); err != nil {
				return nil, err
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				return nil, err
			}
			for _, item := range items {
				content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(item)
				if err != nil {
					return nil, err
				}
				u := &unstructured.Unstructured{Object: map[string]any{"spec": content["spec"]}}
				u.SetGroupVersionKind(gvk)
				obj := item.(client.Object)
				u.SetNamespace(target)
				u.SetName(obj.GetName())
				// The cache's maps are shared: copy before changing.
				labels := maps.Clone(obj.GetLabels())
				delete(labels, infrav1.OwnedByLabel)
				if labels == nil {
					labels = map[string]string{}
				}
				labels[rawLabel] = "true"
				u.SetLabels(labels)
				u.SetAnnotations(maps.Clone(obj.GetAnnotations()))
				out = append(out, u)
			}
		}
	}
	return out, nil
}

// measureRawFloor applies copies of the ASO objects of namespaces into a namespace of their own, with workers
// goroutines sharing one client limited to qps and burst, and times it. The copies are deleted afterwards.
func measureRawFloor(ctx context.Context, admin client.Client, observer client.Reader, rawConfig *rest.Config,
	namespaces []string, target string, qps float32, burst, workers int) (*RawFloor, error) {
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: target}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	copies, err := rawCopies(ctx, observer, admin.Scheme(), namespaces, target)
	if err != nil {
		return nil, fmt.Errorf("failed to read the ASO objects to copy: %w", err)
	}
	cfg := rest.CopyConfig(rawConfig)
	cfg.QPS, cfg.Burst, cfg.UserAgent = qps, burst, rawFieldManager
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	if err != nil {
		return nil, err
	}
	work := make(chan *unstructured.Unstructured)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for u := range work {
				if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(rawFieldManager), client.ForceOwnership); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("failed to apply %s %s: %w", u.GetKind(), u.GetName(), err))
					mu.Unlock()
				}
			}
		})
	}
	for _, u := range copies {
		work <- u
	}
	close(work)
	wg.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, kind := range aso.Kinds() {
		if err := admin.DeleteAllOf(ctx, kind.DeepCopyObject().(client.Object), client.InNamespace(target)); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("failed to delete the raw copies: %w", err)
		}
	}
	return &RawFloor{Objects: len(copies), Seconds: took.Seconds(), QPS: qps, Burst: burst, Workers: workers}, nil
}
