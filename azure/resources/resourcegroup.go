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
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// ResourceGroup returns the cluster's resource group in its location, tagged as the cluster's. Whether the group
// is the user's (it exists without the cluster's "owned" tag) is decided by the engine, not here.
func ResourceGroup(c azure.Cluster) *asoresources.ResourceGroup {
	return &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(c.ResourceGroup)},
		Spec: asoresources.ResourceGroup_Spec{
			AzureName: c.ResourceGroup,
			Location:  ptr.To(c.Location),
			Tags:      c.NamedTags(c.ResourceGroup, azure.RoleCommon),
		},
	}
}
