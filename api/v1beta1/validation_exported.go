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

package v1beta1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The experimental kinds (exp/api/v1beta1: AzureMachinePool) share the VM rules of AzureMachine; the validators
// they need are exported where they are defined. This file holds the few helpers that adapt AzureMachine's
// unexported defaults to their shape.

// ValidateNetworkResourceName checks the name of an Azure network resource such as a subnet.
func ValidateNetworkResourceName(path *field.Path, name string) field.ErrorList {
	return validateName(path, name, networkResourceNameRule)
}

// SetDataDiskDefaults gives every data disk a free LUN and a caching type, as on an AzureMachine. The disks are
// changed in place.
func SetDataDiskDefaults(disks []DataDisk) {
	s := AzureMachineSpec{DataDisks: disks}
	s.setDataDiskDefaults()
}

// SetNetworkInterfaceDefaults gives every network interface one private IP configuration, as on an AzureMachine.
// When there is no interface, it first makes one from the deprecated subnetName and acceleratedNetworking fields
// and clears them; when there are interfaces, the deprecated fields are left for validation to reject.
func SetNetworkInterfaceDefaults(nics *[]NetworkInterface, subnetName *string, acceleratedNetworking **bool) {
	s := AzureMachineSpec{NetworkInterfaces: *nics, SubnetName: *subnetName, AcceleratedNetworking: *acceleratedNetworking}
	s.setNetworkInterfaceDefaults()
	*nics, *subnetName, *acceleratedNetworking = s.NetworkInterfaces, s.SubnetName, s.AcceleratedNetworking
}
