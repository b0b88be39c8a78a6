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
	"testing"

	. "github.com/onsi/gomega"
)

// TestParseID: what an ARM path names, its type, and what must exist before it.
func TestParseID(t *testing.T) {
	sub := "/subscriptions/s"
	rg := sub + "/resourceGroups/RG"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/v"
	tests := []struct {
		name       string
		path       string
		wantKind   idKind
		wantType   string
		wantName   string
		wantParent string
		wantNested bool
		wantRG     string
	}{
		{name: "subscription", path: sub, wantKind: kindSubscription},
		{name: "resource group", path: rg + "/", wantKind: kindResourceGroup, wantType: "Microsoft.Resources/resourceGroups", wantName: "RG", wantParent: sub, wantRG: "RG"},
		{name: "resource", path: vnet, wantKind: kindResource, wantType: "Microsoft.Network/virtualNetworks", wantName: "v", wantParent: rg, wantRG: "RG"},
		{name: "child", path: vnet + "/subnets/s", wantKind: kindResource, wantType: "Microsoft.Network/virtualNetworks/subnets", wantName: "s", wantParent: vnet, wantNested: true, wantRG: "RG"},
		{name: "DNS record", path: rg + "/providers/Microsoft.Network/privateDnsZones/z/A/rec", wantKind: kindResource, wantType: "Microsoft.Network/privateDnsZones/A", wantName: "rec", wantParent: rg + "/providers/Microsoft.Network/privateDnsZones/z", wantNested: true, wantRG: "RG"},
		{name: "extension resource", path: vnet + "/subnets/s/providers/Microsoft.Authorization/roleAssignments/g", wantKind: kindResource, wantType: "Microsoft.Authorization/roleAssignments", wantName: "g", wantParent: vnet + "/subnets/s", wantRG: "RG"},
		{name: "extension at a subscription", path: sub + "/providers/Microsoft.Authorization/roleAssignments/g", wantKind: kindResource, wantType: "Microsoft.Authorization/roleAssignments", wantName: "g", wantParent: sub},
		{name: "subscription-level resource", path: sub + "/providers/Microsoft.Features/featureProviders/p", wantKind: kindResource, wantType: "Microsoft.Features/featureProviders", wantName: "p", wantParent: sub},
		{name: "tenant collection", path: "/providers/Microsoft.Authorization/roleDefinitions", wantKind: kindCollection, wantType: "Microsoft.Authorization/roleDefinitions"},
		{name: "child collection", path: vnet + "/subnets", wantKind: kindCollection, wantType: "Microsoft.Network/virtualNetworks/subnets", wantParent: vnet, wantNested: true, wantRG: "RG"},
		{name: "any case", path: "/SUBSCRIPTIONS/s/RESOURCEGROUPS/RG/PROVIDERS/Microsoft.Network/virtualNetworks/v", wantKind: kindResource, wantType: "Microsoft.Network/virtualNetworks", wantName: "v", wantParent: "/SUBSCRIPTIONS/s/RESOURCEGROUPS/RG", wantRG: "RG"},
		{name: "resource groups", path: sub + "/resourceGroups", wantKind: kindInvalid},
		{name: "a provider alone", path: rg + "/providers/Microsoft.Network", wantKind: kindInvalid},
		{name: "an empty segment", path: rg + "//providers/Microsoft.Network/virtualNetworks/v", wantKind: kindInvalid},
		{name: "a scope that is not one", path: "/foo/providers/Microsoft.Authorization/roleAssignments/g", wantKind: kindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			id := parseID(tt.path)
			g.Expect(id.kind).To(Equal(tt.wantKind))
			if tt.wantKind == kindInvalid {
				return
			}
			g.Expect(id.fullType()).To(Equal(tt.wantType))
			g.Expect(id.name).To(Equal(tt.wantName))
			g.Expect(id.parent).To(Equal(tt.wantParent))
			g.Expect(id.nested).To(Equal(tt.wantNested))
			g.Expect(id.resourceGroup).To(Equal(tt.wantRG))
		})
	}
}
