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

package templates

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
)

// infraAPIVersion is the API version of the provider's kinds.
var infraAPIVersion = infrav1.GroupVersion.String()

// asoGVKs are the ASO kinds the provider produces, by kind.
var asoGVKs = func() map[string]schema.GroupVersionKind {
	s := scheme.New()
	out := map[string]schema.GroupVersionKind{}
	for _, obj := range aso.Kinds() {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil {
			panic(err) // every ASO kind the provider produces is in its scheme
		}
		out[gvk.Kind] = gvk
	}
	return out
}()

// asoObjects returns the ASO objects in the namespace, by kind.
func (f *fixture) asoObjects(g Gomega) map[string][]*unstructured.Unstructured {
	out := map[string][]*unstructured.Unstructured{}
	for kind := range asoGVKs {
		if objs := f.asoList(g, kind); len(objs) > 0 {
			out[kind] = objs
		}
	}
	return out
}

// asoList lists the ASO objects of a kind in the namespace.
func (f *fixture) asoList(g Gomega, kind string) []*unstructured.Unstructured {
	gvk, ok := asoGVKs[kind]
	g.Expect(ok).To(BeTrue(), "%s is not an ASO kind of the provider", kind)
	items := f.list(g, gvk.GroupVersion().String(), kind)
	out := make([]*unstructured.Unstructured, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// aso gets an ASO object of the namespace by kind and name.
func (f *fixture) aso(g Gomega, kind, name string) *unstructured.Unstructured {
	gvk, ok := asoGVKs[kind]
	g.Expect(ok).To(BeTrue(), "%s is not an ASO kind of the provider", kind)
	return f.get(g, gvk.GroupVersion().String(), kind, name)
}

// asoByAzureName finds the ASO object of a kind whose Azure name is azureName (the object's name may differ: see
// azure.ObjectName).
func (f *fixture) asoByAzureName(g Gomega, kind, azureName string) *unstructured.Unstructured {
	var names []string
	for _, o := range f.asoList(g, kind) {
		name := nested(o, "spec", "azureName")
		if name == "" {
			name = o.GetName()
		}
		if name == azureName {
			return o
		}
		names = append(names, name)
	}
	g.Expect(names).To(ContainElement(azureName), "no %s with Azure name %s", kind, azureName)
	return nil
}

// isReady reports whether an object's Ready condition is True (for ASO objects, also for their generation).
func isReady(o *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Ready" {
			continue
		}
		if observed, ok := m["observedGeneration"].(int64); ok && observed < o.GetGeneration() {
			return false
		}
		return m["status"] == "True"
	}
	return false
}

// nested returns a string field, or "" when absent.
func nested(o *unstructured.Unstructured, fields ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(o.Object, fields...)
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// nestedAny returns any field, or nil when absent.
func nestedAny(o *unstructured.Unstructured, fields ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(o.Object, fields...)
	return v
}

// frontend is what a test checks of a load balancer's frontend IP configuration: a private IP, or the name of the
// PublicIPAddress object it references.
type frontend struct {
	name, privateIP, publicIP string
}

// lbFrontends returns the frontends of a LoadBalancer object.
func lbFrontends(lb *unstructured.Unstructured) []frontend {
	configs, _, _ := unstructured.NestedSlice(lb.Object, "spec", "frontendIPConfigurations")
	out := make([]frontend, 0, len(configs))
	for _, c := range configs {
		m := &unstructured.Unstructured{Object: c.(map[string]any)}
		out = append(out, frontend{
			name:      nested(m, "name"),
			privateIP: nested(m, "privateIPAddress"),
			publicIP:  nested(m, "publicIPAddress", "reference", "name"),
		})
	}
	return out
}

func jsonUnmarshal(s string, v any) error {
	return json.NewDecoder(strings.NewReader(s)).Decode(v)
}
