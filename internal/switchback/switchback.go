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

package switchback

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Options limit what Prepare changes.
type Options struct {
	// Namespace, when set, limits the objects changed to that namespace.
	Namespace string
}

// Report counts what Prepare changed.
type Report struct {
	// FailureDomainsCleared is the number of AzureClusters whose status.failureDomains were removed.
	FailureDomainsCleared int
	// FieldsReleased is the number of ASO objects the provider's field managers were removed from.
	FieldsReleased int
}

// Prepare readies the management cluster for CAPZ's manager once the provider is stopped (see the package
// documentation). It is idempotent: run again, it changes nothing.
func Prepare(ctx context.Context, c client.Client, opts Options) (Report, error) {
	var report Report
	cleared, err := clearFailureDomains(ctx, c, opts)
	report.FailureDomainsCleared = cleared
	if err != nil {
		return report, err
	}
	report.FieldsReleased, err = releaseFields(ctx, c, opts)
	return report, err
}

// clearFailureDomains removes status.failureDomains from every AzureCluster. It reads them unstructured, so that it
// works with the provider's CRDs or CAPZ's installed.
func clearFailureDomains(ctx context.Context, c client.Client, opts Options) (int, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
	list.SetKind("AzureClusterList")
	if err := c.List(ctx, list, client.InNamespace(opts.Namespace)); err != nil {
		return 0, fmt.Errorf("failed to list the AzureClusters: %w", err)
	}
	cleared := 0
	for i := range list.Items {
		ac := &list.Items[i]
		if _, found, _ := unstructured.NestedFieldNoCopy(ac.Object, "status", "failureDomains"); !found {
			continue
		}
		patch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"failureDomains":null}}`))
		if err := c.Status().Patch(ctx, ac, patch); err != nil {
			return cleared, fmt.Errorf("failed to remove the failure domains of AzureCluster %s/%s: %w", ac.GetNamespace(), ac.GetName(), err)
		}
		cleared++
	}
	return cleared, nil
}

// releaseFields removes the spec from the managed-fields entries of the provider's field managers, on every object of
// the ASO kinds the provider writes: CAPZ's apply alone then owns the spec it applies. The provider keeps its labels,
// annotations and owner references (CAPZ ignores the first two and applies the same owner reference), so that every
// object keeps an owner for every field: an object with no managed fields at all would hand each field to the
// API server's "before-first-apply" manager at CAPZ's next apply, which would hold it as the provider did. A kind whose
// CRD is not installed has nothing to release.
func releaseFields(ctx context.Context, c client.Client, opts Options) (int, error) {
	released := 0
	for _, kind := range aso.Kinds() {
		gvk, err := c.GroupVersionKindFor(kind)
		if err != nil {
			return released, err
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, client.InNamespace(opts.Namespace)); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return released, fmt.Errorf("failed to list the %s objects: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			obj.SetGroupVersionKind(gvk)
			fields, changed, err := aso.WithoutProviderSpec(obj.GetManagedFields())
			if err == nil && changed {
				err = replaceManagedFields(ctx, c, obj, fields)
			}
			if err != nil {
				return released, fmt.Errorf("failed to release the provider's fields of %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
			}
			if changed {
				released++
			}
		}
	}
	return released, nil
}

// replaceManagedFields sets an object's managed fields, guarded by the resource version they were read at.
func replaceManagedFields(ctx context.Context, c client.Client, obj client.Object, fields []metav1.ManagedFieldsEntry) error {
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": obj.GetResourceVersion()},
		{"op": "replace", "path": "/metadata/managedFields", "value": fields},
	})
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch))
}
