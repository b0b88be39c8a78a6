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

package aso

import (
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestSpecOwner: the owner's name of a typed object, and of an unstructured one (a raw resource at a version the
// scheme does not have, as CAPZ's aks-aso flavor writes its agent pools); none for an owner given by ARM ID.
func TestSpecOwner(t *testing.T) {
	rawPool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "containerservice.azure.com/v1api20240901", "kind": "ManagedClustersAgentPool",
		"metadata": map[string]any{"name": "pool0"},
		"spec":     map[string]any{"owner": map[string]any{"name": "cluster"}, "mode": "System"},
	}}
	for _, tc := range []struct {
		name string
		obj  client.Object
		want string
	}{
		{name: "typed", obj: &asocontainerservice.ManagedClustersAgentPool{Spec: asocontainerservice.ManagedClustersAgentPool_Spec{
			Owner: &genruntime.KnownResourceReference{Name: "cluster"}}}, want: "cluster"},
		{name: "unstructured", obj: rawPool, want: "cluster"},
		{name: "owner by ARM ID", obj: &asocontainerservice.ManagedClustersAgentPool{Spec: asocontainerservice.ManagedClustersAgentPool_Spec{
			Owner: &genruntime.KnownResourceReference{ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/cluster"}}}},
		{name: "no owner", obj: &asocontainerservice.ManagedClustersAgentPool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, _ := specOwner(tc.obj)
			NewWithT(t).Expect(name).To(Equal(tc.want))
		})
	}
}
