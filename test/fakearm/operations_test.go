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
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	. "github.com/onsi/gomega"
)

// operationPath is the path and api-version of an operation URL of the fake.
func operationPath(t *testing.T, s *Server, raw string) (string, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Scheme+"://"+u.Host != s.URL() {
		t.Fatalf("operation URL %q is not on the fake (%v)", raw, err)
	}
	return u.Path, u.Query().Get("api-version")
}

// TestOperations_Put: a long-running PUT answers 201 with Azure-AsyncOperation and Retry-After; the resource reports
// Creating, the operation InProgress for Polls polls, then Succeeded, and the resource Succeeded. An update is 200
// and Updating.
func TestOperations_Put(t *testing.T) {
	g := NewWithT(t)
	s, c := startInGroup(t, Options{Polls: 2})
	nic := network + "/networkInterfaces/nic"

	for i, want := range []struct {
		status int
		state  string
	}{{http.StatusCreated, "Creating"}, {http.StatusOK, "Updating"}} {
		resp := c.do(http.MethodPut, nic, map[string]any{"location": "East US"}, apiVersion)
		g.Expect(resp.StatusCode).To(Equal(want.status))
		g.Expect(resp.Header.Get("Retry-After")).To(Equal("1"))
		g.Expect(at(object(t, resp), "properties", "provisioningState")).To(Equal(want.state))
		path, version := operationPath(t, s, resp.Header.Get("Azure-AsyncOperation"))
		g.Expect(path).To(MatchRegexp("^/subscriptions/" + testSubscription + "/providers/Microsoft.Network/locations/eastus/operations/[0-9a-f-]+$"))
		g.Expect(version).To(Equal(apiVersion))

		for range 2 {
			_, got := c.get(nic)
			g.Expect(at(got, "properties", "provisioningState")).To(Equal(want.state), "PUT %d", i)
			op := c.do(http.MethodGet, path, nil, version)
			g.Expect(op.StatusCode).To(Equal(http.StatusOK))
			g.Expect(op.Header.Get("Retry-After")).To(Equal("1"))
			g.Expect(object(t, op)).To(HaveKeyWithValue("status", "InProgress"))
		}
		op := c.do(http.MethodGet, path, nil, version)
		g.Expect(object(t, op)).To(HaveKeyWithValue("status", "Succeeded"))
		g.Expect(op.Header.Get("Retry-After")).To(BeEmpty())
		_, got := c.get(nic)
		g.Expect(at(got, "properties", "provisioningState")).To(Equal("Succeeded"))
		op = c.do(http.MethodGet, path, nil, version)
		g.Expect(object(t, op)).To(HaveKeyWithValue("status", "Succeeded"), "a completed operation stays so")
	}
}

// TestOperations_Delete: a long-running DELETE answers 202 with Location and Retry-After; the resource reports
// Deleting while the Location answers 202 for Polls polls, then 204 and the resource is gone. A second DELETE meanwhile
// answers the same operation.
func TestOperations_Delete(t *testing.T) {
	g := NewWithT(t)
	s, c := startInGroup(t, Options{Polls: 2})
	vnet := network + "/virtualNetworks/vnet"
	c.create(vnet, map[string]any{"location": "eastus"})
	c.create(vnet+"/subnets/s", map[string]any{})

	resp := c.do(http.MethodDelete, vnet, nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusAccepted))
	g.Expect(resp.Header.Get("Retry-After")).To(Equal("1"))
	g.Expect(resp.Header.Get("Azure-AsyncOperation")).To(BeEmpty())
	location := resp.Header.Get("Location")
	path, version := operationPath(t, s, location)
	g.Expect(path).To(MatchRegexp("/providers/Microsoft.Network/locations/eastus/operationResults/[0-9a-f-]+$"))
	g.Expect(c.do(http.MethodDelete, vnet, nil, apiVersion).Header.Get("Location")).To(Equal(location))

	for range 2 {
		_, got := c.get(vnet)
		g.Expect(at(got, "properties", "provisioningState")).To(Equal("Deleting"))
		op := c.do(http.MethodGet, path, nil, version)
		g.Expect(op.StatusCode).To(Equal(http.StatusAccepted))
		g.Expect(op.Header.Get("Location")).To(Equal(location))
	}
	g.Expect(c.do(http.MethodGet, path, nil, version).StatusCode).To(Equal(http.StatusNoContent))
	status, _ := c.get(vnet)
	g.Expect(status).To(Equal(http.StatusNotFound))
	g.Expect(s.Resources()).To(Equal([]string{testRG}), "the subnet went with its network")
}

// TestOperations_Pollers: azcore's pollers complete both a PUT and a DELETE, driven the way ASO drives them (a resume
// token per reconcile) and with PollUntilDone, which honours Retry-After.
func TestOperations_Pollers(t *testing.T) {
	for _, polls := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("polls %d", polls), func(t *testing.T) {
			g := NewWithT(t)
			s, c := startInGroup(t, Options{Polls: polls})
			disk := testRG + "/providers/Microsoft.Compute/disks/d"

			_, put := c.beginPut(disk, map[string]any{"location": "eastus", "properties": map[string]any{"diskSizeGB": 30}})
			created, taken, err := resume(c, put)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(taken).To(Equal(map[bool]int{true: 0, false: polls + 1}[polls == 0]))
			g.Expect(created).To(HaveKeyWithValue("id", disk))
			g.Expect(at(map[string]any(created), "properties", "provisioningState")).To(Equal("Succeeded"))

			_, del := c.beginDelete(disk)
			_, taken, err = resume(c, del)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(taken).To(Equal(map[bool]int{true: 0, false: polls + 1}[polls == 0]))
			_, exists := s.Resource(disk)
			g.Expect(exists).To(BeFalse())
		})
	}
	t.Run("PollUntilDone", func(t *testing.T) {
		g := NewWithT(t)
		s, c := startInGroup(t, Options{Polls: 1})
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		_, put := c.beginPut(testRG+"/providers/Microsoft.Compute/disks/d", map[string]any{"location": "eastus"})
		created, err := put.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: time.Second})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(at(map[string]any(created), "properties", "provisioningState")).To(Equal("Succeeded"))
		_, del := c.beginDelete(testRG)
		_, err = del.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: time.Second})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(s.Resources()).To(BeEmpty())
	})
}

// TestOperations_Replaced: a PUT during another's operation replaces it: the first operation completes at its next
// poll, the resource stays in progress until the second completes.
func TestOperations_Replaced(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{Polls: 2})
	id := network + "/publicIPAddresses/ip"
	_, first := c.beginPut(id, map[string]any{"location": "eastus", "tags": map[string]any{"n": "1"}})
	_, second := c.beginPut(id, map[string]any{"location": "eastus", "tags": map[string]any{"n": "2"}})

	_, err := first.Poll(t.Context())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(first.Done()).To(BeTrue())
	_, got := c.get(id)
	g.Expect(at(got, "properties", "provisioningState")).To(Equal("Creating"), "the create goes on under the second PUT")
	result, taken, err := resume(c, second)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(taken).To(Equal(3))
	g.Expect(result).To(HaveKeyWithValue("tags", map[string]any{"n": "2"}))
}

// TestOperations_Synchronous: the PUTs and DELETEs Azure always answers at once are synchronous whatever Polls is;
// a resource group's DELETE is long-running.
func TestOperations_Synchronous(t *testing.T) {
	_, c := startInGroup(t, Options{Polls: 5})
	identity := testRG + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"
	tests := []struct {
		name                  string
		id                    string
		wantPut, wantDelete   int
		wantPutHeader         string
		wantDeleteLocationSet bool
	}{
		{name: "resource group", id: "/subscriptions/" + testSubscription + "/resourceGroups/other", wantPut: 201, wantDelete: 202, wantDeleteLocationSet: true},
		{name: "user-assigned identity", id: identity, wantPut: 201, wantDelete: 200},
		{name: "federated credential", id: identity + "/federatedIdentityCredentials/f", wantPut: 201, wantDelete: 200},
		{name: "role assignment", id: testRG + "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-0000000000c1", wantPut: 201, wantDelete: 200},
		{name: "managed cluster", id: testRG + "/providers/Microsoft.ContainerService/managedClusters/aks", wantPut: 201, wantPutHeader: "Azure-AsyncOperation", wantDelete: 202, wantDeleteLocationSet: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.name == "federated credential" {
				c.create(identity, map[string]any{"location": "eastus"})
			}
			resp := c.do(http.MethodPut, tt.id, map[string]any{"location": "eastus"}, apiVersion)
			g.Expect(resp.StatusCode).To(Equal(tt.wantPut))
			g.Expect(resp.Header.Get("Azure-AsyncOperation") != "").To(Equal(tt.wantPutHeader != ""))
			want := "Succeeded"
			if tt.wantPutHeader != "" {
				want = "Creating"
			}
			g.Expect(at(object(t, resp), "properties", "provisioningState")).To(Equal(want))
			resp = c.do(http.MethodDelete, tt.id, nil, apiVersion)
			g.Expect(resp.StatusCode).To(Equal(tt.wantDelete))
			g.Expect(resp.Header.Get("Location") != "").To(Equal(tt.wantDeleteLocationSet))
		})
	}
}
