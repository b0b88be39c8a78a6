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
	"testing"

	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestClusterHasAvailabilitySets(t *testing.T) {
	for _, tc := range []struct {
		name             string
		location         string
		failureDomains   infrav1.FailureDomains
		extendedLocation *infrav1.ExtendedLocationSpec
		want             bool
	}{
		{name: "a region without zones", location: "northcentralus", want: true},
		{name: "a region without zones, by display name", location: "North Central US", want: true},
		{name: "a region with zones", location: "eastus", want: false},
		{name: "failure domains named in the spec", location: "northcentralus",
			failureDomains: infrav1.FailureDomains{"fd-1": {ControlPlane: true}}, want: false},
		{name: "an Edge Zone", location: "westus",
			extendedLocation: &infrav1.ExtendedLocationSpec{Name: "losangeles", Type: "EdgeZone"}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClusterHasAvailabilitySets(tc.location, tc.failureDomains, tc.extendedLocation); got != tc.want {
				t.Errorf("ClusterHasAvailabilitySets(%q, %v, %v) = %v, want %v", tc.location, tc.failureDomains, tc.extendedLocation, got, tc.want)
			}
		})
	}
}

func TestMachineAvailabilitySet(t *testing.T) {
	machine := func(labels map[string]string, failureDomain string) *clusterv1.Machine {
		return &clusterv1.Machine{
			ObjectMeta: metav1.ObjectMeta{Name: "m", Labels: labels},
			Spec:       clusterv1.MachineSpec{FailureDomain: failureDomain},
		}
	}
	controlPlane := map[string]string{clusterv1.MachineControlPlaneLabel: ""}
	deployment := map[string]string{clusterv1.MachineDeploymentNameLabel: "md-0", clusterv1.MachineSetNameLabel: "md-0-abcde"}
	machineSet := map[string]string{clusterv1.MachineSetNameLabel: "ms-0"}
	for _, tc := range []struct {
		name        string
		clusterSets bool
		machine     *clusterv1.Machine
		spec        *infrav1.AzureMachineSpec
		want        string
	}{
		{name: "control plane", clusterSets: true, machine: machine(controlPlane, ""), want: "c1_control-plane-as"},
		{name: "a MachineDeployment's machine", clusterSets: true, machine: machine(deployment, ""), spec: &infrav1.AzureMachineSpec{}, want: "c1_md-0-as"},
		{name: "a MachineSet's machine", clusterSets: true, machine: machine(machineSet, ""), want: "c1_ms-0-as"},
		{name: "a machine of no node group", clusterSets: true, machine: machine(nil, ""), want: ""},
		{name: "a machine pool's machine", clusterSets: true, machine: machine(map[string]string{clusterv1.MachinePoolNameLabel: "mp-0"}, ""), want: ""},
		{name: "a cluster in a region with zones", clusterSets: false, machine: machine(controlPlane, ""), want: ""},
		{name: "a Machine failure domain", clusterSets: true, machine: machine(deployment, "fd-1"), want: ""},
		{name: "an AzureMachine failure domain", clusterSets: true, machine: machine(deployment, ""),
			spec: &infrav1.AzureMachineSpec{FailureDomain: ptr.To("fd-1")}, want: ""},
		{name: "a spot VM", clusterSets: true, machine: machine(deployment, ""),
			spec: &infrav1.AzureMachineSpec{SpotVMOptions: &infrav1.SpotVMOptions{MaxPrice: ptr.To(resource.MustParse("0.1"))}}, want: ""},
		{name: "a VM in a scale set", clusterSets: true, machine: machine(deployment, ""),
			spec: &infrav1.AzureMachineSpec{VirtualMachineScaleSetID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss"}, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MachineAvailabilitySet("c1", tc.clusterSets, tc.machine, tc.spec); got != tc.want {
				t.Errorf("MachineAvailabilitySet() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAvailabilitySet(t *testing.T) {
	c := testCluster
	c.Location, c.ResourceGroupByID = "northcentralus", false
	golden.Assert(t, "availability-set", AvailabilitySet(c, AvailabilitySetName(c.Name, "control-plane")))
}

// The Kubernetes name of an availability set's object holds no underscore; its Azure name keeps CAPZ's.
func TestAvailabilitySet_Names(t *testing.T) {
	as := AvailabilitySet(azure.Cluster{Name: "c1", Location: "northcentralus", ResourceGroup: "rg"}, AvailabilitySetName("c1", "md-0"))
	if as.Spec.AzureName != "c1_md-0-as" {
		t.Errorf("azureName = %q, want c1_md-0-as", as.Spec.AzureName)
	}
	if ref := availabilitySetReference(as.Spec.AzureName); ref.Name != as.Name {
		t.Errorf("the VM's reference names %q, the object is %q", ref.Name, as.Name)
	}
}

// An availability set has as many fault domains as its region allows, as CAPZ gives it from the resource SKU API.
func TestAvailabilitySet_FaultDomains(t *testing.T) {
	tests := []struct {
		name     string
		location string
		want     int
	}{
		{name: "a region with three", location: "northcentralus", want: 3},
		{name: "a region with two", location: "ukwest", want: 2},
		{name: "an unknown region gets two", location: "newregion", want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := AvailabilitySet(azure.Cluster{Name: "c1", Location: tt.location, ResourceGroup: "rg"}, AvailabilitySetName("c1", "md-0"))
			if got := ptr.Deref(as.Spec.PlatformFaultDomainCount, 0); got != tt.want {
				t.Errorf("platformFaultDomainCount = %d, want %d", got, tt.want)
			}
		})
	}
}

// An existing availability set keeps its fault domain count: Azure's once known, else the one it was made with.
func TestKeepFaultDomains(t *testing.T) {
	c := azure.Cluster{Name: "c1", Location: "northcentralus", ResourceGroup: "rg"}
	made := func(spec, status *int) *asocomputeavset.AvailabilitySet {
		as := AvailabilitySet(c, AvailabilitySetName("c1", "md-0"))
		as.Spec.PlatformFaultDomainCount, as.Status.PlatformFaultDomainCount = spec, status
		return as
	}
	tests := []struct {
		name string
		live azure.Object
		want int
	}{
		{name: "a new set gets the region's maximum", live: nil, want: 3},
		{name: "one made by an earlier release keeps two", live: made(ptr.To(2), nil), want: 2},
		{name: "Azure's count wins", live: made(ptr.To(3), ptr.To(2)), want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := AvailabilitySet(c, AvailabilitySetName("c1", "md-0"))
			KeepFaultDomains(as, tt.live)
			if got := ptr.Deref(as.Spec.PlatformFaultDomainCount, 0); got != tt.want {
				t.Errorf("platformFaultDomainCount = %d, want %d", got, tt.want)
			}
		})
	}
}
