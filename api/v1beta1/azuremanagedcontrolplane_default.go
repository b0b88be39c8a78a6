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
	"strings"

	"k8s.io/utils/ptr"
)

// SetDefaults fills in CAPZ's AzureManagedControlPlane defaults: the resource group from the Cluster's name, and
// the names AKS resources get from the control plane's name (node resource group, virtual network, subnet, DNS
// prefix, fleet member).
func (c *AzureManagedControlPlane) SetDefaults() {
	s := &c.Spec
	if s.ResourceGroupName == "" {
		s.ResourceGroupName = c.Labels[ClusterNameLabel]
	}
	s.setDefaults()
	// The network's resource group follows the control plane's, which a ClusterClass may patch: an object default.
	if s.VirtualNetwork.ResourceGroup == "" {
		s.VirtualNetwork.ResourceGroup = s.ResourceGroupName
	}
	if s.NodeResourceGroupName == "" && s.ResourceGroupName != "" && s.Location != "" {
		s.NodeResourceGroupName = AKSNodeResourceGroupName(s.ResourceGroupName, c.Name, s.Location)
	}
	if s.VirtualNetwork.Name == "" {
		s.VirtualNetwork.Name = AKSVirtualNetworkName(c.Name)
	}
	if s.VirtualNetwork.Subnet.Name == "" {
		s.VirtualNetwork.Subnet.Name = AKSSubnetName(c.Name)
	}
	if s.DNSPrefix == nil {
		s.DNSPrefix = ptr.To(c.Name)
	}
	if s.FleetsMember != nil {
		if s.FleetsMember.Name == "" {
			s.FleetsMember.Name = c.Labels[ClusterNameLabel]
		}
		if s.FleetsMember.Group == "" {
			s.FleetsMember.Group = DefaultFleetsMemberGroup
		}
	}
}

// setDefaults fills in the defaults that do not depend on the control plane's name; templates share them.
func (s *AzureManagedControlPlaneClassSpec) setDefaults() {
	if s.Version != "" && !strings.HasPrefix(s.Version, "v") {
		s.Version = "v" + s.Version
	}
	if s.SKU == nil {
		s.SKU = &AKSSku{Tier: FreeManagedControlPlaneTier}
	}
	if s.SKU.Tier == "" {
		s.SKU.Tier = FreeManagedControlPlaneTier
	}
	if s.SKU.Tier == PaidManagedControlPlaneTier {
		// AKS renamed the Paid tier to Standard.
		s.SKU.Tier = StandardManagedControlPlaneTier
	}
	if s.NetworkPlugin == nil {
		s.NetworkPlugin = ptr.To(NetworkPluginAzure)
	}
	if s.LoadBalancerSKU == nil {
		s.LoadBalancerSKU = ptr.To(ManagedLoadBalancerSKUStandard)
	}
	if s.Identity == nil {
		s.Identity = &ManagedControlPlaneIdentity{}
	}
	if s.Identity.Type == "" {
		s.Identity.Type = ManagedControlPlaneIdentityTypeSystemAssigned
	}
	if s.OIDCIssuerProfile == nil {
		s.OIDCIssuerProfile = &OIDCIssuerProfile{}
	}
	if s.OIDCIssuerProfile.Enabled == nil {
		s.OIDCIssuerProfile.Enabled = ptr.To(false)
	}
	overlay := ptr.Deref(s.NetworkPluginMode, "") == NetworkPluginModeOverlay
	if s.VirtualNetwork.CIDRBlock == "" {
		s.VirtualNetwork.CIDRBlock = DefaultAKSVnetCIDR
		if overlay {
			s.VirtualNetwork.CIDRBlock = DefaultAKSVnetCIDRForOverlay
		}
	}
	if s.VirtualNetwork.Subnet.CIDRBlock == "" {
		s.VirtualNetwork.Subnet.CIDRBlock = DefaultAKSNodeSubnetCIDR
		if overlay {
			s.VirtualNetwork.Subnet.CIDRBlock = DefaultAKSNodeSubnetCIDRForOverlay
		}
	}
	for i := range s.ASOPatches {
		if s.ASOPatches[i].Type == "" {
			s.ASOPatches[i].Type = MergePatchType
		}
	}
}
