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

package fuzzing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// CheckRejection checks the shape of a webhook's answer: nil, or an Invalid API error whose every cause names a
// field of the object (under metadata or spec) and is not an internal error.
func CheckRejection(err error) error {
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("rejection is not an API error: %T %v", err, err)
	}
	s := status.Status()
	if s.Reason != metav1.StatusReasonInvalid {
		return fmt.Errorf("rejection is not Invalid but %s: %v", s.Reason, err)
	}
	if s.Details == nil || len(s.Details.Causes) == 0 {
		return fmt.Errorf("rejection has no causes: %v", err)
	}
	for _, c := range s.Details.Causes {
		root, _, _ := strings.Cut(c.Field, ".")
		root, _, _ = strings.Cut(root, "[")
		if root != "spec" && root != "metadata" {
			return fmt.Errorf("cause %q names no field of the object: %v", c.Field, err)
		}
		if c.Type == metav1.CauseType(field.ErrorTypeInternal) {
			return fmt.Errorf("cause at %s is an internal error: %v", c.Field, err)
		}
		if c.Message == "" {
			return fmt.Errorf("cause at %s has no message: %v", c.Field, err)
		}
	}
	return nil
}

// CheckResources checks what a translator returned: every object has a name the API server accepts and no
// namespace (the engine sets it); no two objects of a kind share a name; every ASO object has a family and passes
// ASO's own defaulting and validating webhooks; every ARM ID in it parses as ASO parses it.
func CheckResources(resources []azure.Resource) error {
	seen := map[string]bool{}
	for _, r := range resources {
		if r.Object == nil || reflect.ValueOf(r.Object).IsNil() {
			return errors.New("a resource has no object")
		}
		kind := reflect.TypeOf(r.Object).Elem().String()
		name := r.Object.GetName()
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			return fmt.Errorf("%s %q: the name is not a Kubernetes object name: %s", kind, name, strings.Join(msgs, "; "))
		}
		if ns := r.Object.GetNamespace(); ns != "" {
			return fmt.Errorf("%s %s has namespace %q; the engine sets it", kind, name, ns)
		}
		key := kind + "/" + name
		if seen[key] {
			return fmt.Errorf("%s is desired twice", key)
		}
		seen[key] = true
		if _, isASO := r.Object.(genruntime.ARMMetaObject); !isASO {
			continue
		}
		if r.Family == "" {
			return fmt.Errorf("%s has no family", key)
		}
		if err := asoAdmits(r.Object); err != nil {
			return fmt.Errorf("ASO's webhooks reject %s: %w", key, err)
		}
		if err := checkARMIDs(r.Object); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

// asoAdmits runs ASO's defaulting and validating webhooks of the object's kind on a copy of it.
func asoAdmits(obj client.Object) error {
	hooks := asoWebhookFor(obj)
	if hooks == nil {
		return fmt.Errorf("no ASO webhook known for %T; add it to asoWebhookFor", obj)
	}
	obj = obj.DeepCopyObject().(client.Object)
	ctx := context.Background()
	if err := hooks.Default(ctx, obj); err != nil {
		return err
	}
	_, err := hooks.ValidateCreate(ctx, obj)
	return err
}

// checkARMIDs parses every ARM ID of an object (the armId of its references) with the parser ASO uses.
func checkARMIDs(obj client.Object) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var content any
	if err := json.Unmarshal(data, &content); err != nil {
		return err
	}
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch n := v.(type) {
		case map[string]any:
			for k, child := range n {
				if id, ok := child.(string); ok && k == "armId" {
					if _, err := arm.ParseResourceID(id); err != nil {
						return fmt.Errorf("%s.armId %q is not an ARM ID: %w", path, id, err)
					}
					continue
				}
				if err := walk(path+"."+k, child); err != nil {
					return err
				}
			}
		case []any:
			for i, child := range n {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), child); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("", content)
}
