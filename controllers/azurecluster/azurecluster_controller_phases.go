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

package azurecluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
)

// reconcileResources translates the AzureCluster and hands the objects to the engine.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	ac := s.azureCluster
	c := azure.Cluster{
		Name:             s.cluster.Name,
		SubscriptionID:   ac.Spec.SubscriptionID,
		Location:         ac.Spec.Location,
		ExtendedLocation: ac.Spec.ExtendedLocation,
		ResourceGroup:    ac.Spec.ResourceGroup,
		AdditionalTags:   ac.Spec.AdditionalTags,
		AzureEnvironment: ac.Spec.AzureEnvironment,
	}
	opts := aso.Options{ClusterName: s.cluster.Name, CredentialSecret: s.Credentials.SecretName, Kinds: s.Kinds, Patches: aso.UserPatches(ac.Spec.ASOPatches)}
	if c.SubscriptionID == "" {
		c.SubscriptionID = aso.SubscriptionFromResourceGroup(ctx, r.Client, ac.Namespace, azure.ObjectName(ac.Spec.ResourceGroup))
	}

	var desired []azure.Resource
	var err error
	if c.SubscriptionID == "" {
		// Without the subscription the resource IDs between resources cannot be written yet: create the resource
		// group first, ASO reports the subscription in its ID. Nothing else is touched meanwhile.
		desired = azure.OfFamily(network.ClusterResources(network.ClusterInput{Cluster: c, Network: ac.Spec.NetworkSpec}), network.FamilyResourceGroup)
		opts.Incomplete = true
	} else {
		in := network.ClusterInput{
			Cluster:             c,
			Network:             ac.Spec.NetworkSpec,
			Bastion:             ac.Spec.BastionSpec.AzureBastion,
			ControlPlaneEnabled: ptr.Deref(ac.Spec.ControlPlaneEnabled, true),
			// As CAPZ: the load balancer forwards to and probes the port the API server binds to; clients reach
			// it on the endpoint's port (CAPZ main; v1.26.0 uses the API server port for both).
			APIServerPort:         apiServerPort(s.cluster),
			APIServerFrontendPort: ac.Spec.ControlPlaneEndpoint.Port,
		}
		in.VNet = network.VNetUsers
		if !network.IsVirtualNetworkReferenced(c, ac.Spec.NetworkSpec.Vnet) {
			if in.VNet, err = r.vnetAdoption(ctx, c, ac); err != nil {
				return err
			}
		}
		if in.VNet == network.VNetUnknown {
			// Only the resource group and the network are desired: keep every other object until the answer.
			opts.Incomplete = true
		}
		desired = network.ClusterResources(in)
		var availabilitySets []string
		if availabilitySets, err = r.availabilitySets(ctx, s); err != nil {
			return err
		}
		for _, name := range availabilitySets {
			set := compute.AvailabilitySet(c, name)
			// An existing set keeps its fault domain count: Azure never changes it.
			live, err := r.Engine.Read(ctx, ac.Namespace, set)
			if err != nil {
				return err
			}
			compute.KeepFaultDomains(set, live)
			desired = append(desired, azure.Resource{Object: set, Family: compute.FamilyAvailabilitySets})
		}
	}
	s.Result, err = r.Engine.Reconcile(ctx, ac, desired, opts)
	return err
}

// availabilitySets returns the Azure names of the availability sets the cluster's machines go into, sorted: one
// per node group that has a machine (compute.MachineAvailabilitySet), read from the cache's complete list of the
// cluster's Machines. A node group's set goes once its last machine is gone, as CAPZ deletes an empty one; but while
// the whole Cluster is deleted, the sets the AzureCluster made stay for its resource group's DELETE to take, as
// CAPZ leaves them then (its machines delete no individual resource of a cluster going): no DELETE of a set Azure
// deletes with the group anyway.
func (r *Reconciler) availabilitySets(ctx context.Context, s *scope) ([]string, error) {
	ac := s.azureCluster
	if !compute.ClusterHasAvailabilitySets(ac.Spec.Location, ac.Spec.FailureDomains, ac.Spec.ExtendedLocation) {
		return nil, nil
	}
	machines := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, machines, client.InNamespace(ac.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: s.cluster.Name}); err != nil {
		return nil, err
	}
	names := sets.New[string]()
	if !s.cluster.DeletionTimestamp.IsZero() {
		existing, err := r.Engine.List(ctx, ac.Namespace, compute.AvailabilitySets())
		if err != nil {
			return nil, err
		}
		names.Insert(compute.AvailabilitySetsOf(existing, ac)...)
	}
	for i := range machines.Items {
		m := &machines.Items[i]
		ref := m.Spec.InfrastructureRef
		if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "AzureMachine" {
			continue
		}
		// The AzureMachine's spec can rule a set out (a spot VM, for one); one not in the cache yet may go into one.
		var spec *infrav1.AzureMachineSpec
		am := &infrav1.AzureMachine{}
		switch err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, am); {
		case err == nil:
			spec = &am.Spec
		case !apierrors.IsNotFound(err):
			return nil, err
		}
		if name := compute.MachineAvailabilitySet(s.cluster.Name, true, m, spec); name != "" {
			names.Insert(name)
		}
	}
	return sets.List(names), nil
}

// vnetAdoption reads what the engine found out about the cluster's virtual network from its ASO object.
func (r *Reconciler) vnetAdoption(ctx context.Context, c azure.Cluster, ac *infrav1.AzureCluster) (network.VNetAdoption, error) {
	vnet, err := r.Engine.Read(ctx, ac.Namespace, network.VirtualNetwork(c, ac.Spec.NetworkSpec.Vnet))
	if err != nil || vnet == nil {
		return network.VNetUnknown, err
	}
	switch users, known := aso.Adopted(vnet); {
	case !known:
		return network.VNetUnknown, nil
	case users:
		return network.VNetUsers, nil
	}
	return network.VNetOwned, nil
}

// apiServerPort is the port the API server binds to: the Cluster's spec.clusterNetwork.apiServerPort, or 6443.
func apiServerPort(c *clusterv1.Cluster) int32 {
	if c.Spec.ClusterNetwork.APIServerPort != 0 {
		return c.Spec.ClusterNetwork.APIServerPort
	}
	return infrav1.DefaultAPIServerPort
}

// reconcileEndpoint completes the control plane endpoint, as CAPZ does: an empty host from the API server load
// balancer (the public IP's DNS name for a public one; for an internal one, the private DNS record, or the
// private IP without private DNS), an empty port with the API server's port. What the user set stays. With
// controlPlaneEnabled false the user (or their system) sets the endpoint.
func (r *Reconciler) reconcileEndpoint(_ context.Context, s *scope) error {
	spec := &s.azureCluster.Spec
	if !ptr.Deref(spec.ControlPlaneEnabled, true) {
		if !spec.ControlPlaneEndpoint.IsValid() {
			s.endpointPending = "waiting for spec.controlPlaneEndpoint (host and port) to be set: the cluster has no API server load balancer (controlPlaneEnabled: false)"
		}
		return nil
	}
	if spec.ControlPlaneEndpoint.Host == "" {
		host, pending := endpointHost(s.azureCluster)
		if pending != "" {
			s.endpointPending = pending
			return nil
		}
		spec.ControlPlaneEndpoint.Host = host
	}
	if spec.ControlPlaneEndpoint.Port == 0 {
		spec.ControlPlaneEndpoint.Port = apiServerPort(s.cluster)
	}
	return nil
}

// endpointHost is the host of the API server load balancer's first frontend, or why there is none yet.
func endpointHost(ac *infrav1.AzureCluster) (host, pending string) {
	spec := &ac.Spec
	lb := spec.NetworkSpec.APIServerLB
	if lb == nil || len(lb.FrontendIPs) == 0 {
		return "", "the API server load balancer has no frontend"
	}
	frontend := lb.FrontendIPs[0]
	switch {
	case lb.Type == infrav1.Public && frontend.PublicIP != nil:
		host = frontend.PublicIP.DNSName
	case lb.Type == infrav1.Internal && ptr.Deref(spec.NetworkSpec.PrivateDNSZone, infrav1.PrivateDNSZoneModeSystem) != infrav1.PrivateDNSZoneModeNone:
		host = "apiserver." + privateDNSZoneName(ac)
	default:
		host = frontend.PrivateIPAddress
	}
	if host == "" {
		return "", "the API server load balancer's frontend has no DNS name or IP address"
	}
	return host, ""
}

// privateDNSZoneName is the private DNS zone of a private API server.
func privateDNSZoneName(ac *infrav1.AzureCluster) string {
	if name := ac.Spec.NetworkSpec.PrivateDNSZoneName; name != "" {
		return name
	}
	return infrav1.PrivateDNSZoneName(ac.Name)
}

// reconcileFailureDomains reports the failure domains: none in an Edge Zone, else the spec's, or the zones of the
// location.
func (r *Reconciler) reconcileFailureDomains(_ context.Context, s *scope) error {
	s.azureCluster.Status.FailureDomains = azure.FailureDomains(s.azureCluster.Spec.Location, s.azureCluster.Spec.FailureDomains, s.azureCluster.Spec.ExtendedLocation)
	return nil
}
