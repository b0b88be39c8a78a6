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

package asomanaged

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

const (
	// containerService is the API group of AKS objects.
	containerService = "containerservice.azure.com"
	// ManagedClusterKind is the kind of an AKS cluster.
	ManagedClusterKind = "ManagedCluster"
	// AgentPoolKind is the kind of an AKS agent pool.
	AgentPoolKind = "ManagedClustersAgentPool"
)

// Parse turns spec.resources into unstructured objects, in order.
func Parse(resources []runtime.RawExtension) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, len(resources))
	for i, raw := range resources {
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(raw.Raw, &u.Object); err != nil {
			return nil, fmt.Errorf("spec.resources[%d] is not an object: %w", i, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// GVKs lists the distinct kinds of the objects, for the engine's orphan detection.
func GVKs(objs []*unstructured.Unstructured) []schema.GroupVersionKind {
	seen := map[schema.GroupVersionKind]bool{}
	var out []schema.GroupVersionKind
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		if !seen[gvk] {
			seen[gvk] = true
			out = append(out, gvk)
		}
	}
	return out
}

// Find returns the first object of a kind in the AKS API group, or nil.
func Find(objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	for _, u := range objs {
		if u.GroupVersionKind().Group == containerService && u.GetKind() == kind {
			return u
		}
	}
	return nil
}

// ResourcesFamily is the condition family of raw ASO objects.
var ResourcesFamily = azure.NewFamily("ASOResources")

// Resources wraps raw objects for the engine, in the family ResourcesFamily.
func Resources(objs []*unstructured.Unstructured) []azure.Resource {
	out := make([]azure.Resource, 0, len(objs))
	for _, u := range objs {
		out = append(out, azure.Resource{Object: u, Family: ResourcesFamily, Raw: true})
	}
	return out
}

// ManagedClusterDeleteOrder deletes a raw ManagedCluster before the other raw objects (e.g. its resource group).
var ManagedClusterDeleteOrder = [][]schema.GroupKind{{{Group: containerService, Kind: ManagedClusterKind}}}
