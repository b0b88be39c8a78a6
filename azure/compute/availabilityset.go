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
	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/skus"
)

// FamilyAvailabilitySets gives the AzureCluster its AvailabilitySetsReady condition.
var FamilyAvailabilitySets = azure.NewFamily("AvailabilitySets")

// controlPlaneNodeGroup is the node group of a cluster's control-plane machines.
const controlPlaneNodeGroup = "control-plane"

// AvailabilitySetName is the Azure name of a node group's availability set, as CAPZ names it:
// "<cluster>_<node group>-as".
func AvailabilitySetName(cluster, nodeGroup string) string { return cluster + "_" + nodeGroup + "-as" }

// MachineAvailabilitySet returns the Azure name of the availability set a machine's VM goes into, or "" for none.
// A cluster whose region has no availability zones (and no failure domains named in its spec) spreads each node
// group over an availability set, as CAPZ does: the control plane, each MachineDeployment, and each MachineSet
// outside a MachineDeployment. A machine with a failure domain, a spot VM, a VM in a scale set, or one in an Edge
// Zone goes into none, nor does a machine of no node group. spec is the machine's AzureMachine spec; nil when it is
// not known, which counts as a VM that may go into one.
func MachineAvailabilitySet(cluster string, clusterHasAvailabilitySets bool, machine *clusterv1.Machine, spec *infrav1.AzureMachineSpec) string {
	if !clusterHasAvailabilitySets || machine.Spec.FailureDomain != "" {
		return ""
	}
	if spec != nil && (spec.FailureDomain != nil || spec.SpotVMOptions != nil || spec.VirtualMachineScaleSetID != "") {
		return ""
	}
	if _, pool := machine.Labels[clusterv1.MachinePoolNameLabel]; pool {
		return ""
	}
	if _, controlPlane := machine.Labels[clusterv1.MachineControlPlaneLabel]; controlPlane {
		return AvailabilitySetName(cluster, controlPlaneNodeGroup)
	}
	if md := machine.Labels[clusterv1.MachineDeploymentNameLabel]; md != "" {
		return AvailabilitySetName(cluster, md)
	}
	if ms := machine.Labels[clusterv1.MachineSetNameLabel]; ms != "" {
		return AvailabilitySetName(cluster, ms)
	}
	return ""
}

// ClusterHasAvailabilitySets tells whether a cluster's machines go into availability sets: its region has no
// availability zones, its spec names no failure domains, and it is not in an Edge Zone.
func ClusterHasAvailabilitySets(location string, failureDomains infrav1.FailureDomains, extendedLocation *infrav1.ExtendedLocationSpec) bool {
	return extendedLocation == nil && len(azure.FailureDomains(location, failureDomains, nil)) == 0
}

// AvailabilitySet returns an aligned availability set (the kind managed disks need) in the cluster's resource
// group, with as many fault domains as the region allows, as CAPZ does (skus.AvailabilitySetFaultDomains). Azure's
// default of five update domains is kept.
func AvailabilitySet(c azure.Cluster, name string) *asocomputeavset.AvailabilitySet {
	return &asocomputeavset.AvailabilitySet{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(name)},
		Spec: asocomputeavset.AvailabilitySet_Spec{
			AzureName:                name,
			Owner:                    c.ResourceGroupOwner(),
			Location:                 ptr.To(c.Location),
			PlatformFaultDomainCount: ptr.To(skus.AvailabilitySetFaultDomains(c.Location)),
			Sku:                      &asocomputeavset.Sku{Name: ptr.To("Aligned")},
			Tags:                     c.NamedTags(name, azure.RoleCommon, c.MachineTags(nil)),
		},
	}
}

// availabilitySetReference references the ASO object of a machine's availability set.
func availabilitySetReference(name string) *genruntime.ResourceReference {
	return &genruntime.ResourceReference{Group: asocomputeavset.GroupVersion.Group, Kind: "AvailabilitySet", Name: azure.ObjectName(name)}
}

// KeepFaultDomains gives an availability set whose ASO object exists (live; nil for none) the fault domain count it
// has, Azure's once ASO has read it: Azure never changes the count of a set, and CAPZ never updates an existing set.
// A set made by an earlier release, which gave every set two, keeps two.
func KeepFaultDomains(set *asocomputeavset.AvailabilitySet, live azure.Object) {
	existing, ok := live.(*asocomputeavset.AvailabilitySet)
	if !ok || existing == nil {
		return
	}
	switch {
	case existing.Status.PlatformFaultDomainCount != nil:
		set.Spec.PlatformFaultDomainCount = ptr.To(*existing.Status.PlatformFaultDomainCount)
	case existing.Spec.PlatformFaultDomainCount != nil:
		set.Spec.PlatformFaultDomainCount = ptr.To(*existing.Spec.PlatformFaultDomainCount)
	}
}

// AvailabilitySets is an object of the kind of availability sets, to list them (aso.Engine.List).
func AvailabilitySets() azure.Object { return &asocomputeavset.AvailabilitySet{} }

// AvailabilitySetsOf are the Azure names of the availability sets among objects that owner controls (those it made).
func AvailabilitySetsOf(objects []azure.Object, owner metav1.Object) []string {
	var out []string
	for _, o := range objects {
		if set, ok := o.(*asocomputeavset.AvailabilitySet); ok && metav1.IsControlledBy(set, owner) {
			out = append(out, set.Spec.AzureName)
		}
	}
	return out
}
