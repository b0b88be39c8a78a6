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

package fuzzing

import (
	"context"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asoauthorizationwebhook "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401/webhook"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocomputewebhook "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301/webhook"
	asocomputedisk "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302"
	asocomputediskwebhook "github.com/Azure/azure-service-operator/v2/api/compute/v1api20240302/webhook"
	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asocomputeavsetwebhook "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101/webhook"
	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asocontainerservicewebhook "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801/webhook"
	asomanagedidentity "github.com/Azure/azure-service-operator/v2/api/managedidentity/v1api20230131"
	asomanagedidentitywebhook "github.com/Azure/azure-service-operator/v2/api/managedidentity/v1api20230131/webhook"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asonetworkwebhook "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301/webhook"
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	asonetworkdnswebhook "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601/webhook"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoresourceswebhook "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601/webhook"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// asoWebhook is what the API server calls of an ASO kind's webhooks on a create.
type asoWebhook interface {
	Default(ctx context.Context, obj runtime.Object) error
	ValidateCreate(ctx context.Context, obj runtime.Object) (admission.Warnings, error)
}

// asoWebhookFor returns ASO's webhook of the kind of obj (every kind of aso.Registry: TestASOWebhookFor_EveryKind
// checks), or nil.
func asoWebhookFor(obj runtime.Object) asoWebhook {
	switch obj.(type) {
	case *asoresources.ResourceGroup:
		return &asoresourceswebhook.ResourceGroup{}
	case *asonetwork.VirtualNetwork:
		return &asonetworkwebhook.VirtualNetwork{}
	case *asonetwork.VirtualNetworksSubnet:
		return &asonetworkwebhook.VirtualNetworksSubnet{}
	case *asonetwork.VirtualNetworksVirtualNetworkPeering:
		return &asonetworkwebhook.VirtualNetworksVirtualNetworkPeering{}
	case *asonetwork.NetworkSecurityGroup:
		return &asonetworkwebhook.NetworkSecurityGroup{}
	case *asonetwork.NetworkSecurityGroupsSecurityRule:
		return &asonetworkwebhook.NetworkSecurityGroupsSecurityRule{}
	case *asonetwork.RouteTable:
		return &asonetworkwebhook.RouteTable{}
	case *asonetwork.RouteTablesRoute:
		return &asonetworkwebhook.RouteTablesRoute{}
	case *asonetwork.NatGateway:
		return &asonetworkwebhook.NatGateway{}
	case *asonetwork.PublicIPAddress:
		return &asonetworkwebhook.PublicIPAddress{}
	case *asonetwork.LoadBalancer:
		return &asonetworkwebhook.LoadBalancer{}
	case *asonetwork.LoadBalancersInboundNatRule:
		return &asonetworkwebhook.LoadBalancersInboundNatRule{}
	case *asonetwork.BastionHost:
		return &asonetworkwebhook.BastionHost{}
	case *asonetwork.NetworkInterface:
		return &asonetworkwebhook.NetworkInterface{}
	case *asonetwork.PrivateEndpoint:
		return &asonetworkwebhook.PrivateEndpoint{}
	case *asonetworkdns.PrivateDnsZone:
		return &asonetworkdnswebhook.PrivateDnsZone{}
	case *asonetworkdns.PrivateDnsZonesVirtualNetworkLink:
		return &asonetworkdnswebhook.PrivateDnsZonesVirtualNetworkLink{}
	case *asonetworkdns.PrivateDnsZonesARecord:
		return &asonetworkdnswebhook.PrivateDnsZonesARecord{}
	case *asocompute.VirtualMachine:
		return &asocomputewebhook.VirtualMachine{}
	case *asocompute.VirtualMachineScaleSet:
		return &asocomputewebhook.VirtualMachineScaleSet{}
	case *asocompute.VirtualMachinesExtension:
		return &asocomputewebhook.VirtualMachinesExtension{}
	case *asocomputedisk.Disk:
		return &asocomputediskwebhook.Disk{}
	case *asocomputeavset.AvailabilitySet:
		return &asocomputeavsetwebhook.AvailabilitySet{}
	case *asocontainerservice.ManagedCluster:
		return &asocontainerservicewebhook.ManagedCluster{}
	case *asocontainerservice.MaintenanceConfiguration:
		return &asocontainerservicewebhook.MaintenanceConfiguration{}
	case *asocontainerservice.ManagedClustersAgentPool:
		return &asocontainerservicewebhook.ManagedClustersAgentPool{}
	case *asomanagedidentity.UserAssignedIdentity:
		return &asomanagedidentitywebhook.UserAssignedIdentity{}
	case *asoauthorization.RoleAssignment:
		return &asoauthorizationwebhook.RoleAssignment{}
	}
	return nil
}
