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
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// LoadBalancerRole says which of the cluster's load balancers a LoadBalancerInput describes.
type LoadBalancerRole string

const (
	// APIServerLoadBalancer is the load balancer in front of the API server, public or internal.
	APIServerLoadBalancer LoadBalancerRole = "apiserver"
	// APIServerInternalLoadBalancer is the internal companion of a public API server load balancer (see
	// APIServerInternalLB).
	APIServerInternalLoadBalancer LoadBalancerRole = "apiserver-internal"
	// NodeOutboundLoadBalancer gives worker machines outbound connectivity.
	NodeOutboundLoadBalancer LoadBalancerRole = "node-outbound"
	// ControlPlaneOutboundLoadBalancer gives the control-plane machines of a private cluster outbound connectivity.
	ControlPlaneOutboundLoadBalancer LoadBalancerRole = "control-plane-outbound"
)

// Names of the parts of the cluster's load balancers, as CAPZ names them.
const (
	// APIServerProbe is the health probe of the API server: HTTPS GET /readyz on the API server port.
	APIServerProbe = "HTTPSProbe"
	// APIServerRule is the load balancing rule of the API server port.
	APIServerRule = "LBRuleHTTPS"
	// OutboundRule is the outbound rule of a public load balancer's backend pool.
	OutboundRule = "OutboundNATAllProtocols"

	// The API server probe as CAPZ sends it: HTTPS GET /readyz every 15 seconds, one failure takes a backend out.
	apiServerProbePath      = "/readyz"
	apiServerProbeInterval  = 15
	apiServerProbeThreshold = 1
)

// LoadBalancerInput describes one of the cluster's load balancers.
type LoadBalancerInput struct {
	// Role says which load balancer this is.
	Role LoadBalancerRole
	// Spec is the load balancer, defaulted: name, type, frontends, backend pool, idle timeout, zones.
	Spec infrav1.LoadBalancerSpec
	// AdditionalPorts are extra API server ports; each gets a rule like the API server's (API server only).
	AdditionalPorts []infrav1.LoadBalancerPort
	// Subnet is the subnet of private frontends: the control-plane subnet. Unused when every frontend is public.
	Subnet *genruntime.ResourceReference
	// APIServerPort is the port the API server listens on (the Cluster's spec.clusterNetwork.apiServerPort,
	// default 6443): the backend port of the API server rule and the port of its probe (API server only).
	APIServerPort int32
	// FrontendPort is the port clients reach the API server on (the AzureCluster's
	// spec.controlPlaneEndpoint.port); 0 means APIServerPort (API server only).
	FrontendPort int32
}

// LoadBalancer returns a Standard load balancer in the cluster's resource group.
//
// Every frontend with a public IP references that PublicIPAddress object; its zones are the address's. The
// frontends of an internal load balancer have a static private IP in Subnet and the load balancer's availability
// zones; an outbound load balancer has public frontends only and skips others. As in CAPZ, an API server load
// balancer has one frontend: the first public one of a public load balancer (see APIServerInternalLB for its
// private ones), the first one of an internal load balancer. Every load balancer has one backend pool.
//
// The API server load balancer probes the API server (HTTPSProbe, on APIServerPort) and balances TCP from
// FrontendPort to APIServerPort, and every additional port to itself, from its frontend to the pool, with outbound
// SNAT disabled. A public one also has an outbound rule for the pool on its frontend, so that control-plane
// machines reach the internet. The outbound load balancers only have that outbound rule. Outbound rules cover all
// protocols and leave the number of SNAT ports to Azure.
//
// Tags are CAPZ's: the cluster's, the additional ones and the role (apiserver, apiserver-internal, nodeOutbound
// or controlPlaneOutbound), without a Name tag.
//
// The parts of a load balancer reference each other by ARM ID: they are not ASO objects.
func LoadBalancer(c azure.Cluster, in LoadBalancerInput) *asonetwork.LoadBalancer {
	spec := in.Spec
	lbID := azure.ResourceID(c.SubscriptionID, c.ResourceGroup, azure.TypeLoadBalancer, spec.Name)
	part := func(partType, name string) *asonetwork.SubResource {
		return &asonetwork.SubResource{Reference: armReference(azure.ChildID(lbID, partType, name))}
	}
	poolRef := part("backendAddressPools", spec.BackendPool.Name)
	idleTimeout := ptr.To(int(ptr.Deref(spec.IdleTimeoutInMinutes, infrav1.DefaultLBIdleTimeoutInMinutes)))

	lb := &asonetwork.LoadBalancer{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(spec.Name)},
		Spec: asonetwork.LoadBalancer_Spec{
			AzureName:           spec.Name,
			Owner:               ownerGroup(c, c.ResourceGroup),
			Location:            ptr.To(c.Location),
			ExtendedLocation:    extendedLocation(c),
			Sku:                 &asonetwork.LoadBalancerSku{Name: ptr.To(asonetwork.LoadBalancerSku_Name_Standard)},
			BackendAddressPools: []asonetwork.BackendAddressPool_LoadBalancer_SubResourceEmbedded{{Name: ptr.To(spec.BackendPool.Name)}},
			Tags:                c.Tags(loadBalancerTagRole(in.Role)),
		},
	}

	var publicFrontends []asonetwork.SubResource
	for _, fe := range apiServerFrontends(in) {
		config := asonetwork.FrontendIPConfiguration_LoadBalancer_SubResourceEmbedded{Name: ptr.To(fe.Name)}
		switch {
		case fe.PublicIP != nil && spec.Type != infrav1.Internal:
			config.PublicIPAddress = &asonetwork.PublicIPAddressSpec_LoadBalancer_SubResourceEmbedded{
				Reference: objectReference("PublicIPAddress", azure.ObjectName(fe.PublicIP.Name)),
			}
			publicFrontends = append(publicFrontends, *part("frontendIPConfigurations", fe.Name))
		case spec.Type == infrav1.Internal && in.Role.isAPIServer():
			config.PrivateIPAddress = ptr.To(fe.PrivateIPAddress)
			config.PrivateIPAllocationMethod = ptr.To(asonetwork.IPAllocationMethod_Static)
			config.Subnet = &asonetwork.Subnet_LoadBalancer_SubResourceEmbedded{Reference: in.Subnet}
			config.Zones = spec.AvailabilityZones
		default:
			continue // an outbound load balancer has public frontends only; see APIServerInternalLB
		}
		lb.Spec.FrontendIPConfigurations = append(lb.Spec.FrontendIPConfigurations, config)
	}

	if in.Role.isAPIServer() {
		probeRef := part("probes", APIServerProbe)
		var frontendRef *asonetwork.SubResource
		if len(lb.Spec.FrontendIPConfigurations) > 0 {
			frontendRef = part("frontendIPConfigurations", *lb.Spec.FrontendIPConfigurations[0].Name)
		}
		backendPort := int(in.APIServerPort)
		if backendPort == 0 {
			backendPort = infrav1.DefaultAPIServerPort
		}
		frontendPort := int(in.FrontendPort)
		if frontendPort == 0 {
			frontendPort = backendPort
		}
		lb.Spec.Probes = []asonetwork.Probe{{
			Name:              ptr.To(APIServerProbe),
			Protocol:          ptr.To(asonetwork.ProbePropertiesFormat_Protocol_Https),
			Port:              ptr.To(backendPort),
			RequestPath:       ptr.To(apiServerProbePath),
			IntervalInSeconds: ptr.To(apiServerProbeInterval),
			ProbeThreshold:    ptr.To(apiServerProbeThreshold),
		}}
		rule := func(name string, frontendPort, backendPort int) asonetwork.LoadBalancingRule {
			return asonetwork.LoadBalancingRule{
				Name:                    ptr.To(name),
				Protocol:                ptr.To(asonetwork.TransportProtocol_Tcp),
				FrontendPort:            ptr.To(frontendPort),
				BackendPort:             ptr.To(backendPort),
				FrontendIPConfiguration: frontendRef,
				BackendAddressPool:      poolRef,
				Probe:                   probeRef,
				IdleTimeoutInMinutes:    idleTimeout,
				EnableFloatingIP:        ptr.To(false),
				LoadDistribution:        ptr.To(asonetwork.LoadBalancingRulePropertiesFormat_LoadDistribution_Default),
				DisableOutboundSnat:     ptr.To(true),
			}
		}
		lb.Spec.LoadBalancingRules = append(lb.Spec.LoadBalancingRules, rule(APIServerRule, frontendPort, backendPort))
		for _, p := range in.AdditionalPorts {
			lb.Spec.LoadBalancingRules = append(lb.Spec.LoadBalancingRules, rule(p.Name, int(p.Port), int(p.Port)))
		}
	}

	if spec.Type != infrav1.Internal && len(publicFrontends) > 0 {
		lb.Spec.OutboundRules = []asonetwork.OutboundRule{{
			Name:                     ptr.To(OutboundRule),
			Protocol:                 ptr.To(asonetwork.OutboundRulePropertiesFormat_Protocol_All),
			FrontendIPConfigurations: publicFrontends,
			BackendAddressPool:       poolRef,
			IdleTimeoutInMinutes:     idleTimeout,
		}}
	}
	return lb
}

// APIServerInternalLB returns the internal companion of a public API server load balancer with private frontends,
// as CAPZ creates it for its apiserver-ilb flavor: Azure does not mix public and private frontends in one load
// balancer, so the private ones go to an internal load balancer "<name>-internal" with the backend pool
// "<pool>-internal", which the control-plane machines join too. Machines then reach the API server inside the
// virtual network while clients use the public address. It returns nil for any other load balancer.
func APIServerInternalLB(lb *infrav1.LoadBalancerSpec) *infrav1.LoadBalancerSpec {
	if lb == nil || lb.Type == infrav1.Internal || lb.Name == "" {
		return nil
	}
	var private []infrav1.FrontendIP
	for _, fe := range lb.FrontendIPs {
		if fe.PublicIP == nil && fe.PrivateIPAddress != "" {
			private = append(private, fe)
		}
	}
	if len(private) == 0 {
		return nil
	}
	internal := lb.DeepCopy()
	internal.ID = ""
	internal.Name = lb.Name + internalLBSuffix
	internal.Type = infrav1.Internal
	internal.FrontendIPs = private
	internal.FrontendIPsCount = nil
	internal.BackendPool.Name = lb.BackendPool.Name + internalLBSuffix
	return internal
}

// internalLBSuffix names the internal companion of a public API server load balancer and its backend pool.
const internalLBSuffix = "-internal"

// apiServerFrontends returns the frontends of a load balancer: all of an outbound one's; an API server load
// balancer's first public frontend, or an internal one's first frontend, as CAPZ configures them.
func apiServerFrontends(in LoadBalancerInput) []infrav1.FrontendIP {
	if !in.Role.isAPIServer() {
		return in.Spec.FrontendIPs
	}
	for _, fe := range in.Spec.FrontendIPs {
		if fe.PublicIP != nil || in.Spec.Type == infrav1.Internal {
			return []infrav1.FrontendIP{fe}
		}
	}
	return nil
}

// loadBalancerTagRole is the role tag of a load balancer, as CAPZ tags it.
func loadBalancerTagRole(role LoadBalancerRole) string {
	switch role {
	case NodeOutboundLoadBalancer:
		return azure.RoleNodeOutbound
	case ControlPlaneOutboundLoadBalancer:
		return azure.RoleControlPlaneOutbound
	}
	if role == APIServerInternalLoadBalancer {
		return azure.RoleAPIServerInternal
	}
	return azure.RoleAPIServer
}

// isAPIServer tells whether the load balancer is in front of the API server.
func (r LoadBalancerRole) isAPIServer() bool {
	return r == APIServerLoadBalancer || r == APIServerInternalLoadBalancer
}
