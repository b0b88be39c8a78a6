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

import "strings"

// DefaultFaultDomains is the fault domain count of an availability set in a region the table does not know: every
// region with aligned availability sets supports two.
const DefaultFaultDomains = 2

// faultDomains is the MaximumPlatformFaultDomainCount capability of the Aligned availability set SKU in the
// regions where it is not two, by programmatic name: what `az vm list-skus --resource-type availabilitySets`
// reports, the command Azure's availability sets overview gives for it
// (learn.microsoft.com/azure/virtual-machines/availability-set-overview), as Microsoft's own SAP deployment
// automation records it (github.com/Azure/sap-automation, deploy/configs/max_fault_domain_count.json). Azure's
// documentation no longer publishes a table; its older one ("Number of Fault Domains per region") is out of date.
var faultDomains = map[string]int{
	// Americas.
	"brazilsouth": 3, "canadacentral": 3, "centralus": 3, "eastus": 3, "eastus2": 3, "northcentralus": 3,
	"southcentralus": 3, "westus": 3, "westus2": 3, "westus3": 3,
	// Europe.
	"francecentral": 3, "northeurope": 3, "swedencentral": 3, "westeurope": 3,
	// Asia Pacific.
	"centralindia": 3, "japaneast": 3,
	// Regions with a single fault domain: sending two there would be refused.
	"centraluseuap": 1, "qatarcentral": 1,
}

// AvailabilitySetFaultDomains is the fault domain count CAPZ gives an availability set in a region: the region's
// maximum, from the resource SKU API. A region the table does not list gets DefaultFaultDomains. The location may
// be a display name ("East US") or a programmatic name ("eastus").
func AvailabilitySetFaultDomains(location string) int {
	if n, ok := faultDomains[strings.ReplaceAll(strings.ToLower(strings.TrimSpace(location)), " ", "")]; ok {
		return n
	}
	return DefaultFaultDomains
}
