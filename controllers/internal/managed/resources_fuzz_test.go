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

package managed

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// FuzzKindsAnnotation records the kind of every raw resource the webhooks admit in KindsAnnotation and reads it
// back: RecordedKinds returns the same kind, so that the controllers find (to pause and delete) every object they
// applied.
func FuzzKindsAnnotation(f *testing.F) {
	f.Add("resources.azure.com/v1api20200601", "ResourceGroup")
	f.Add("containerservice.azure.com/v1api20250801", "ManagedCluster")
	f.Add("containerservice.azure.com/v1api20250801", "ManagedClustersAgentPool")
	f.Add("network.azure.com/v1", "Virtual.Network")
	f.Add("network.azure.com/v1.2", "VirtualNetwork")
	f.Add("network.azure.com/v1", "A;B")

	f.Fuzz(func(t *testing.T, apiVersion, kind string) {
		manifest := fmt.Sprintf(`{"apiVersion": %q, "kind": %q, "metadata": {"name": "x"}, "spec": {}}`, apiVersion, kind)
		owner := &infrav1.AzureASOManagedCluster{}
		owner.Name, owner.Namespace = "c", "default"
		owner.Spec.Resources = []runtime.RawExtension{{Raw: []byte(manifest)}}
		if infrav1.AdmissionFor(owner).Create(context.Background(), owner) != nil {
			return
		}
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			t.Fatalf("admitted apiVersion %q does not parse: %v", apiVersion, err)
		}
		gvk := gv.WithKind(kind)
		owner.SetAnnotations(map[string]string{KindsAnnotation: kindKey(gvk)})
		if got := RecordedKinds(owner); len(got) != 1 || got[0] != gvk {
			t.Fatalf("kind %s of an admitted resource is recorded as %q and read back as %v", gvk, kindKey(gvk), got)
		}
	})
}
