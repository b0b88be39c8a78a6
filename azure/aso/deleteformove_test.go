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

package aso_test

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

func TestDeleteForMoveWebhook_Handle(t *testing.T) {
	const deleteForMove = "clusterctl.cluster.x-k8s.io/delete-for-move"
	const policy = "serviceoperator.azure.com/reconcile-policy"
	tests := []struct {
		name        string
		annotations map[string]string
		// wantOp is the JSON patch operation that sets reconcile-policy skip; empty for no patch.
		wantOp string
	}{
		{name: "an update outside a move is left alone", annotations: map[string]string{"a": "b"}},
		{name: "an object without annotations is left alone"},
		{
			name:        "clusterctl's delete-for-move patch, which drops every other annotation, gets skip back",
			annotations: map[string]string{deleteForMove: ""},
			wantOp:      "add",
		},
		{
			name:        "detach-on-delete becomes skip: ASO must not touch the resource the target owns",
			annotations: map[string]string{deleteForMove: "", policy: "detach-on-delete"},
			wantOp:      "replace",
		},
		{name: "an object still skipped is left alone", annotations: map[string]string{deleteForMove: "", policy: "skip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			metadata := map[string]any{"name": "vnet", "namespace": "default"}
			if tt.annotations != nil {
				metadata["annotations"] = tt.annotations
			}
			raw, err := json.Marshal(map[string]any{
				"apiVersion": "network.azure.com/v1api20240301", "kind": "VirtualNetwork", "metadata": metadata,
				"spec": map[string]any{"azureName": "vnet"},
			})
			g.Expect(err).NotTo(HaveOccurred())
			resp := aso.DeleteForMoveWebhook{}.Handle(t.Context(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: raw},
			}})
			g.Expect(resp.Allowed).To(BeTrue())
			if tt.wantOp == "" {
				g.Expect(resp.Patches).To(BeEmpty())
				return
			}
			g.Expect(resp.Patches).To(ConsistOf(SatisfyAll(
				HaveField("Operation", tt.wantOp),
				HaveField("Path", "/metadata/annotations/serviceoperator.azure.com~1reconcile-policy"),
				HaveField("Value", "skip"),
			)))
		})
	}
}

func TestDeleteForMoveWebhook_HandleRejectsGarbage(t *testing.T) {
	g := NewWithT(t)
	resp := aso.DeleteForMoveWebhook{}.Handle(t.Context(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: []byte("{")},
	}})
	g.Expect(resp.Allowed).To(BeFalse())
}
