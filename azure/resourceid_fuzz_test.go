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

package azure

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
)

// FuzzResourceID builds resource IDs from arbitrary names (any name without a slash, as the webhooks admit) and
// parses them with the parser ASO uses: each part comes back as it went in.
func FuzzResourceID(f *testing.F) {
	f.Add("00000000-0000-0000-0000-000000000001", "my-rg", "my-vnet", "node-subnet")
	f.Add("00000000-0000-0000-0000-000000000001", "providers", "subscriptions", "resourceGroups")
	f.Add("s", "My.RG(1)", "vnet.x", "a_b")
	f.Fuzz(func(t *testing.T, subscription, group, name, child string) {
		for _, part := range []string{subscription, group, name, child} {
			if part == "" || strings.Contains(part, "/") {
				return
			}
		}
		groupID := ResourceGroupID(subscription, group)
		id := ResourceID(subscription, group, TypeVirtualNetwork, name)
		childID := ChildID(id, "subnets", child)

		parsed, err := arm.ParseResourceID(groupID)
		if err != nil {
			t.Fatalf("%s does not parse: %v", groupID, err)
		}
		if parsed.SubscriptionID != subscription || parsed.ResourceGroupName != group || parsed.ResourceType.String() != "Microsoft.Resources/resourceGroups" {
			t.Fatalf("%s parses as subscription %q, group %q, type %s", groupID, parsed.SubscriptionID, parsed.ResourceGroupName, parsed.ResourceType)
		}
		parsed, err = arm.ParseResourceID(id)
		if err != nil {
			t.Fatalf("%s does not parse: %v", id, err)
		}
		if parsed.SubscriptionID != subscription || parsed.ResourceGroupName != group || parsed.Name != name ||
			!strings.EqualFold(parsed.ResourceType.String(), TypeVirtualNetwork) {
			t.Fatalf("%s parses as subscription %q, group %q, type %s, name %q", id, parsed.SubscriptionID, parsed.ResourceGroupName,
				parsed.ResourceType, parsed.Name)
		}
		parsed, err = arm.ParseResourceID(childID)
		if err != nil {
			t.Fatalf("%s does not parse: %v", childID, err)
		}
		if parsed.Name != child || parsed.Parent == nil || parsed.Parent.Name != name || parsed.ResourceGroupName != group ||
			!strings.EqualFold(parsed.ResourceType.String(), TypeVirtualNetwork+"/subnets") {
			t.Fatalf("%s parses as group %q, type %s, name %q, parent %v", childID, parsed.ResourceGroupName, parsed.ResourceType,
				parsed.Name, parsed.Parent)
		}
	})
}
