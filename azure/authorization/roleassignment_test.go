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

package authorization

import (
	"testing"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// testCluster is the cluster the authorization golden files are made for.
var testCluster = azure.Cluster{
	Name: "my-cluster", SubscriptionID: "00000000-0000-0000-0000-000000000001", Location: "eastus",
	ResourceGroup: "my-cluster-rg", AdditionalTags: map[string]string{"team": "platform"},
}

func TestRoleAssignment(t *testing.T) {
	principal := genruntime.ConfigMapReference{Name: "my-machine-identity", Key: "principalId"}
	tests := []struct {
		name string
		in   RoleAssignmentInput
	}{
		{name: "defaults", in: RoleAssignmentInput{Name: "2f6e4b1c-5d1a-5c3e-9f0a-7b8c9d0e1f2a", PrincipalFrom: principal}},
		{name: "custom-role-and-scope", in: RoleAssignmentInput{
			Name:          "0b2c3d4e-5f60-5718-8293-a4b5c6d7e8f9",
			Scope:         "/subscriptions/00000000-0000-0000-0000-000000000002/",
			DefinitionID:  "/subscriptions/00000000-0000-0000-0000-000000000002/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
			PrincipalFrom: principal,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "roleassignment-"+tt.name, RoleAssignment(testCluster, tt.in))
		})
	}
}
