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
	"errors"
	"net/http"
	"regexp"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	. "github.com/onsi/gomega"
)

// TestFaults: an injected fault answers the requests it matches (by method and lower-cased path), Times times or
// until cleared, with its status and ARM error (what azcore's ResponseError reads), and is logged.
func TestFaults(t *testing.T) {
	vnet := network + "/virtualNetworks/VNet"
	subnet := vnet + "/subnets/nodes"
	type call struct {
		method, id string
		wantStatus int
	}
	tests := []struct {
		name     string
		fault    Fault
		calls    []call
		clear    bool // clear after the calls, then call once more
		wantHits int
	}{
		{
			name:  "by method",
			fault: Fault{Method: "PUT", Status: 409, Code: "Conflict", Message: "Another operation is in progress."},
			calls: []call{{"PUT", subnet, 409}, {"GET", vnet, 200}, {"PUT", vnet, 409}}, wantHits: 2,
		},
		{
			name:  "by lower-cased ID",
			fault: Fault{ID: regexp.MustCompile(`/virtualnetworks/vnet/subnets/`), Status: 400, Code: "InvalidParameter"},
			calls: []call{{"PUT", vnet, 200}, {"PUT", subnet, 400}, {"GET", subnet, 400}, {"HEAD", vnet, 204}}, wantHits: 2,
		},
		{
			name:  "times",
			fault: Fault{Method: "GET", Status: 500, Code: "InternalServerError", Times: 2},
			calls: []call{{"GET", vnet, 500}, {"GET", vnet, 500}, {"GET", vnet, 200}}, wantHits: 2,
		},
		{
			name:  "until cleared",
			fault: Fault{Method: "DELETE", ID: regexp.MustCompile(`^` + regexp.QuoteMeta(("/subscriptions/" + testSubscription + "/resourcegroups/rg/providers/microsoft.network/virtualnetworks/vnet")) + `$`), Status: 429, Code: "TooManyRequests"},
			calls: []call{{"DELETE", vnet, 429}, {"DELETE", vnet, 429}, {"DELETE", vnet, 429}}, clear: true, wantHits: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			s, c := startInGroup(t, Options{})
			c.create(vnet, map[string]any{"location": "eastus"})
			c.create(subnet, map[string]any{})
			id := s.Inject(tt.fault)
			before := len(s.Requests())
			for _, call := range tt.calls {
				resp := c.do(call.method, call.id, map[string]any{}, apiVersion)
				g.Expect(resp.StatusCode).To(Equal(call.wantStatus), "%s %s", call.method, call.id)
				if call.wantStatus != tt.fault.Status || call.method == "HEAD" {
					_ = resp.Body.Close()
					continue
				}
				if tt.fault.Status == http.StatusTooManyRequests {
					g.Expect(resp.Header.Get("Retry-After")).To(Equal("1"))
				}
				var respErr *azcore.ResponseError
				g.Expect(errors.As(runtime.NewResponseError(resp), &respErr)).To(BeTrue())
				g.Expect(respErr.ErrorCode).To(Equal(tt.fault.Code))
			}
			g.Expect(s.Hits(id)).To(Equal(tt.wantHits))
			logged := s.Requests()[before:]
			g.Expect(logged).To(HaveLen(len(tt.calls)))
			for i, call := range tt.calls {
				g.Expect(logged[i]).To(And(HaveField("Method", call.method), HaveField("Status", call.wantStatus)))
			}
			if tt.clear {
				s.Clear(id)
				resp := c.do(http.MethodDelete, vnet, nil, apiVersion)
				g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
				g.Expect(s.Hits(id)).To(Equal(tt.wantHits), "hits stay readable after Clear")
			}
		})
	}
}

// TestFaults_Defaults: a fault with only a match answers 500 InternalServerError; faults match in the order injected.
func TestFaults_Defaults(t *testing.T) {
	g := NewWithT(t)
	s, c := startClient(t, Options{})
	first := s.Inject(Fault{Method: "GET", Times: 1})
	second := s.Inject(Fault{Method: "GET", Status: 503, Code: "ServiceUnavailable", Times: 1})
	resp := c.do(http.MethodGet, testRG, nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusInternalServerError))
	g.Expect(object(t, resp)).To(HaveKeyWithValue("error", HaveKeyWithValue("code", "InternalServerError")))
	resp = c.do(http.MethodGet, testRG, nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusServiceUnavailable))
	g.Expect(resp.Header.Get("Retry-After")).To(Equal("1"))
	g.Expect(c.do(http.MethodGet, testRG, nil, apiVersion).StatusCode).To(Equal(http.StatusNotFound))
	g.Expect([]int{s.Hits(first), s.Hits(second), s.Hits(99)}).To(Equal([]int{1, 1, 0}))
}
