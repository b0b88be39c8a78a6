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
	"slices"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// ResourceGroupRef names the ResourceGroup object of a resource group, for the engine to read (aso.Engine.Read).
func ResourceGroupRef(group string) azure.Object {
	return &asoresources.ResourceGroup{ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(group)}}
}

// GoWithGroup says that Azure deletes every resource with its resource group, but the group itself and the kinds
// excepted (lifecycle.Kind.GoWithCluster): while the whole Cluster is deleted, the resources in a group the cluster
// owns are left to go with it, as CAPZ deletes only the group (v1.26.0 controllers/helpers.go
// ShouldDeleteIndividualResources). Whether an object is in such a group is the engine's to check, through its
// ancestors.
func GoWithGroup(except ...schema.GroupKind) func(kind schema.GroupKind) (schema.GroupKind, bool) {
	group := asoresources.GroupVersion.WithKind("ResourceGroup").GroupKind()
	return func(kind schema.GroupKind) (schema.GroupKind, bool) {
		if kind == group || slices.Contains(except, kind) {
			return schema.GroupKind{}, false
		}
		return group, true
	}
}
