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

package v1beta1

import (
	"context"
	"reflect"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/cluster-api/util/topology"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// This file holds what every webhook of the package shares: the manager's options, the error shape, immutability
// checks, the template rule that lets Cluster API's topology controller dry-run changes, and the rule that asks a
// cluster for an identity.

// WebhookOptions are the manager's settings that change what the webhooks admit.
// +kubebuilder:object:generate=false
type WebhookOptions struct {
	// AllowASODefaultCredential admits an AzureCluster or AzureManagedControlPlane without spec.identityRef, whose
	// ASO objects then name no credential, so that ASO uses its default one: the namespace's aso-credential Secret,
	// else ASO's global credential (the manager's --allow-aso-default-credential). Off, such an owner is refused, as
	// CAPZ v1.26.0 refuses it. The strict credential policy never allows it (the manager refuses to start with both).
	AllowASODefaultCredential bool
}

// IdentityRefRequiredMessage explains why an AzureCluster or AzureManagedControlPlane needs spec.identityRef.
const IdentityRefRequiredMessage = "an AzureClusterIdentity that allows this namespace: the provider hands a cluster " +
	"without one ASO's default credential (the namespace's aso-credential Secret or ASO's global credential) only " +
	"when the manager runs with --allow-aso-default-credential, which the strict credential policy " +
	"(--credential-policy=strict) never allows; see docs/security.md"

// validateIdentityRefRequired refuses a cluster without spec.identityRef, unless the manager allows ASO's default
// credential: a new one, and an update that removes the identityRef. An existing cluster that already had none
// (hadNone: created while the manager allowed it, or by a version that did not ask) stays updatable, so that the
// provider's own patches (its finalizer), Cluster API's (labels, owner references) and clusterctl move's still work
// on it; which credential its ASO objects may then use is its controller's decision, as for any cluster.
func (o WebhookOptions) validateIdentityRefRequired(path *field.Path, ref *corev1.ObjectReference, hadNone bool) field.ErrorList {
	if ref != nil || o.AllowASODefaultCredential || hadNone {
		return nil
	}
	return field.ErrorList{field.Required(path, IdentityRefRequiredMessage)}
}

// Invalid turns field errors into the API error the API server returns to the user, or nil when there are none.
func Invalid(kind string, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(GroupVersion.WithKind(kind).GroupKind(), name, errs)
}

// immutableExcept reports every top-level field of a spec that changed between two versions, except the fields
// named in mutable (json names). It compares the JSON form so that a field reads as the user wrote it.
func immutableExcept(path *field.Path, oldSpec, newSpec any, mutable ...string) field.ErrorList {
	oldFields, err := toFields(oldSpec)
	if err != nil {
		return field.ErrorList{field.InternalError(path, err)}
	}
	newFields, err := toFields(newSpec)
	if err != nil {
		return field.ErrorList{field.InternalError(path, err)}
	}
	allowed := sets.New(mutable...)
	keys := sets.KeySet(oldFields).Union(sets.KeySet(newFields)).UnsortedList()
	sort.Strings(keys)
	var errs field.ErrorList
	for _, key := range keys {
		if allowed.Has(key) || reflect.DeepEqual(oldFields[key], newFields[key]) {
			continue
		}
		errs = append(errs, field.Invalid(path.Child(key), newFields[key], "field is immutable"))
	}
	return errs
}

// ValidateImmutable reports a change of one field.
func ValidateImmutable(path *field.Path, oldValue, newValue any) field.ErrorList {
	if reflect.DeepEqual(oldValue, newValue) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, newValue, "field is immutable")}
}

// validateTemplateUpdate rejects a change of a template's spec.template.spec, except in the server-side-apply
// dry-run requests Cluster API's topology controller makes to compute its changes. A template kind with defaults
// passes its old version through defaultedOld first.
func validateTemplateUpdate(ctx context.Context, obj metav1.Object, oldSpec, newSpec any) field.ErrorList {
	if reflect.DeepEqual(oldSpec, newSpec) {
		return nil
	}
	if req, err := admission.RequestFromContext(ctx); err == nil && topology.IsDryRunRequest(req, obj) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "template", "spec"),
		"the spec of a template is immutable; create a new template and point the owning object at it")}
}

// defaulter is the defaulting webhook of a kind.
type defaulter[T runtime.Object] interface {
	Default(ctx context.Context, obj T) error
}

// defaultedOld is a copy of a template's stored version with the defaulting webhook's defaults, to compare with the
// new version, which the API server has defaulted. A template stored without one of them (by CAPZ, whose webhooks
// default fewer fields, or by an earlier release) must still take the metadata updates Cluster API, clusterctl and
// the provider make: owner references, labels, finalizers. CAPZ v1.26.0 defaults the old AzureMachineTemplate the
// same way before it compares (internal/webhooks/azuremachinetemplate_webhook.go, ValidateUpdate).
func defaultedOld[T runtime.Object](ctx context.Context, d defaulter[T], old T) T {
	copied, ok := old.DeepCopyObject().(T)
	if !ok || d.Default(ctx, copied) != nil {
		return old
	}
	return copied
}

// toFields returns the JSON form of a struct, given by value or by pointer.
func toFields(v any) (map[string]any, error) {
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer {
		ptr := reflect.New(rv.Type())
		ptr.Elem().Set(rv)
		v = ptr.Interface()
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(v)
}
