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
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const vnet = `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"tags":{"x":"y"}}}`

func TestParseAndApply(t *testing.T) {
	tests := []struct {
		name       string
		format     Format
		patch      string
		want       string // JSON the result must match; empty when an error is expected
		parseError string
		applyError string
	}{
		{
			name:   "merge patch in YAML adds and removes fields",
			format: Merge,
			patch:  "spec:\n  flowTimeoutInMinutes: 10\n  tags:\n    x: null\n",
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"tags":{},"flowTimeoutInMinutes":10}}`,
		},
		{
			name:   "merge patch in JSON replaces a list",
			format: "",
			patch:  `{"spec":{"addressSpace":{"addressPrefixes":["10.1.0.0/16"]}}}`,
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.1.0.0/16"]},"tags":{"x":"y"}}}`,
		},
		{
			name:   "JSON patch appends to a list",
			format: JSON,
			patch:  "- op: add\n  path: /spec/addressSpace/addressPrefixes/-\n  value: 192.168.0.0/16\n",
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8","192.168.0.0/16"]},"tags":{"x":"y"}}}`,
		},
		{
			name:   "JSON patch with a passing test operation",
			format: JSON,
			patch:  `[{"op":"test","path":"/metadata/name","value":"vnet"},{"op":"remove","path":"/spec/tags/x"}]`,
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"tags":{}}}`,
		},
		{name: "unparsable", format: Merge, patch: "spec: [", parseError: "not valid JSON or YAML"},
		{name: "merge patch that is a list", format: Merge, patch: "[1]", parseError: "must be an object"},
		{name: "merge patch renames", format: Merge, patch: "metadata: {name: other}", parseError: "may not change metadata.name"},
		{name: "merge patch moves namespace", format: Merge, patch: `{"metadata":{"namespace":"x"}}`, parseError: "metadata.namespace"},
		{name: "merge patch changes kind", format: Merge, patch: "kind: Subnet", parseError: "may not change kind"},
		{name: "merge patch changes apiVersion", format: Merge, patch: "apiVersion: v1", parseError: "may not change apiVersion"},
		{name: "merge patch changes owner", format: Merge, patch: "spec: {owner: {name: other}}", parseError: "spec.owner"},
		{name: "merge patch removes spec", format: Merge, patch: "spec: null", parseError: "spec.owner"},
		{name: "JSON patch that is an object", format: JSON, patch: "spec: {}", parseError: "not a JSON patch"},
		{name: "JSON patch replaces owner", format: JSON, patch: `[{"op":"replace","path":"/spec/owner/name","value":"x"}]`, parseError: "operation 0: a patch may not change spec.owner"},
		{name: "JSON patch replaces metadata", format: JSON, patch: `[{"op":"add","path":"/metadata","value":{}}]`, parseError: "metadata.name"},
		{name: "JSON patch replaces the root", format: JSON, patch: `[{"op":"replace","path":"","value":{}}]`, parseError: "may not change"},
		{name: "JSON patch moves from owner", format: JSON, patch: `[{"op":"move","from":"/spec/owner","path":"/spec/x"}]`, parseError: "spec.owner"},
		{name: "unknown format", format: "Strategic", patch: "{}", parseError: "unknown patch format"},
		{name: "JSON patch on a missing path", format: JSON, patch: `[{"op":"replace","path":"/spec/missing/x","value":1}]`, applyError: "missing"},
		{name: "JSON patch with a failing test", format: JSON, patch: `[{"op":"test","path":"/spec/location","value":"westus"}]`, applyError: "testing value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			p, err := Parse(tt.format, tt.patch)
			if tt.parseError != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.parseError)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			out, err := p.Apply([]byte(vnet))
			if tt.applyError != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.applyError)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(MatchJSON(tt.want))
		})
	}
}

func TestApplyRejectsProtectedChangeFromValue(t *testing.T) {
	g := NewWithT(t)
	// A copy into spec.owner passes the static check of its "from" but is caught when applied.
	p, err := Parse(JSON, `[{"op":"copy","from":"/spec/location","path":"/spec/owner/name"}]`)
	g.Expect(err).To(MatchError(ContainSubstring("spec.owner")))
	g.Expect(p).To(BeNil())

	// Applied checks are the last line of defence: a patch object built to bypass Parse is still refused.
	p = &Patch{format: Merge, merge: []byte(`{"metadata":{"name":"x"}}`)}
	_, err = p.Apply([]byte(vnet))
	g.Expect(err).To(MatchError(ContainSubstring("metadata.name")))
}

// TestApplyLimitsCopies: copy operations can double an object with every operation; a short patch would make
// gigabytes in the controller. Apply stops at the size an API server would store.
func TestApplyLimitsCopies(t *testing.T) {
	g := NewWithT(t)
	ops := make([]string, 0, 16)
	for i := range 16 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/tags/x%d"}`, i))
	}
	p, err := Parse(JSON, "["+strings.Join(ops, ",")+"]")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = p.Apply([]byte(vnet))
	g.Expect(err).To(MatchError(ContainSubstring("copy")))
}
