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
	"regexp"
	"slices"
	"strings"
)

// SKULocations are the regions whose resource SKUs the fake lists (Microsoft.Compute/skus), each with availability
// zones 1, 2 and 3 but those of ZonelessLocations.
var SKULocations = []string{"eastus", "eastus2", "westus2", "westeurope", "westus"}

// ZonelessLocations are the regions of SKULocations without availability zones, as in Azure: a cluster there puts
// its machines into availability sets.
var ZonelessLocations = []string{"westus"}

// vmSKU is a virtual machine size as the resource SKU API describes it: the capabilities a client such as CAPZ reads
// (vCPUs and memory for its minimums, accelerated networking, ephemeral OS disks, encryption at host, the CPU
// architecture, the Hyper-V generations, premium storage), with Azure's values for the size.
type vmSKU struct {
	name, family, size                  string
	vCPUs, memoryGB                     string
	acceleratedNetworking               bool
	ephemeralOSDisk, premiumIO          bool
	maxDataDisks, maxNICs               string
	resourceVolumeMB, hyperVGenerations string
}

// vmSKUs are a few general-purpose sizes and a GPU one, the ones the flavors and the tests use among them.
var vmSKUs = []vmSKU{
	{name: "Standard_B2s", family: "standardBSFamily", size: "B2s", vCPUs: "2", memoryGB: "4", premiumIO: true,
		maxDataDisks: "4", maxNICs: "3", resourceVolumeMB: "8192", hyperVGenerations: "V1,V2"},
	{name: "Standard_D2s_v3", family: "standardDSv3Family", size: "D2s_v3", vCPUs: "2", memoryGB: "8", acceleratedNetworking: true,
		ephemeralOSDisk: true, premiumIO: true, maxDataDisks: "4", maxNICs: "2", resourceVolumeMB: "16384", hyperVGenerations: "V1,V2"},
	{name: "Standard_D4s_v3", family: "standardDSv3Family", size: "D4s_v3", vCPUs: "4", memoryGB: "16", acceleratedNetworking: true,
		ephemeralOSDisk: true, premiumIO: true, maxDataDisks: "8", maxNICs: "2", resourceVolumeMB: "32768", hyperVGenerations: "V1,V2"},
	{name: "Standard_D8s_v3", family: "standardDSv3Family", size: "D8s_v3", vCPUs: "8", memoryGB: "32", acceleratedNetworking: true,
		ephemeralOSDisk: true, premiumIO: true, maxDataDisks: "16", maxNICs: "4", resourceVolumeMB: "65536", hyperVGenerations: "V1,V2"},
	{name: "Standard_D2s_v5", family: "standardDSv5Family", size: "D2s_v5", vCPUs: "2", memoryGB: "8", acceleratedNetworking: true,
		premiumIO: true, maxDataDisks: "4", maxNICs: "2", resourceVolumeMB: "0", hyperVGenerations: "V1,V2"},
	{name: "Standard_D4s_v5", family: "standardDSv5Family", size: "D4s_v5", vCPUs: "4", memoryGB: "16", acceleratedNetworking: true,
		premiumIO: true, maxDataDisks: "8", maxNICs: "2", resourceVolumeMB: "0", hyperVGenerations: "V1,V2"},
	// The GPU size of the nvidia-gpu flavor in make parity.
	{name: "Standard_NC4as_T4_v3", family: "standardNCASv3_T4Family", size: "NC4as_T4_v3", vCPUs: "4", memoryGB: "28",
		acceleratedNetworking: true, ephemeralOSDisk: true, premiumIO: true, maxDataDisks: "8", maxNICs: "2",
		resourceVolumeMB: "180224", hyperVGenerations: "V1,V2"},
}

// diskSKUs are the managed disk types.
var diskSKUs = []struct{ name, tier string }{
	{"Standard_LRS", "Standard"}, {"StandardSSD_LRS", "Standard"}, {"Premium_LRS", "Premium"},
	{"StandardSSD_ZRS", "Standard"}, {"Premium_ZRS", "Premium"},
}

func isResourceSKUs(id armID) bool {
	return id.kind == kindCollection && id.subscription != "" && id.resourceGroup == "" &&
		strings.EqualFold(id.fullType(), "Microsoft.Compute/skus")
}

// skuFilter is the one $filter the list understands, the resource SKU API's location eq '…'.
var skuFilter = regexp.MustCompile(`^location eq '([^']*)'$`)

// listResourceSKUs answers GET /subscriptions/{id}/providers/Microsoft.Compute/skus: the virtual machine sizes, disk
// types and the aligned availability set of every region of SKULocations, or of the one the filter names, in one
// page.
func listResourceSKUs(filter string) answer {
	locations := SKULocations
	if filter != "" {
		m := skuFilter.FindStringSubmatch(strings.TrimSpace(filter))
		if m == nil {
			return errorAnswer(&armError{http.StatusBadRequest, "InvalidFilter", "The fake ARM understands only $filter=location eq '<location>'."})
		}
		locations = nil
		for _, l := range SKULocations {
			if strings.EqualFold(l, m[1]) {
				locations = append(locations, l)
			}
		}
	}
	value := []any{}
	for _, loc := range locations {
		for _, vm := range vmSKUs {
			value = append(value, vmSKUResource(vm, loc))
		}
		for _, d := range diskSKUs {
			value = append(value, map[string]any{
				"resourceType": "disks", "name": d.name, "tier": d.tier, "size": strings.TrimSuffix(strings.TrimSuffix(d.name, "_LRS"), "_ZRS"),
				"locations": []any{loc}, "locationInfo": []any{locationInfo(loc, !strings.HasSuffix(d.name, "_ZRS"))},
				"capabilities": []any{}, "restrictions": []any{},
			})
		}
		value = append(value, map[string]any{
			"resourceType": "availabilitySets", "name": "Aligned", "locations": []any{loc},
			"locationInfo": []any{locationInfo(loc, false)},
			"capabilities": []any{capability("MaximumPlatformFaultDomainCount", "3")}, "restrictions": []any{},
		})
	}
	return answer{status: http.StatusOK, body: map[string]any{"value": value}}
}

func vmSKUResource(vm vmSKU, loc string) map[string]any {
	yes := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	return map[string]any{
		"resourceType": "virtualMachines", "name": vm.name, "tier": "Standard", "size": vm.size, "family": vm.family,
		"locations": []any{loc}, "locationInfo": []any{locationInfo(loc, true)},
		"capabilities": []any{
			capability("MaxResourceVolumeMB", vm.resourceVolumeMB),
			capability("OSVhdSizeMB", "1047552"),
			capability("vCPUs", vm.vCPUs),
			capability("MemoryPreservingMaintenanceSupported", "True"),
			capability("HyperVGenerations", vm.hyperVGenerations),
			capability("MemoryGB", vm.memoryGB),
			capability("MaxDataDiskCount", vm.maxDataDisks),
			capability("CpuArchitectureType", "x64"),
			capability("LowPriorityCapable", "True"),
			capability("PremiumIO", yes(vm.premiumIO)),
			capability("VMDeploymentTypes", "IaaS"),
			capability("vCPUsAvailable", vm.vCPUs),
			capability("vCPUsPerCore", "2"),
			capability("EphemeralOSDiskSupported", yes(vm.ephemeralOSDisk)),
			capability("EncryptionAtHostSupported", "True"),
			capability("CapacityReservationSupported", "True"),
			capability("AcceleratedNetworkingEnabled", yes(vm.acceleratedNetworking)),
			capability("RdmaEnabled", "False"),
			capability("MaxNetworkInterfaces", vm.maxNICs),
		},
		"restrictions": []any{},
	}
}

// locationInfo is a SKU's region, with availability zones 1, 2 and 3 when the SKU is zonal and the region has zones.
func locationInfo(loc string, zonal bool) map[string]any {
	info := map[string]any{"location": loc, "zones": []any{}, "zoneDetails": []any{}}
	if zonal && !slices.Contains(ZonelessLocations, loc) {
		info["zones"] = []any{"1", "2", "3"}
	}
	return info
}

func capability(name, value string) map[string]any {
	return map[string]any{"name": name, "value": value}
}
