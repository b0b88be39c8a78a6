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

package parity

import (
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

const (
	sub    = "00000000-0000-0000-0000-0000000000aa"
	rgPath = "/subscriptions/" + sub + "/resourceGroups/pdef"
)

func body(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestNormalizer_Writes: writes (PUT, PATCH, DELETE, POST) with their api-versions and statuses, no reads; IDs in
// lower case with generated names (the longest first) replaced; generated GUIDs numbered by first appearance (the
// URL, then the body's keys in order), the same GUID alike wherever it is, the GUIDs kept and CAPZ's gallery's as
// they are; secrets redacted but present; computed fields and the URL's repetition dropped; numbers kept as written.
func TestNormalizer_Writes(t *testing.T) {
	g := NewWithT(t)
	role := "b24988ac-6180-42a0-ab88-20f7382dd24c"
	n := Normalizer{
		Names: map[string]string{
			"pdef":                     "${CLUSTER_NAME}",
			"pdef-control-plane-x7k2p": "${CLUSTER_NAME}-control-plane-#0",
			"pdef-md-0-abcde-fghij":    "${CLUSTER_NAME}-md-0-#0",
			"":                         "ignored",
		},
		KeepGUIDs: []string{sub, role},
	}
	vm := rgPath + "/providers/Microsoft.Compute/virtualMachines/pdef-control-plane-x7k2p"
	writes, err := n.Writes([]Request{
		{Method: "GET", Path: vm},
		{Method: "PUT", Path: vm, Body: body(t, map[string]any{
			"id": vm, "name": "pdef-control-plane-x7k2p", "location": "eastus", "etag": `W/"1"`,
			"tags": map[string]any{"sigs.k8s.io_cluster-api-provider-azure_cluster_pdef": "owned", "Name": "pdef-control-plane-x7k2p", "capz-custom-data-hash": "589c87b2"},
			"properties": map[string]any{
				"provisioningState": "Succeeded",
				"osProfile":         map[string]any{"customData": "c2VjcmV0", "adminPassword": nil, "computerName": "pdef-control-plane-x7k2p"},
				"networkProfile": map[string]any{"networkInterfaces": []any{map[string]any{
					"id": "/subscriptions/" + sub + "/resourceGroups/PDEF/providers/Microsoft.Network/networkInterfaces/pdef-control-plane-x7k2p-nic"}}},
				"diskSizeGB": json.Number("128"),
			},
		})},
		{Method: "PUT", Path: rgPath + "/providers/Microsoft.Authorization/roleAssignments/1b4f0a8e-0000-4000-8000-000000000001", APIVersion: "2022-04-01", Status: 201, Body: body(t, map[string]any{
			"properties": map[string]any{
				"roleDefinitionId": "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + role,
				"principalId":      "7C9E6679-7425-40DE-944B-E07FC1F90AE7",
				"description":      "for 7c9e6679-7425-40de-944b-e07fc1f90ae7 and /CommunityGalleries/ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019/Images/x",
			},
		})},
		{Method: "PATCH", Path: rgPath, Body: body(t, map[string]any{"tags": map[string]any{"a": "b"}})},
		{Method: "DELETE", Path: rgPath + "/providers/Microsoft.Authorization/roleAssignments/1b4f0a8e-0000-4000-8000-000000000001", Status: 200},
		{Method: "POST", Path: rgPath + "/providers/Microsoft.ContainerService/managedClusters/aks/listClusterUserCredential", Body: []byte(`{}`)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(writes).To(HaveLen(5))

	g.Expect(writes[0].Resource).To(Equal(Resource{Method: "PUT", Type: "Microsoft.Compute/virtualMachines",
		ID: "/subscriptions/" + sub + "/resourcegroups/${CLUSTER_NAME}/providers/microsoft.compute/virtualmachines/${CLUSTER_NAME}-control-plane-#0"}))
	g.Expect(writes[0].Resource.Name()).To(Equal("${CLUSTER_NAME}-control-plane-#0"))
	g.Expect(writes[0].Body).To(Equal(map[string]any{
		"location": "eastus",
		"tags":     map[string]any{"sigs.k8s.io_cluster-api-provider-azure_cluster_${CLUSTER_NAME}": "owned", "Name": "${CLUSTER_NAME}-control-plane-#0", "capz-custom-data-hash": armnorm.Redacted},
		"properties": map[string]any{
			"osProfile": map[string]any{"customData": armnorm.Redacted, "adminPassword": nil, "computerName": "${CLUSTER_NAME}-control-plane-#0"},
			"networkProfile": map[string]any{"networkInterfaces": []any{map[string]any{
				"id": "/subscriptions/" + sub + "/resourcegroups/${CLUSTER_NAME}/providers/microsoft.network/networkinterfaces/${CLUSTER_NAME}-control-plane-#0-nic"}}},
			"diskSizeGB": json.Number("128"),
		},
	}))

	g.Expect(writes[1].Resource.ID).To(HaveSuffix("/roleassignments/<guid-1>"))
	g.Expect(writes[1].APIVersion).To(Equal("2022-04-01"))
	g.Expect(writes[1].Status).To(Equal(201))
	g.Expect(writes[1].Body).To(Equal(map[string]any{"properties": map[string]any{
		"roleDefinitionId": "/subscriptions/" + sub + "/providers/microsoft.authorization/roledefinitions/" + role,
		"principalId":      "<guid-2>",
		"description":      "for <guid-2> and /CommunityGalleries/ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019/Images/x",
	}}))
	g.Expect(writes[2].Resource).To(Equal(Resource{Method: "PATCH", Type: "Microsoft.Resources/resourceGroups", ID: "/subscriptions/" + sub + "/resourcegroups/${CLUSTER_NAME}"}))
	g.Expect(writes[2].Resource.String()).To(Equal("PATCH Microsoft.Resources/resourceGroups ${CLUSTER_NAME}"))
	g.Expect(writes[3].Resource.String()).To(Equal("DELETE Microsoft.Authorization/roleAssignments <guid-1>"))
	g.Expect(writes[4].Resource.String()).To(Equal("POST Microsoft.ContainerService/managedClusters/listClusterUserCredential aks"))

	_, err = n.Writes([]Request{{Method: "PUT", Path: rgPath, Body: []byte("not json")}})
	g.Expect(err).To(MatchError(ContainSubstring("the body of PUT " + rgPath + " is not a JSON object")))
}

// TestNormalizer_InlineChildren: the inline inbound NAT rules of a load balancer's PUT (and a route table's routes)
// become PUTs of the child resources, named by their parents; the parent keeps the rest; empty lists and objects of
// a PUT go; a PATCH keeps its body whole.
func TestNormalizer_InlineChildren(t *testing.T) {
	g := NewWithT(t)
	lbID := rgPath + "/providers/Microsoft.Network/loadBalancers/lb"
	rt := rgPath + "/providers/Microsoft.Network/routeTables/rt"
	writes, err := Normalizer{}.Writes([]Request{
		{Method: "PUT", Path: lbID, Body: []byte(`{"location":"eastus","properties":{"probes":[],"inboundNatRules":[
			{"name":"Machine-0","id":"x","etag":"y","properties":{"frontendPort":22}}]}}`)},
		{Method: "PUT", Path: rt, Body: []byte(`{"properties":{"routes":[{"name":"r","properties":{"nextHopType":"None"}}],"disableBgpRoutePropagation":false,"tags":{}}}`)},
		{Method: "PATCH", Path: rt, Body: []byte(`{"properties":{"routes":[]}}`)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	got := map[string]map[string]any{}
	for _, w := range writes {
		got[w.Resource.String()] = w.Body
	}
	g.Expect(got).To(Equal(map[string]map[string]any{
		"Microsoft.Network/loadBalancers lb":                           {"location": "eastus"},
		"Microsoft.Network/loadBalancers/inboundNatRules lb/machine-0": {"properties": map[string]any{"frontendPort": json.Number("22")}},
		"Microsoft.Network/routeTables rt":                             {"properties": map[string]any{"disableBgpRoutePropagation": false}},
		"Microsoft.Network/routeTables/routes rt/r":                    {"properties": map[string]any{"nextHopType": "None"}},
		"PATCH Microsoft.Network/routeTables rt":                       {"properties": map[string]any{"routes": []any{}}},
	}))
}

// TestNormalizer_Meanings: a system-assigned identity's principal and a role assignment of it are named after the
// resource they are for, whatever the order the side wrote them in, also when a later phase deletes the assignment
// (Earlier); a role assignment of a principal no write of the side explains stays a numbered GUID, and numbered GUIDs
// count from 1 whatever was named.
func TestNormalizer_Meanings(t *testing.T) {
	g := NewWithT(t)
	names := map[string]string{"pdef": "${CLUSTER_NAME}", "pdef-md-0-aaaaa": "${CLUSTER_NAME}-md-0-#0", "pdef-md-0-bbbbb": "${CLUSTER_NAME}-md-0-#1"}
	vm := func(name string) string { return rgPath + "/providers/Microsoft.Compute/virtualMachines/" + name }
	assignment := func(name string) string {
		return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleAssignments/" + name
	}
	identity := body(t, map[string]any{"identity": map[string]any{"type": "SystemAssigned"}})
	assign := func(principal string) []byte {
		return body(t, map[string]any{"properties": map[string]any{"principalId": principal}})
	}
	created := []Request{
		{Method: "PUT", Path: vm("pdef-md-0-bbbbb"), Body: identity},
		{Method: "PUT", Path: vm("pdef-md-0-aaaaa"), Body: identity},
		{Method: "PUT", Path: assignment("11111111-1111-4111-8111-111111111111"), Body: assign(fakearm.PrincipalID(vm("pdef-md-0-aaaaa")))},
		{Method: "PUT", Path: assignment("22222222-2222-4222-8222-222222222222"), Body: assign(fakearm.PrincipalID(vm("pdef-md-0-bbbbb")))},
		{Method: "PUT", Path: assignment("33333333-3333-4333-8333-333333333333"), Body: assign("44444444-4444-4444-8444-444444444444")},
	}
	n := Normalizer{Names: names, KeepGUIDs: []string{sub}}
	writes, err := n.Writes(created)
	g.Expect(err).NotTo(HaveOccurred())
	ids := func(ws []Write) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Resource.ID[strings.LastIndex(w.Resource.ID, "/")+1:])
		}
		return out
	}
	g.Expect(ids(writes)).To(Equal([]string{"${CLUSTER_NAME}-md-0-#1", "${CLUSTER_NAME}-md-0-#0",
		"<role assignment of ${CLUSTER_NAME}-md-0-#0>", "<role assignment of ${CLUSTER_NAME}-md-0-#1>", GUIDPlaceholder(1)}))
	g.Expect(writes[2].Body).To(Equal(map[string]any{"properties": map[string]any{"principalId": "<principal of ${CLUSTER_NAME}-md-0-#0>"}}))
	g.Expect(writes[4].Body).To(Equal(map[string]any{"properties": map[string]any{"principalId": GUIDPlaceholder(2)}}))

	n.Earlier = created
	deleted, err := n.Writes([]Request{{Method: "DELETE", Path: assignment("22222222-2222-4222-8222-222222222222")}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ids(deleted)).To(Equal([]string{"<role assignment of ${CLUSTER_NAME}-md-0-#1>"}))
}
