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

package asosim

import (
	"context"
	"fmt"
	"reflect"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ASO's reasons for a reference it cannot resolve before the PUT; all are retried Warnings.
const (
	reasonReferenceNotFound = "ReferenceNotFound"
	reasonSecretNotFound    = "SecretNotFound"
	reasonConfigMapNotFound = "ConfigMapNotFound"
)

// unresolved is a reference of the spec that ASO cannot resolve yet: the reason and message of its Ready condition.
type unresolved struct {
	reason, message string
}

// references are the references in an object's spec, found by type as ASO finds them: resource references
// (including those inside well-known references), secret references and config map references. Owners have types
// of their own and are not among them.
type references struct {
	resources  []genruntime.ResourceReference
	secrets    []genruntime.SecretReference
	configMaps []genruntime.ConfigMapReference
}

var (
	resourceReferenceType  = reflect.TypeFor[genruntime.ResourceReference]()
	secretReferenceType    = reflect.TypeFor[genruntime.SecretReference]()
	configMapReferenceType = reflect.TypeFor[genruntime.ConfigMapReference]()
)

// findReferences walks the object's spec.
func findReferences(obj client.Object) references {
	var refs references
	spec := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if spec.IsValid() {
		refs.walk(spec)
	}
	return refs
}

func (refs *references) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			refs.walk(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			refs.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			refs.walk(v.MapIndex(k))
		}
	case reflect.Struct:
		switch v.Type() {
		case resourceReferenceType:
			refs.resources = append(refs.resources, v.Interface().(genruntime.ResourceReference))
			return
		case secretReferenceType:
			refs.secrets = append(refs.secrets, v.Interface().(genruntime.SecretReference))
			return
		case configMapReferenceType:
			refs.configMaps = append(refs.configMaps, v.Interface().(genruntime.ConfigMapReference))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				refs.walk(v.Field(i))
			}
		}
	}
}

// resolve resolves the references of obj as ASO does before it sends the resource to Azure: a Kubernetes
// reference names an ASO object that exists and has been claimed (it has a resource-id), a secret or config map
// reference names one in the object's namespace that has the key. It returns the first reference that does not
// resolve, in ASO's order: resources, secrets, config maps.
func (r *reconciler) resolve(ctx context.Context, obj client.Object) (*unresolved, error) {
	refs := findReferences(obj)
	namespace := obj.GetNamespace()
	for _, ref := range refs.resources {
		if ref.IsDirectARMReference() || ref.Name == "" {
			continue
		}
		target, err := r.objectOfKind(ctx, ref.Group, ref.Kind, client.ObjectKey{Namespace: namespace, Name: ref.Name})
		if err != nil {
			return nil, err
		}
		switch {
		case target == nil:
			return &unresolved{reasonReferenceNotFound, fmt.Sprintf("couldn't resolve reference %s/%s: %s/%s does not exist (%s.%s %q not found)",
				namespace, ref.Name, namespace, ref.Name, ref.Kind, ref.Group, ref.Name)}, nil
		case genruntime.GetResourceIDOrDefault(target) == "":
			return &unresolved{reasonReferenceNotFound, fmt.Sprintf("ref %s doesn't have an assigned ARM ID", ref.String())}, nil
		}
	}
	for _, ref := range refs.secrets {
		secret := &corev1.Secret{}
		if missing, err := r.missingKey(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, secret, "secret"); missing != "" || err != nil {
			return &unresolved{reasonSecretNotFound, missing}, err
		}
		if _, ok := secret.Data[ref.Key]; !ok {
			return &unresolved{reasonSecretNotFound, fmt.Sprintf("%s/%s does not exist (Secret %q does not contain key %q)", namespace, ref.Name, namespace+"/"+ref.Name, ref.Key)}, nil
		}
	}
	for _, ref := range refs.configMaps {
		cm := &corev1.ConfigMap{}
		if missing, err := r.missingKey(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, cm, "config map"); missing != "" || err != nil {
			return &unresolved{reasonConfigMapNotFound, missing}, err
		}
		if _, ok := cm.Data[ref.Key]; !ok {
			return &unresolved{reasonConfigMapNotFound, fmt.Sprintf("%s/%s does not exist (ConfigMap %q does not contain key %q)", namespace, ref.Name, namespace+"/"+ref.Name, ref.Key)}, nil
		}
	}
	return nil, nil
}

// missingKey reads a Secret or ConfigMap into obj; when it does not exist, it returns ASO's message for that.
func (r *reconciler) missingKey(ctx context.Context, key client.ObjectKey, obj client.Object, what string) (string, error) {
	err := r.sim.client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return fmt.Sprintf("couldn't resolve %s reference %s: %s does not exist (%v)", what, key, key, err), nil
	}
	return "", err
}
