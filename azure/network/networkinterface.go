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

package network

import (
	"slices"
	"strconv"

	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// nicPrimaryIPConfigName is the name of a network interface's primary IP configuration, and IPv6ConfigName
// that of its IPv6 configuration in an IPv6 subnet (a scale set's too), as CAPZ names them.
const (
	nicPrimaryIPConfigName = "pipConfig"
	IPv6ConfigName         = "ipConfigv6"
)

// NICBackendPool is a backend address pool of a load balancer in the cluster's resource group.
type NICBackendPool struct {
	// LoadBalancer is the load balancer's name.
	LoadBalancer string
	// Pool is the backend address pool's name.
	Pool string
}

// NICInput describes the network interfaces of a machine.
type NICInput struct {
	// Machine is the name of the virtual machine; the interfaces are named after it.
	Machine string
	// Interfaces are the machine's network interfaces, already defaulted; the first one is primary.
	Interfaces []infrav1.NetworkInterface
	// VNetName is the cluster's virtual network; VNetResourceGroup its resource group (empty: the cluster's).
	VNetName, VNetResourceGroup string
	// DefaultSubnet is the subnet of interfaces that name none.
	DefaultSubnet string
	// IPv6Subnets are the subnets with an IPv6 prefix (dual-stack or IPv6 clusters).
	IPv6Subnets []string
	// BackendPools are the load balancer pools the primary IP configuration of the primary interface joins.
	BackendPools []NICBackendPool
	// PublicIP is the name of the public IP address (our PublicIPAddress object) of the primary IP configuration
	// of the primary interface; empty for none.
	PublicIP string
	// SSHRule names the ASO object of the inbound NAT rule (InboundNATRule) the primary IP configuration of the
	// primary interface takes SSH connections from; empty for none.
	SSHRule string
	// AcceleratedNetworking is the accelerated networking of the interfaces whose spec leaves it unset: what the
	// VM size supports, as CAPZ decides it (skus.AcceleratedNetworking); nil sends none.
	AcceleratedNetworking *bool
	// EnableIPForwarding turns on IP forwarding on every interface.
	EnableIPForwarding bool
	// DNSServers are the DNS servers of the primary interface.
	DNSServers []string
	// AdditionalTags are added to the interfaces' tags.
	AdditionalTags map[string]string
}

// NetworkInterfaces returns one network interface per entry of in.Interfaces in the cluster's resource group, named
// as CAPZ names them (see infrav1.NetworkInterfaceName). Each interface has privateIPConfigs dynamic IP
// configurations in its subnet ("pipConfig", then <nic>-1, …, the first one primary), and an IPv6 one
// ("ipConfigv6") in an IPv6 subnet. Only the primary interface joins the load balancer pools, carries the public IP
// and the DNS servers, as in CAPZ.
func NetworkInterfaces(c azure.Cluster, in NICInput) []*asonetwork.NetworkInterface {
	vnetGroup := in.VNetResourceGroup
	if vnetGroup == "" {
		vnetGroup = c.ResourceGroup
	}
	vnetID := azure.ResourceID(c.SubscriptionID, vnetGroup, azure.TypeVirtualNetwork, in.VNetName)
	nics := make([]*asonetwork.NetworkInterface, 0, len(in.Interfaces))
	for i, spec := range in.Interfaces {
		name := infrav1.NetworkInterfaceName(in.Machine, i, len(in.Interfaces))
		subnet := in.subnetOf(spec)
		subnetID := azure.ChildID(vnetID, "subnets", subnet)
		configs := max(spec.PrivateIPConfigs, 1)
		accelerated := spec.AcceleratedNetworking
		if accelerated == nil && in.AcceleratedNetworking != nil {
			accelerated = ptr.To(*in.AcceleratedNetworking)
		}
		nic := &asonetwork.NetworkInterface{
			ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(name)},
			Spec: asonetwork.NetworkInterface_Spec{
				AzureName:                   name,
				Owner:                       c.ResourceGroupOwner(),
				Location:                    ptr.To(c.Location),
				ExtendedLocation:            extendedLocation(c),
				EnableAcceleratedNetworking: accelerated,
				EnableIPForwarding:          ptr.To(in.EnableIPForwarding),
				Tags:                        c.NamedTags(name, "", in.AdditionalTags),
			},
		}
		for n := range configs {
			config := asonetwork.NetworkInterfaceIPConfiguration_NetworkInterface_SubResourceEmbedded{
				Name:                      ptr.To(nicIPConfigName(name, n)),
				Primary:                   ptr.To(n == 0),
				PrivateIPAllocationMethod: ptr.To(asonetwork.IPAllocationMethod_Dynamic),
				Subnet:                    &asonetwork.Subnet_NetworkInterface_SubResourceEmbedded{Reference: &genruntime.ResourceReference{ARMID: subnetID}},
			}
			if i == 0 && n == 0 {
				for _, pool := range in.BackendPools {
					lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, pool.LoadBalancer)
					config.LoadBalancerBackendAddressPools = append(config.LoadBalancerBackendAddressPools, asonetwork.BackendAddressPool_NetworkInterface_SubResourceEmbedded{
						Reference: &genruntime.ResourceReference{ARMID: azure.ChildID(lbID, "backendAddressPools", pool.Pool)},
					})
				}
				if in.SSHRule != "" {
					// A Kubernetes reference: ASO waits for the rule before it creates the interface.
					config.LoadBalancerInboundNatRules = []asonetwork.InboundNatRule_NetworkInterface_SubResourceEmbedded{{
						Reference: &genruntime.ResourceReference{Group: asonetwork.GroupVersion.Group, Kind: "LoadBalancersInboundNatRule", Name: in.SSHRule},
					}}
				}
				if in.PublicIP != "" {
					config.PublicIPAddress = &asonetwork.PublicIPAddressSpec_NetworkInterface_SubResourceEmbedded{
						Reference: &genruntime.ResourceReference{Group: asonetwork.GroupVersion.Group, Kind: "PublicIPAddress", Name: azure.ObjectName(in.PublicIP)},
					}
				}
			}
			nic.Spec.IpConfigurations = append(nic.Spec.IpConfigurations, config)
		}
		if slices.Contains(in.IPv6Subnets, subnet) {
			// Azure gives an interface its IPv6 address through a secondary configuration in the same subnet.
			nic.Spec.IpConfigurations = append(nic.Spec.IpConfigurations, asonetwork.NetworkInterfaceIPConfiguration_NetworkInterface_SubResourceEmbedded{
				Name:                    ptr.To(IPv6ConfigName),
				Primary:                 ptr.To(false),
				PrivateIPAddressVersion: ptr.To(asonetwork.IPVersion_IPv6),
				Subnet:                  &asonetwork.Subnet_NetworkInterface_SubResourceEmbedded{Reference: &genruntime.ResourceReference{ARMID: subnetID}},
			})
		}
		// CAPZ sends DNS settings on every interface, empty but for the primary one's DNS servers.
		nic.Spec.DnsSettings = &asonetwork.NetworkInterfaceDnsSettings{}
		if i == 0 {
			nic.Spec.DnsSettings.DnsServers = in.DNSServers
		}
		nics = append(nics, nic)
	}
	return nics
}

// nicIPConfigName names the n-th IP configuration of a network interface.
func nicIPConfigName(nic string, n int) string {
	if n == 0 {
		return nicPrimaryIPConfigName
	}
	return nic + "-" + strconv.Itoa(n)
}

// subnetOf is the subnet of an interface: its own, else the default.
func (in NICInput) subnetOf(spec infrav1.NetworkInterface) string {
	if spec.SubnetName != "" {
		return spec.SubnetName
	}
	return in.DefaultSubnet
}

// PrimarySubnet is the subnet of the first (primary) interface, "" when there is none.
func (in NICInput) PrimarySubnet() string {
	if len(in.Interfaces) == 0 {
		return ""
	}
	return in.subnetOf(in.Interfaces[0])
}
