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

package azuremachine

import (
	"context"
	"fmt"
	"strings"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/machinesecrets"
)

// ImageUnknownReason means the machine has neither an image nor a Kubernetes version to pick the default image.
const ImageUnknownReason = "ImageUnknown"

// OwnedKinds are the ASO kinds an AzureMachine owns; the controller watches them.
func OwnedKinds() []client.Object {
	return []client.Object{
		&asonetwork.PublicIPAddress{}, &asonetwork.LoadBalancersInboundNatRule{}, &asonetwork.NetworkInterface{},
		&asocompute.VirtualMachine{}, &asocompute.VirtualMachinesExtension{},
		&asoauthorization.RoleAssignment{},
	}
}

// deleteOrder deletes a machine's resources: the VM's dependents, the VM (its disks go with it), then its
// network interfaces, and then what they use: the public IP and the SSH rule.
var deleteOrder = [][]schema.GroupKind{
	{gk(asoauthorization.GroupVersion, "RoleAssignment"), gk(asocompute.GroupVersion, "VirtualMachinesExtension")},
	{gk(asocompute.GroupVersion, "VirtualMachine")},
	{gk(asonetwork.GroupVersion, "NetworkInterface")},
	{gk(asonetwork.GroupVersion, "PublicIPAddress"), gk(asonetwork.GroupVersion, "LoadBalancersInboundNatRule")},
}

func gk(gv schema.GroupVersion, kind string) schema.GroupKind { return gv.WithKind(kind).GroupKind() }

// reconcileClusterInfrastructure waits for the cluster's infrastructure and reads what the machine needs from it.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil || waiting != "" {
		s.waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return err
	}
	creds, err := infra.Credentials(ctx, r.Engine, s.azureMachine, s.cluster.Name, r.kinds)
	if err != nil {
		return err
	}
	s.infra, s.credentials = infra, creds
	if !creds.Ready {
		s.waiting = lifecycle.Wait{Reason: creds.Reason, Message: creds.Message}
	}
	return nil
}

// reconcileBootstrapData reads the Machine's bootstrap data until the VM exists (the AzureMachine has its provider
// ID, or ASO reports the VM created); afterwards the data is no longer part of the desired VM (Azure keeps it; it
// cannot change).
func (r *Reconciler) reconcileBootstrapData(ctx context.Context, s *scope) error {
	// The provider ID is set once the VM exists and, unlike ASO's status, survives clusterctl move.
	if ptr.Deref(s.azureMachine.Spec.ProviderID, "") != "" {
		s.vmCreated = true
		return nil
	}
	vm := &asocompute.VirtualMachine{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.azureMachine.Namespace, Name: azure.ObjectName(compute.VMName(s.azureMachine))}, vm)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil {
		if ready := genruntime.GetReadyCondition(vm); ready != nil && ready.Status == metav1.ConditionTrue {
			s.vmCreated = true
			return nil
		}
	}
	name := s.machine.Spec.Bootstrap.DataSecretName
	if name == nil {
		s.waiting = lifecycle.Wait{Reason: infrav1.WaitingForBootstrapDataReason, Message: "waiting for the Machine's bootstrap data secret"}
		return nil
	}
	data, err := machinesecrets.BootstrapData(ctx, r.APIReader, s.machine.Namespace, *name)
	s.bootstrapData = data
	return err
}

// reconcileResources translates the AzureMachine and hands the objects to the engine.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	am := s.azureMachine
	vmName := compute.VMName(am)
	controlPlane := util.IsControlPlaneMachine(s.machine)
	in := compute.MachineInput{
		Cluster:           s.infra.AzureCluster(s.cluster.Name),
		Name:              vmName,
		Spec:              am.Spec,
		Role:              azure.RoleNode,
		Zone:              failureDomain(s.machine, am),
		VNet:              s.infra.VNet(),
		DefaultSubnet:     s.infra.SubnetFor(infrav1.SubnetNode),
		BootstrapData:     s.bootstrapData,
		KubernetesVersion: s.machine.Spec.Version,
		AvailabilitySet:   compute.MachineAvailabilitySet(s.cluster.Name, s.infra.AvailabilitySets, s.machine, &am.Spec),
	}
	if controlPlane {
		in.Role, in.DefaultSubnet = azure.RoleControlPlane, s.infra.SubnetFor(infrav1.SubnetControlPlane)
		rule, err := r.sshRule(ctx, s)
		if err != nil {
			return err
		}
		in.SSHRule = rule
	}
	primarySubnet := in.DefaultSubnet // the subnet of the primary interface, as compute's nicInput picks it
	switch {
	case len(am.Spec.NetworkInterfaces) > 0 && am.Spec.NetworkInterfaces[0].SubnetName != "":
		primarySubnet = am.Spec.NetworkInterfaces[0].SubnetName
	case len(am.Spec.NetworkInterfaces) == 0 && am.Spec.SubnetName != "":
		primarySubnet = am.Spec.SubnetName
	}
	for _, pool := range s.infra.LBPools(controlPlane, am.Spec.AllocatePublicIP, s.infra.SubnetHasNATGateway(primarySubnet)) {
		in.BackendPools = append(in.BackendPools, compute.BackendPoolRef{LoadBalancer: pool.LoadBalancer, Pool: pool.Pool})
	}
	if in.AvailabilitySet != "" && s.vmCreated {
		// Azure cannot move a VM into an availability set: one created without (by an earlier release) keeps none.
		vm := &asocompute.VirtualMachine{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: am.Namespace, Name: azure.ObjectName(vmName)}, vm); err == nil && vm.Spec.AvailabilitySet == nil {
			in.AvailabilitySet = ""
		}
	}
	if am.Spec.Image == nil && s.machine.Spec.Version == "" {
		s.waiting = lifecycle.Wait{Reason: ImageUnknownReason, Message: "the Machine has no spec.version to choose the default image for, and the AzureMachine no spec.image"}
		return nil
	}
	if am.Spec.OSDisk.OSType == "Windows" {
		password, err := machinesecrets.WindowsPassword(ctx, r.APIReader, am.Namespace, vmName)
		if err != nil {
			return err
		}
		in.WindowsAdminPassword = password
	}
	result, err := r.Engine.Reconcile(ctx, am, compute.MachineResources(in), aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.credentials.SecretName,
		Kinds: r.kinds, Patches: aso.UserPatches(am.Spec.ASOPatches),
	})
	s.result = result
	return err
}

// sshRule returns the SSH rule of a control-plane machine on the cluster's API server load balancer, as CAPZ
// makes one for each (nil when there is none): on a public load balancer the machine's primary interface takes SSH
// connections from it; on an internal one it is unattached, as in CAPZ. A rule keeps the frontend port it has,
// unless an older rule of the same load balancer has it too (two machines created at once); a new rule takes the
// first free port (network.SSHFrontendPort) among the rules of the load balancer in the namespace.
func (r *Reconciler) sshRule(ctx context.Context, s *scope) (*network.SSHRule, error) {
	lb := s.infra.Network.APIServerLB
	if lb == nil || lb.Name == "" || len(lb.FrontendIPs) == 0 {
		return nil, nil
	}
	c := s.infra.AzureCluster(s.cluster.Name)
	lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, lb.Name)
	rules := &asonetwork.LoadBalancersInboundNatRuleList{}
	if err := r.Client.List(ctx, rules, client.InNamespace(s.azureMachine.Namespace)); err != nil {
		return nil, err
	}
	name := network.SSHRuleObjectName(lb.Name, compute.VMName(s.azureMachine))
	var mine *asonetwork.LoadBalancersInboundNatRule
	for i := range rules.Items {
		if rules.Items[i].Name == name {
			mine = &rules.Items[i]
		}
	}
	inUse, takenByOlder := sets.New[int](), sets.New[int]()
	for i := range rules.Items {
		other := &rules.Items[i]
		if other == mine || other.Spec.Owner == nil || !strings.EqualFold(other.Spec.Owner.ARMID, lbID) || other.Spec.FrontendPort == nil {
			continue
		}
		inUse.Insert(*other.Spec.FrontendPort)
		if mine != nil && olderThan(other, mine) {
			takenByOlder.Insert(*other.Spec.FrontendPort)
		}
	}
	rule := &network.SSHRule{LoadBalancer: lb.Name, Frontend: lb.FrontendIPs[0].Name, Unattached: lb.Type == infrav1.Internal}
	if mine != nil && mine.Spec.FrontendPort != nil && !takenByOlder.Has(*mine.Spec.FrontendPort) {
		rule.FrontendPort = *mine.Spec.FrontendPort
		return rule, nil
	}
	port, err := network.SSHFrontendPort(inUse)
	if err != nil {
		return nil, fmt.Errorf("failed to choose the SSH port of %s on load balancer %s: %w", s.azureMachine.Name, lb.Name, err)
	}
	rule.FrontendPort = port
	return rule, nil
}

// olderThan orders objects by creation, then by name.
func olderThan(a, b client.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// failureDomain is the Machine's failure domain, which wins over the deprecated AzureMachine field.
func failureDomain(machine *clusterv1.Machine, am *infrav1.AzureMachine) string {
	if machine.Spec.FailureDomain != "" {
		return machine.Spec.FailureDomain
	}
	return ptr.Deref(am.Spec.FailureDomain, "")
}

// reconcileMachineStatus reports the provider ID (azure:// and the VM's resource ID, as cloud-provider-azure
// writes it on the Node), the addresses and the VM's state.
func (r *Reconciler) reconcileMachineStatus(ctx context.Context, s *scope) error {
	am := s.azureMachine
	vmName := compute.VMName(am)
	key := client.ObjectKey{Namespace: am.Namespace, Name: azure.ObjectName(vmName)}
	vm := &asocompute.VirtualMachine{}
	if err := r.Client.Get(ctx, key, vm); err != nil {
		return client.IgnoreNotFound(err)
	}
	am.Status.VMState = ptr.Deref(vm.Status.ProvisioningState, "")
	am.Status.FailureDomain = failureDomain(s.machine, am)
	if id := ptr.Deref(vm.Status.Id, ""); id != "" && ptr.Deref(am.Spec.ProviderID, "") == "" {
		am.Spec.ProviderID = ptr.To("azure://" + id)
	}
	addresses := []clusterv1.MachineAddress{{Type: clusterv1.MachineHostName, Address: vmName}}
	for i := range am.Spec.NetworkInterfaces {
		nic := &asonetwork.NetworkInterface{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: am.Namespace, Name: azure.ObjectName(infrav1.NetworkInterfaceName(vmName, i, len(am.Spec.NetworkInterfaces)))}, nic); err != nil {
			return client.IgnoreNotFound(err)
		}
		for _, ipc := range nic.Status.IpConfigurations {
			if ip := ptr.Deref(ipc.PrivateIPAddress, ""); ip != "" {
				addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: ip})
			}
		}
	}
	if am.Spec.AllocatePublicIP {
		pip := &asonetwork.PublicIPAddress{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: am.Namespace, Name: azure.ObjectName(infrav1.MachinePublicIPName(vmName))}, pip); err == nil {
			if ip := ptr.Deref(pip.Status.IpAddress, ""); ip != "" {
				addresses = append(addresses, clusterv1.MachineAddress{Type: clusterv1.MachineExternalIP, Address: ip})
			}
		}
	}
	am.Status.Addresses = addresses
	return nil
}

// reconcileDelete deletes the machine's ASO objects; done once ASO has deleted them all.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (bool, error) {
	s.deleting = true
	done, result, err := r.Engine.Delete(ctx, s.azureMachine, aso.DeleteOptions{ClusterName: s.cluster.Name, Kinds: r.kinds, Order: deleteOrder})
	s.result = result
	return done, err
}
