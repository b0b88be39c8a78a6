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
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	. "github.com/onsi/gomega"
)

// TestARM_CreateNetwork: through azcore's ARM pipeline and pollers (ASO's stack), a resource group, a virtual network
// and a subnet are created synchronously and as long-running operations; the network's GET lists the subnet; a PUT of
// the network carrying its subnets (what ASO's extension sends) neither deletes nor duplicates them; deleting the
// resource group deletes everything in it.
func TestARM_CreateNetwork(t *testing.T) {
	for _, polls := range []int{0, 2} {
		t.Run(fmt.Sprintf("polls %d", polls), func(t *testing.T) {
			g := NewWithT(t)
			s, c := startClient(t, Options{Polls: polls})
			vnet, subnet := network+"/virtualNetworks/vnet", network+"/virtualNetworks/vnet/subnets/nodes"

			resp, p := c.beginPut(testRG, map[string]any{"location": "eastus"})
			g.Expect(resp.StatusCode).To(Equal(http.StatusCreated))
			g.Expect(p.Done()).To(BeTrue(), "a resource group's PUT is synchronous")

			resp, p = c.beginPut(vnet, map[string]any{"location": "eastus", "properties": map[string]any{
				"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
			}})
			g.Expect(resp.StatusCode).To(Equal(http.StatusCreated))
			g.Expect(p.Done()).To(Equal(polls == 0))
			created, pollsTaken, err := resume(c, p)
			g.Expect(err).NotTo(HaveOccurred())
			if polls > 0 {
				g.Expect(pollsTaken).To(Equal(polls + 1))
			}
			g.Expect(at(map[string]any(created), "properties", "provisioningState")).To(Equal("Succeeded"))
			g.Expect(at(map[string]any(created), "properties", "subnets")).To(BeEmpty())

			c.create(subnet, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
			status, got := c.get(vnet)
			g.Expect(status).To(Equal(http.StatusOK))
			g.Expect(got).To(HaveKeyWithValue("type", "Microsoft.Network/virtualNetworks"))
			subnets, _ := at(got, "properties", "subnets").([]any)
			g.Expect(subnets).To(HaveLen(1))
			g.Expect(subnets[0]).To(HaveKeyWithValue("etag", HavePrefix(`W/"`)), "a network resource's child reports its etag")
			delete(subnets[0].(map[string]any), "etag")
			g.Expect(subnets[0]).To(Equal(map[string]any{
				"id": subnet, "name": "nodes", "type": "Microsoft.Network/virtualNetworks/subnets",
				"properties": map[string]any{"addressPrefix": "10.0.1.0/24", "provisioningState": "Succeeded"},
			}))
			g.Expect(at(got, "properties", "virtualNetworkPeerings")).To(BeEmpty())

			// ASO's virtual network extension sends the subnets it read back with the network.
			props := got["properties"].(map[string]any)
			delete(props, "provisioningState")
			again := c.create(vnet, map[string]any{"location": "eastus", "properties": props})
			g.Expect(names(at(map[string]any(again), "properties", "subnets"))).To(Equal([]string{"nodes"}))
			g.Expect(s.Resources()).To(Equal([]string{testRG, vnet, subnet}))

			c.remove(testRG)
			g.Expect(s.Resources()).To(BeEmpty())
			resp = c.do(http.MethodGet, vnet, nil, apiVersion)
			g.Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
			g.Expect(errorCode(t, resp)).To(Equal("ResourceGroupNotFound"))
		})
	}
}

// TestARM_ParentRules: a resource needs its resource group, a child its parent, an extension resource its scope.
func TestARM_ParentRules(t *testing.T) {
	s, c := startInGroup(t, Options{})
	c.create(network+"/virtualNetworks/vnet", map[string]any{"location": "eastus"})
	tests := []struct {
		name       string
		id         string
		wantStatus int
		wantCode   string
	}{
		{name: "resource without its group", id: "/subscriptions/" + testSubscription + "/resourceGroups/none/providers/Microsoft.Network/virtualNetworks/v", wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "subnet without its network", id: network + "/virtualNetworks/none/subnets/s", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "subnet of its network", id: network + "/virtualNetworks/vnet/subnets/s", wantStatus: 201},
		{name: "peering without its network", id: network + "/virtualNetworks/none/virtualNetworkPeerings/p", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "agent pool without its cluster", id: testRG + "/providers/Microsoft.ContainerService/managedClusters/none/agentPools/p", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "VM extension without its VM", id: testRG + "/providers/Microsoft.Compute/virtualMachines/none/extensions/e", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "security rule without its group", id: network + "/networkSecurityGroups/none/securityRules/r", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "route without its table", id: network + "/routeTables/none/routes/r", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "DNS record without its zone", id: network + "/privateDnsZones/none/A/rec", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "DNS link without its zone", id: network + "/privateDnsZones/none/virtualNetworkLinks/l", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "role assignment on a missing VM", id: testRG + "/providers/Microsoft.Compute/virtualMachines/none/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000a1", wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "role assignment on a network", id: network + "/virtualNetworks/vnet/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000a2", wantStatus: 201},
		{name: "role assignment on a missing group", id: "/subscriptions/" + testSubscription + "/resourceGroups/none/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000a3", wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "role assignment on the subscription", id: "/subscriptions/" + testSubscription + "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000a4", wantStatus: 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resp := c.do(http.MethodPut, tt.id, map[string]any{"properties": map[string]any{}}, apiVersion)
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			if tt.wantCode != "" {
				g.Expect(errorCode(t, resp)).To(Equal(tt.wantCode))
			}
			_, exists := s.Resource(tt.id)
			g.Expect(exists).To(Equal(tt.wantStatus == 201))
		})
	}
}

// TestARM_Methods: GET, HEAD (ASO's CheckExistenceByID wants 204 or 404), PATCH, DELETE and the api-version rule.
func TestARM_Methods(t *testing.T) {
	s, c := startInGroup(t, Options{})
	nsg := network + "/networkSecurityGroups/nsg"
	c.create(nsg, map[string]any{"location": "eastus", "tags": map[string]any{"a": "1", "b": "2"}})
	tests := []struct {
		name       string
		method, id string
		body       any
		version    string
		wantStatus int
		wantCode   string
		want       func(g *WithT, body map[string]any)
	}{
		{name: "GET", method: "GET", id: nsg, version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(body).To(HaveKeyWithValue("id", nsg))
			g.Expect(body).To(HaveKeyWithValue("name", "nsg"))
			g.Expect(body).To(HaveKeyWithValue("location", "eastus"))
			g.Expect(at(body, "properties", "securityRules")).To(BeEmpty())
		}},
		{name: "GET in another case", method: "GET", id: testRG + "/providers/microsoft.network/NETWORKSECURITYGROUPS/NSG", version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(body).To(HaveKeyWithValue("id", nsg), "the case of the first PUT")
		}},
		{name: "GET missing", method: "GET", id: network + "/networkSecurityGroups/none", version: apiVersion, wantStatus: 404, wantCode: "ResourceNotFound"},
		{name: "GET in a missing group", method: "GET", id: "/subscriptions/" + testSubscription + "/resourceGroups/none/providers/Microsoft.Network/networkSecurityGroups/n", version: apiVersion, wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "GET a missing group", method: "GET", id: "/subscriptions/" + testSubscription + "/resourceGroups/none", version: apiVersion, wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "GET without api-version", method: "GET", id: nsg, wantStatus: 400, wantCode: "MissingApiVersionParameter"},
		{name: "HEAD", method: "HEAD", id: nsg, version: apiVersion, wantStatus: 204},
		{name: "HEAD missing", method: "HEAD", id: network + "/networkSecurityGroups/none", version: apiVersion, wantStatus: 404},
		{name: "PUT not JSON", method: "PUT", id: nsg, body: []byte("{"), version: apiVersion, wantStatus: 400, wantCode: "InvalidRequestContent"},
		{name: "PATCH", method: "PATCH", id: nsg, body: map[string]any{"tags": map[string]any{"b": nil, "c": "3"}}, version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(body).To(HaveKeyWithValue("tags", map[string]any{"a": "1", "c": "3"}))
			g.Expect(body).To(HaveKeyWithValue("location", "eastus"))
		}},
		{name: "PATCH missing", method: "PATCH", id: network + "/networkSecurityGroups/none", body: map[string]any{}, version: apiVersion, wantStatus: 404, wantCode: "ResourceNotFound"},
		{name: "DELETE missing", method: "DELETE", id: network + "/networkSecurityGroups/none", version: apiVersion, wantStatus: 204},
		{name: "DELETE in a missing group", method: "DELETE", id: "/subscriptions/" + testSubscription + "/resourceGroups/none/providers/Microsoft.Network/networkSecurityGroups/n", version: apiVersion, wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "POST an unknown action", method: "POST", id: nsg + "/start", version: apiVersion, wantStatus: 404, wantCode: "NotFound"},
		{name: "list a group's security groups", method: "GET", id: network + "/networkSecurityGroups", version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(names(body["value"])).To(Equal([]string{"nsg"}))
		}},
		{name: "list a security group's rules", method: "GET", id: network + "/networkSecurityGroups/nsg/securityRules", version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(body).To(HaveKeyWithValue("value", BeEmpty()))
		}},
		{name: "list in a missing group", method: "GET", id: "/subscriptions/" + testSubscription + "/resourceGroups/none/providers/Microsoft.Network/virtualNetworks", version: apiVersion, wantStatus: 404, wantCode: "ResourceGroupNotFound"},
		{name: "list under a missing parent", method: "GET", id: network + "/virtualNetworks/none/subnets", version: apiVersion, wantStatus: 404, wantCode: "ParentResourceNotFound"},
		{name: "GET a subscription", method: "GET", id: "/subscriptions/" + testSubscription, version: apiVersion, wantStatus: 200, want: func(g *WithT, body map[string]any) {
			g.Expect(body).To(HaveKeyWithValue("subscriptionId", testSubscription))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			resp := c.do(tt.method, tt.id, tt.body, tt.version)
			g.Expect(resp.StatusCode).To(Equal(tt.wantStatus))
			if tt.wantCode != "" {
				g.Expect(errorCode(t, resp)).To(Equal(tt.wantCode))
			}
			if tt.want != nil {
				tt.want(g, object(t, resp))
			}
		})
	}
	g := NewWithT(t)
	resp := c.do(http.MethodDelete, nsg, nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "a synchronous DELETE")
	g.Expect(s.Resources()).To(Equal([]string{testRG}))
}

// TestARM_ChildCollections: a parent's GET lists its children where Azure does; a parent's PUT that lists children
// creates or updates them and keeps the others, without keeping them in its own body.
func TestARM_ChildCollections(t *testing.T) {
	cluster := testRG + "/providers/Microsoft.ContainerService/managedClusters/aks"
	scaleSet := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/vmss"
	tests := []struct {
		name      string
		parent    string
		body      map[string]any
		childType string
		path      []string
		// entry is how the parent lists a child named name with properties props.
		entry func(name string, props map[string]any) map[string]any
	}{
		{name: "virtual network subnets", parent: network + "/virtualNetworks/v", childType: "subnets", path: []string{"properties", "subnets"}},
		{name: "virtual network peerings", parent: network + "/virtualNetworks/v", childType: "virtualNetworkPeerings", path: []string{"properties", "virtualNetworkPeerings"}},
		{name: "security rules", parent: network + "/networkSecurityGroups/n", childType: "securityRules", path: []string{"properties", "securityRules"}},
		{name: "routes", parent: network + "/routeTables/r", childType: "routes", path: []string{"properties", "routes"}},
		{name: "inbound NAT rules", parent: network + "/loadBalancers/lb", childType: "inboundNatRules", path: []string{"properties", "inboundNatRules"}},
		{
			name: "agent pools", parent: cluster, childType: "agentPools", path: []string{"properties", "agentPoolProfiles"},
			body: map[string]any{"location": "eastus", "properties": map[string]any{"dnsPrefix": "aks", "kubernetesVersion": "1.33.1"}},
			entry: func(name string, props map[string]any) map[string]any {
				out := copyMap(props)
				out["name"] = name
				return out
			},
		},
		{
			name: "scale set extensions", parent: scaleSet, childType: "extensions",
			path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"},
			body: map[string]any{"location": "eastus", "properties": map[string]any{"virtualMachineProfile": map[string]any{"extensionProfile": map[string]any{}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s, c := startInGroup(t, Options{})
			body := tt.body
			if body == nil {
				body = map[string]any{"location": "eastus"}
			}
			parent := c.create(tt.parent, copyMap(body))
			g.Expect(at(map[string]any(parent), tt.path...)).To(BeEmpty())

			first, second, third := tt.parent+"/"+tt.childType+"/first", tt.parent+"/"+tt.childType+"/second", tt.parent+"/"+tt.childType+"/third"
			c.create(first, map[string]any{"properties": map[string]any{"priority": "1"}})
			_, got := c.get(tt.parent)
			list, _ := at(got, tt.path...).([]any)
			g.Expect(list).To(HaveLen(1))
			entry := list[0].(map[string]any)
			if tt.entry != nil {
				g.Expect(entry).To(HaveKeyWithValue("name", "first"))
				g.Expect(entry).To(HaveKeyWithValue("priority", "1"))
				g.Expect(entry).To(HaveKeyWithValue("provisioningState", "Succeeded"))
			} else {
				g.Expect(entry).To(HaveKeyWithValue("id", first))
				g.Expect(entry).To(HaveKeyWithValue("name", "first"))
				g.Expect(entry).To(HaveKeyWithValue("properties", HaveKeyWithValue("priority", "1")))
			}

			// A parent's PUT listing the first child (changed) and a second one; the third child, created on its own,
			// is not listed and stays.
			c.create(third, map[string]any{"properties": map[string]any{"priority": "3"}})
			withChildren := copyMap(body)
			inline := []any{}
			for name, priority := range map[string]string{"first": "10", "second": "2"} {
				props := map[string]any{"priority": priority}
				if tt.entry != nil {
					inline = append(inline, tt.entry(name, props))
				} else {
					inline = append(inline, map[string]any{"name": name, "properties": props})
				}
			}
			ensureMap(withChildren, tt.path[:len(tt.path)-1]...)[tt.path[len(tt.path)-1]] = inline
			c.create(tt.parent, withChildren)
			_, got = c.get(tt.parent)
			g.Expect(names(at(got, tt.path...))).To(Equal([]string{"first", "second", "third"}))
			child, ok := s.Resource(first)
			g.Expect(ok).To(BeTrue())
			g.Expect(at(child, "properties", "priority")).To(Equal("10"))
			_, ok = s.Resource(second)
			g.Expect(ok).To(BeTrue(), "a child listed by its parent's PUT is created")

			s.mu.Lock()
			stored := s.resources[parseID(tt.parent).key()].body
			g.Expect(at(stored, tt.path...)).To(BeNil(), "children are not kept in the parent's body")
			s.mu.Unlock()

			c.remove(second)
			_, got = c.get(tt.parent)
			g.Expect(names(at(got, tt.path...))).To(Equal([]string{"first", "third"}))
		})
	}
}

// TestARM_DeleteCascades: deleting a resource deletes its children and the extension resources on it; deleting a
// resource group deletes everything in it.
func TestARM_DeleteCascades(t *testing.T) {
	g := NewWithT(t)
	s, c := startClient(t, Options{Polls: 1})
	vnet, nsg := network+"/virtualNetworks/vnet", network+"/networkSecurityGroups/nsg"
	assignment := vnet + "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000b1"
	other := "/subscriptions/" + testSubscription + "/resourceGroups/other"
	for _, id := range []string{testRG, other, vnet, vnet + "/subnets/a", vnet + "/subnets/b", nsg, nsg + "/securityRules/r", assignment} {
		c.create(id, map[string]any{"location": "eastus"})
	}
	c.remove(vnet)
	g.Expect(s.Resources()).To(Equal([]string{other, testRG, nsg, nsg + "/securityRules/r"}))
	c.remove(testRG)
	g.Expect(s.Resources()).To(Equal([]string{other}))
}

// TestARM_Seed: a resource seeded before the test is there as if PUT (its inline children too), and the parent
// rules apply.
func TestARM_Seed(t *testing.T) {
	g := NewWithT(t)
	s := start(t, Options{Polls: 3})
	vnet := network + "/virtualNetworks/byo"
	g.Expect(s.Seed(vnet, map[string]any{"location": "eastus"})).To(MatchError(ContainSubstring("ResourceGroupNotFound")))
	g.Expect(s.Seed("/subscriptions/"+testSubscription, nil)).To(MatchError(ContainSubstring("not the ID")))
	g.Expect(s.Seed(testRG, map[string]any{"location": "eastus"})).To(Succeed())
	g.Expect(s.Seed(vnet, map[string]any{"location": "eastus", "properties": map[string]any{
		"subnets": []any{map[string]any{"name": "nodes", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}},
	}})).To(Succeed())
	g.Expect(s.Seed(vnet+"/subnets/missing/children/x", nil)).To(MatchError(ContainSubstring("ParentResourceNotFound")))

	c := newARMClient(t, s)
	status, got := c.get(vnet)
	g.Expect(status).To(Equal(http.StatusOK))
	g.Expect(at(got, "properties", "provisioningState")).To(Equal("Succeeded"))
	g.Expect(names(at(got, "properties", "subnets"))).To(Equal([]string{"nodes"}))
	g.Expect(s.Resources()).To(Equal([]string{testRG, vnet, vnet + "/subnets/nodes"}))
	g.Expect(s.Requests()).To(HaveLen(1), "seeding is not logged")
}

// TestARM_RequestLog: every ARM request is logged in order with its method, path, api-version, status, user agent
// and body exactly as received.
func TestARM_RequestLog(t *testing.T) {
	g := NewWithT(t)
	s, c := startClient(t, Options{})
	body := []byte(`{ "location":"eastus",  "tags":{"z":"1","a":"2"}, "properties":{"big":12345678901234567890} }`)
	c.do(http.MethodPut, testRG, body, "2021-04-01")
	c.do(http.MethodGet, testRG+"/providers/Microsoft.Network/virtualNetworks/missing", nil, apiVersion)
	c.do(http.MethodHead, testRG, nil, "2021-04-01")

	requests := s.Requests()
	g.Expect(requests).To(HaveLen(3))
	g.Expect(requests[0]).To(And(
		HaveField("Method", "PUT"), HaveField("Path", testRG), HaveField("APIVersion", "2021-04-01"),
		HaveField("Status", http.StatusCreated), HaveField("Body", Equal(body)),
	))
	g.Expect(requests[1]).To(And(HaveField("Method", "GET"), HaveField("Status", http.StatusNotFound), HaveField("Body", BeEmpty())))
	g.Expect(requests[2]).To(And(HaveField("Method", "HEAD"), HaveField("Status", http.StatusNoContent)))
	g.Expect(requests[0].Time).NotTo(BeZero())
	g.Expect(requests[1].Time).NotTo(BeTemporally("<", requests[0].Time))
	g.Expect(requests).To(HaveEach(HaveField("UserAgent", ContainSubstring("azsdk-go-fakearm-test/v0.0.0"))), "the client's user agent is kept")

	rg, ok := s.Resource(testRG)
	g.Expect(ok).To(BeTrue())
	g.Expect(at(rg, "properties", "big")).To(BeNumerically("~", 1.2345678901234567e19))
	s.mu.Lock()
	g.Expect(at(s.resources[parseID(testRG).key()].body, "properties", "big")).To(Equal(json.Number("12345678901234567890")), "numbers are kept as written")
	s.mu.Unlock()

	requests[0].Body[0] = 'X'
	g.Expect(s.Requests()[0].Body).To(Equal(body), "Requests returns copies")
}

// TestARM_Concurrent: requests from many clients at once (run with -race).
func TestARM_Concurrent(t *testing.T) {
	g := NewWithT(t)
	s, c := startInGroup(t, Options{Polls: 1})
	c.create(network+"/virtualNetworks/vnet", map[string]any{"location": "eastus"})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			// Not the helpers: they fail the test, which only the test's goroutine may do.
			id := fmt.Sprintf("%s/virtualNetworks/vnet/subnets/s%02d", network, i)
			req, err := runtime.NewRequest(t.Context(), http.MethodPut, s.URL()+id+"?api-version="+apiVersion)
			if err == nil {
				err = runtime.MarshalAsJSON(req, map[string]any{"properties": map[string]any{}})
			}
			var resp *http.Response
			if err == nil {
				resp, err = c.pl.Do(req)
			}
			var p *runtime.Poller[armResource]
			if err == nil {
				p, err = runtime.NewPoller[armResource](resp, c.pl, nil)
			}
			for polls := 0; err == nil && !p.Done() && polls < 5; polls++ {
				_, err = p.Poll(t.Context())
			}
			if err == nil {
				_, err = p.Result(t.Context())
			}
			if err != nil {
				errs <- err
			}
			_, _ = s.Resource(network + "/virtualNetworks/vnet")
			_ = s.Requests()
		})
	}
	wg.Wait()
	close(errs)
	g.Expect(errs).To(BeEmpty())
	_, got := c.get(network + "/virtualNetworks/vnet")
	g.Expect(at(got, "properties", "subnets")).To(HaveLen(16))
}

// TestARM_VMCustomData: a VM's custom data is set by its creation only: a later PUT without it keeps it, one that
// changes it is refused, as Azure does.
func TestARM_VMCustomData(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{Polls: 1})
	vm := testRG + "/providers/Microsoft.Compute/virtualMachines/vm"
	c.create(vm, map[string]any{"location": "eastus", "properties": map[string]any{"osProfile": map[string]any{"customData": "Ym9vdA==", "computerName": "vm"}}})

	c.create(vm, map[string]any{"location": "eastus", "properties": map[string]any{"osProfile": map[string]any{"computerName": "vm"}}})
	_, got := c.get(vm)
	g.Expect(at(got, "properties", "osProfile", "customData")).To(Equal("Ym9vdA=="), "a PUT without custom data keeps it")

	resp := c.do(http.MethodPut, vm, map[string]any{"location": "eastus", "properties": map[string]any{"osProfile": map[string]any{"customData": "b3RoZXI="}}}, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusConflict))
	g.Expect(errorCode(t, resp)).To(Equal("PropertyChangeNotAllowed"))
	_, got = c.get(vm)
	g.Expect(at(got, "properties", "osProfile", "customData")).To(Equal("Ym9vdA=="))
}

// TestARM_AgentPoolScaleSets shows a managed cluster's agent pools as the scale sets of its node resource group, as
// CAPZ's AzureManagedMachinePool reads them, named as test/kubeletsim names the pools' Nodes.
func TestARM_AgentPoolScaleSets(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{Polls: 1})
	cluster := testRG + "/providers/Microsoft.ContainerService/managedClusters/aks"
	nodes := "/subscriptions/" + testSubscription + "/resourceGroups/MC_rg_aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets"
	status, _ := c.get(nodes)
	g.Expect(status).To(Equal(http.StatusNotFound), "no cluster has the group yet")

	c.create(cluster, map[string]any{"location": "eastus", "properties": map[string]any{"dnsPrefix": "aks", "kubernetesVersion": "1.33.1",
		"agentPoolProfiles": []any{map[string]any{"name": "pool0", "count": 2, "vmSize": "Standard_D2s_v3", "mode": "System"}}}})
	c.create(cluster+"/agentPools/pool1", map[string]any{"properties": map[string]any{"count": 1, "vmSize": "Standard_D4s_v3", "mode": "User"}})
	status, list := c.get(nodes)
	g.Expect(status).To(Equal(http.StatusOK))
	scaleSets, _ := list["value"].([]any)
	g.Expect(scaleSets).To(HaveLen(2))
	first := scaleSets[0].(map[string]any)
	name := AgentPoolScaleSet(cluster, "pool0")
	g.Expect(name).To(MatchRegexp(`^aks-pool0-\d{8}-vmss$`))
	g.Expect(first).To(HaveKeyWithValue("name", name))
	g.Expect(at(first, "tags", "aks-managed-poolName")).To(Equal("pool0"))
	g.Expect(at(first, "sku", "capacity")).To(BeNumerically("==", 2))

	status, list = c.get(nodes + "/" + name + "/virtualMachines")
	g.Expect(status).To(Equal(http.StatusOK))
	instances, _ := list["value"].([]any)
	g.Expect(instances).To(HaveLen(2))
	g.Expect(instances[1]).To(HaveKeyWithValue("id", nodes+"/"+name+"/virtualMachines/1"))

	c.remove(cluster)
	status, _ = c.get(nodes)
	g.Expect(status).To(Equal(http.StatusNotFound), "the group goes with the cluster")
}

// TestARM_LastSystemPool: as AKS, a managed cluster keeps a System pool; its last one goes only with the cluster.
func TestARM_LastSystemPool(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{Polls: 1})
	cluster := testRG + "/providers/Microsoft.ContainerService/managedClusters/aks"
	c.create(cluster, map[string]any{"location": "eastus", "properties": map[string]any{"dnsPrefix": "aks", "kubernetesVersion": "1.33.1",
		"agentPoolProfiles": []any{map[string]any{"name": "pool0", "count": 1, "vmSize": "Standard_D2s_v3", "mode": "System"}}}})
	c.create(cluster+"/agentPools/pool1", map[string]any{"properties": map[string]any{"count": 1, "vmSize": "Standard_D4s_v3", "mode": "User"}})

	resp := c.do(http.MethodDelete, cluster+"/agentPools/pool0", nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "the cluster's only System pool")
	g.Expect(object(t, resp)).To(HaveKeyWithValue("error", HaveKeyWithValue("code", "OperationNotAllowed")))

	c.create(cluster+"/agentPools/pool2", map[string]any{"properties": map[string]any{"count": 1, "vmSize": "Standard_D4s_v3", "mode": "System"}})
	c.remove(cluster + "/agentPools/pool0")
	c.remove(cluster + "/agentPools/pool1")
	resp = c.do(http.MethodDelete, cluster+"/agentPools/pool2", nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "pool2 is now the last System pool")

	c.remove(cluster)
	status, _ := c.get(cluster + "/agentPools/pool2")
	g.Expect(status).To(Equal(http.StatusNotFound), "the last System pool goes with its cluster")
	resp = c.do(http.MethodDelete, cluster+"/agentPools/pool2", nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusNoContent), "deleting it then finds nothing")
}
