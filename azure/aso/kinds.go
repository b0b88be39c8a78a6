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

package aso

import (
	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocomputedisk "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302"
	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asomanagedidentity "github.com/Azure/azure-service-operator/v2/api/managedidentity/v1api20230131"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// The manager's role grants the engine's verbs on every kind of Kinds() (config/config_test.go checks that the two
// lists match): get (reads from the API server), list and watch (the manager's cache), create and patch
// (server-side apply creates and updates), delete (objects no longer desired, and deletion).
//
// +kubebuilder:rbac:groups=resources.azure.com,resources=resourcegroups,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=network.azure.com,resources=virtualnetworks;virtualnetworkssubnets;virtualnetworksvirtualnetworkpeerings;networksecuritygroups;networksecuritygroupssecurityrules;routetables;routetablesroutes;natgateways;publicipaddresses;loadbalancers;loadbalancersinboundnatrules;bastionhosts;networkinterfaces;privateendpoints;privatednszones;privatednszonesvirtualnetworklinks;privatednszonesarecords,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=compute.azure.com,resources=virtualmachines;virtualmachinescalesets;virtualmachinesextensions;disks;availabilitysets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=containerservice.azure.com,resources=managedclusters;managedclustersagentpools;maintenanceconfigurations,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=managedidentity.azure.com,resources=userassignedidentities,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=authorization.azure.com,resources=roleassignments,verbs=get;list;watch;create;patch;delete

// Kinds returns an empty object of every ASO kind the provider produces, at the API version it uses. The manager
// caches these kinds (see CacheByObject) and the ASO simulator plays them. MaintenanceConfiguration is one the
// provider does not make but applies from an AzureASOManagedControlPlane's spec.resources, as CAPZ installs it: an
// AKS cluster's planned maintenance windows.
func Kinds() []client.Object {
	return []client.Object{
		&asoresources.ResourceGroup{},
		&asonetwork.VirtualNetwork{}, &asonetwork.VirtualNetworksSubnet{}, &asonetwork.VirtualNetworksVirtualNetworkPeering{},
		&asonetwork.NetworkSecurityGroup{}, &asonetwork.NetworkSecurityGroupsSecurityRule{},
		&asonetwork.RouteTable{}, &asonetwork.RouteTablesRoute{}, &asonetwork.NatGateway{}, &asonetwork.PublicIPAddress{},
		&asonetwork.LoadBalancer{}, &asonetwork.LoadBalancersInboundNatRule{}, &asonetwork.BastionHost{}, &asonetwork.NetworkInterface{}, &asonetwork.PrivateEndpoint{},
		&asonetworkdns.PrivateDnsZone{}, &asonetworkdns.PrivateDnsZonesVirtualNetworkLink{}, &asonetworkdns.PrivateDnsZonesARecord{},
		&asocompute.VirtualMachine{}, &asocompute.VirtualMachineScaleSet{}, &asocompute.VirtualMachinesExtension{},
		&asocomputedisk.Disk{}, &asocomputeavset.AvailabilitySet{},
		&asocontainerservice.ManagedCluster{}, &asocontainerservice.ManagedClustersAgentPool{}, &asocontainerservice.MaintenanceConfiguration{},
		&asomanagedidentity.UserAssignedIdentity{},
		&asoauthorization.RoleAssignment{},
	}
}

// AddToScheme adds the ASO API versions of Kinds to a scheme. These imports are the one place the provider pins
// ASO's API versions: the manager's scheme (internal/scheme) takes them from here.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		asoresources.AddToScheme,
		asonetwork.AddToScheme, asonetworkdns.AddToScheme,
		asocompute.AddToScheme, asocomputedisk.AddToScheme, asocomputeavset.AddToScheme,
		asocontainerservice.AddToScheme,
		asomanagedidentity.AddToScheme,
		asoauthorization.AddToScheme,
	} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// GVKs returns the GroupVersionKinds of typed objects (aso.Kinds(), or the translators' azure.Objects such as
// network.ClusterKinds()), for DeleteOptions.Kinds and Options.Kinds.
func GVKs[O client.Object](scheme *runtime.Scheme, objs ...O) ([]schema.GroupVersionKind, error) {
	out := make([]schema.GroupVersionKind, 0, len(objs))
	for _, obj := range objs {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, err
		}
		out = append(out, gvk)
	}
	return out, nil
}
