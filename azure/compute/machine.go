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
	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/authorization"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/azure/skus"
)

// Families of a machine's objects: each gives the AzureMachine one <Family>Ready condition. Supporting Secrets have
// none.
var (
	FamilyPublicIPs         = azure.NewFamily("PublicIPs")
	FamilyNetworkInterfaces = azure.NewFamily("NetworkInterfaces")
	FamilyVirtualMachine    = azure.NewFamily("VirtualMachine")
	FamilyVMExtensions      = azure.NewFamily("VMExtensions")
	FamilyRoleAssignments   = azure.NewFamily("RoleAssignments")
	FamilyInboundNATRules   = azure.NewFamily("InboundNATRules")
)

// VNetRef names the cluster's virtual network.
type VNetRef struct {
	// Name of the virtual network.
	Name string
	// ResourceGroup of the virtual network; empty means the cluster's resource group.
	ResourceGroup string
	// IPv6Subnets are the subnets with an IPv6 prefix: network interfaces in them get an IPv6 address too.
	IPv6Subnets []string
}

// BackendPoolRef names a backend address pool of a load balancer in the cluster's resource group.
type BackendPoolRef struct {
	// LoadBalancer is the load balancer's name.
	LoadBalancer string
	// Pool is the backend address pool's name.
	Pool string
}

// MachineInput is everything the translators need to know about an AzureMachine, resolved by the controller.
type MachineInput struct {
	// Cluster holds the location, resource group, subscription and tags of the cluster.
	Cluster azure.Cluster
	// Name is the AzureMachine's name, which is also the VM's name.
	Name string
	// Spec is the AzureMachine's spec, as its webhook defaulted it.
	Spec infrav1.AzureMachineSpec
	// Role is azure.RoleControlPlane or azure.RoleNode.
	Role string
	// Zone is the Machine's failure domain; empty for none.
	Zone string
	// VNet is the cluster's virtual network.
	VNet VNetRef
	// DefaultSubnet is the subnet of network interfaces that name none: the cluster's control-plane or node subnet.
	DefaultSubnet string
	// BackendPools are the load balancer pools the primary network interface joins: for control-plane machines
	// the API server pool (and the control-plane outbound pool when there is one), for worker machines the node
	// outbound pool when there is one.
	BackendPools []BackendPoolRef
	// BootstrapData is the Machine's bootstrap data (cloud-config or ignition, which makes no difference to the
	// VM); nil once the VM exists, as Azure never changes a VM's custom data.
	BootstrapData []byte
	// KubernetesVersion is the Machine's Kubernetes version, which selects the default image.
	KubernetesVersion string
	// WindowsAdminPassword is the admin password of a Windows machine. It is stored in a Secret that the VM
	// references, never in an ASO object's spec.
	WindowsAdminPassword string
	// ScaleSet names the VirtualMachineScaleSet object of the Flexible scale set the VM joins, an instance of an
	// AzureMachinePool; empty for none (spec.virtualMachineScaleSetID may still name one by ARM ID).
	ScaleSet string
	// SSHRule is the inbound NAT rule of a control-plane machine on a public API server load balancer, which its
	// primary interface takes SSH connections from; nil for none.
	SSHRule *network.SSHRule
	// AvailabilitySet is the Azure name of the availability set the VM goes into (MachineAvailabilitySet); empty for
	// none. The cluster's controller creates it.
	AvailabilitySet string
	// TerminateNotificationTimeout turns on terminate notifications: the minutes Azure waits before deleting the
	// VM (an AzureMachinePool's template.terminateNotificationTimeout); nil for none.
	TerminateNotificationTimeout *int32
}

// MachineResources returns every object of a machine, in the order the engine applies them: its public IP, its
// SSH rule on the API server load balancer, its network interfaces, the VM, the Secrets ASO reads (the Windows admin password, protected extension settings),
// the VM extensions and the role assignment of its system-assigned identity.
func MachineResources(in MachineInput) []azure.Resource {
	var out []azure.Resource
	if in.Spec.AllocatePublicIP {
		pip := network.PublicIPAddress(in.Cluster, network.PublicIPInput{
			Spec:  infrav1.PublicIPSpec{Name: infrav1.MachinePublicIPName(in.Name)},
			Zones: zones(in.Zone),
		})
		out = append(out, azure.Resource{Object: pip, Family: FamilyPublicIPs})
	}
	if in.SSHRule != nil {
		out = append(out, azure.Resource{Object: network.InboundNATRule(in.Cluster, in.Name, *in.SSHRule), Family: FamilyInboundNATRules})
	}
	for _, nic := range network.NetworkInterfaces(in.Cluster, nicInput(in)) {
		out = append(out, azure.Resource{Object: nic, Family: FamilyNetworkInterfaces})
	}
	out = append(out, azure.Resource{Object: VirtualMachine(in), Family: FamilyVirtualMachine})
	if secret := WindowsPasswordSecret(in); secret != nil {
		out = append(out, azure.Resource{Object: secret})
	}
	extensions, secrets := VirtualMachinesExtensions(in)
	for _, secret := range secrets {
		out = append(out, azure.Resource{Object: secret})
	}
	for _, ext := range extensions {
		out = append(out, azure.Resource{Object: ext, Family: FamilyVMExtensions})
	}
	if in.Spec.Identity == infrav1.VMIdentitySystemAssigned {
		out = append(out, azure.Resource{Object: authorization.RoleAssignment(in.Cluster, roleAssignmentInput(in)), Family: FamilyRoleAssignments})
	}
	return out
}

// PrimarySubnet is the subnet of the machine's primary network interface, which decides its outbound load balancer
// pools (a subnet with a NAT gateway needs none).
func PrimarySubnet(in MachineInput) string { return nicInput(in).PrimarySubnet() }

// nicInput describes the machine's network interfaces.
func nicInput(in MachineInput) network.NICInput {
	nics := network.NICInput{
		Machine:           in.Name,
		Interfaces:        in.Spec.NetworkInterfaces,
		VNetName:          in.VNet.Name,
		VNetResourceGroup: in.VNet.ResourceGroup,
		IPv6Subnets:       in.VNet.IPv6Subnets,
		DefaultSubnet:     in.DefaultSubnet,
		// As CAPZ: an interface that leaves accelerated networking unset gets what the VM size supports.
		AcceleratedNetworking: skus.AcceleratedNetworking(in.Spec.VMSize),
		EnableIPForwarding:    in.Spec.EnableIPForwarding,
		DNSServers:            in.Spec.DNSServers,
		AdditionalTags:        in.Cluster.MachineTags(in.Spec.AdditionalTags),
	}
	if len(nics.Interfaces) == 0 {
		// Defaulting always leaves one interface; keep a machine that skipped it reachable all the same.
		nics.Interfaces = []infrav1.NetworkInterface{{SubnetName: in.Spec.SubnetName, AcceleratedNetworking: in.Spec.AcceleratedNetworking}}
	}
	for _, pool := range in.BackendPools {
		nics.BackendPools = append(nics.BackendPools, network.NICBackendPool{LoadBalancer: pool.LoadBalancer, Pool: pool.Pool})
	}
	if in.Spec.AllocatePublicIP {
		nics.PublicIP = infrav1.MachinePublicIPName(in.Name)
	}
	if in.SSHRule != nil && !in.SSHRule.Unattached {
		nics.SSHRule = network.SSHRuleObjectName(in.SSHRule.LoadBalancer, in.Name)
	}
	return nics
}

// roleAssignmentInput describes the role assignment of the machine's system-assigned identity.
func roleAssignmentInput(in MachineInput) authorization.RoleAssignmentInput {
	ra := authorization.RoleAssignmentInput{PrincipalFrom: principalIDConfigMap(in.Name)}
	if role := in.Spec.SystemAssignedIdentityRole; role != nil {
		ra.Name, ra.Scope, ra.DefinitionID = role.Name, role.Scope, role.DefinitionID
	}
	if ra.Name == "" {
		// Defaulting names the assignment; a machine that skipped it keeps a stable name all the same.
		ra.Name = in.Spec.RoleAssignmentName
	}
	return ra
}

// zones is the single zone of a zonal resource, or none.
func zones(zone string) []string {
	if zone == "" {
		return nil
	}
	return []string{zone}
}
