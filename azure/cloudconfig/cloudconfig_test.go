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

package cloudconfig

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

const (
	testTenant       = "11111111-1111-1111-1111-111111111111"
	testSubscription = "22222222-2222-2222-2222-222222222222"
)

// defaulted returns the network of an AzureCluster named cluster after the webhook's defaulting.
func defaulted(change func(*infrav1.AzureClusterSpec)) *infrav1.AzureClusterSpec {
	c := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster", Namespace: "default"}}
	c.Spec.Location = "eastus"
	c.Spec.ResourceGroup = "cluster"
	if change != nil {
		change(&c.Spec)
	}
	c.SetDefaults()
	return &c.Spec
}

func input(spec *infrav1.AzureClusterSpec, identity Identity) Input {
	return Input{
		Environment: spec.AzureEnvironment, TenantID: testTenant, SubscriptionID: testSubscription,
		Location: spec.Location, ExtendedLocation: spec.ExtendedLocation, ResourceGroup: spec.ResourceGroup,
		Network: spec.NetworkSpec, Identity: identity, Overrides: spec.CloudProviderConfigOverrides,
	}
}

func TestAzureJSON(t *testing.T) {
	systemAssigned := Identity{VMIdentity: infrav1.VMIdentitySystemAssigned}
	tests := []struct {
		name string
		in   Input
	}{
		{name: "system-assigned", in: input(defaulted(nil), systemAssigned)},
		{name: "user-assigned", in: input(defaulted(nil), Identity{
			VMIdentity:             infrav1.VMIdentityUserAssigned,
			UserAssignedIdentityID: "azure:///subscriptions/" + testSubscription + "/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cloud-provider",
		})},
		{name: "service-principal", in: input(defaulted(nil), Identity{
			VMIdentity: infrav1.VMIdentityNone, ClientID: "33333333-3333-3333-3333-333333333333", ClientSecret: "sp-secret",
		})},
		{name: "workload-identity-without-vm-identity", in: input(defaulted(nil), Identity{
			VMIdentity: infrav1.VMIdentityNone, ClientID: "33333333-3333-3333-3333-333333333333",
		})},
		{name: "china-edge-zone-own-network", in: input(defaulted(func(s *infrav1.AzureClusterSpec) {
			s.AzureEnvironment = "AzureChinaCloud"
			s.ExtendedLocation = &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"}
			s.NetworkSpec.Vnet = infrav1.VnetSpec{Name: "shared-vnet", ResourceGroup: "network-rg"}
			s.NetworkSpec.Subnets = infrav1.Subnets{
				{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "cp", Role: infrav1.SubnetControlPlane}},
				{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "workers", Role: infrav1.SubnetNode},
					SecurityGroup: infrav1.SecurityGroup{Name: "workers-nsg"}, RouteTable: infrav1.RouteTable{Name: "workers-rt"}},
			}
		}), systemAssigned)},
		{name: "overrides", in: input(defaulted(func(s *infrav1.AzureClusterSpec) {
			s.CloudProviderConfigOverrides = &infrav1.CloudProviderConfigOverrides{
				RateLimits: []infrav1.RateLimitSpec{
					{Name: infrav1.DefaultRateLimit, Config: infrav1.RateLimitConfig{
						CloudProviderRateLimit: true, CloudProviderRateLimitQPS: ptr.To(resource.MustParse("10")),
						CloudProviderRateLimitBucket: 100, CloudProviderRateLimitQPSWrite: ptr.To(resource.MustParse("2.5")),
						CloudProviderRateLimitBucketWrite: 25,
					}},
					{Name: infrav1.LoadBalancerRateLimit, Config: infrav1.RateLimitConfig{CloudProviderRateLimit: true, CloudProviderRateLimitBucket: 7}},
				},
				BackOffs: infrav1.BackOffConfig{
					CloudProviderBackoff: true, CloudProviderBackoffRetries: 6, CloudProviderBackoffExponent: ptr.To(resource.MustParse("1.5")),
					CloudProviderBackoffDuration: 5, CloudProviderBackoffJitter: ptr.To(resource.MustParse("1")),
				},
			}
		}), systemAssigned)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c, err := AzureJSON(tt.in)
			g.Expect(err).NotTo(HaveOccurred())
			golden.Assert(t, "azurejson-"+tt.name, c)
		})
	}
}

// TestAzureJSON_ClientSecretOnlyWithoutVMIdentity: a machine with a managed identity gets no credentials of the
// cluster's identity in its file.
func TestAzureJSON_ClientSecretOnlyWithoutVMIdentity(t *testing.T) {
	for _, vmIdentity := range []infrav1.VMIdentity{infrav1.VMIdentitySystemAssigned, infrav1.VMIdentityUserAssigned} {
		t.Run(string(vmIdentity), func(t *testing.T) {
			g := NewWithT(t)
			c, err := AzureJSON(input(defaulted(nil), Identity{
				VMIdentity: vmIdentity, UserAssignedIdentityID: "/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i",
				ClientID: "33333333-3333-3333-3333-333333333333", ClientSecret: "sp-secret",
			}))
			g.Expect(err).NotTo(HaveOccurred())
			data, err := json.Marshal(c)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(data)).NotTo(ContainSubstring("sp-secret"))
			g.Expect(string(data)).NotTo(ContainSubstring("aadClient"))
		})
	}
	t.Run("user-assigned without an identity", func(t *testing.T) {
		_, err := AzureJSON(input(defaulted(nil), Identity{VMIdentity: infrav1.VMIdentityUserAssigned}))
		NewWithT(t).Expect(err).To(HaveOccurred())
	})
}

// TestAzureJSON_EveryOverride sets each rate limit and back-off: each changes the file.
func TestAzureJSON_EveryOverride(t *testing.T) {
	g := NewWithT(t)
	base, err := AzureJSON(input(defaulted(nil), Identity{VMIdentity: infrav1.VMIdentitySystemAssigned}))
	g.Expect(err).NotTo(HaveOccurred())
	baseJSON, _ := json.Marshal(base)
	names := []string{infrav1.DefaultRateLimit}
	for name := range base.rateLimitFields() {
		names = append(names, name)
	}
	g.Expect(names).To(HaveLen(15), "every name of CAPZ's rateLimits enum")
	for _, name := range names {
		spec := defaulted(func(s *infrav1.AzureClusterSpec) {
			s.CloudProviderConfigOverrides = &infrav1.CloudProviderConfigOverrides{RateLimits: []infrav1.RateLimitSpec{
				{Name: name, Config: infrav1.RateLimitConfig{CloudProviderRateLimitBucketWrite: 41}},
			}}
		})
		c, err := AzureJSON(input(spec, Identity{VMIdentity: infrav1.VMIdentitySystemAssigned}))
		g.Expect(err).NotTo(HaveOccurred())
		data, _ := json.Marshal(c)
		g.Expect(string(data)).To(ContainSubstring(`"cloudProviderRateLimitBucketWrite":41`), name)
		if name != infrav1.DefaultRateLimit {
			g.Expect(string(data)).To(ContainSubstring(`"`+name+`":{`), name)
		}
		g.Expect(data).NotTo(Equal(baseJSON))
	}
}

func TestSecret(t *testing.T) {
	g := NewWithT(t)
	s, err := Secret("cluster-md-0", input(defaulted(nil), Identity{VMIdentity: infrav1.VMIdentitySystemAssigned}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(s.Name).To(Equal("cluster-md-0-azure-json"))
	g.Expect(s.Data).To(HaveKey(ControlPlaneKey))
	g.Expect(s.Data).To(HaveKeyWithValue(WorkerNodeKey, s.Data[ControlPlaneKey]))
	g.Expect(s.Data).To(HaveKeyWithValue(LegacyKey, s.Data[ControlPlaneKey]))
	var parsed map[string]any
	g.Expect(json.Unmarshal(s.Data[ControlPlaneKey], &parsed)).To(Succeed())
	g.Expect(parsed).To(HaveKeyWithValue("vnetName", "cluster-vnet"))
}
