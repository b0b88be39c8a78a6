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

package v1beta1

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestAzureCluster_ControlPlaneRouteTable: as CAPZ v1.26.0 defaults it, the control-plane subnet shares the route
// table of the first node (or cluster) subnet unless it names one; a cluster without control plane is left alone.
func TestAzureCluster_ControlPlaneRouteTable(t *testing.T) {
	subnet := func(name string, role SubnetRole, routeTable string) SubnetSpec {
		return SubnetSpec{SubnetClassSpec: SubnetClassSpec{Name: name, Role: role}, RouteTable: RouteTable{Name: routeTable}}
	}
	tests := []struct {
		name         string
		subnets      Subnets
		controlPlane bool
		want         map[string]string // subnet name → route table name
	}{
		{name: "default subnets", controlPlane: true,
			want: map[string]string{"c-controlplane-subnet": "c-node-routetable", "c-node-subnet": "c-node-routetable"}},
		{name: "custom node route table", controlPlane: true,
			subnets: Subnets{subnet("cp", SubnetControlPlane, ""), subnet("nodes", SubnetNode, "my-routes")},
			want:    map[string]string{"cp": "my-routes", "nodes": "my-routes"}},
		{name: "the first node subnet's", controlPlane: true,
			subnets: Subnets{subnet("cp", SubnetControlPlane, ""), subnet("a", SubnetNode, "rt-a"), subnet("b", SubnetNode, "rt-b")},
			want:    map[string]string{"cp": "rt-a", "a": "rt-a", "b": "rt-b"}},
		{name: "the control plane's own route table stays", controlPlane: true,
			subnets: Subnets{subnet("cp", SubnetControlPlane, "cp-routes"), subnet("nodes", SubnetNode, "")},
			want:    map[string]string{"cp": "cp-routes", "nodes": "c-node-routetable"}},
		{name: "a cluster subnet only", controlPlane: true,
			subnets: Subnets{subnet("all", SubnetCluster, "")},
			want:    map[string]string{"all": "c-routetable"}},
		{name: "no control plane", controlPlane: false,
			subnets: Subnets{subnet("cp", SubnetControlPlane, ""), subnet("nodes", SubnetNode, "")},
			want:    map[string]string{"cp": "", "nodes": "c-node-routetable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c := &AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
			c.Spec.Location = "eastus"
			c.Spec.ControlPlaneEnabled = ptr.To(tt.controlPlane)
			c.Spec.NetworkSpec.Subnets = tt.subnets
			c.SetDefaults()
			got := map[string]string{}
			for _, s := range c.Spec.NetworkSpec.Subnets {
				got[s.Name] = s.RouteTable.Name
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
