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

package fakearm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// decodeObject decodes a JSON object, keeping numbers as written (json.Number), so that a body read back is the
// body written.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if out == nil {
		return nil, errors.New("not a JSON object")
	}
	return out, nil
}

// copyValue deep-copies a decoded JSON value.
func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = copyValue(e)
		}
		return out
	default:
		return v
	}
}

// copyMap deep-copies a decoded JSON object (nil gives an empty one).
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

// lookupMap follows a path of object keys; nil if one is missing or not an object.
func lookupMap(m map[string]any, path ...string) map[string]any {
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

// ensureMap follows a path of object keys, creating the objects that are missing.
func ensureMap(m map[string]any, path ...string) map[string]any {
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// str reads a string field of an object ("" if it is missing or not a string).
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// intField reads an integer field of a decoded body (bodies keep JSON numbers as written).
func intField(m map[string]any, key string) (int, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, false
	}
	n, err := strconv.Atoi(fmt.Sprint(v))
	return n, err == nil
}
