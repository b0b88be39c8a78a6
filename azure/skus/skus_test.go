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

package skus

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
)

func TestAcceleratedNetworking(t *testing.T) {
	tests := []struct {
		name   string
		vmSize string
		want   *bool
	}{
		{name: "a size of CAPZ's templates with the capability", vmSize: "Standard_D2s_v3", want: ptr.To(true)},
		{name: "names are case-insensitive", vmSize: "standard_d4S_V3", want: ptr.To(true)},
		{name: "a burstable size without it", vmSize: "Standard_B2s", want: ptr.To(false)},
		{name: "the largest Bv1 sizes have it", vmSize: "Standard_B12ms", want: ptr.To(true)},
		{name: "Bsv2 has it", vmSize: "Standard_B2s_v2", want: ptr.To(true)},
		{name: "a GPU size without it", vmSize: "Standard_NC6s_v3", want: ptr.To(false)},
		{name: "a GPU size with it", vmSize: "Standard_NC4as_T4_v3", want: ptr.To(true)},
		{name: "an unknown size", vmSize: "Standard_Z9000_v9", want: nil},
		{name: "a one-vCPU DSv2 size is unknown", vmSize: "Standard_DS1_v2", want: nil},
		{name: "no size", vmSize: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(AcceleratedNetworking(tt.vmSize)).To(Equal(tt.want))
		})
	}
}

// TestVMSizeSeries keeps the table consistent: every size is named once, with Azure's prefix.
func TestVMSizeSeries(t *testing.T) {
	g := NewWithT(t)
	seen := map[string]string{}
	for _, s := range vmSizeSeries {
		g.Expect(s.sizes).NotTo(BeEmpty(), s.series)
		for _, size := range s.sizes {
			g.Expect(size).To(HavePrefix("Standard_"))
			key := strings.ToLower(size)
			g.Expect(seen).NotTo(HaveKey(key), "%s is in %s and %s", size, seen[key], s.series)
			seen[key] = s.series
		}
	}
}

func TestAvailabilitySetFaultDomains(t *testing.T) {
	tests := []struct {
		name     string
		location string
		want     int
	}{
		{name: "a region with three", location: "northcentralus", want: 3},
		{name: "a display name", location: "West US", want: 3},
		{name: "a region with two", location: "uksouth", want: 2},
		{name: "a region with one", location: "qatarcentral", want: 1},
		{name: "an unknown region gets two", location: "marsnorth", want: DefaultFaultDomains},
		{name: "no region", location: "", want: DefaultFaultDomains},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(AvailabilitySetFaultDomains(tt.location)).To(Equal(tt.want))
		})
	}
}
