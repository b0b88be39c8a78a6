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
	"fmt"
	"strings"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// RoleAssignmentInput describes the role assignment of a managed identity.
type RoleAssignmentInput struct {
	// Name is the assignment's name, a GUID.
	Name string
	// Scope is the ID of the resource the role is assigned on; empty means the cluster's subscription, as CAPZ
	// defaults it.
	Scope string
	// DefinitionID is the ID of the role definition; empty means the built-in Contributor role.
	DefinitionID string
	// PrincipalFrom is the ConfigMap key ASO fills with the identity's principal ID (exported by the object that
	// owns the identity), so that the assignment waits for the identity to exist.
	PrincipalFrom genruntime.ConfigMapReference
}

// RoleAssignment returns the assignment of a role to a service principal. Its owner is the scope, by ARM ID.
//
// The default scope is the subscription and the default role Contributor, as CAPZ defaults
// systemAssignedIdentityRole: the identity is cloud-provider-azure's, which also works on resources outside the
// cluster's resource group (a virtual network, route table or security group of another group, disks and load
// balancers of other groups). Setting systemAssignedIdentityRole.scope to the resource group grants less.
func RoleAssignment(c azure.Cluster, in RoleAssignmentInput) *asoauthorization.RoleAssignment {
	// ARM IDs have no trailing slash; CAPZ's default subscription scope ("/subscriptions/<id>/") has one.
	scope := strings.TrimSuffix(in.Scope, "/")
	if scope == "" {
		scope = "/subscriptions/" + c.SubscriptionID
	}
	definition := in.DefinitionID
	if definition == "" {
		definition = ContributorRoleDefinitionID(c.SubscriptionID)
	}
	principalFrom := in.PrincipalFrom
	return &asoauthorization.RoleAssignment{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec: asoauthorization.RoleAssignment_Spec{
			AzureName:               in.Name,
			Owner:                   &genruntime.ArbitraryOwnerReference{ARMID: scope},
			PrincipalIdFromConfig:   &principalFrom,
			PrincipalType:           ptr.To(asoauthorization.RoleAssignmentProperties_PrincipalType_ServicePrincipal),
			RoleDefinitionReference: &genruntime.WellKnownResourceReference{ResourceReference: genruntime.ResourceReference{ARMID: definition}},
		},
	}
}

// ContributorRoleDefinitionID is the ID of the built-in Contributor role in a subscription.
func ContributorRoleDefinitionID(subscription string) string {
	return fmt.Sprintf("/subscriptions/%s/providers/Microsoft.Authorization/roleDefinitions/%s", subscription, infrav1.ContributorRoleID)
}
