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

package azure

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

func TestZones(t *testing.T) {
	tests := []struct {
		location string
		want     []string
	}{
		{location: "eastus", want: []string{"1", "2", "3"}},
		{location: "East US 2", want: []string{"1", "2", "3"}},
		{location: "westeurope", want: []string{"1", "2", "3"}},
		{location: "westus", want: nil},
		{location: "northcentralus", want: nil},
		{location: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.location, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(Zones(tt.location)).To(Equal(tt.want))
		})
	}
}

func TestFailureDomains(t *testing.T) {
	tests := []struct {
		name     string
		location string
		spec     infrav1.FailureDomains
		edgeZone *infrav1.ExtendedLocationSpec
		want     []clusterv1.FailureDomain
	}{
		{
			name:     "zones of the location",
			location: "eastus",
			want: []clusterv1.FailureDomain{
				{Name: "1", ControlPlane: ptr.To(true)},
				{Name: "2", ControlPlane: ptr.To(true)},
				{Name: "3", ControlPlane: ptr.To(true)},
			},
		},
		{
			name:     "none in an Edge Zone, even with a spec",
			location: "eastus",
			spec:     infrav1.FailureDomains{"1": {ControlPlane: true}},
			edgeZone: &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"},
			want:     nil,
		},
		{
			name:     "no zones in the location",
			location: "westus",
			want:     nil,
		},
		{
			name:     "the spec wins, sorted by name",
			location: "eastus",
			spec: infrav1.FailureDomains{
				"3": {ControlPlane: false},
				"1": {ControlPlane: true, Attributes: map[string]string{"rack": "a"}},
			},
			want: []clusterv1.FailureDomain{
				{Name: "1", ControlPlane: ptr.To(true), Attributes: map[string]string{"rack": "a"}},
				{Name: "3", ControlPlane: ptr.To(false)},
			},
		},
		{
			name:     "the spec in a location without zones",
			location: "westus",
			spec:     infrav1.FailureDomains{"fd-b": {}, "fd-a": {ControlPlane: true}},
			want: []clusterv1.FailureDomain{
				{Name: "fd-a", ControlPlane: ptr.To(true)},
				{Name: "fd-b", ControlPlane: ptr.To(false)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(FailureDomains(tt.location, tt.spec, tt.edgeZone)).To(Equal(tt.want))
		})
	}
}
