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
	"net/url"
	"testing"

	. "github.com/onsi/gomega"
)

// TestResourceSKUs: the resource SKU list of a subscription, whole or filtered by location as CAPZ asks for it: the
// virtual machine sizes with their zones and capabilities, the disk types and the aligned availability set.
func TestResourceSKUs(t *testing.T) {
	_, c := startClient(t, Options{})
	skus := "/subscriptions/" + testSubscription + "/providers/Microsoft.Compute/skus"
	list := func(filter string) (int, []any) {
		path := skus
		if filter != "" {
			path += "?$filter=" + url.QueryEscape(filter)
		}
		resp := c.do(http.MethodGet, path, nil, "2021-07-01")
		body := object(t, resp)
		value, _ := body["value"].([]any)
		return resp.StatusCode, value
	}
	t.Run("a location", func(t *testing.T) {
		g := NewWithT(t)
		status, value := list("location eq 'eastus'")
		g.Expect(status).To(Equal(http.StatusOK))
		g.Expect(value).To(HaveEach(HaveKeyWithValue("locations", ConsistOf("eastus"))))
		var d2s map[string]any
		for _, v := range value {
			if sku := v.(map[string]any); sku["name"] == "Standard_D2s_v3" && sku["resourceType"] == "virtualMachines" {
				d2s = sku
			}
		}
		g.Expect(d2s).NotTo(BeNil())
		g.Expect(d2s["locationInfo"]).To(ConsistOf(And(HaveKeyWithValue("location", "eastus"), HaveKeyWithValue("zones", ConsistOf("1", "2", "3")))))
		g.Expect(d2s["capabilities"]).To(ContainElements(
			map[string]any{"name": "vCPUs", "value": "2"},
			map[string]any{"name": "MemoryGB", "value": "8"},
			map[string]any{"name": "AcceleratedNetworkingEnabled", "value": "True"},
			map[string]any{"name": "EphemeralOSDiskSupported", "value": "True"},
		))
		g.Expect(value).To(ContainElement(And(HaveKeyWithValue("resourceType", "availabilitySets"), HaveKeyWithValue("name", "Aligned"),
			HaveKeyWithValue("capabilities", ContainElement(map[string]any{"name": "MaximumPlatformFaultDomainCount", "value": "3"})))))
		g.Expect(value).To(ContainElement(And(HaveKeyWithValue("resourceType", "disks"), HaveKeyWithValue("name", "Premium_LRS"))))
	})
	t.Run("a location without zones", func(t *testing.T) {
		g := NewWithT(t)
		status, value := list("location eq 'westus'")
		g.Expect(status).To(Equal(http.StatusOK))
		g.Expect(value).NotTo(BeEmpty())
		g.Expect(value).To(HaveEach(HaveKeyWithValue("locationInfo", ConsistOf(And(
			HaveKeyWithValue("location", "westus"), HaveKeyWithValue("zones", BeEmpty()))))))
	})
	t.Run("every location", func(t *testing.T) {
		g := NewWithT(t)
		status, all := list("")
		g.Expect(status).To(Equal(http.StatusOK))
		_, one := list("location eq 'westeurope'")
		g.Expect(all).To(HaveLen(len(one) * len(SKULocations)))
	})
	t.Run("a location without SKUs", func(t *testing.T) {
		g := NewWithT(t)
		status, value := list("location eq 'mars'")
		g.Expect(status).To(Equal(http.StatusOK))
		g.Expect(value).To(BeEmpty())
	})
	t.Run("another filter", func(t *testing.T) {
		g := NewWithT(t)
		resp := c.do(http.MethodGet, skus+"?$filter="+url.QueryEscape("name eq 'Standard_D2s_v3'"), nil, "2021-07-01")
		g.Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		g.Expect(errorCode(t, resp)).To(Equal("InvalidFilter"))
	})
}
