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
	"slices"

	"github.com/google/cel-go/cel"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// exportConfigMaps writes what a Ready resource exports to ConfigMaps, as ASO does after a successful GET: the
// values of operatorSpec.configMapExpressions (CEL over self, the resource with its new status) and, for managed
// clusters, the OIDC issuer URL asked for in operatorSpec.configMaps.
func (r *reconciler) exportConfigMaps(ctx context.Context, owner client.Object, self map[string]any) error {
	spec, _ := self["spec"].(map[string]any)
	status, _ := self["status"].(map[string]any)
	operator, _ := spec["operatorSpec"].(map[string]any)
	expressions, _ := operator["configMapExpressions"].([]any)
	for _, e := range expressions {
		expression, _ := e.(map[string]any)
		name, _ := expression["name"].(string)
		key, _ := expression["key"].(string)
		source, _ := expression["value"].(string)
		values, err := evaluate(source, key, self)
		if err != nil {
			return &exportError{message: fmt.Sprintf("failed to evaluate %q for ConfigMap %s: %v", source, name, err)}
		}
		if err := r.writeExport(ctx, owner, &corev1.ConfigMap{}, name, values); err != nil {
			return err
		}
	}
	if r.gvk.Kind == "ManagedCluster" {
		configMaps, _ := operator["configMaps"].(map[string]any)
		dest, _ := configMaps["oidcIssuerProfile"].(map[string]any)
		oidc, _ := status["oidcIssuerProfile"].(map[string]any)
		if name, _ := dest["name"].(string); name != "" && oidc["issuerURL"] != nil {
			key, _ := dest["key"].(string)
			if err := r.writeExport(ctx, owner, &corev1.ConfigMap{}, name, map[string]string{key: fmt.Sprint(oidc["issuerURL"])}); err != nil {
				return err
			}
		}
	}
	return nil
}

// evaluate runs a CEL expression of ASO's configMapExpressions over self. With a key it must give a string; without
// one, a map of strings, each entry a key.
func evaluate(source, key string, self map[string]any) (map[string]string, error) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		return nil, err
	}
	ast, issues := env.Compile(source)
	if issues != nil && issues.Err() != nil {
		return nil, issues.Err()
	}
	program, err := env.Program(ast)
	if err != nil {
		return nil, err
	}
	out, _, err := program.Eval(map[string]any{"self": self})
	if err != nil {
		return nil, err
	}
	if key != "" {
		value, ok := out.Value().(string)
		if !ok {
			return nil, fmt.Errorf("the expression gives %s, not a string", out.Type().TypeName())
		}
		return map[string]string{key: value}, nil
	}
	native, err := out.ConvertToNative(reflectMapOfStrings)
	if err != nil {
		return nil, fmt.Errorf("the expression gives %s, not a map of strings: %w", out.Type().TypeName(), err)
	}
	return native.(map[string]string), nil
}

var reflectMapOfStrings = reflect.TypeFor[map[string]string]()

// writeSecret writes a Secret of the resource's operatorSpec.secrets.
func (r *reconciler) writeSecret(ctx context.Context, owner client.Object, name, key string, value []byte) error {
	return r.writeExport(ctx, owner, &corev1.Secret{}, name, map[string]string{key: string(value)})
}

// writeExport creates or updates the Secret or ConfigMap target (empty, of the kind to write) with values, owned
// by the resource as ASO owns them (a controller reference, no labels). Like ASO, it never overwrites one the
// resource does not own: exportError.
func (r *reconciler) writeExport(ctx context.Context, owner client.Object, target client.Object, name string, values map[string]string) error {
	target.SetNamespace(owner.GetNamespace())
	target.SetName(name)
	_, err := controllerutil.CreateOrUpdate(ctx, r.sim.client, target, func() error {
		if target.GetResourceVersion() != "" && !slices.ContainsFunc(target.GetOwnerReferences(), func(ref metav1.OwnerReference) bool { return ref.UID == owner.GetUID() }) {
			return notOwned(target, owner, r.gvk.GroupKind())
		}
		for k, v := range values {
			switch t := target.(type) {
			case *corev1.Secret:
				if t.Data == nil {
					t.Data = map[string][]byte{}
				}
				t.Data[k] = []byte(v)
			case *corev1.ConfigMap:
				if t.Data == nil {
					t.Data = map[string]string{}
				}
				t.Data[k] = v
			}
		}
		target.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: r.gvk.GroupVersion().String(), Kind: r.gvk.Kind, Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true),
		}})
		return nil
	})
	return err
}

// exportError is ASO's failure to write a Kubernetes object a resource exports; ASO reports it on the resource's
// Ready condition (severity Error, reason additionalObjectWriteFailure).
type exportError struct {
	message string
}

func (e *exportError) Error() string { return e.message }

// notOwned is ASO's refusal to overwrite a Secret or ConfigMap its resource does not own, with ASO's message.
func notOwned(target, source client.Object, sourceKind schema.GroupKind) *exportError {
	kind := "Secret"
	if _, ok := target.(*corev1.ConfigMap); ok {
		kind = "ConfigMap"
	}
	return &exportError{message: fmt.Sprintf("cannot overwrite %s %s/%s which is not owned by %s %s/%s",
		kind, target.GetNamespace(), target.GetName(), sourceKind, source.GetNamespace(), source.GetName())}
}

// additionalObjectWriteFailure is the reason of ASO's Ready condition when it could not write a Secret or
// ConfigMap of a resource's operatorSpec.
const additionalObjectWriteFailure = "FailedWritingAdditionalKubernetesObjects"
