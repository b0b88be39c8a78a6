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
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

// FuzzResources parses arbitrary spec.resources of the AzureASOManaged kinds as their controllers do. Parse never
// panics and names the entry it cannot read. When the webhook admits the resources, the controllers see the same
// objects the webhook checked: each parses, is an ASO object (group *.azure.com) with a valid name, is listed once,
// and the one ManagedCluster of a control plane or ManagedClustersAgentPool of a machine pool is found; setting
// what Cluster API owns on them does not panic.
func FuzzResources(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	for _, kind := range []string{"AzureASOManagedCluster", "AzureASOManagedControlPlane", "AzureASOManagedMachinePool"} {
		for _, m := range manifests[kind] {
			var obj struct {
				Spec struct {
					Resources json.RawMessage `json:"resources"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(m, &obj); err != nil {
				f.Fatal(err)
			}
			f.Add([]byte(obj.Spec.Resources))
		}
	}
	f.Add([]byte(`[null, 1, "x", [], {}]`))
	f.Add([]byte(`[{"apiVersion":"containerservice.azure.com/v1api20250801","kind":"ManagedCluster","Kind":"ResourceGroup","metadata":{"name":"a"}}]`))
	f.Add([]byte(`[{"apiVersion":"containerservice.azure.com/v1api20250801","kind":"ResourceGroup","Kind":"ManagedCluster","metadata":{"name":"a"}}]`))

	f.Fuzz(func(t *testing.T, data []byte) {
		var entries []json.RawMessage
		if json.Unmarshal(data, &entries) != nil {
			return
		}
		resources := make([]runtime.RawExtension, 0, len(entries))
		for _, e := range entries {
			resources = append(resources, runtime.RawExtension{Raw: e})
		}
		objs, err := Parse(resources)
		if err != nil && !strings.HasPrefix(err.Error(), "spec.resources[") {
			t.Fatalf("Parse(%s): the error names no entry: %v", data, err)
		}

		ctx := context.Background()
		cp := &infrav1.AzureASOManagedControlPlane{}
		cp.Name, cp.Namespace, cp.Spec.Resources, cp.Spec.Version = "cp", "default", resources, "v1.33.2"
		if infrav1.AdmissionFor(cp).Create(ctx, cp) == nil {
			checkAdmitted(t, data, err, objs)
			mc := Find(objs, ManagedClusterKind)
			if mc == nil {
				t.Fatalf("admitted control plane resources %s have no ManagedCluster for the controller", data)
			}
			_ = SetManagedClusterDefaults(mc.DeepCopy(), ManagedClusterInput{ClusterName: "fuzz", Version: "v1.33.2",
				PodCIDRs: []string{"192.168.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"},
				AgentPoolProfiles: []map[string]any{{"name": "pool0", "mode": "System", "count": int64(1)}}})
		}
		pool := &infrav1.AzureASOManagedMachinePool{}
		pool.Name, pool.Namespace, pool.Spec.Resources = "pool", "default", resources
		if infrav1.AdmissionFor(pool).Create(ctx, pool) == nil {
			checkAdmitted(t, data, err, objs)
			ap := Find(objs, AgentPoolKind)
			if ap == nil {
				t.Fatalf("admitted machine pool resources %s have no ManagedClustersAgentPool for the controller", data)
			}
			_ = SetAgentPoolDefaults(ap.DeepCopy(), AgentPoolInput{Version: "v1.33.2", Replicas: ptr.To[int32](2)})
			if profile := AgentPoolProfile(ap); profile["name"] == "" {
				t.Fatalf("admitted machine pool resources %s make an agent pool profile without a name", data)
			}
		}
		cluster := &infrav1.AzureASOManagedCluster{}
		cluster.Name, cluster.Namespace, cluster.Spec.Resources = "cluster", "default", resources
		if infrav1.AdmissionFor(cluster).Create(ctx, cluster) == nil {
			checkAdmitted(t, data, err, objs)
		}
	})
}

// checkAdmitted checks what the controllers parse from resources a webhook admitted.
func checkAdmitted(t *testing.T, data []byte, parseErr error, objs []*unstructured.Unstructured) {
	t.Helper()
	if parseErr != nil {
		t.Fatalf("admitted resources %s do not parse: %v", data, parseErr)
	}
	seen := map[string]bool{}
	for i, u := range objs {
		gvk := u.GroupVersionKind()
		key := fmt.Sprintf("%s/%s", gvk.GroupKind(), u.GetName())
		switch {
		case u.Object == nil:
			t.Fatalf("admitted resource %d of %s is not an object", i, data)
		case !strings.HasSuffix(gvk.Group, ".azure.com") || gvk.Version == "" || gvk.Kind == "":
			t.Fatalf("admitted resource %d of %s is %s, not an ASO kind", i, data, gvk)
		case len(validation.IsDNS1123Subdomain(u.GetName())) > 0:
			t.Fatalf("admitted resource %d of %s has the name %q", i, data, u.GetName())
		case seen[key]:
			t.Fatalf("admitted resources %s list %s twice", data, key)
		}
		seen[key] = true
	}
}
