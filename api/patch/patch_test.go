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

	jsonpatch "github.com/evanphx/json-patch/v5"
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
		{name: "merge patch sets credential-from", format: Merge, patch: "metadata: {annotations: {serviceoperator.azure.com/credential-from: platform}}",
			parseError: "may not set or remove the annotation serviceoperator.azure.com/credential-from"},
		{name: "merge patch sets reconcile-policy", format: Merge, patch: `{"metadata":{"annotations":{"serviceoperator.azure.com/reconcile-policy":"manage"}}}`,
			parseError: "serviceoperator.azure.com/reconcile-policy"},
		{name: "merge patch removes the engine's pause record", format: Merge, patch: `{"metadata":{"annotations":{"infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy":null}}}`,
			parseError: "infrastructure.cluster.x-k8s.io/pre-pause-reconcile-policy"},
		{name: "merge patch sets the ownership label", format: Merge, patch: `{"metadata":{"labels":{"infrastructure.cluster.x-k8s.io/owned-by-azure-provider":"c"}}}`,
			parseError: "the label infrastructure.cluster.x-k8s.io/owned-by-azure-provider"},
		{name: "merge patch sets the adopt annotation", format: Merge, patch: `{"metadata":{"annotations":{"sigs.k8s.io/cluster-api-provider-azure-adopt":"true"}}}`,
			parseError: "sigs.k8s.io/cluster-api-provider-azure-adopt"},
		{name: "merge patch points the object at another resource ID", format: Merge,
			patch:      "metadata: {annotations: {serviceoperator.azure.com/resource-id: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/theirs}}",
			parseError: "may not set or remove the annotation serviceoperator.azure.com/resource-id: ASO obeys every serviceoperator.azure.com/ key"},
		{name: "merge patch removes operator-namespace", format: Merge, patch: `{"metadata":{"annotations":{"serviceoperator.azure.com/operator-namespace":null}}}`,
			parseError: "the annotation serviceoperator.azure.com/operator-namespace: ASO obeys"},
		{name: "merge patch sets an ASO label", format: Merge, patch: `{"metadata":{"labels":{"serviceoperator.azure.com/anything":"x"}}}`,
			parseError: "may not set or remove the label serviceoperator.azure.com/anything"},
		{name: "merge patch sets an ASO key spelt with capitals", format: Merge, patch: `{"metadata":{"annotations":{"ServiceOperator.Azure.com/resource-id":"x"}}}`,
			parseError: "ServiceOperator.Azure.com/resource-id"},
		{name: "merge patch sets owner references", format: Merge, patch: `{"metadata":{"ownerReferences":[]}}`, parseError: "metadata.ownerReferences"},
		{name: "merge patch sets another annotation", format: Merge, patch: `{"metadata":{"annotations":{"team":"a"}}}`,
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"},"annotations":{"team":"a"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"tags":{"x":"y"}}}`},
		{name: "JSON patch adds credential-from", format: JSON, patch: `[{"op":"add","path":"/metadata/annotations/serviceoperator.azure.com~1credential-from","value":"x"}]`,
			parseError: "operation 0: a patch may not set or remove the annotation serviceoperator.azure.com/credential-from"},
		{name: "JSON patch writes annotations holding reconcile-policy", format: JSON,
			patch: `[{"op":"add","path":"/metadata/annotations","value":{"serviceoperator.azure.com/reconcile-policy":"manage"}}]`, parseError: "reconcile-policy"},
		{name: "JSON patch adds child-resource-id-override", format: JSON,
			patch:      `[{"op":"add","path":"/metadata/annotations/serviceoperator.azure.com~1child-resource-id-override","value":"/subscriptions/s/resourceGroups/rg"}]`,
			parseError: "operation 0: a patch may not set or remove the annotation serviceoperator.azure.com/child-resource-id-override: ASO obeys"},
		{name: "JSON patch removes operator-namespace", format: JSON,
			patch:      `[{"op":"remove","path":"/metadata/annotations/serviceoperator.azure.com~1operator-namespace"}]`,
			parseError: "serviceoperator.azure.com/operator-namespace"},
		{name: "JSON patch moves a tag into resource-id", format: JSON,
			patch:      `[{"op":"move","from":"/spec/tags/x","path":"/metadata/annotations/serviceoperator.azure.com~1resource-id"}]`,
			parseError: "serviceoperator.azure.com/resource-id"},
		{name: "JSON patch replaces the annotations with a map holding resource-id", format: JSON,
			patch:      `[{"op":"replace","path":"/metadata/annotations","value":{"team":"a","serviceoperator.azure.com/resource-id":"/subscriptions/s/resourceGroups/theirs"}}]`,
			parseError: "operation 0: a patch may not set or remove the annotation serviceoperator.azure.com/resource-id"},
		{name: "merge patch replaces the labels with a map holding an ASO key", format: Merge,
			patch: `{"metadata":{"labels":{"a":null,"serviceoperator.azure.com/x":"y"}}}`, parseError: "the label serviceoperator.azure.com/x"},
		{name: "JSON patch copies into the cluster-name label", format: JSON,
			patch: `[{"op":"copy","from":"/metadata/labels/a","path":"/metadata/labels/cluster.x-k8s.io~1cluster-name"}]`, parseError: "cluster.x-k8s.io/cluster-name"},
		{name: "JSON patch removes the ownership label", format: JSON,
			patch: `[{"op":"remove","path":"/metadata/labels/infrastructure.cluster.x-k8s.io~1owned-by-azure-provider"}]`, parseError: "owned-by-azure-provider"},
		{name: "JSON patch adds owner references", format: JSON, patch: `[{"op":"add","path":"/metadata/ownerReferences","value":[]}]`, parseError: "metadata.ownerReferences"},
		{name: "JSON patch copies customData to a tag", format: JSON,
			patch: `[{"op":"copy","from":"/spec/osProfile/customData","path":"/spec/tags/leak"}]`, parseError: "may not copy spec.osProfile.customData"},
		{name: "JSON patch moves a scale set's customData", format: JSON,
			patch: `[{"op":"move","from":"/spec/virtualMachineProfile/osProfile/customData","path":"/spec/x"}]`, parseError: "bootstrap data"},
		{name: "JSON patch copies the osProfile holding customData", format: JSON,
			patch: `[{"op":"copy","from":"/spec/osProfile","path":"/spec/tags/leak"}]`, parseError: "may not copy spec.osProfile"},
		{name: "JSON patch copies the whole spec", format: JSON, patch: `[{"op":"copy","from":"/spec","path":"/spec/tags/leak"}]`, parseError: "bootstrap data"},
		{name: "JSON patch tests userData", format: JSON, patch: `[{"op":"test","path":"/spec/userData","value":"guess"}]`, parseError: "may not test spec.userData"},
		{name: "JSON patch replaces customData", format: JSON, patch: `[{"op":"add","path":"/spec/osProfile","value":{"customData":"bmV3"}}]`,
			want: `{"apiVersion":"network.azure.com/v1api20240301","kind":"VirtualNetwork",
"metadata":{"name":"vnet","namespace":"ns","labels":{"a":"b"}},
"spec":{"owner":{"name":"rg"},"location":"eastus","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"tags":{"x":"y"},"osProfile":{"customData":"bmV3"}}}`},
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

// TestApply_ReservedAndBootstrapChecksWhenApplied: what Parse cannot see from a patch's text (a merge patch that
// removes a whole map, a patch object that bypassed Parse) is refused when applied, against the object.
func TestApply_ReservedAndBootstrapChecksWhenApplied(t *testing.T) {
	const vm = `{"apiVersion":"compute.azure.com/v1api20220301","kind":"VirtualMachine",
"metadata":{"name":"vm","namespace":"ns","annotations":{"serviceoperator.azure.com/reconcile-policy":"skip","team":"a"},
"labels":{"serviceoperator.azure.com/operator-namespace":"aso"}},
"spec":{"owner":{"name":"rg"},"osProfile":{"customData":"I2Nsb3VkLWNvbmZpZwprdWJlYWRtIGpvaW4gLS10b2tlbiBzZWNyZXQ="},"tags":{"x":"y"}}}`
	tests := []struct {
		name, applyError string
		patch            *Patch
	}{
		{name: "merge patch removes every annotation", applyError: "serviceoperator.azure.com/reconcile-policy",
			patch: mustParse(t, Merge, `{"metadata":{"annotations":null}}`)},
		{name: "JSON patch replaces the annotations", applyError: "reconcile-policy",
			patch: mustParse(t, JSON, `[{"op":"replace","path":"/metadata/annotations","value":{"team":"b"}}]`)},
		{name: "merge patch removes every label", applyError: "the label serviceoperator.azure.com/operator-namespace: ASO obeys",
			patch: mustParse(t, Merge, `{"metadata":{"labels":null}}`)},
		{name: "JSON patch removes the labels", applyError: "serviceoperator.azure.com/operator-namespace",
			patch: mustParse(t, JSON, `[{"op":"remove","path":"/metadata/labels"}]`)},
		{name: "merge patch that bypassed Parse sets resource-id", applyError: "serviceoperator.azure.com/resource-id",
			patch: &Patch{format: Merge, merge: []byte(`{"metadata":{"annotations":{"serviceoperator.azure.com/resource-id":"/subscriptions/s/resourceGroups/theirs"}}}`)}},
		{name: "JSON patch that bypassed Parse copies customData", applyError: "may not copy spec.osProfile.customData (the machine's bootstrap data) to spec.tags.leak",
			patch: &Patch{format: JSON, ops: mustDecode(t, `[{"op":"copy","from":"/spec/osProfile/customData","path":"/spec/tags/leak"}]`)}},
		{name: "JSON patch that bypassed Parse moves customData", applyError: "may not copy spec.osProfile.customData",
			patch: &Patch{format: JSON, ops: mustDecode(t, `[{"op":"move","from":"/spec/osProfile/customData","path":"/spec/osProfile/x"}]`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := tt.patch.Apply([]byte(vm))
			g.Expect(err).To(MatchError(ContainSubstring(tt.applyError)))
		})
	}
	// A patch of other fields passes both checks.
	g := NewWithT(t)
	out, err := mustParse(t, JSON, `[{"op":"replace","path":"/metadata/annotations/team","value":"b"},{"op":"add","path":"/spec/tags/z","value":"w"}]`).Apply([]byte(vm))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(out)).To(ContainSubstring(`"team":"b"`))
}

func TestReserved(t *testing.T) {
	g := NewWithT(t)
	for _, key := range []string{"serviceoperator.azure.com/reconcile-policy", "serviceoperator.azure.com/credential-from",
		"serviceoperator.azure.com/resource-id", "serviceoperator.azure.com/child-resource-id-override",
		"serviceoperator.azure.com/operator-namespace", "serviceoperator.azure.com/poll-interval", "ServiceOperator.Azure.com/resource-id",
		"cluster.x-k8s.io/cluster-name", "infrastructure.cluster.x-k8s.io/desired-hash", "clusterctl.cluster.x-k8s.io/delete-for-move",
		"x-k8s.io/anything", "sigs.k8s.io/cluster-api-provider-azure-adopt"} {
		g.Expect(Reserved(key)).To(BeTrue(), key)
	}
	for _, key := range []string{"team", "serviceoperator.azure.com", "sub.serviceoperator.azure.com/x", "example.com/serviceoperator.azure.com", "example.com/x-k8s.io", "notx-k8s.io/a", "app.kubernetes.io/name"} {
		g.Expect(Reserved(key)).To(BeFalse(), key)
	}
}

func mustParse(t *testing.T, format Format, text string) *Patch {
	t.Helper()
	p, err := Parse(format, text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustDecode(t *testing.T, text string) jsonpatch.Patch {
	t.Helper()
	ops, err := jsonpatch.DecodePatch([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestApplyLimitsCopies: copy operations can double an object with every operation; a short patch would make
// gigabytes in the controller. Apply stops at the size an API server would store.
func TestApplyLimitsCopies(t *testing.T) {
	g := NewWithT(t)
	ops := make([]string, 0, 24)
	for i := range 24 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/spec/tags","path":"/spec/tags/x%d"}`, i))
	}
	p, err := Parse(JSON, "["+strings.Join(ops, ",")+"]")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = p.Apply([]byte(vnet))
	g.Expect(err).To(MatchError(ContainSubstring("copy")))
}
