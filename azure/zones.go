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
	"maps"
	"slices"
	"strings"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// zonalRegions are the Azure regions (programmatic names) that have availability zones. Every such region has the
// three logical zones "1", "2" and "3". The provider never asks Azure, so the table is kept by hand from the Azure
// regions list (learn.microsoft.com/azure/reliability/regions-list); a region missing here gets no zones, and its
// users can still name failure domains in spec.failureDomains.
var zonalRegions = map[string]bool{
	// Americas.
	"brazilsouth": true, "canadacentral": true, "centralus": true, "chilecentral": true, "eastus": true,
	"eastus2": true, "mexicocentral": true, "southcentralus": true, "westus2": true, "westus3": true,
	"usgovvirginia": true,
	// Europe.
	"austriaeast": true, "belgiumcentral": true, "denmarkeast": true, "francecentral": true,
	"germanywestcentral": true, "italynorth": true, "northeurope": true, "norwayeast": true, "polandcentral": true,
	"spaincentral": true, "swedencentral": true, "switzerlandnorth": true, "uksouth": true, "westeurope": true,
	// Middle East and Africa.
	"israelcentral": true, "qatarcentral": true, "southafricanorth": true, "uaenorth": true,
	// Asia Pacific.
	"australiaeast": true, "centralindia": true, "eastasia": true, "indonesiacentral": true, "japaneast": true,
	"japanwest": true, "koreacentral": true, "malaysiawest": true, "newzealandnorth": true, "southeastasia": true,
	// Azure China.
	"chinanorth3": true,
}

// Zones returns the availability zones of an Azure region, or nil when it has none. The location may be a display
// name ("East US") or a programmatic name ("eastus").
func Zones(location string) []string {
	if !zonalRegions[normalizeLocation(location)] {
		return nil
	}
	return []string{"1", "2", "3"}
}

// FailureDomains returns the failure domains of a cluster for its status, sorted by name: none in an Edge Zone (as
// CAPZ v1.26.0, whose setFailureDomainsForLocation stops there, so machines get no zone); else the ones the spec
// names when there are any, otherwise one per availability zone of the location, each fit for control-plane
// machines, otherwise none (machines then go into an availability set).
func FailureDomains(location string, spec infrav1.FailureDomains, edgeZone *infrav1.ExtendedLocationSpec) []clusterv1.FailureDomain {
	if edgeZone != nil {
		return nil
	}
	if len(spec) > 0 {
		out := make([]clusterv1.FailureDomain, 0, len(spec))
		for _, name := range slices.Sorted(maps.Keys(spec)) {
			fd := clusterv1.FailureDomain{Name: name, ControlPlane: ptr.To(spec[name].ControlPlane)}
			if len(spec[name].Attributes) > 0 {
				fd.Attributes = maps.Clone(spec[name].Attributes)
			}
			out = append(out, fd)
		}
		return out
	}
	zones := Zones(location)
	if len(zones) == 0 {
		return nil
	}
	out := make([]clusterv1.FailureDomain, 0, len(zones))
	for _, zone := range zones {
		out = append(out, clusterv1.FailureDomain{Name: zone, ControlPlane: ptr.To(true)})
	}
	return out
}

func normalizeLocation(location string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(location)), " ", "")
}
