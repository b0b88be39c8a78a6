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

package resources

import (
	"testing"

	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestResourceGroup(t *testing.T) {
	tests := []struct {
		name    string
		cluster azure.Cluster
	}{
		{name: "default", cluster: azure.Cluster{Name: "my-cluster", Location: "eastus", ResourceGroup: "my-cluster"}},
		{name: "additional-tags", cluster: azure.Cluster{
			Name: "my-cluster", Location: "westeurope", ResourceGroup: "Team_RG.1",
			AdditionalTags: map[string]string{"team": "platform", "cost-center": "42"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Assert(t, "resourcegroup-"+tt.name, ResourceGroup(tt.cluster))
		})
	}
}
