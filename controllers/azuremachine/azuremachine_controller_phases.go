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
	"time"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"

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

// reconcileClusterInfrastructure waits for the cluster's infrastructure and reads what the machine needs from it.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil || waiting != "" {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return err
	}
	creds, err := infra.Credentials(ctx, r.Engine, s.azureMachine, s.cluster.Name, s.Kinds)
	if err != nil {
		return err
	}
	s.infra, s.Credentials = infra, &creds
	if !creds.Ready {
		s.Waiting = lifecycle.Wait{Reason: creds.Reason, Message: creds.Message}
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
	vm, err := r.Engine.Read(ctx, s.azureMachine.Namespace, compute.VirtualMachineRef(compute.VMName(s.azureMachine)))
	if err != nil {
		return err
	}
	if compute.VMCreated(vm) {
		s.vmCreated = true
		return nil
	}
	name := s.machine.Spec.Bootstrap.DataSecretName
	if name == nil {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForBootstrapDataReason, Message: "waiting for the Machine's bootstrap data secret"}
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
		if err != nil || s.Waiting.Reason != "" {
			return err
		}
		in.SSHRule = rule
	}
	for _, pool := range s.infra.LBPools(controlPlane, am.Spec.AllocatePublicIP, s.infra.SubnetHasNATGateway(compute.PrimarySubnet(in))) {
		in.BackendPools = append(in.BackendPools, compute.BackendPoolRef{LoadBalancer: pool.LoadBalancer, Pool: pool.Pool})
	}
	if in.AvailabilitySet != "" && s.vmCreated {
		// Azure cannot move a VM into an availability set: one created without (by an earlier release) keeps none.
		if vm, err := r.Engine.Read(ctx, am.Namespace, compute.VirtualMachineRef(vmName)); err == nil && compute.VMInNoAvailabilitySet(vm) {
			in.AvailabilitySet = ""
		}
	}
	if am.Spec.Image == nil && s.machine.Spec.Version == "" {
		s.Waiting = lifecycle.Wait{Reason: ImageUnknownReason, Message: "the Machine has no spec.version to choose the default image for, and the AzureMachine no spec.image"}
		return nil
	}
	if am.Spec.OSDisk.OSType == azure.WindowsOS {
		password, err := machinesecrets.WindowsPassword(ctx, r.APIReader, am.Namespace, vmName)
		if err != nil {
			return err
		}
		in.WindowsAdminPassword = password
	}
	resources := compute.MachineResources(in)
	// An existing interface keeps its accelerated networking (Azure changes it only on a deallocated VM).
	if err := compute.KeepAcceleratedNetworking(resources, func(o azure.Object) (azure.Object, error) {
		return r.Engine.Read(ctx, am.Namespace, o)
	}); err != nil {
		return err
	}
	resources, err := r.takeOver(ctx, s, resources)
	if err != nil {
		return err
	}
	result, err := r.Engine.Reconcile(ctx, am, resources, aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.Credentials.SecretName,
		Kinds: s.Kinds, Patches: aso.UserPatches(am.Spec.ASOPatches),
	})
	s.Result = result
	return err
}

// LoadBalancerNotReadReason means a control-plane machine waits for ASO to read the API server load balancer, whose
// status tells the port Azure holds for the machine's SSH rule (network.SSHPortKnown).
const LoadBalancerNotReadReason = "WaitingForLoadBalancer"

// sshRuleRecheck is how soon a control-plane machine looks at its SSH rule again while ASO has not read the API
// server load balancer.
const sshRuleRecheck = 15 * time.Second

// sshRule returns the SSH rule of a control-plane machine on the cluster's API server load balancer, as CAPZ
// makes one for each (nil when there is none): on a public load balancer the machine's primary interface takes SSH
// connections from it; on an internal one it is unattached, as in CAPZ. Its frontend port is the one Azure holds
// for the machine's rule when it holds one (a cluster taken over from CAPZ: ASO lists CAPZ's rules in the load
// balancer's status); otherwise network.SSHRuleFor picks it from the rules Azure holds and the rule objects of the
// namespace.
func (r *Reconciler) sshRule(ctx context.Context, s *scope) (*network.SSHRule, error) {
	lb := s.infra.Network.APIServerLB
	if lb == nil || lb.Name == "" || len(lb.FrontendIPs) == 0 {
		return nil, nil
	}
	c := s.infra.AzureCluster(s.cluster.Name)
	lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, lb.Name)
	rules, err := r.Engine.List(ctx, s.azureMachine.Namespace, network.InboundNATRules())
	if err != nil {
		return nil, err
	}
	// The load balancer's object, when the cluster has one, carries the rules Azure holds on it.
	lbObject, err := r.Engine.Read(ctx, s.azureMachine.Namespace, network.LoadBalancerRef(lb.Name))
	if err != nil {
		return nil, err
	}
	rule := network.SSHRule{LoadBalancer: lb.Name, Frontend: lb.FrontendIPs[0].Name, Unattached: lb.Type == infrav1.Internal}
	vmName := compute.VMName(s.azureMachine)
	if !network.SSHPortKnown(rule, vmName, rules, lbObject, s.infra.MakesLoadBalancers) {
		// Until the AzureCluster has made the load balancer's object and ASO has read it (just after a switch from
		// CAPZ), the port Azure holds for the machine's rule is unknown, and applying the rule (or the interface that
		// references it) could move it: the machine waits, and looks again soon, since it does not watch the load
		// balancer.
		s.RequeueAfter = sshRuleRecheck
		s.Waiting = lifecycle.Wait{Reason: LoadBalancerNotReadReason, Message: fmt.Sprintf(
			"waiting for ASO to read the load balancer %s from Azure: the port of the machine's SSH rule is the one Azure holds", lb.Name)}
		return nil, nil
	}
	return network.SSHRuleFor(rule, lbID, vmName, rules, lbObject)
}

// vmDeletedOutside says why a machine is failed when its VM was deleted outside Cluster API after it was provisioned
// (empty when it was not), and records the VM's vmId on the AzureMachine the first time ASO reports one
// (infrav1.VMIDAnnotation). The VM is gone when
//   - the engine found it missing from Azure and did not create it again (aso.DeletedOutsideReason: the machine had
//     its provider ID and no VM object, which the engine then probes for), or
//   - ASO reports another vmId than the recorded one: ASO created the VM again. ASO sends the VM's PUT after every
//     sync period without reading it first (v2.18.0 internal/reconcilers/arm/azure_generic_arm_reconciler_instance.go,
//     BeginCreateOrUpdateResource), so a VM deleted in Azure is created again, empty, before anything can know.
func vmDeletedOutside(am *infrav1.AzureMachine, vm compute.VMState, state *infrav1.ResourceStatus) string {
	providerID := ptr.Deref(am.Spec.ProviderID, "")
	if state != nil && state.Reason == aso.DeletedOutsideReason {
		return fmt.Sprintf("the VM %s was deleted outside Cluster API after the machine was provisioned; it is not created again: the Machine must be replaced", providerID)
	}
	recorded := am.GetAnnotations()[infrav1.VMIDAnnotation]
	switch {
	case vm.VMID == "" || recorded == vm.VMID:
		return ""
	case recorded == "":
		if am.Annotations == nil {
			am.Annotations = map[string]string{}
		}
		am.Annotations[infrav1.VMIDAnnotation] = vm.VMID
		return ""
	}
	return fmt.Sprintf("the VM %s was deleted outside Cluster API after the machine was provisioned, and ASO created it again without the machine's bootstrap data (vmId %s, was %s): the Machine must be replaced", providerID, vm.VMID, recorded)
}

// failureDomain is the Machine's failure domain, which wins over the deprecated AzureMachine field.
func failureDomain(machine *clusterv1.Machine, am *infrav1.AzureMachine) string {
	if machine.Spec.FailureDomain != "" {
		return machine.Spec.FailureDomain
	}
	return ptr.Deref(am.Spec.FailureDomain, "")
}

// reconcileMachineStatus reports the provider ID (azure:// and the VM's resource ID, as cloud-provider-azure
// writes it on the Node), the addresses and the VM's state, as the engine read them, and finds out whether the VM was
// deleted outside Cluster API (vmDeletedOutside).
func (r *Reconciler) reconcileMachineStatus(_ context.Context, s *scope) error {
	am := s.azureMachine
	vm, ok := compute.ReadVM(s.Result, compute.VMName(am))
	if !ok {
		return nil
	}
	am.Status.VMState = vm.ProvisioningState
	am.Status.FailureDomain = failureDomain(s.machine, am)
	if vm.ID != "" && ptr.Deref(am.Spec.ProviderID, "") == "" {
		am.Spec.ProviderID = ptr.To(azure.ProviderID(vm.ID))
	}
	if s.vmDeleted = vmDeletedOutside(am, vm, s.Result.Resource("VirtualMachine", azure.ObjectName(compute.VMName(am)))); s.vmDeleted != "" {
		am.Status.VMState = infrav1.VMStateDeleted
	}
	if addresses, ok := compute.MachineAddresses(s.Result, compute.VMName(am), am.Spec); ok {
		am.Status.Addresses = addresses
	}
	return nil
}
