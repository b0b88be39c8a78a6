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

// protectedPaths are the JSON pointers of fields that identify an ASO object or tie it to its Azure parent.
// A patch may not change them: the engine owns them, and changing them would point the object at another resource.
var protectedPaths = []string{"/apiVersion", "/kind", "/metadata/name", "/metadata/namespace", "/spec/owner"}

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

// Parse parses a patch written as JSON or YAML and rejects one that touches a protected field.
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

// Apply applies the patch to a JSON document and checks that no protected field changed.
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
	if err := checkProtectedUnchanged(doc, out); err != nil {
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

// checkOperation rejects a JSON patch operation that writes a protected field, one of its parents or the root.
func checkOperation(op jsonpatch.Operation) error {
	if op.Kind() == "test" {
		return nil
	}
	paths := []string{}
	if path, err := op.Path(); err == nil {
		paths = append(paths, path)
	}
	if op.Kind() == "move" {
		if from, err := op.From(); err == nil {
			paths = append(paths, from)
		}
	}
	for _, path := range paths {
		for _, protected := range protectedPaths {
			if path == protected || strings.HasPrefix(path, protected+"/") || strings.HasPrefix(protected, path+"/") || path == "" {
				return fmt.Errorf("a patch may not change %s", pointerToField(protected))
			}
		}
	}
	return nil
}

// checkProtectedUnchanged compares the protected fields of two JSON documents.
func checkProtectedUnchanged(before, after []byte) error {
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
	return nil
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
