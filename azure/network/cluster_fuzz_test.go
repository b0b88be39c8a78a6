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

package network

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

// FuzzClusterResources translates every AzureCluster the webhooks admit, as the controller does (every answer of
// the virtual network's adoption, with and without a known subscription): the translation does not panic, is
// deterministic, and yields valid ASO objects (see fuzzing.CheckResources).
func FuzzClusterResources(f *testing.F) {
	for _, m := range fuzzing.Manifests(f)["AzureCluster"] {
		f.Add(m, false, uint8(VNetOwned))
	}
	for _, ac := range clusterCases() {
		data, err := json.Marshal(ac)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false, uint8(VNetOwned))
	}
	f.Add([]byte("AzureCluster"), true, uint8(VNetUnknown))
	adm := infrav1.AdmissionFor(&infrav1.AzureCluster{})

	f.Fuzz(func(t *testing.T, data []byte, structured bool, mode uint8) {
		ac := &infrav1.AzureCluster{}
		if !fuzzing.Decode(ac, structured, data) || len(validation.IsDNS1123Subdomain(ac.Name)) > 0 {
			return
		}
		ac.Namespace = "default"
		if adm.Create(context.Background(), ac) != nil {
			return
		}
		in := inputOf(ac)
		switch {
		case IsVirtualNetworkReferenced(in.Cluster, in.Network.Vnet):
			in.VNet = VNetUsers
		default:
			in.VNet = VNetAdoption(mode % 3)
		}
		translate := func() []any {
			resources := ClusterResources(in)
			if in.Cluster.SubscriptionID == "" {
				// Until ASO reports the subscription, the controller applies only the resource group.
				resources = ClusterResources(ClusterInput{Cluster: in.Cluster, Network: in.Network})[:1]
			}
			if err := fuzzing.CheckResources(resources); err != nil {
				t.Fatalf("AzureCluster %s: %v", data, err)
			}
			return []any{view(resources)}
		}
		first, second := translate(), translate()
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(second)
		if string(a) != string(b) {
			t.Fatalf("AzureCluster %s translates differently twice", data)
		}
	})
}
