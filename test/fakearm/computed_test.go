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

package fakearm

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const guidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"

// TestCompute: the fields Azure computes, the same on every GET.
func TestCompute(t *testing.T) {
	identity := testRG + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uami"
	subnet := network + "/virtualNetworks/vnet/subnets/nodes"
	cluster := testRG + "/providers/Microsoft.ContainerService/managedClusters/aks"
	type create struct {
		id   string
		body map[string]any
	}
	tests := []struct {
		name   string
		create []create
		check  string
		want   func(g *WithT, got map[string]any, c armClient)
	}{
		{
			name:   "user-assigned identity",
			create: []create{{identity, map[string]any{"location": "eastus"}}},
			check:  identity,
			want: func(g *WithT, got map[string]any, _ armClient) {
				g.Expect(at(got, "properties", "principalId")).To(MatchRegexp(guidPattern))
				g.Expect(at(got, "properties", "clientId")).To(MatchRegexp(guidPattern))
				g.Expect(at(got, "properties", "principalId")).NotTo(Equal(at(got, "properties", "clientId")))
				g.Expect(at(got, "properties", "tenantId")).To(Equal(testTenant), "the tenant of the token that created it")
			},
		},
		{
			name: "VM with system- and user-assigned identities",
			create: []create{
				{identity, map[string]any{"location": "eastus"}},
				{testRG + "/providers/Microsoft.Compute/virtualMachines/vm", map[string]any{"location": "eastus", "identity": map[string]any{
					"type": "SystemAssigned, UserAssigned", "userAssignedIdentities": map[string]any{identity: map[string]any{}},
				}}},
			},
			check: testRG + "/providers/Microsoft.Compute/virtualMachines/vm",
			want: func(g *WithT, got map[string]any, c armClient) {
				g.Expect(at(got, "properties", "vmId")).To(MatchRegexp(guidPattern))
				g.Expect(at(got, "identity", "principalId")).To(MatchRegexp(guidPattern))
				g.Expect(at(got, "identity", "tenantId")).To(Equal(testTenant))
				_, uami := c.get(identity)
				g.Expect(at(got, "identity", "userAssignedIdentities", identity)).To(Equal(map[string]any{
					"principalId": at(uami, "properties", "principalId"), "clientId": at(uami, "properties", "clientId"),
				}), "the identity's own IDs")
			},
		},
		{
			name: "network interface in a subnet",
			create: []create{
				{network + "/virtualNetworks/vnet", map[string]any{"location": "eastus"}},
				{subnet, map[string]any{"properties": map[string]any{"addressPrefix": "10.1.2.0/24"}}},
				{network + "/networkInterfaces/nic", map[string]any{"location": "eastus", "properties": map[string]any{"ipConfigurations": []any{
					map[string]any{"name": "dynamic", "properties": map[string]any{"subnet": map[string]any{"id": subnet}}},
					map[string]any{"name": "static", "properties": map[string]any{"subnet": map[string]any{"id": subnet}, "privateIPAddress": "10.1.2.50", "privateIPAllocationMethod": "Static"}},
					map[string]any{"name": "elsewhere", "properties": map[string]any{"subnet": map[string]any{"id": network + "/virtualNetworks/x/subnets/y"}}},
				}}}},
			},
			check: network + "/networkInterfaces/nic",
			want: func(g *WithT, got map[string]any, _ armClient) {
				configs := at(got, "properties", "ipConfigurations").([]any)
				dynamic, err := netip.ParseAddr(at(configs[0], "properties", "privateIPAddress").(string))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(netip.MustParsePrefix("10.1.2.0/24").Contains(dynamic)).To(BeTrue(), "%s", dynamic)
				g.Expect(dynamic.As4()[3]).To(BeNumerically(">=", 4))
				g.Expect(dynamic.As4()[3]).To(BeNumerically("<", 255))
				g.Expect(at(configs[0], "properties", "privateIPAllocationMethod")).To(Equal("Dynamic"))
				g.Expect(at(configs[0], "id")).To(Equal(network + "/networkInterfaces/nic/ipConfigurations/dynamic"))
				g.Expect(at(configs[1], "properties", "privateIPAddress")).To(Equal("10.1.2.50"))
				g.Expect(at(configs[2], "properties", "privateIPAddress")).To(MatchRegexp(`^10\.\d+\.\d+\.\d+$`))
			},
		},
		{
			name: "public IP address",
			create: []create{{network + "/publicIPAddresses/ip", map[string]any{"location": "East US", "properties": map[string]any{
				"dnsSettings": map[string]any{"domainNameLabel": "api"},
			}}}},
			check: network + "/publicIPAddresses/ip",
			want: func(g *WithT, got map[string]any, _ armClient) {
				addr, err := netip.ParseAddr(at(got, "properties", "ipAddress").(string))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(addr.Is4()).To(BeTrue())
				g.Expect(at(got, "properties", "dnsSettings", "fqdn")).To(Equal("api.eastus.cloudapp.azure.com"))
			},
		},
		{
			name: "managed cluster",
			create: []create{{cluster, map[string]any{"location": "eastus", "properties": map[string]any{
				"dnsPrefix": "aks", "kubernetesVersion": "1.33.1", "apiServerAccessProfile": map[string]any{"enablePrivateCluster": true},
				"oidcIssuerProfile": map[string]any{"enabled": true},
			}}}},
			check: cluster,
			want: func(g *WithT, got map[string]any, _ armClient) {
				g.Expect(at(got, "properties", "fqdn")).To(MatchRegexp(`^aks-[0-9a-f]{8}\.hcp\.eastus\.azmk8s\.io$`))
				g.Expect(at(got, "properties", "privateFQDN")).To(MatchRegexp(`^aks-[0-9a-f]{8}\.[0-9a-f]{8}\.privatelink\.eastus\.azmk8s\.io$`))
				g.Expect(at(got, "properties", "currentKubernetesVersion")).To(Equal("1.33.1"))
				g.Expect(at(got, "properties", "nodeResourceGroup")).To(Equal("MC_rg_aks_eastus"))
				g.Expect(at(got, "properties", "powerState", "code")).To(Equal("Running"))
				g.Expect(at(got, "properties", "oidcIssuerProfile", "issuerURL")).To(MatchRegexp(
					`^https://eastus\.oic\.prod-aks\.azure\.com/` + testTenant + `/[0-9a-f-]{36}/$`))
			},
		},
		{
			name: "public managed cluster and its agent pools",
			create: []create{
				{cluster, map[string]any{"location": "eastus", "properties": map[string]any{"dnsPrefix": "aks", "kubernetesVersion": "1.33.1", "nodeResourceGroup": "nodes"}}},
				{cluster + "/agentPools/system", map[string]any{"properties": map[string]any{"count": 1}}},
				{cluster + "/agentPools/older", map[string]any{"properties": map[string]any{"count": 1, "orchestratorVersion": "1.32.0"}}},
			},
			check: cluster,
			want: func(g *WithT, got map[string]any, _ armClient) {
				g.Expect(got["properties"]).NotTo(HaveKey("privateFQDN"))
				g.Expect(at(got, "properties", "nodeResourceGroup")).To(Equal("nodes"))
				g.Expect(at(got, "properties", "agentPoolProfiles")).To(ConsistOf(
					And(HaveKeyWithValue("name", "system"), HaveKeyWithValue("currentOrchestratorVersion", "1.33.1"), HaveKeyWithValue("provisioningState", "Succeeded")),
					And(HaveKeyWithValue("name", "older"), HaveKeyWithValue("currentOrchestratorVersion", "1.32.0")),
				))
			},
		},
		{
			name: "role assignment",
			create: []create{
				{identity, map[string]any{"location": "eastus"}},
				{identity + "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000d1", map[string]any{}},
			},
			check: identity + "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000d1",
			want: func(g *WithT, got map[string]any, _ armClient) {
				g.Expect(at(got, "properties", "scope")).To(Equal(identity))
				g.Expect(got).To(HaveKeyWithValue("type", "Microsoft.Authorization/roleAssignments"))
			},
		},
		{
			name: "load balancer",
			create: []create{{network + "/loadBalancers/lb", map[string]any{"location": "eastus", "properties": map[string]any{
				"frontendIPConfigurations": []any{map[string]any{"name": "front", "properties": map[string]any{}}},
				"backendAddressPools":      []any{map[string]any{"name": "back"}},
			}}}},
			check: network + "/loadBalancers/lb",
			want: func(g *WithT, got map[string]any, _ armClient) {
				g.Expect(at(got, "properties", "frontendIPConfigurations")).To(ConsistOf(HaveKeyWithValue("id", network+"/loadBalancers/lb/frontendIPConfigurations/front")))
				g.Expect(at(got, "properties", "backendAddressPools")).To(ConsistOf(HaveKeyWithValue("id", network+"/loadBalancers/lb/backendAddressPools/back")))
				g.Expect(at(got, "properties", "inboundNatRules")).To(BeEmpty())
			},
		},
		{
			name: "private endpoint",
			create: []create{{network + "/privateEndpoints/pe", map[string]any{"location": "eastus", "properties": map[string]any{
				"privateLinkServiceConnections":       []any{map[string]any{"name": "auto", "properties": map[string]any{}}},
				"manualPrivateLinkServiceConnections": []any{map[string]any{"name": "manual", "properties": map[string]any{}}},
			}}}},
			check: network + "/privateEndpoints/pe",
			want: func(g *WithT, got map[string]any, _ armClient) {
				auto := at(got, "properties", "privateLinkServiceConnections").([]any)[0]
				g.Expect(at(auto, "properties", "privateLinkServiceConnectionState", "status")).To(Equal("Approved"))
				g.Expect(at(auto, "id")).To(Equal(network + "/privateEndpoints/pe/privateLinkServiceConnections/auto"))
				manual := at(got, "properties", "manualPrivateLinkServiceConnections").([]any)[0]
				g.Expect(at(manual, "properties", "privateLinkServiceConnectionState", "status")).To(Equal("Pending"))
				g.Expect(at(manual, "id")).NotTo(BeNil(), "ASO's post-reconciliation check reads the ID of a pending connection")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s, c := startInGroup(t, Options{})
			for _, cr := range tt.create {
				c.create(cr.id, cr.body)
			}
			status, got := c.get(tt.check)
			g.Expect(status).To(Equal(http.StatusOK))
			tt.want(g, got, c)
			_, again := c.get(tt.check)
			g.Expect(again).To(Equal(got), "the same on every GET")
			held, ok := s.Resource(tt.check)
			g.Expect(ok).To(BeTrue())
			g.Expect(held).To(Equal(got), "Resource answers as GET does")
		})
	}
}

// TestCredentials: a managed cluster's listClusterUserCredential and listClusterAdminCredential (as
// armcontainerservice sends them) return the kubeconfig of Options.Kubeconfig, or a placeholder for the cluster's
// FQDN.
func TestCredentials(t *testing.T) {
	cluster := testRG + "/providers/Microsoft.ContainerService/managedClusters/aks"
	tests := []struct {
		name       string
		kubeconfig func(string) ([]byte, error)
		action     string
		cluster    string
		wantStatus int
		wantName   string
		want       func(g *WithT, kubeconfig string, fqdn string)
	}{
		{
			name:       "user credential",
			kubeconfig: func(id string) ([]byte, error) { return []byte("kubeconfig of " + id), nil },
			action:     "listClusterUserCredential", cluster: cluster, wantStatus: 200, wantName: "clusterUser",
			want: func(g *WithT, kubeconfig, _ string) { g.Expect(kubeconfig).To(Equal("kubeconfig of " + cluster)) },
		},
		{
			name:       "admin credential",
			kubeconfig: func(id string) ([]byte, error) { return []byte("admin"), nil },
			action:     "listClusterAdminCredential", cluster: cluster, wantStatus: 200, wantName: "clusterAdmin",
			want: func(g *WithT, kubeconfig, _ string) { g.Expect(kubeconfig).To(Equal("admin")) },
		},
		{
			name:   "placeholder",
			action: "listClusterUserCredential", cluster: cluster, wantStatus: 200, wantName: "clusterUser",
			want: func(g *WithT, kubeconfig, fqdn string) {
				g.Expect(kubeconfig).To(ContainSubstring("server: https://" + fqdn + ":443"))
				g.Expect(kubeconfig).To(ContainSubstring("name: clusterUser_rg_aks"))
			},
		},
		{
			name:   "missing cluster",
			action: "listClusterUserCredential", cluster: testRG + "/providers/Microsoft.ContainerService/managedClusters/none", wantStatus: 404,
		},
		{
			name:       "failing kubeconfig",
			kubeconfig: func(string) ([]byte, error) { return nil, errors.New("no workload cluster") },
			action:     "listClusterAdminCredential", cluster: cluster, wantStatus: 500,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, c := startInGroup(t, Options{Kubeconfig: tt.kubeconfig})
			created := c.create(cluster, map[string]any{"location": "eastus", "properties": map[string]any{"dnsPrefix": "aks"}})
			resp := c.do(http.MethodPost, tt.cluster+"/"+tt.action, nil, "2022-04-01")
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			if tt.want == nil {
				return
			}
			kubeconfigs := object(t, resp)["kubeconfigs"].([]any)
			g.Expect(kubeconfigs).To(HaveLen(1))
			g.Expect(kubeconfigs[0]).To(HaveKeyWithValue("name", tt.wantName))
			raw, err := base64.StdEncoding.DecodeString(at(kubeconfigs[0], "value").(string))
			g.Expect(err).NotTo(HaveOccurred())
			tt.want(g, string(raw), at(map[string]any(created), "properties", "fqdn").(string))
		})
	}
}

// TestRoleDefinitions: the built-in role definitions, listed as ASO's role assignment extension pages through them
// (armauthorization's list at "/"), filtered by name, and one by ID.
func TestRoleDefinitions(t *testing.T) {
	g := NewWithT(t)
	_, c := startClient(t, Options{})
	resp := c.do(http.MethodGet, "/providers/Microsoft.Authorization/roleDefinitions", nil, "2022-04-01")
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	g.Expect(object(t, resp)["value"]).To(ContainElement(map[string]any{
		"id":   "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c",
		"name": "b24988ac-6180-42a0-ab88-20f7382dd24c", "type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{"roleName": "Contributor", "type": "BuiltInRole", "description": "Contributor", "assignableScopes": []any{"/"}, "permissions": []any{}},
	}))

	resp = c.do(http.MethodGet, "/subscriptions/"+testSubscription+"/providers/Microsoft.Authorization/roleDefinitions?$filter="+
		"roleName%20eq%20'Network%20Contributor'", nil, "2022-04-01")
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	g.Expect(object(t, resp)["value"]).To(ConsistOf(And(
		HaveKeyWithValue("name", "4d97b98b-1d4f-4787-a291-c67834d212e7"),
		HaveKeyWithValue("id", "/subscriptions/"+testSubscription+"/providers/Microsoft.Authorization/roleDefinitions/4d97b98b-1d4f-4787-a291-c67834d212e7"),
	)))

	status, got := c.get("/subscriptions/" + testSubscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7")
	g.Expect(status).To(Equal(http.StatusOK))
	g.Expect(at(got, "properties", "roleName")).To(Equal("Reader"))
	status, _ = c.get("/subscriptions/" + testSubscription + "/providers/Microsoft.Authorization/roleDefinitions/00000000-0000-0000-0000-000000000000")
	g.Expect(status).To(Equal(http.StatusNotFound))
}

// TestAvailabilitySet: Azure answers an availability set's PUT and DELETE at once, whatever the other resources do,
// and lists the VMs in the set on its GET.
func TestAvailabilitySet(t *testing.T) {
	_, c := startInGroup(t, Options{Polls: 2})
	set := testRG + "/providers/Microsoft.Compute/availabilitySets/md-0-as"
	resp, _ := c.beginPut(set, map[string]any{"location": "eastus", "properties": map[string]any{"platformFaultDomainCount": 2}})
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Azure-AsyncOperation") != "" {
		t.Fatalf("PUT of an availability set: %d, Azure-AsyncOperation %q; want 201 at once", resp.StatusCode, resp.Header.Get("Azure-AsyncOperation"))
	}
	vm := testRG + "/providers/Microsoft.Compute/virtualMachines/md-0"
	c.create(vm, map[string]any{"location": "eastus", "properties": map[string]any{"availabilitySet": map[string]any{"id": strings.ToLower(set)}}})
	c.create(testRG+"/providers/Microsoft.Compute/virtualMachines/other", map[string]any{"location": "eastus"})
	_, body := c.get(set)
	if got := at(body, "properties", "virtualMachines"); !reflect.DeepEqual(got, []any{map[string]any{"id": vm}}) {
		t.Errorf("the set's VMs: %v, want the one VM in it", got)
	}
	resp, _ = c.beginDelete(set)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("DELETE of an availability set: %d, want 200 at once", resp.StatusCode)
	}
}
