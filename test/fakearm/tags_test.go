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

// TestTagsAtScope: the Tags API reads and changes the tags of a resource the fake holds (merge, delete, replace, and
// delete all), which the resource then reports; a scope the fake does not hold is not found.
func TestTagsAtScope(t *testing.T) {
	g := NewWithT(t)
	_, c := startInGroup(t, Options{})
	nsg := network + "/networkSecurityGroups/nsg"
	c.create(nsg, map[string]any{"location": "eastus", "tags": map[string]any{"a": "1"}})
	tags := nsg + "/providers/Microsoft.Resources/tags/default"
	tagsOf := func(resp *http.Response) any {
		t.Helper()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		body := object(t, resp)
		g.Expect(body).To(HaveKeyWithValue("type", "Microsoft.Resources/tags"))
		return at(body, "properties", "tags")
	}
	patch := func(op string, tags map[string]any) map[string]any {
		return map[string]any{"operation": op, "properties": map[string]any{"tags": tags}}
	}

	g.Expect(tagsOf(c.do(http.MethodGet, tags, nil, apiVersion))).To(Equal(map[string]any{"a": "1"}))
	before := str(object(t, c.do(http.MethodGet, nsg, nil, apiVersion)), "etag")
	g.Expect(tagsOf(c.do(http.MethodPatch, tags, patch("Merge", map[string]any{"b": "2", "c": "3"}), apiVersion))).
		To(Equal(map[string]any{"a": "1", "b": "2", "c": "3"}))
	_, got := c.get(nsg)
	g.Expect(got["tags"]).To(Equal(map[string]any{"a": "1", "b": "2", "c": "3"}), "the resource reports the merged tags")
	g.Expect(got["etag"]).NotTo(Equal(before))
	g.Expect(tagsOf(c.do(http.MethodPatch, tags, patch("Delete", map[string]any{"b": "", "c": "other"}), apiVersion))).
		To(Equal(map[string]any{"a": "1", "c": "3"}), "a deleted tag goes when its value is empty or matches")
	g.Expect(tagsOf(c.do(http.MethodPatch, tags, patch("Replace", map[string]any{"d": "4"}), apiVersion))).To(Equal(map[string]any{"d": "4"}))
	g.Expect(tagsOf(c.do(http.MethodPut, tags, map[string]any{"properties": map[string]any{"tags": map[string]any{"e": "5"}}}, apiVersion))).
		To(Equal(map[string]any{"e": "5"}))
	g.Expect(tagsOf(c.do(http.MethodDelete, tags, nil, apiVersion))).To(BeEmpty())
	g.Expect(tagsOf(c.do(http.MethodGet, testRG+"/providers/Microsoft.Resources/tags/default", nil, apiVersion))).To(BeEmpty(), "a resource group's")

	resp := c.do(http.MethodPatch, tags, patch("Append", map[string]any{"x": "y"}), apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	resp = c.do(http.MethodGet, network+"/networkSecurityGroups/other/providers/Microsoft.Resources/tags/default", nil, apiVersion)
	g.Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	g.Expect(errorCode(t, resp)).To(Equal("ResourceNotFound"))
}
