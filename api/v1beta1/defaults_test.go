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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestDefaults_FieldsDefaultingConsumes covers the spec fields that no translator reads because defaulting turns
// them into others, which the translators read: changing each changes the defaulted spec.
func TestDefaults_FieldsDefaultingConsumes(t *testing.T) {
	cluster := func(change func(*AzureClusterSpec)) *AzureClusterSpec {
		c := &AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
		c.Spec.Location = "eastus"
		change(&c.Spec)
		c.SetDefaults()
		return &c.Spec
	}
	machine := func(change func(*AzureMachineSpec)) *AzureMachineSpec {
		m := &AzureMachine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "ns"}}
		change(&m.Spec)
		NewWithT(t).Expect(m.SetDefaults()).To(Succeed())
		return &m.Spec
	}
	tests := []struct {
		name  string
		check func(g Gomega)
	}{
		{name: "azureEnvironment names the API server's DNS zone", check: func(g Gomega) {
			china := cluster(func(s *AzureClusterSpec) { s.AzureEnvironment = "AzureChinaCloud" })
			public := cluster(func(*AzureClusterSpec) {})
			g.Expect(china.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.DNSName).To(HaveSuffix(".eastus.cloudapp.chinacloudapi.cn"))
			g.Expect(public.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.DNSName).To(HaveSuffix(".eastus.cloudapp.azure.com"))
		}},
		{name: "subscriptionID and resourceGroup hash into the API server's DNS label, as CAPZ's", check: func(g Gomega) {
			s := cluster(func(s *AzureClusterSpec) {
				s.SubscriptionID = "00000000-0000-0000-0000-000000000001"
				s.ResourceGroup = "my-rg"
			})
			// FNV-1a of "00000000-0000-0000-0000-000000000001/my-rg/pip-c-apiserver" is 14cfac8b.
			g.Expect(s.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.DNSName).To(Equal("c-14cfac8b.eastus.cloudapp.azure.com"))
		}},
		{name: "the Cluster's name labels the API server's DNS name, as CAPZ's (a topology's AzureCluster is named at random)", check: func(g Gomega) {
			c := &AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "c-infra-x7k2p", Namespace: "ns", Labels: map[string]string{ClusterNameLabel: "c"}}}
			c.Spec.Location = "eastus"
			c.SetDefaults()
			g.Expect(c.Spec.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.Name).To(Equal("pip-c-infra-x7k2p-apiserver"))
			g.Expect(c.Spec.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.DNSName).To(HavePrefix("c-"))
			g.Expect(c.Spec.NetworkSpec.APIServerLB.FrontendIPs[0].PublicIP.DNSName).NotTo(HavePrefix("c-infra-x7k2p-"))
		}},
		{name: "frontendIPsCount makes the outbound load balancers' frontends", check: func(g Gomega) {
			s := cluster(func(s *AzureClusterSpec) {
				s.NetworkSpec.APIServerLB = &LoadBalancerSpec{LoadBalancerClassSpec: LoadBalancerClassSpec{Type: Internal}}
				s.NetworkSpec.NodeOutboundLB = &LoadBalancerSpec{FrontendIPsCount: ptr.To[int32](3)}
				s.NetworkSpec.ControlPlaneOutboundLB = &LoadBalancerSpec{FrontendIPsCount: ptr.To[int32](2)}
			})
			g.Expect(s.NetworkSpec.NodeOutboundLB.FrontendIPs).To(HaveLen(3))
			g.Expect(s.NetworkSpec.ControlPlaneOutboundLB.FrontendIPs).To(HaveLen(2))
		}},
		{name: "roleAssignmentName names the role assignment", check: func(g Gomega) {
			s := machine(func(s *AzureMachineSpec) {
				s.Identity = VMIdentitySystemAssigned
				s.RoleAssignmentName = "00000000-0000-0000-0000-00000000000a"
			})
			g.Expect(s.SystemAssignedIdentityRole.Name).To(Equal("00000000-0000-0000-0000-00000000000a"))
			g.Expect(s.RoleAssignmentName).To(BeEmpty())
		}},
		{name: "subnetName and acceleratedNetworking configure the first network interface", check: func(g Gomega) {
			s := machine(func(s *AzureMachineSpec) {
				s.SubnetName = "other-subnet"
				s.AcceleratedNetworking = ptr.To(false)
			})
			g.Expect(s.NetworkInterfaces).To(HaveLen(1))
			g.Expect(s.NetworkInterfaces[0].SubnetName).To(Equal("other-subnet"))
			g.Expect(s.NetworkInterfaces[0].AcceleratedNetworking).To(HaveValue(BeFalse()))
			g.Expect(s.SubnetName).To(BeEmpty())
			g.Expect(s.AcceleratedNetworking).To(BeNil())
		}},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			tt.check(NewWithT(t))
		})
	}
}
