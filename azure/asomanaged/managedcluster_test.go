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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

func parse(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSetManagedClusterDefaults(t *testing.T) {
	in := ManagedClusterInput{ClusterName: "aks", Version: "v1.33.2", PodCIDRs: []string{"192.168.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}}
	tests := []struct {
		name     string
		doc      string
		in       ManagedClusterInput
		want     string
		conflict string
	}{
		{
			name: "fills what Cluster API owns",
			doc:  "apiVersion: containerservice.azure.com/v1api20250801\nkind: ManagedCluster\nspec: {location: eastus}",
			in:   in,
			want: `apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
spec:
  kubernetesVersion: 1.33.2
  location: eastus
  networkProfile:
    podCidr: 192.168.0.0/16
    serviceCidr: 10.96.0.0/12
  operatorSpec:
    secrets:
      adminCredentials:
        key: value
        name: aks-aso-kubeconfig
`,
		},
		{
			name: "agrees with the same values and keeps the user's kubeconfig secret",
			doc: `apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
spec:
  kubernetesVersion: v1.33.2
  networkProfile: {podCidr: 192.168.0.0/16}
  operatorSpec: {secrets: {userCredentials: {name: mine, key: config}}}`,
			in: ManagedClusterInput{ClusterName: "aks", Version: "v1.33.2", PodCIDRs: []string{"192.168.0.0/16"},
				AgentPoolProfiles: []map[string]any{{"name": "pool0", "mode": "System", "count": int64(1)}}},
			want: `apiVersion: containerservice.azure.com/v1api20250801
kind: ManagedCluster
spec:
  agentPoolProfiles:
  - count: 1
    mode: System
    name: pool0
  kubernetesVersion: 1.33.2
  networkProfile:
    podCidr: 192.168.0.0/16
  operatorSpec:
    secrets:
      userCredentials:
        key: config
        name: mine
`,
		},
		{name: "version contradicts", doc: "kind: ManagedCluster\nspec: {kubernetesVersion: 1.32.0}", in: in, conflict: `spec.kubernetesVersion is "1.32.0", but Cluster API sets it to "1.33.2"`},
		{name: "pod CIDR contradicts", doc: "kind: ManagedCluster\nspec: {networkProfile: {podCidr: 10.244.0.0/16}}", in: in, conflict: "spec.networkProfile.podCidr"},
		{name: "agent pools are Cluster API's", doc: "kind: ManagedCluster\nspec: {agentPoolProfiles: [{name: x}]}", in: in, conflict: "spec.agentPoolProfiles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			u := parse(t, tt.doc)
			err := SetManagedClusterDefaults(u, tt.in)
			if tt.conflict != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.conflict)))
				g.Expect(err).To(BeAssignableToTypeOf(Conflict{}))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			got, err := yaml.Marshal(u.Object)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(got)).To(Equal(tt.want))
		})
	}
}

func TestSetAgentPoolDefaults(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		in        AgentPoolInput
		wantCount any
		wantFound bool
		wantVer   string
		conflict  string
	}{
		{name: "count and version from the MachinePool", doc: "kind: ManagedClustersAgentPool\nspec: {vmSize: x}",
			in: AgentPoolInput{Version: "v1.33.2", Replicas: ptr.To[int32](3)}, wantCount: int64(3), wantFound: true, wantVer: "1.33.2"},
		{name: "the autoscaler owns the count", doc: "kind: ManagedClustersAgentPool\nspec: {enableAutoScaling: true, minCount: 1, maxCount: 5}",
			in: AgentPoolInput{Version: "v1.33.2", Replicas: ptr.To[int32](3)}, wantVer: "1.33.2"},
		{name: "count contradicts", doc: "kind: ManagedClustersAgentPool\nspec: {count: 2}",
			in: AgentPoolInput{Replicas: ptr.To[int32](3)}, conflict: `spec.count is "2", but Cluster API sets it to "3"`},
		{name: "version contradicts", doc: "kind: ManagedClustersAgentPool\nspec: {orchestratorVersion: 1.31.0}",
			in: AgentPoolInput{Version: "v1.33.2"}, conflict: "spec.orchestratorVersion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			u := parse(t, tt.doc)
			err := SetAgentPoolDefaults(u, tt.in)
			if tt.conflict != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.conflict)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			count, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "count")
			g.Expect(found).To(Equal(tt.wantFound))
			if tt.wantFound {
				g.Expect(count).To(Equal(tt.wantCount))
			}
			version, _, _ := unstructured.NestedString(u.Object, "spec", "orchestratorVersion")
			g.Expect(version).To(Equal(tt.wantVer))
		})
	}
}
