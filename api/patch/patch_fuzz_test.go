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
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// resourceGroup is an ASO object without spec.owner: a patch may not add one.
const resourceGroup = `{"apiVersion":"resources.azure.com/v1api20200601","kind":"ResourceGroup",
"metadata":{"name":"rg","namespace":"ns"},"spec":{"location":"eastus","tags":{"a":"b"}}}`

// FuzzPatch parses arbitrary text as both patch formats and applies what parses to realistic objects. Parse and
// Apply never panic; a parsed patch applies to an object or fails with an error; what it makes is a JSON object
// with the same apiVersion, kind, metadata.name, metadata.namespace and spec.owner; and Parse already rejects
// every patch that would change them (so the webhook catches it at admission, not the engine at apply time).
func FuzzPatch(f *testing.F) {
	for _, seed := range []string{
		"spec:\n  flowTimeoutInMinutes: 10\n  tags:\n    x: null\n",
		`{"spec":{"addressSpace":{"addressPrefixes":["10.1.0.0/16"]}}}`,
		"- op: add\n  path: /spec/addressSpace/addressPrefixes/-\n  value: 192.168.0.0/16\n",
		`[{"op":"test","path":"/metadata/name","value":"vnet"},{"op":"remove","path":"/spec/tags/x"}]`,
		`[{"op":"copy","from":"/spec/location","path":"/spec/tags/where"}]`,
		`[{"op":"move","from":"/spec/tags","path":"/metadata/labels"}]`,
		`[{"op":"replace","path":"/spec/owner/name","value":"x"}]`,
		"metadata: {name: other}",
		"spec: null",
		"- {op: add, path: /spec/owner, value: {armId: /subscriptions/x}}",
		"a: &a [*a, *a]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, format := range []Format{Merge, JSON} {
			p, err := Parse(format, text)
			if err != nil {
				if p != nil {
					t.Fatalf("%s: Parse returned a patch and an error", format)
				}
				continue
			}
			for _, doc := range []string{vnet, resourceGroup} {
				out, err := p.Apply([]byte(doc))
				if err != nil {
					if strings.Contains(err.Error(), "may not change") {
						t.Fatalf("%s %q parsed but changes a protected field: %v", format, text, err)
					}
					if format == Merge {
						t.Fatalf("merge patch %q parsed but does not apply: %v", text, err)
					}
					continue
				}
				var obj map[string]any
				if err := json.Unmarshal(out, &obj); err != nil || obj == nil {
					t.Fatalf("%s %q made no JSON object: %s", format, text, out)
				}
				if before, after := identity(t, []byte(doc)), identity(t, out); !reflect.DeepEqual(before, after) {
					t.Fatalf("%s %q changed the object's identity from %v to %v", format, text, before, after)
				}
			}
		}
	})
}

// identity is what a patch may not change: apiVersion, kind, metadata.name, metadata.namespace and spec.owner
// (nil where absent), read independently of the checks in Apply.
func identity(t *testing.T, doc []byte) []any {
	var obj map[string]any
	if err := json.Unmarshal(doc, &obj); err != nil {
		t.Fatal(err)
	}
	metadata, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	return []any{obj["apiVersion"], obj["kind"], metadata["name"], metadata["namespace"], spec["owner"]}
}
