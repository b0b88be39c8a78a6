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
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// The AzureASOManaged* kinds take raw ASO objects in spec.resources. These checks make sure each entry is an ASO
// object the provider can own: a complete manifest of an *.azure.com kind, in the owner's namespace, listed once.

// containerServiceGroup is the API group of ASO's AKS kinds.
const containerServiceGroup = "containerservice.azure.com"

// asoGroupSuffix ends the API group of every ASO kind.
const asoGroupSuffix = ".azure.com"

// asoResource is an entry of spec.resources that parsed.
type asoResource struct {
	index int
	kind  schema.GroupKind
	name  string
}

// validateASOResources checks every entry of spec.resources and returns the ones that parsed. namespace is the
// owner's: objects are created there, so an entry may not name another one.
func validateASOResources(path *field.Path, resources []runtime.RawExtension, namespace string) ([]asoResource, field.ErrorList) {
	var errs field.ErrorList
	var parsed []asoResource
	seen := map[string]int{}
	for i := range resources {
		p := path.Index(i)
		r, err := parseASOResource(&resources[i])
		if err != nil {
			errs = append(errs, err.at(p))
			continue
		}
		for _, msg := range utilvalidation.IsDNS1123Subdomain(r.name) {
			errs = append(errs, field.Invalid(p, r.name, "metadata.name: "+msg))
		}
		if r.namespace != "" && r.namespace != namespace {
			errs = append(errs, field.Invalid(p, r.namespace, fmt.Sprintf(
				"metadata.namespace: objects are created in the namespace of their owner (%s); leave it out", namespace)))
		}
		key := r.kind.String() + "/" + r.name
		if j, dup := seen[key]; dup {
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("%s %s (also at index %d)", r.kind.Kind, r.name, j)))
			continue
		}
		seen[key] = i
		parsed = append(parsed, asoResource{index: i, kind: r.kind, name: r.name})
	}
	return parsed, errs
}

// validateOneOfKind requires exactly one parsed resource of a kind, such as the ManagedCluster of a control plane.
// A template (template true) may have none: a ClusterClass patch may add it; the object made from it is checked.
func validateOneOfKind(path *field.Path, resources []asoResource, kind schema.GroupKind, owner string, template bool) field.ErrorList {
	var found []asoResource
	for _, r := range resources {
		if r.kind == kind {
			found = append(found, r)
		}
	}
	if len(found) == 0 && template {
		return nil
	}
	if len(found) == 0 {
		return field.ErrorList{field.Required(path, fmt.Sprintf("an %s needs exactly one %s %s", owner, kind.Group, kind.Kind))}
	}
	var errs field.ErrorList
	for _, r := range found[1:] {
		errs = append(errs, field.Invalid(path.Index(r.index), kind.Kind+" "+r.name, fmt.Sprintf(
			"an %s has exactly one %s; the first is %s at index %d", owner, kind.Kind, found[0].name, found[0].index)))
	}
	return errs
}

// parsedObject is what the checks need from a resource manifest.
type parsedObject struct {
	kind      schema.GroupKind
	name      string
	namespace string
}

// resourceError is a problem with a whole entry of spec.resources, reported at its index.
type resourceError struct {
	value  string
	detail string
	// required marks missing identity fields rather than wrong ones.
	required bool
}

func (e *resourceError) at(p *field.Path) *field.Error {
	if e.required {
		return field.Required(p, e.detail)
	}
	return field.Invalid(p, e.value, e.detail)
}

func parseASOResource(raw *runtime.RawExtension) (*parsedObject, *resourceError) {
	data := raw.Raw
	if len(data) == 0 && raw.Object != nil {
		var err error
		if data, err = json.Marshal(raw.Object); err != nil {
			return nil, &resourceError{detail: "cannot be read as a Kubernetes object: " + err.Error()}
		}
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	// Field names are matched exactly, as the controllers read the manifest (into a map): encoding/json would take
	// "Kind" for kind, and the webhook would check another object than the one the controller applies.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil {
		return nil, &resourceError{value: abbreviate(string(data)), detail: "must be a Kubernetes object with apiVersion, kind, metadata.name and spec"}
	}
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"apiVersion", obj.APIVersion}, {"kind", obj.Kind}, {"metadata.name", obj.Metadata.Name},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, &resourceError{required: true, detail: "a Kubernetes object with apiVersion, kind and metadata.name; missing " +
			strings.Join(missing, ", ")}
	}
	gv, err := schema.ParseGroupVersion(obj.APIVersion)
	if err != nil {
		return nil, &resourceError{value: obj.APIVersion, detail: "apiVersion must be <group>/<version>"}
	}
	if !strings.HasSuffix(gv.Group, asoGroupSuffix) {
		return nil, &resourceError{value: obj.APIVersion, detail: fmt.Sprintf(
			"only Azure Service Operator objects may be listed: the API group of %s %s must end in %s", obj.Kind, obj.Metadata.Name, asoGroupSuffix)}
	}
	// The rules of CRD names: the controllers record every kind they apply as <kind>.<version>.<group> in an
	// annotation (separated by ";") to find the objects again, which only works for names a CRD can have.
	if len(utilvalidation.IsDNS1123Subdomain(gv.Group)) > 0 || len(utilvalidation.IsDNS1035Label(gv.Version)) > 0 {
		return nil, &resourceError{value: obj.APIVersion, detail: "apiVersion must be <group>/<version> as a CRD names them, e.g. containerservice.azure.com/v1api20250801"}
	}
	if len(utilvalidation.IsDNS1035Label(strings.ToLower(obj.Kind))) > 0 {
		return nil, &resourceError{value: obj.Kind, detail: "kind must be a kind as a CRD names it: letters, digits and hyphens, starting with a letter, e.g. ManagedCluster"}
	}
	return &parsedObject{kind: schema.GroupKind{Group: gv.Group, Kind: obj.Kind}, name: obj.Metadata.Name, namespace: obj.Metadata.Namespace}, nil
}

// abbreviate shortens a value quoted in an error message.
func abbreviate(s string) string {
	const limit = 80
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}
