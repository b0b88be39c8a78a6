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
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Options limit what BeforeInit and AfterInit change.
type Options struct {
	// Namespace, when set, limits the objects changed to that namespace.
	Namespace string
}

// FailureDomainsAnnotation holds an AzureCluster's failure domains, in CAPZ's form (JSON), from BeforeInit to
// AfterInit: under CAPZ's CRDs the API server prunes the items of the provider's list on read, so they must be read
// before.
const FailureDomainsAnnotation = "infrastructure.cluster.x-k8s.io/switch-back-failure-domains"

// Report counts what BeforeInit and AfterInit changed.
type Report struct {
	// FailureDomainsKept is the number of AzureClusters whose failure domains BeforeInit recorded in
	// FailureDomainsAnnotation.
	FailureDomainsKept int
	// FieldsReleased is the number of ASO objects the provider's field managers were removed from.
	FieldsReleased int
	// FailureDomainsRestored is the number of AzureClusters whose status.failureDomains AfterInit wrote in CAPZ's
	// form.
	FailureDomainsRestored int
	// FailureDomainsDropped is the number of AzureClusters whose failure domains AfterInit removed because BeforeInit
	// had not recorded them: CAPZ writes them again.
	FailureDomainsDropped int
}

// BeforeInit is the first part of the step, once the provider is stopped and before CAPZ's CRDs are installed: it
// records each AzureCluster's failure domains in CAPZ's form and releases the provider's fields of the ASO objects.
// It is idempotent: run again, it changes nothing.
func BeforeInit(ctx context.Context, c client.Client, opts Options) (Report, error) {
	var report Report
	kept, err := keepFailureDomains(ctx, c, opts)
	report.FailureDomainsKept = kept
	if err != nil {
		return report, err
	}
	report.FieldsReleased, err = releaseFields(ctx, c, opts)
	return report, err
}

// AfterInit is the second part, once CAPZ's CRDs are installed: it writes each AzureCluster's recorded failure domains
// into its status as CAPZ's map, so that CAPZ's manager can start, and removes the record. It is idempotent.
func AfterInit(ctx context.Context, c client.Client, opts Options) (Report, error) {
	var report Report
	clusters, err := azureClusters(ctx, c, opts)
	if err != nil {
		return report, err
	}
	// Every status first: CAPZ's manager starts once it can read them all, and serves the webhook that the removal
	// of the records goes through.
	for i := range clusters {
		dropped, restored, err := restoreFailureDomains(ctx, c, &clusters[i])
		if err != nil {
			return report, err
		}
		if restored {
			report.FailureDomainsRestored++
		}
		if dropped {
			report.FailureDomainsDropped++
		}
	}
	for i := range clusters {
		ac := &clusters[i]
		if _, ok := ac.GetAnnotations()[FailureDomainsAnnotation]; !ok {
			continue
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{FailureDomainsAnnotation: nil}}})
		if err != nil {
			return report, err
		}
		if err := c.Patch(ctx, ac, client.RawPatch(types.MergePatchType, patch)); err != nil {
			return report, fmt.Errorf("failed to remove the record of the failure domains of AzureCluster %s/%s (once CAPZ's manager serves its webhook, run this again): %w", ac.GetNamespace(), ac.GetName(), err)
		}
	}
	return report, nil
}

// azureClusters lists the AzureClusters unstructured, so that it works with the provider's CRDs or CAPZ's installed.
func azureClusters(ctx context.Context, c client.Client, opts Options) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
	list.SetKind("AzureClusterList")
	if err := c.List(ctx, list, client.InNamespace(opts.Namespace)); err != nil {
		return nil, fmt.Errorf("failed to list the AzureClusters: %w", err)
	}
	return list.Items, nil
}

// failureDomainsList returns an AzureCluster's status.failureDomains if they are a list (the provider's form).
func failureDomainsList(ac *unstructured.Unstructured) ([]any, bool) {
	field, _, _ := unstructured.NestedFieldNoCopy(ac.Object, "status", "failureDomains")
	domains, ok := field.([]any)
	return domains, ok
}

// keepFailureDomains records every AzureCluster's list of failure domains in FailureDomainsAnnotation, as CAPZ's map.
func keepFailureDomains(ctx context.Context, c client.Client, opts Options) (int, error) {
	clusters, err := azureClusters(ctx, c, opts)
	if err != nil {
		return 0, err
	}
	kept := 0
	for i := range clusters {
		ac := &clusters[i]
		domains, isList := failureDomainsList(ac)
		if !isList || len(domains) == 0 {
			continue
		}
		capz, err := capzFailureDomains(domains)
		if err != nil {
			return kept, fmt.Errorf("failed to read the failure domains of AzureCluster %s/%s (are CAPZ's CRDs installed already? this part runs before clusterctl init): %w", ac.GetNamespace(), ac.GetName(), err)
		}
		record, err := json.Marshal(capz)
		if err != nil {
			return kept, err
		}
		if ac.GetAnnotations()[FailureDomainsAnnotation] == string(record) {
			continue
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{FailureDomainsAnnotation: string(record)}}})
		if err != nil {
			return kept, err
		}
		if err := c.Patch(ctx, ac, client.RawPatch(types.MergePatchType, patch)); err != nil {
			return kept, fmt.Errorf("failed to record the failure domains of AzureCluster %s/%s: %w", ac.GetNamespace(), ac.GetName(), err)
		}
		kept++
	}
	return kept, nil
}

// capzFailureDomains is CAPZ's map of failure domains, by name, for the provider's list.
func capzFailureDomains(domains []any) (map[string]any, error) {
	out := make(map[string]any, len(domains))
	for _, d := range domains {
		domain, _ := d.(map[string]any)
		name, _ := domain["name"].(string)
		if name == "" {
			return nil, errors.New("a failure domain has no name")
		}
		spec := map[string]any{}
		for _, field := range []string{"controlPlane", "attributes"} {
			if v, ok := domain[field]; ok {
				spec[field] = v
			}
		}
		out[name] = spec
	}
	return out, nil
}

// restoreFailureDomains replaces an AzureCluster's list of failure domains with the map recorded in
// FailureDomainsAnnotation, or removes the list when none was recorded. A map (CAPZ's form) is left alone.
func restoreFailureDomains(ctx context.Context, c client.Client, ac *unstructured.Unstructured) (dropped, restored bool, err error) {
	domains, isList := failureDomainsList(ac)
	if !isList {
		return false, false, nil
	}
	op := map[string]any{"op": "remove", "path": "/status/failureDomains"}
	if record, ok := ac.GetAnnotations()[FailureDomainsAnnotation]; ok {
		var capz map[string]any
		if err := json.Unmarshal([]byte(record), &capz); err != nil {
			return false, false, fmt.Errorf("failed to read %s of AzureCluster %s/%s: %w", FailureDomainsAnnotation, ac.GetNamespace(), ac.GetName(), err)
		}
		op = map[string]any{"op": "replace", "path": "/status/failureDomains", "value": capz}
		restored = true
	} else {
		dropped = len(domains) > 0
	}
	// A JSON patch replaces the list whole (a merge patch would merge the map into an empty one); the test keeps it
	// from writing over a newer status.
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": ac.GetResourceVersion()},
		op,
	})
	if err != nil {
		return false, false, err
	}
	if err := c.Status().Patch(ctx, ac, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		if apierrors.IsInvalid(err) {
			err = fmt.Errorf("%w (are CAPZ's CRDs installed? this part runs after clusterctl init)", err)
		}
		return false, false, fmt.Errorf("failed to write the failure domains of AzureCluster %s/%s: %w", ac.GetNamespace(), ac.GetName(), err)
	}
	return dropped, restored, nil
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
