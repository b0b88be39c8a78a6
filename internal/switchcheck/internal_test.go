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

package switchcheck

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestReady_BothContracts: readiness is read from CAPZ's status (Cluster API v1beta1: status.ready and v1beta1
// conditions), which the envtest tests cannot store (the provider's CRDs prune it), and from the provider's (the
// Ready condition).
func TestReady_BothContracts(t *testing.T) {
	condition := func(status string) map[string]any {
		return map[string]any{"type": "Ready", "status": status, "reason": "Creating", "severity": "Info"}
	}
	tests := []struct {
		name   string
		status map[string]any
		want   bool
		why    string
	}{
		{name: "CAPZ, ready", status: map[string]any{"ready": true, "conditions": []any{condition("True")}}, want: true},
		{name: "CAPZ, ready without conditions", status: map[string]any{"ready": true}, want: true},
		{name: "CAPZ, not ready", status: map[string]any{"ready": false}, why: "status.ready is false"},
		{name: "CAPZ, ready but its Ready condition False", status: map[string]any{"ready": true, "conditions": []any{condition("False")}}, why: "Ready condition is False, reason Creating"},
		{name: "the provider, Ready", status: map[string]any{"conditions": []any{condition("True")}}, want: true},
		{name: "the provider, not Ready", status: map[string]any{"conditions": []any{condition("Unknown")}}, why: "Ready condition is Unknown"},
		{name: "no status", why: "no readiness"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			if tt.status != nil {
				obj.Object["status"] = tt.status
			}
			ok, why := ready(obj)
			g.Expect(ok).To(Equal(tt.want))
			g.Expect(why).To(ContainSubstring(tt.why))
		})
	}
}

// TestJudge_UnknownSpecField: a spec field the provider's types do not have (its CRD would drop it) is reported; the
// envtest tests cannot store one (the provider's CRDs prune it).
func TestJudge_UnknownSpecField(t *testing.T) {
	g := NewWithT(t)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "AzureClusterIdentity",
		"metadata": map[string]any{"name": "identity", "namespace": "default"},
		"spec": map[string]any{
			"type": "ServicePrincipal", "tenantID": "11111111-2222-3333-4444-555555555555", "clientID": "66666666-7777-8888-9999-000000000000",
			"clientSecret": map[string]any{"name": "secret", "namespace": "default"}, "somethingNew": "value",
		},
		"status": map[string]any{"ready": true},
	}}
	findings, err := judge(t.Context(), "AzureClusterIdentity", u)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(findings).To(ConsistOf(And(
		HaveField("Severity", Block), HaveField("Object", "AzureClusterIdentity default/identity"),
		HaveField("Message", And(ContainSubstring("no such field"), ContainSubstring("spec.somethingNew"))),
	)), "CAPZ's status (status.ready) is not judged")
}
