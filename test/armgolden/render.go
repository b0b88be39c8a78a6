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

package armgolden

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Render returns the body of the PUT ASO sends for an ASO object: the object's spec converted with its own
// ConvertToARM, its resource references resolved to the ARM IDs of the objects they name (their resource-id
// annotation, as ASO's resolver reads it), its secrets and config maps to their values, all read with reader in the
// object's namespace; scheme maps the referenced kinds to API versions.
func Render(ctx context.Context, reader client.Reader, scheme *runtime.Scheme, obj genruntime.ARMMetaObject) (map[string]any, error) {
	transformer, ok := obj.GetSpec().(genruntime.ARMTransformer)
	if !ok {
		return nil, fmt.Errorf("the spec of %T %s converts to no ARM resource", obj, obj.GetName())
	}
	r := resolver{ctx: ctx, reader: reader, scheme: scheme, namespace: obj.GetNamespace()}
	details := genruntime.ConvertToARMResolvedDetails{Name: obj.AzureName()}
	var err error
	spec := obj.GetSpec()
	if details.ResolvedReferences, err = resolveAll(spec, r.armID); err != nil {
		return nil, err
	}
	if details.ResolvedSecrets, err = resolveAll(spec, r.secret); err != nil {
		return nil, err
	}
	if details.ResolvedSecretMaps, err = resolveAll(spec, r.secretMap); err != nil {
		return nil, err
	}
	if details.ResolvedConfigMaps, err = resolveAll(spec, r.configMap); err != nil {
		return nil, err
	}
	arm, err := transformer.ConvertToARM(details)
	if err != nil {
		return nil, fmt.Errorf("failed to convert %T %s to ARM: %w", obj, obj.GetName(), err)
	}
	// ASO's ARM client sends the ARM spec as encoding/json marshals it.
	raw, err := json.Marshal(arm)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	return body, json.Unmarshal(raw, &body)
}

// resolveAll resolves every reference of type T found in the spec.
func resolveAll[T interface {
	comparable
	String() string
}, V any](spec any, resolve func(T) (V, error)) (genruntime.Resolved[T, V], error) {
	out := map[T]V{}
	for _, ref := range find[T](reflect.ValueOf(spec)) {
		if _, done := out[ref]; done {
			continue
		}
		v, err := resolve(ref)
		if err != nil {
			return genruntime.Resolved[T, V]{}, err
		}
		out[ref] = v
	}
	return genruntime.MakeResolved(out), nil
}

// find returns every value of type T in v, walking structs, pointers, slices, arrays, maps and interfaces, as
// ASO's reflecthelpers find references.
func find[T any](v reflect.Value) []T {
	want := reflect.TypeFor[T]()
	var out []T
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		if v.Type() == want {
			out = append(out, v.Interface().(T))
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k))
			}
		}
	}
	walk(v)
	return out
}

// resolver reads what an object's references name, in its namespace.
type resolver struct {
	ctx       context.Context
	reader    client.Reader
	scheme    *runtime.Scheme
	namespace string
}

// armID is the ARM ID a resource reference resolves to: its ARM ID, or the resource-id of the object it names.
func (r resolver) armID(ref genruntime.ResourceReference) (string, error) {
	if ref.ARMID != "" {
		return ref.ARMID, nil
	}
	obj := &unstructured.Unstructured{}
	version := ""
	for gvk := range r.scheme.AllKnownTypes() {
		if gvk.Group == ref.Group && gvk.Kind == ref.Kind {
			version = gvk.Version
			break
		}
	}
	if version == "" {
		return "", fmt.Errorf("reference to %s/%s: the kind is not in the scheme", ref.Group, ref.Kind)
	}
	obj.SetAPIVersion(ref.Group + "/" + version)
	obj.SetKind(ref.Kind)
	if err := r.reader.Get(r.ctx, client.ObjectKey{Namespace: r.namespace, Name: ref.Name}, obj); err != nil {
		return "", fmt.Errorf("failed to resolve the reference to %s %s: %w", ref.Kind, ref.Name, err)
	}
	id := obj.GetAnnotations()[genruntime.ResourceIDAnnotation]
	if id == "" {
		return "", fmt.Errorf("%s %s, referenced, has no resource ID", ref.Kind, ref.Name)
	}
	return id, nil
}

func (r resolver) secretData(name string) (map[string][]byte, error) {
	s := &corev1.Secret{}
	if err := r.reader.Get(r.ctx, client.ObjectKey{Namespace: r.namespace, Name: name}, s); err != nil {
		return nil, fmt.Errorf("failed to resolve the Secret %s: %w", name, err)
	}
	return s.Data, nil
}

func (r resolver) secret(ref genruntime.SecretReference) (string, error) {
	data, err := r.secretData(ref.Name)
	if err != nil {
		return "", err
	}
	value, ok := data[ref.Key]
	if !ok {
		return "", fmt.Errorf("the Secret %s has no key %s", ref.Name, ref.Key)
	}
	return string(value), nil
}

func (r resolver) secretMap(ref genruntime.SecretMapReference) (map[string]string, error) {
	data, err := r.secretData(ref.Name)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = string(v)
	}
	return out, nil
}

func (r resolver) configMap(ref genruntime.ConfigMapReference) (string, error) {
	cm := &corev1.ConfigMap{}
	if err := r.reader.Get(r.ctx, client.ObjectKey{Namespace: r.namespace, Name: ref.Name}, cm); err != nil {
		return "", fmt.Errorf("failed to resolve the ConfigMap %s: %w", ref.Name, err)
	}
	value, ok := cm.Data[ref.Key]
	if !ok {
		return "", fmt.Errorf("the ConfigMap %s has no key %s", ref.Name, ref.Key)
	}
	return value, nil
}
