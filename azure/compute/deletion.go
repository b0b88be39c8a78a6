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

package compute

import (
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// AzureCapacity is the capacity Azure reports for a scale set (its ASO object's status); ok is false while ASO has
// not read it.
func AzureCapacity(obj azure.Object) (capacity int32, ok bool) {
	vmss, isScaleSet := obj.(*asocompute.VirtualMachineScaleSet)
	if !isScaleSet || vmss == nil || vmss.Status.Sku == nil || vmss.Status.Sku.Capacity == nil {
		return 0, false
	}
	return int32(*vmss.Status.Sku.Capacity), true
}
