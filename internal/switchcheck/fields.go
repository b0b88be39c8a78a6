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

package switchcheck

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// switchCheckLabel is the label the dry run adds, in memory, to judge an update of an object as the takeover makes
// one (the provider's first pass adds its finalizer and labels).
const switchCheckLabel = "infrastructure.cluster.x-k8s.io/switch-check"

// checkFields judges every object of the provider's kinds by the provider's own admission, in memory: the fields it
// does not implement (infrav1.ValidateImplementedFields, the check behind "field not supported yet"), anything else
// its webhooks would refuse when the object is created (restoring a `clusterctl move --to-directory` copy, or a
// `clusterctl move` to another management cluster, creates it), and a refusal of the updates the takeover makes.
// A spec field the provider's types do not have at all would be dropped by its CRD and is reported too.
func checkFields(ctx context.Context, c client.Reader, opts Options) ([]Finding, error) {
	var findings []Finding
	for _, gvk := range providerKinds() {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		found, err := list(ctx, c, opts, l)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		for i := range l.Items {
			l.Items[i].SetGroupVersionKind(gvk)
			f, err := judge(ctx, gvk.Kind, &l.Items[i])
			if err != nil {
				return nil, err
			}
			findings = append(findings, f...)
		}
	}
	return findings, nil
}

// judge is checkFields for one object.
func judge(ctx context.Context, kind string, u *unstructured.Unstructured) ([]Finding, error) {
	name := objectName(kind, u)
	finding := func(msg string, args ...any) Finding {
		return Finding{Severity: Block, Check: CheckFields, Object: name, Message: fmt.Sprintf(msg, args...)}
	}
	var findings []Finding

	// The object without its status, which CAPZ writes in its own shape (the provider replaces it).
	content := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if k != "status" {
			content[k] = v
		}
	}
	obj, err := providerScheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(content, obj, true); err != nil {
		findings = append(findings, finding("the provider's %s has no such field (%v): its CRD would drop it. Remove "+
			"the field under CAPZ if you can, or keep this cluster on CAPZ", kind, err))
		obj, _ = providerScheme.New(u.GroupVersionKind())
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
			return append(findings, finding("the provider cannot read it: %v", err)), nil
		}
	}
	admission := admissionFor(obj)
	if admission == nil {
		return nil, fmt.Errorf("no admission for %s", name)
	}

	// Creating it: the webhooks default the object, then validate it.
	created := obj.DeepCopyObject()
	createErr := admission.Create(ctx, created)
	unimplemented := infrav1.ValidateImplementedFields(kind, specOf(created))
	fields := make([]string, 0, len(unimplemented))
	for _, e := range unimplemented {
		fields = append(fields, e.Field)
	}
	if len(fields) > 0 {
		findings = append(findings, finding("uses %s, which the provider does not implement (field not supported yet): "+
			"the provider would ignore it and refuses to create an object with it, so this cluster cannot switch. "+
			"Remove the field under CAPZ if you can, or keep this cluster on CAPZ (docs/migrating-from-capz.md, "+
			"What blocks a switch)", strings.Join(fields, ", ")))
	}
	others := causesExcept(createErr, fields)

	// Updating it as the takeover does: metadata only, the webhooks defaulting the new object. A refused update is
	// reported alone: it says more than a refused creation, and its causes are mostly the same.
	updated, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", name)
	}
	labels := updated.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[switchCheckLabel] = "true"
	updated.SetLabels(labels)
	if err := admission.Update(ctx, obj, updated); err != nil {
		findings = append(findings, finding("the provider's webhooks would refuse every update of it (%v), so the "+
			"provider could not take it over (it adds its finalizer and labels), nor clusterctl move move it or "+
			"restore a copy of it. Change the object under CAPZ so that it passes", err))
	} else if len(others) > 0 {
		findings = append(findings, finding("the provider's webhooks would refuse to create it (%s), so restoring a "+
			"clusterctl move --to-directory copy or a clusterctl move to another management cluster would fail. "+
			"Change the object under CAPZ so that it passes", strings.Join(others, "; ")))
	}
	return findings, nil
}

// specOf is the Spec field of one of the provider's objects.
func specOf(obj runtime.Object) any {
	v := reflect.ValueOf(obj)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	spec := v.FieldByName("Spec")
	if !spec.IsValid() {
		return nil
	}
	return spec.Interface()
}

// causesExcept returns the causes of an admission error, "field: message", but those of the given fields; the
// error itself when it has no causes.
func causesExcept(err error, fields []string) []string {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return []string{err.Error()}
	}
	skip := map[string]bool{}
	for _, f := range fields {
		skip[f] = true
	}
	var out []string
	for _, cause := range status.Status().Details.Causes {
		if skip[cause.Field] {
			continue
		}
		out = append(out, cause.Field+": "+cause.Message)
	}
	sort.Strings(out)
	return out
}
