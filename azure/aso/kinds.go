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

// The manager's role grants the engine's verbs on every kind of Registry (registry_test.go checks that these markers
// name exactly its resources): get (reads from the API server), list and watch (the manager's cache), create and
// patch (server-side apply creates and updates), delete (objects no longer desired, and deletion).
//
// +kubebuilder:rbac:groups=resources.azure.com,resources=resourcegroups,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=network.azure.com,resources=virtualnetworks;virtualnetworkssubnets;virtualnetworksvirtualnetworkpeerings;networksecuritygroups;networksecuritygroupssecurityrules;routetables;routetablesroutes;natgateways;publicipaddresses;loadbalancers;loadbalancersinboundnatrules;bastionhosts;networkinterfaces;privateendpoints;privatednszones;privatednszonesvirtualnetworklinks;privatednszonesarecords,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=compute.azure.com,resources=virtualmachines;virtualmachinescalesets;virtualmachinesextensions;disks;availabilitysets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=containerservice.azure.com,resources=managedclusters;managedclustersagentpools;maintenanceconfigurations,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=managedidentity.azure.com,resources=userassignedidentities,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=authorization.azure.com,resources=roleassignments,verbs=get;list;watch;create;patch;delete

// KindInfo is one row of Registry.
type KindInfo struct {
	// Object is an empty object of the kind at the API version the provider uses: it gives group, version and kind.
	Object client.Object
	// Resource is the kind's plural resource name, as its CRD names it (<Resource>.<group>) and RBAC rules do.
	Resource string
	// Owners are the infrastructure kinds whose objects own objects of this kind: the owner kinds lists of the
	// translators (network.ClusterKinds for AzureCluster, compute.MachineKinds for AzureMachine, …) hold it.
	Owners []string
	// FromSpecResources marks a kind no translator makes: the provider applies it only from an AzureASOManaged*'s
	// spec.resources, so it has no Owners.
	FromSpecResources bool
}

// Registry is every ASO kind the provider produces or applies, at the API version it uses: the one list the others
// derive from (Kinds) or are checked against (registry_test.go: the RBAC markers above, controllers/asocrd's and the
// delete-for-move webhook's, hack/aso-kinds.txt, the translators' owner kinds lists and delete orders, the importas
// aliases of .golangci.yml; test/fuzzing checks its ASO webhooks). docs/development.md says how to add a kind.
var Registry = []KindInfo{
	{Object: &asoresources.ResourceGroup{}, Resource: "resourcegroups", Owners: []string{"AzureCluster", "AzureManagedControlPlane"}},
	{Object: &asonetwork.VirtualNetwork{}, Resource: "virtualnetworks", Owners: []string{"AzureCluster", "AzureManagedControlPlane"}},
	{Object: &asonetwork.VirtualNetworksSubnet{}, Resource: "virtualnetworkssubnets", Owners: []string{"AzureCluster", "AzureManagedControlPlane"}},
	{Object: &asonetwork.VirtualNetworksVirtualNetworkPeering{}, Resource: "virtualnetworksvirtualnetworkpeerings", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.NetworkSecurityGroup{}, Resource: "networksecuritygroups", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.NetworkSecurityGroupsSecurityRule{}, Resource: "networksecuritygroupssecurityrules", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.RouteTable{}, Resource: "routetables", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.RouteTablesRoute{}, Resource: "routetablesroutes", FromSpecResources: true},
	{Object: &asonetwork.NatGateway{}, Resource: "natgateways", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.PublicIPAddress{}, Resource: "publicipaddresses", Owners: []string{"AzureCluster", "AzureMachine"}},
	{Object: &asonetwork.LoadBalancer{}, Resource: "loadbalancers", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.LoadBalancersInboundNatRule{}, Resource: "loadbalancersinboundnatrules", Owners: []string{"AzureMachine"}},
	{Object: &asonetwork.BastionHost{}, Resource: "bastionhosts", Owners: []string{"AzureCluster"}},
	{Object: &asonetwork.NetworkInterface{}, Resource: "networkinterfaces", Owners: []string{"AzureMachine", "AzureMachinePoolMachine"}},
	{Object: &asonetwork.PrivateEndpoint{}, Resource: "privateendpoints", Owners: []string{"AzureCluster", "AzureManagedControlPlane"}},
	{Object: &asonetworkdns.PrivateDnsZone{}, Resource: "privatednszones", Owners: []string{"AzureCluster"}},
	{Object: &asonetworkdns.PrivateDnsZonesVirtualNetworkLink{}, Resource: "privatednszonesvirtualnetworklinks", Owners: []string{"AzureCluster"}},
	{Object: &asonetworkdns.PrivateDnsZonesARecord{}, Resource: "privatednszonesarecords", Owners: []string{"AzureCluster"}},
	{Object: &asocompute.VirtualMachine{}, Resource: "virtualmachines", Owners: []string{"AzureMachine", "AzureMachinePoolMachine"}},
	{Object: &asocompute.VirtualMachineScaleSet{}, Resource: "virtualmachinescalesets", Owners: []string{"AzureMachinePool"}},
	{Object: &asocompute.VirtualMachinesExtension{}, Resource: "virtualmachinesextensions", Owners: []string{"AzureMachine", "AzureMachinePoolMachine"}},
	{Object: &asocomputedisk.Disk{}, Resource: "disks", Owners: []string{"AzureMachine"}},
	{Object: &asocomputeavset.AvailabilitySet{}, Resource: "availabilitysets", Owners: []string{"AzureCluster"}},
	{Object: &asocontainerservice.ManagedCluster{}, Resource: "managedclusters", Owners: []string{"AzureManagedControlPlane"}},
	{Object: &asocontainerservice.ManagedClustersAgentPool{}, Resource: "managedclustersagentpools", Owners: []string{"AzureManagedMachinePool"}},
	// An AKS cluster's planned maintenance windows, as CAPZ installs them (the aks-aso-maintenance flavor).
	{Object: &asocontainerservice.MaintenanceConfiguration{}, Resource: "maintenanceconfigurations", FromSpecResources: true},
	{Object: &asomanagedidentity.UserAssignedIdentity{}, Resource: "userassignedidentities", FromSpecResources: true},
	{Object: &asoauthorization.RoleAssignment{}, Resource: "roleassignments", Owners: []string{"AzureMachine", "AzureMachinePoolMachine", "AzureMachinePool"}},
}

// Kinds returns an empty object of every kind of Registry. The manager caches these kinds (see CacheByObject) and
// the ASO simulator plays them. Each call returns new objects, which callers may fill.
func Kinds() []client.Object {
	out := make([]client.Object, 0, len(Registry))
	for _, k := range Registry {
		out = append(out, k.Object.DeepCopyObject().(client.Object))
	}
	return out
}

// AddToScheme adds the ASO API versions of Registry to a scheme (registry_test.go checks that it adds every kind of
// Registry and no other API version). These imports are the one place the provider pins ASO's API versions: the
// manager's scheme (internal/scheme) takes them from here.
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
