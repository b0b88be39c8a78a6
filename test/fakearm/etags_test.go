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
	"net/http"
	"testing"

	. "github.com/onsi/gomega"
)

// TestETags: network resources report an etag that changes with every write, their children's entries too; a PUT
// or PATCH with If-Match succeeds only on the version it names (or any, with "*"), one with If-None-Match "*" only
// when the resource does not exist; an etag in a body is not stored.
func TestETags(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{})
	nsg := network + "/networkSecurityGroups/nsg"
	write := func(method, id string, body any, header ...string) *http.Response {
		t.Helper()
		req := c.request(method, id, body)
		for i := 0; i < len(header); i += 2 {
			req.Raw().Header.Set(header[i], header[i+1])
		}
		resp, err := c.pl.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		return resp
	}
	etagOf := func(id string) string {
		t.Helper()
		status, body := c.get(id)
		g.Expect(status).To(Equal(http.StatusOK))
		return str(body, "etag")
	}

	resp := write(http.MethodPut, nsg, map[string]any{"location": "eastus"}, "If-Match", `W/"nope"`)
	g.Expect(resp.StatusCode).To(Equal(http.StatusPreconditionFailed), "If-Match on a resource that does not exist")
	g.Expect(errorCode(t, resp)).To(Equal("PreconditionFailed"))
	resp = write(http.MethodPut, nsg, map[string]any{"location": "eastus", "etag": `W/"from-the-body"`,
		"properties": map[string]any{"securityRules": []any{map[string]any{"name": "ssh", "properties": map[string]any{"priority": 100}}}}},
		"If-None-Match", "*")
	g.Expect(resp.StatusCode).To(Equal(http.StatusCreated))
	first := etagOf(nsg)
	g.Expect(first).To(HavePrefix(`W/"`))
	g.Expect(first).NotTo(ContainSubstring("from-the-body"))
	_, body := c.get(nsg)
	g.Expect(at(body, "properties", "securityRules")).To(ConsistOf(HaveKeyWithValue("etag", HavePrefix(`W/"`))))

	resp = write(http.MethodPut, nsg, map[string]any{"location": "eastus"}, "If-None-Match", "*")
	g.Expect(resp.StatusCode).To(Equal(http.StatusPreconditionFailed), "If-None-Match * on a resource that exists")
	resp = write(http.MethodPut, nsg, map[string]any{"location": "eastus", "tags": map[string]any{"a": "b"}}, "If-Match", first)
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	second := etagOf(nsg)
	g.Expect(second).NotTo(Equal(first))

	resp = write(http.MethodPut, nsg, map[string]any{"location": "eastus"}, "If-Match", first)
	g.Expect(resp.StatusCode).To(Equal(http.StatusPreconditionFailed), "If-Match with a stale etag")
	resp = write(http.MethodPatch, nsg, map[string]any{"tags": map[string]any{"c": "d"}}, "If-Match", first)
	g.Expect(resp.StatusCode).To(Equal(http.StatusPreconditionFailed), "a PATCH with a stale etag")
	g.Expect(etagOf(nsg)).To(Equal(second), "a refused write changes nothing")
	resp = write(http.MethodPatch, nsg, map[string]any{"tags": map[string]any{"c": "d"}}, "If-Match", "*")
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	g.Expect(etagOf(nsg)).NotTo(Equal(second))

	status, group := c.get(testRG)
	g.Expect(status).To(Equal(http.StatusOK))
	g.Expect(group).NotTo(HaveKey("etag"), "only network resources report an etag")
}
