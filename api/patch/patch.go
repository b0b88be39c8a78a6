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

package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"
)

// Format is the format of a patch.
type Format string

const (
	// Merge is an RFC 7386 JSON merge patch.
	Merge Format = "MergePatch"
	// JSON is an RFC 6902 JSON patch.
	JSON Format = "JSONPatch"
)

// protectedPaths are the JSON pointers of fields that identify an ASO object or tie it to its Azure parent or its
// owner. A patch may not change them: the engine owns them, and changing them would point the object at another
// resource or hand it to another owner.
var protectedPaths = []string{"/apiVersion", "/kind", "/metadata/name", "/metadata/namespace", "/metadata/ownerReferences", "/spec/owner"}

// bootstrapFields are the JSON pointers of the fields of generated ASO objects that hold a machine's bootstrap data
// (kubeadm's join token, a control plane's keys). A patch may change them, but never read them: neither copy or
// move them elsewhere (a tag, or a field whose validation message would quote them in a status), nor test them.
var bootstrapFields = []string{
	"/spec/osProfile/customData", "/spec/userData",
	"/spec/virtualMachineProfile/osProfile/customData", "/spec/virtualMachineProfile/userData",
}

// maxCopySize bounds what the copy operations of a JSON patch may add to an object. Each copy can double an
// object, so a short patch could otherwise make gigabytes; the API server stores no object over 1.5 MiB (etcd's
// request limit), so a patch that copies more can only fail later.
const maxCopySize = 3 << 19

// Patch is a parsed user patch.
type Patch struct {
	format Format
	merge  []byte
	ops    jsonpatch.Patch
}

// Reserved reports whether an annotation or label key controls an object for the engine or for ASO, so that a patch
// may not set, change or remove it: every key under ASO's serviceoperator.azure.com/ prefix (ASO obeys them:
// reconcile-policy would turn a resource the user brought into one ASO writes and deletes, credential-from would pick
// the Azure identity, resource-id and child-resource-id-override would point the object at another Azure resource,
// which ASO then deletes with the object), every key under a *.x-k8s.io prefix (Cluster API's, clusterctl's and the
// provider's own: the cluster-name and ownership labels, the applied hash, the pause and adoption records, the move
// markers) and CAPZ's adopt annotation.
func Reserved(key string) bool {
	return reservedReason(key) != ""
}

// asoPrefix is the prefix of the annotations and labels ASO reads.
const asoPrefix = "serviceoperator.azure.com"

// reservedReason says why a patch may not write a key; "" when it may. The prefix is compared case-insensitively:
// the API server refuses a prefix with capitals anyway, and a patch should learn why here.
func reservedReason(key string) string {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	prefix = strings.ToLower(prefix)
	switch {
	case prefix == asoPrefix:
		return "ASO obeys every serviceoperator.azure.com/ key (which Azure resource the object is and deletes, " +
			"which credential and reconcile policy it uses), so only the provider writes them"
	case prefix == "x-k8s.io" || strings.HasSuffix(prefix, ".x-k8s.io") || key == capzAdoptAnnotation:
		return "the provider decides it"
	}
	return ""
}

// capzAdoptAnnotation hands an ASO object nobody controls to the provider (aso.HandOverAnnotation).
const capzAdoptAnnotation = "sigs.k8s.io/cluster-api-provider-azure-adopt"

// metadataMaps are the metadata fields whose keys Reserved screens.
var metadataMaps = []string{"annotations", "labels"}

// Parse parses a patch written as JSON or YAML and rejects one that touches a protected field or a reserved
// annotation or label, or reads a bootstrap field.
func Parse(format Format, text string) (*Patch, error) {
	doc, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON or YAML: %w", err)
	}
	switch format {
	case Merge, "":
		var obj map[string]any
		if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
			return nil, errors.New("a merge patch must be an object")
		}
		for _, p := range protectedPaths {
			if touchesMerge(obj, strings.Split(strings.TrimPrefix(p, "/"), "/")) {
				return nil, fmt.Errorf("a patch may not change %s", pointerToField(p))
			}
		}
		metadata, _ := obj["metadata"].(map[string]any)
		for _, field := range metadataMaps {
			values, _ := metadata[field].(map[string]any)
			if err := checkReservedKeys(field, values); err != nil {
				return nil, err
			}
		}
		return &Patch{format: Merge, merge: doc}, nil
	case JSON:
		ops, err := jsonpatch.DecodePatch(doc)
		if err != nil {
			return nil, fmt.Errorf("not a JSON patch (a list of operations): %w", err)
		}
		for i, op := range ops {
			if err := checkOperation(op); err != nil {
				return nil, fmt.Errorf("operation %d: %w", i, err)
			}
		}
		return &Patch{format: JSON, ops: ops}, nil
	default:
		return nil, fmt.Errorf("unknown patch format %q", format)
	}
}

// Apply applies the patch to a JSON document and checks that no protected field and no reserved annotation or
// label changed, and that no bootstrap data was copied elsewhere.
func (p *Patch) Apply(doc []byte) ([]byte, error) {
	var out []byte
	var err error
	if p.format == Merge {
		out, err = jsonpatch.MergePatch(doc, p.merge)
	} else {
		options := jsonpatch.NewApplyOptions()
		options.AccumulatedCopySizeLimit = maxCopySize
		out, err = p.ops.ApplyWithOptions(doc, options)
	}
	if err != nil {
		return nil, err
	}
	if err := checkUnchanged(doc, out); err != nil {
		return nil, err
	}
	return out, nil
}

// touchesMerge reports whether a merge patch sets or removes the field at path, or removes one of its parents.
func touchesMerge(obj map[string]any, path []string) bool {
	v, ok := obj[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 || v == nil {
		return true
	}
	child, isObject := v.(map[string]any)
	if !isObject {
		return true
	}
	return touchesMerge(child, path[1:])
}

// checkReservedKeys rejects a patch's annotations or labels that set or remove a reserved key.
func checkReservedKeys(field string, values map[string]any) error {
	for key := range values {
		if reason := reservedReason(key); reason != "" {
			return fmt.Errorf("a patch may not set or remove the %s %s: %s", strings.TrimSuffix(field, "s"), key, reason)
		}
	}
	return nil
}

// checkOperation rejects a JSON patch operation that writes a protected field, one of its parents or the root,
// writes a reserved annotation or label, or reads a bootstrap field.
func checkOperation(op jsonpatch.Operation) error {
	path, _ := op.Path()
	from, _ := op.From()
	switch op.Kind() {
	case "test":
		if overlapsAny(path, bootstrapFields) {
			return fmt.Errorf("a patch may not test %s: it holds the machine's bootstrap data", pointerToField(path))
		}
		return nil
	case "copy", "move":
		if overlapsAny(from, bootstrapFields) {
			return fmt.Errorf("a patch may not %s %s: it holds the machine's bootstrap data", op.Kind(), pointerToField(from))
		}
	}
	written := []string{path}
	if op.Kind() == "move" {
		written = append(written, from)
	}
	for _, p := range written {
		for _, protected := range protectedPaths {
			if p == "" || overlaps(p, protected) {
				return fmt.Errorf("a patch may not change %s", pointerToField(protected))
			}
		}
		if err := checkReservedPointer(op, p); err != nil {
			return err
		}
	}
	return nil
}

// checkReservedPointer rejects an operation on a reserved annotation or label, or one that writes a whole
// annotations or labels map holding a reserved key.
func checkReservedPointer(op jsonpatch.Operation, pointer string) error {
	segments := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	if len(segments) < 2 || segments[0] != "metadata" || !slices.Contains(metadataMaps, segments[1]) {
		return nil
	}
	field := segments[1]
	if len(segments) > 2 {
		key := strings.NewReplacer("~1", "/", "~0", "~").Replace(segments[2])
		return checkReservedKeys(field, map[string]any{key: nil})
	}
	if op.Kind() != "add" && op.Kind() != "replace" {
		return nil
	}
	value, err := op.ValueInterface()
	if err != nil {
		return nil // an operation without a value writes no key (and fails to apply)
	}
	values, _ := value.(map[string]any)
	return checkReservedKeys(field, values)
}

// overlaps reports whether two JSON pointers are equal or one is inside the other.
func overlaps(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

func overlapsAny(pointer string, pointers []string) bool {
	for _, p := range pointers {
		if pointer == "" || overlaps(pointer, p) {
			return true
		}
	}
	return false
}

// checkUnchanged compares two JSON documents: their protected fields and reserved annotations and labels must be
// equal, and the bootstrap data of the first may be found in the second only where it was.
func checkUnchanged(before, after []byte) error {
	var b, a map[string]any
	if err := json.Unmarshal(before, &b); err != nil {
		return err
	}
	if err := json.Unmarshal(after, &a); err != nil {
		return fmt.Errorf("the patched object is not a JSON object: %w", err)
	}
	for _, p := range protectedPaths {
		path := strings.Split(strings.TrimPrefix(p, "/"), "/")
		bv, _ := json.Marshal(lookup(b, path))
		av, _ := json.Marshal(lookup(a, path))
		if !bytes.Equal(bv, av) {
			return fmt.Errorf("a patch may not change %s", pointerToField(p))
		}
	}
	for _, field := range metadataMaps {
		bm, _ := lookup(b, []string{"metadata", field}).(map[string]any)
		am, _ := lookup(a, []string{"metadata", field}).(map[string]any)
		for _, m := range []map[string]any{bm, am} {
			for key := range m {
				if reason := reservedReason(key); reason != "" && !reflect.DeepEqual(bm[key], am[key]) {
					return fmt.Errorf("a patch may not set or remove the %s %s: %s", strings.TrimSuffix(field, "s"), key, reason)
				}
			}
		}
	}
	for _, field := range bootstrapFields {
		data, _ := lookup(b, strings.Split(strings.TrimPrefix(field, "/"), "/")).(string)
		if len(data) < minBootstrapSize {
			continue
		}
		if at := findString(a, "", data, field); at != "" {
			return fmt.Errorf("a patch may not copy %s (the machine's bootstrap data) to %s", pointerToField(field), pointerToField(at))
		}
	}
	return nil
}

// minBootstrapSize is the shortest bootstrap value checkUnchanged looks for elsewhere: shorter values (none of
// kubeadm's) would match by chance.
const minBootstrapSize = 16

// findString returns the pointer of a string in v, other than skip, that contains s; "" when there is none.
func findString(v any, pointer, s, skip string) string {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			escaped := strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if at := findString(child, pointer+"/"+escaped, s, skip); at != "" {
				return at
			}
		}
	case []any:
		for i, child := range t {
			if at := findString(child, fmt.Sprintf("%s/%d", pointer, i), s, skip); at != "" {
				return at
			}
		}
	case string:
		if pointer != skip && strings.Contains(t, s) {
			return pointer
		}
	}
	return ""
}

func lookup(obj map[string]any, path []string) any {
	var cur any = obj
	for _, key := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[key]
	}
	return cur
}

func pointerToField(pointer string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pointer, "/"), "/", ".")
}
