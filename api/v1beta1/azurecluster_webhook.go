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
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azurecluster,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureclusters,versions=v1beta1,name=default.azurecluster.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azurecluster,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureclusters,versions=v1beta1,name=validation.azurecluster.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureClusterWebhookWithManager registers the defaulting and validating webhooks of AzureCluster.
func SetupAzureClusterWebhookWithManager(mgr ctrl.Manager, opts WebhookOptions) error {
	w := azureClusterWebhook{opts: opts}
	return ctrl.NewWebhookManagedBy(mgr, &AzureCluster{}).WithDefaulter(w).WithValidator(w).Complete()
}

// azureClusterWebhook requires spec.identityRef as WebhookOptions say, also on an externally managed AzureCluster
// (cluster.x-k8s.io/managed-by): its AzureMachines take their credential from it. CAPZ v1.26.0 requires it on
// every AzureCluster (internal/webhooks/azurecluster_validation.go, validateIdentityRef).
type azureClusterWebhook struct {
	opts WebhookOptions
}

// Default fills in CAPZ's defaults.
func (azureClusterWebhook) Default(_ context.Context, c *AzureCluster) error {
	c.SetDefaults()
	return nil
}

// ValidateCreate validates a new AzureCluster.
func (w azureClusterWebhook) ValidateCreate(_ context.Context, c *AzureCluster) (admission.Warnings, error) {
	errs := c.validate()
	errs = append(errs, incompleteSecurityRules(c.securityRuleLists(), nil)...)
	errs = append(errs, w.opts.validateIdentityRefRequired(field.NewPath("spec", "identityRef"), c.Spec.IdentityRef, false)...)
	return nil, Invalid("AzureCluster", c.Name, errs)
}

// ValidateUpdate validates a changed AzureCluster, including what may not change after creation.
func (w azureClusterWebhook) ValidateUpdate(_ context.Context, old, c *AzureCluster) (admission.Warnings, error) {
	if !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := c.validate()
	errs = append(errs, incompleteSecurityRules(c.securityRuleLists(), old.securityRules())...)
	errs = append(errs, w.opts.validateIdentityRefRequired(field.NewPath("spec", "identityRef"), c.Spec.IdentityRef, old.Spec.IdentityRef == nil)...)
	errs = append(errs, validateManagedByKept(old.Annotations, c.Annotations)...)
	errs = append(errs, validateAzureClusterUpdate(old, c)...)
	errs = ValidateImplementedFieldsUpdate("AzureCluster", old.Spec, c.Spec, errs)
	return nil, Invalid("AzureCluster", c.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureClusterWebhook) ValidateDelete(context.Context, *AzureCluster) (admission.Warnings, error) {
	return nil, nil
}

func (c *AzureCluster) validate() field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateAzureClusterClassSpec(spec, &c.Spec.AzureClusterClassSpec)
	if c.Spec.Location == "" {
		errs = append(errs, field.Required(spec.Child("location"), "the Azure region of the cluster, e.g. eastus"))
	}
	errs = append(errs, validateName(spec.Child("resourceGroup"), c.Spec.ResourceGroup, resourceGroupNameRule)...)
	errs = append(errs, validateNetworkSpec(spec.Child("networkSpec"), &c.Spec.NetworkSpec)...)
	errs = append(errs, validateBastion(spec.Child("bastionSpec", "azureBastion"), c.Spec.BastionSpec.AzureBastion)...)
	if b := c.Spec.BastionSpec.AzureBastion; b != nil {
		path := spec.Child("bastionSpec", "azureBastion", "subnet", "securityGroup", "securityRules")
		errs = append(errs, validateSecurityRules(path, b.Subnet.SecurityGroup.SecurityRules)...)
	}
	errs = append(errs, validateSubnetLayout(spec.Child("networkSpec"), &c.Spec)...)
	if c.Spec.ControlPlaneEnabled != nil && !*c.Spec.ControlPlaneEnabled && c.Spec.NetworkSpec.APIServerLB != nil {
		errs = append(errs, field.Forbidden(spec.Child("networkSpec", "apiServerLB"),
			"a cluster without control plane (controlPlaneEnabled: false) has no API server load balancer"))
	}
	errs = append(errs, ValidateImplementedFields("AzureCluster", c.Spec)...)
	return errs
}

// validateAzureClusterClassSpec checks the fields an AzureCluster shares with its template. It requires nothing:
// a template may leave any field to a ClusterClass patch, and the AzureCluster made from it is validated in full.
func validateAzureClusterClassSpec(path *field.Path, s *AzureClusterClassSpec) field.ErrorList {
	errs := validateGUID(path.Child("subscriptionID"), s.SubscriptionID)
	errs = append(errs, ValidateTags(path.Child("additionalTags"), s.AdditionalTags)...)
	errs = append(errs, validateIdentityRef(path.Child("identityRef"), s.IdentityRef)...)
	errs = append(errs, ValidateASOPatches(path.Child("asoPatches"), s.ASOPatches)...)
	if s.AzureEnvironment != "" {
		if _, ok := cloudAppSuffix[s.AzureEnvironment]; !ok {
			errs = append(errs, field.NotSupported(path.Child("azureEnvironment"), s.AzureEnvironment,
				[]string{"AzurePublicCloud", "AzureChinaCloud", "AzureUSGovernmentCloud"}))
		}
	}
	return errs
}

func validateNetworkSpec(path *field.Path, n *NetworkSpec) field.ErrorList {
	vnet := path.Child("vnet")
	errs := validateName(vnet.Child("name"), n.Vnet.Name, vnetNameRule)
	errs = append(errs, validateName(vnet.Child("resourceGroup"), n.Vnet.ResourceGroup, resourceGroupNameRule)...)
	_, cidrErrs := parseCIDRs(vnet.Child("cidrBlocks"), n.Vnet.CIDRBlocks)
	errs = append(errs, cidrErrs...)
	errs = append(errs, ValidateTags(vnet.Child("tags"), n.Vnet.Tags)...)
	for i, p := range n.Vnet.Peerings {
		errs = append(errs, validateName(vnet.Child("peerings").Index(i).Child("remoteVnetName"), p.RemoteVnetName, vnetNameRule)...)
		errs = append(errs, validateName(vnet.Child("peerings").Index(i).Child("resourceGroup"), p.ResourceGroup, resourceGroupNameRule)...)
	}

	names := make([]string, len(n.Subnets))
	for i := range n.Subnets {
		names[i] = n.Subnets[i].Name
		errs = append(errs, validateSubnet(path.Child("subnets").Index(i), &n.Subnets[i])...)
	}
	errs = append(errs, validateUniqueNames(path.Child("subnets"), names)...)

	errs = append(errs, validateAPIServerLB(path.Child("apiServerLB"), n.APIServerLB)...)
	errs = append(errs, validateOutboundLB(path.Child("nodeOutboundLB"), n.NodeOutboundLB)...)
	errs = append(errs, validateOutboundLB(path.Child("controlPlaneOutboundLB"), n.ControlPlaneOutboundLB)...)
	if n.ControlPlaneOutboundLB != nil && (n.APIServerLB == nil || n.APIServerLB.Type != Internal) {
		errs = append(errs, field.Forbidden(path.Child("controlPlaneOutboundLB"),
			"only a cluster with an internal API server load balancer needs a control-plane outbound load balancer"))
	}
	errs = append(errs, validateLBPorts(path.Child("additionalAPIServerLBPorts"), n.AdditionalAPIServerLBPorts)...)
	errs = append(errs, validateDNSName(path.Child("privateDNSZoneName"), n.PrivateDNSZoneName)...)
	errs = append(errs, validateName(path.Child("privateDNSZoneResourceGroup"), n.PrivateDNSZoneResourceGroup, resourceGroupNameRule)...)
	return errs
}

func validateSubnet(path *field.Path, s *SubnetSpec) field.ErrorList {
	errs := validateName(path.Child("name"), s.Name, networkResourceNameRule)
	_, cidrErrs := parseCIDRs(path.Child("cidrBlocks"), s.CIDRBlocks)
	errs = append(errs, cidrErrs...)
	errs = append(errs, validateName(path.Child("securityGroup", "name"), s.SecurityGroup.Name, networkResourceNameRule)...)
	errs = append(errs, validateSecurityRules(path.Child("securityGroup", "securityRules"), s.SecurityGroup.SecurityRules)...)
	errs = append(errs, ValidateTags(path.Child("securityGroup", "tags"), s.SecurityGroup.Tags)...)
	errs = append(errs, validateName(path.Child("routeTable", "name"), s.RouteTable.Name, networkResourceNameRule)...)
	errs = append(errs, validateName(path.Child("natGateway", "name"), s.NatGateway.Name, networkResourceNameRule)...)
	errs = append(errs, validatePublicIP(path.Child("natGateway", "ip"), &s.NatGateway.NatGatewayIP)...)
	if s.NatGateway.Name != "" && s.IsIPv6Enabled() && s.NatGateway.ID == "" {
		errs = append(errs, field.Forbidden(path.Child("natGateway"), "a NAT gateway supports IPv4 only; remove it from an IPv6 subnet"))
	}
	errs = append(errs, validatePrivateEndpoints(path.Child("privateEndpoints"), s.PrivateEndpoints)...)
	return errs
}

// validateSubnetLayout checks the subnets as a whole: their prefixes lie in the virtual network and do not
// overlap, and the roles the cluster needs are present.
func validateSubnetLayout(path *field.Path, s *AzureClusterSpec) field.ErrorList {
	var errs field.ErrorList
	var prefixes []labelledPrefix
	roles := map[SubnetRole]bool{}
	for i, subnet := range s.NetworkSpec.Subnets {
		roles[subnet.Role] = true
		p, _ := parseCIDRs(path, subnet.CIDRBlocks)
		for j, prefix := range p {
			prefixes = append(prefixes, labelledPrefix{path.Child("subnets").Index(i).Child("cidrBlocks").Index(j), prefix})
		}
		if subnet.Role == SubnetBastion {
			errs = append(errs, field.Invalid(path.Child("subnets").Index(i).Child("role"), subnet.Role,
				"the bastion subnet is configured in spec.bastionSpec.azureBastion.subnet"))
		}
	}
	if b := s.BastionSpec.AzureBastion; b != nil {
		p, _ := parseCIDRs(path, b.Subnet.CIDRBlocks)
		for j, prefix := range p {
			prefixes = append(prefixes, labelledPrefix{field.NewPath("spec", "bastionSpec", "azureBastion", "subnet", "cidrBlocks").Index(j), prefix})
		}
	}
	errs = append(errs, validateNoOverlap(prefixes)...)
	if s.NetworkSpec.Vnet.ID == "" {
		vnetPrefixes, _ := parseCIDRs(path, s.NetworkSpec.Vnet.CIDRBlocks)
		errs = append(errs, validateWithin(vnetPrefixes, prefixes, path.Child("vnet", "cidrBlocks"))...)
	}
	if s.ControlPlaneEnabled != nil && *s.ControlPlaneEnabled && !roles[SubnetControlPlane] && !roles[SubnetCluster] {
		errs = append(errs, field.Required(path.Child("subnets"), "a subnet with role control-plane or cluster"))
	}
	if !roles[SubnetNode] && !roles[SubnetCluster] {
		errs = append(errs, field.Required(path.Child("subnets"), "a subnet with role node or cluster"))
	}
	return errs
}

func validateSecurityRules(path *field.Path, rules SecurityRules) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, len(rules))
	priorities := map[string]int{}
	for i, r := range rules {
		names[i] = r.Name
		p := path.Index(i)
		errs = append(errs, validateName(p.Child("name"), r.Name, networkResourceNameRule)...)
		if r.Source != nil && len(r.Sources) > 0 {
			errs = append(errs, field.Forbidden(p.Child("sources"), "set either source or sources, not both"))
		}
		if r.Priority != 0 {
			key := fmt.Sprintf("%s/%d", r.Direction, r.Priority)
			if j, ok := priorities[key]; ok {
				errs = append(errs, field.Duplicate(p.Child("priority"), fmt.Sprintf("%d (also used by rule %d for %s traffic)", r.Priority, j, r.Direction)))
			}
			priorities[key] = i
		}
	}
	return append(errs, validateUniqueNames(path, names)...)
}

// securityRuleList is the security rules of one subnet and where they are in the object.
type securityRuleList struct {
	path  *field.Path
	rules SecurityRules
}

// securityRuleLists returns the security rules of every subnet of the cluster, the bastion's included: the
// provider creates them all.
func (c *AzureCluster) securityRuleLists() []securityRuleList {
	subnets := field.NewPath("spec", "networkSpec", "subnets")
	var out []securityRuleList
	for i, s := range c.Spec.NetworkSpec.Subnets {
		out = append(out, securityRuleList{subnets.Index(i).Child("securityGroup", "securityRules"), s.SecurityGroup.SecurityRules})
	}
	if b := c.Spec.BastionSpec.AzureBastion; b != nil {
		path := field.NewPath("spec", "bastionSpec", "azureBastion", "subnet", "securityGroup", "securityRules")
		out = append(out, securityRuleList{path, b.Subnet.SecurityGroup.SecurityRules})
	}
	return out
}

// securityRules returns every security rule of the cluster.
func (c *AzureCluster) securityRules() SecurityRules {
	var out SecurityRules
	for _, l := range c.securityRuleLists() {
		out = append(out, l.rules...)
	}
	return out
}

// incompleteSecurityRules refuses the rules that lack what Azure requires of a security rule: a priority, a source
// (source or sources), a destination, source ports and destination ports. The API leaves them optional, as CAPZ's
// does, and CAPZ sends a rule as written: Azure refuses one without them (SecurityRuleParametersMissing), and
// CAPZ's webhook already refuses a priority outside 100-4096. So a rule is refused here rather than sent, and "*"
// (any) has to be written. A rule equal to one in kept, the rules of the stored object, passes: an AzureCluster
// admitted before this check can still be updated, and its controller can still write it.
func incompleteSecurityRules(lists []securityRuleList, kept SecurityRules) field.ErrorList {
	var errs field.ErrorList
	for _, l := range lists {
		for i, r := range l.rules {
			if slices.ContainsFunc(kept, func(k SecurityRule) bool { return reflect.DeepEqual(k, r) }) {
				continue
			}
			errs = append(errs, incompleteSecurityRule(l.path.Index(i), r)...)
		}
	}
	return errs
}

func incompleteSecurityRule(path *field.Path, r SecurityRule) field.ErrorList {
	var errs field.ErrorList
	if r.Priority == 0 {
		errs = append(errs, field.Required(path.Child("priority"),
			"Azure refuses a security rule without a priority: set one from 100 to 4096 (lower numbers are processed first), unique among the security group's rules of one direction"))
	}
	switch {
	case len(r.Sources) > 0:
		for j, s := range r.Sources {
			if blank(s) {
				errs = append(errs, field.Required(path.Child("sources").Index(j),
					`Azure refuses an empty source address prefix: write a CIDR, an IP address, a service tag such as VirtualNetwork, or "*" for any source`))
			}
		}
	case blank(r.Source):
		errs = append(errs, field.Required(path.Child("source"),
			`Azure refuses a security rule without a source: set source to a CIDR, an IP address, a service tag such as VirtualNetwork, or "*" for any source (or list several in sources)`))
	}
	if blank(r.Destination) {
		errs = append(errs, field.Required(path.Child("destination"),
			`Azure refuses a security rule without a destination: set destination to a CIDR, an IP address, a service tag such as VirtualNetwork, or "*" for any destination`))
	}
	if noPorts(r.SourcePorts) {
		errs = append(errs, field.Required(path.Child("sourcePorts"),
			`Azure refuses a security rule without source ports: set sourcePorts to a port, a range such as 1024-65535, or "*" for any port (usually "*")`))
	}
	if noPorts(r.DestinationPorts) {
		errs = append(errs, field.Required(path.Child("destinationPorts"),
			`Azure refuses a security rule without destination ports: set destinationPorts to a port such as 443, a range such as 8000-8080, a comma list of them, or "*" for any port`))
	}
	return errs
}

func blank(s *string) bool {
	return s == nil || strings.TrimSpace(*s) == ""
}

// noPorts says whether a port field names no port: unset, empty, or only commas and spaces.
func noPorts(s *string) bool {
	return s == nil || strings.Trim(*s, ", \t") == ""
}

func validatePublicIP(path *field.Path, ip *PublicIPSpec) field.ErrorList {
	if ip == nil {
		return nil
	}
	errs := validateName(path.Child("name"), ip.Name, networkResourceNameRule)
	return append(errs, validateDNSName(path.Child("dnsName"), ip.DNSName)...)
}

func validatePrivateEndpoints(path *field.Path, endpoints PrivateEndpoints) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, len(endpoints))
	for i, pe := range endpoints {
		names[i] = pe.Name
		p := path.Index(i)
		errs = append(errs, validateName(p.Child("name"), pe.Name, vnetNameRule)...)
		errs = append(errs, validateName(p.Child("customNetworkInterfaceName"), pe.CustomNetworkInterfaceName, networkResourceNameRule)...)
		if len(pe.PrivateLinkServiceConnections) == 0 {
			errs = append(errs, field.Required(p.Child("privateLinkServiceConnections"), "a private endpoint connects to at least one private link service"))
		}
		for j, conn := range pe.PrivateLinkServiceConnections {
			if conn.PrivateLinkServiceID == "" {
				errs = append(errs, field.Required(p.Child("privateLinkServiceConnections").Index(j).Child("privateLinkServiceID"), "the resource ID of the private link service"))
			}
		}
		for j, ip := range pe.PrivateIPAddresses {
			errs = append(errs, validateIP(p.Child("privateIPAddresses").Index(j), ip)...)
		}
	}
	return append(errs, validateUniqueNames(path, names)...)
}

func validateAPIServerLB(path *field.Path, lb *LoadBalancerSpec) field.ErrorList {
	if lb == nil {
		return nil
	}
	errs := validateLB(path, lb)
	for i, fe := range lb.FrontendIPs {
		p := path.Child("frontendIPs").Index(i)
		switch {
		case lb.Type == Internal && fe.PublicIP != nil:
			errs = append(errs, field.Forbidden(p.Child("publicIP"), "an internal load balancer has private frontends only"))
		case lb.Type == Internal && fe.PrivateIPAddress == "":
			errs = append(errs, field.Required(p.Child("privateIP"), "an internal load balancer's frontend needs a private IP"))
		case lb.Type == Public && fe.PublicIP == nil && fe.PrivateIPAddress == "":
			errs = append(errs, field.Required(p.Child("publicIP"), "a public load balancer's frontend needs a public IP"))
		}
	}
	return errs
}

func validateOutboundLB(path *field.Path, lb *LoadBalancerSpec) field.ErrorList {
	if lb == nil {
		return nil
	}
	errs := validateLB(path, lb)
	if lb.FrontendIPsCount != nil && (*lb.FrontendIPsCount < 1 || *lb.FrontendIPsCount > 16) {
		errs = append(errs, field.Invalid(path.Child("frontendIPsCount"), *lb.FrontendIPsCount, "must be between 1 and 16"))
	}
	if lb.Type == Internal {
		errs = append(errs, field.NotSupported(path.Child("type"), lb.Type, []string{string(Public)}))
	}
	return errs
}

func validateLB(path *field.Path, lb *LoadBalancerSpec) field.ErrorList {
	errs := validateName(path.Child("name"), lb.Name, networkResourceNameRule)
	errs = append(errs, validateName(path.Child("backendPool", "name"), lb.BackendPool.Name, networkResourceNameRule)...)
	names := make([]string, len(lb.FrontendIPs))
	for i, fe := range lb.FrontendIPs {
		names[i] = fe.Name
		p := path.Child("frontendIPs").Index(i)
		errs = append(errs, validateName(p.Child("name"), fe.Name, networkResourceNameRule)...)
		errs = append(errs, validatePublicIP(p.Child("publicIP"), fe.PublicIP)...)
		errs = append(errs, validateIP(p.Child("privateIP"), fe.PrivateIPAddress)...)
	}
	return append(errs, validateUniqueNames(path.Child("frontendIPs"), names)...)
}

func validateLBPorts(path *field.Path, ports []LoadBalancerPort) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, len(ports))
	seen := map[int32]bool{DefaultAPIServerPort: true}
	for i, port := range ports {
		names[i] = port.Name
		if seen[port.Port] {
			errs = append(errs, field.Duplicate(path.Index(i).Child("port"), port.Port))
		}
		seen[port.Port] = true
	}
	return append(errs, validateUniqueNames(path, names)...)
}

func validateBastion(path *field.Path, b *AzureBastion) field.ErrorList {
	if b == nil {
		return nil
	}
	errs := validateName(path.Child("name"), b.Name, networkResourceNameRule)
	errs = append(errs, validatePublicIP(path.Child("publicIP"), &b.PublicIP)...)
	if b.Subnet.Name != "" && b.Subnet.Name != DefaultAzureBastionSubnetName {
		errs = append(errs, field.Invalid(path.Child("subnet", "name"), b.Subnet.Name, "Azure requires the Bastion subnet to be named "+DefaultAzureBastionSubnetName))
	}
	if b.Subnet.Role != "" && b.Subnet.Role != SubnetBastion {
		errs = append(errs, field.NotSupported(path.Child("subnet", "role"), b.Subnet.Role, []string{string(SubnetBastion)}))
	}
	_, cidrErrs := parseCIDRs(path.Child("subnet", "cidrBlocks"), b.Subnet.CIDRBlocks)
	errs = append(errs, cidrErrs...)
	if b.EnableTunneling && b.Sku != StandardBastionHostSku {
		errs = append(errs, field.Forbidden(path.Child("enableTunneling"), "tunneling requires sku Standard"))
	}
	return errs
}

// validateAzureClusterUpdate rejects changes to what identifies the cluster's Azure resources.
func validateAzureClusterUpdate(old, c *AzureCluster) field.ErrorList {
	spec := field.NewPath("spec")
	errs := ValidateImmutable(spec.Child("subscriptionID"), old.Spec.SubscriptionID, c.Spec.SubscriptionID)
	errs = append(errs, ValidateImmutable(spec.Child("location"), old.Spec.Location, c.Spec.Location)...)
	errs = append(errs, ValidateImmutable(spec.Child("extendedLocation"), old.Spec.ExtendedLocation, c.Spec.ExtendedLocation)...)
	errs = append(errs, ValidateImmutable(spec.Child("resourceGroup"), old.Spec.ResourceGroup, c.Spec.ResourceGroup)...)
	errs = append(errs, ValidateImmutable(spec.Child("azureEnvironment"), old.Spec.AzureEnvironment, c.Spec.AzureEnvironment)...)
	errs = append(errs, ValidateImmutable(spec.Child("controlPlaneEnabled"), old.Spec.ControlPlaneEnabled, c.Spec.ControlPlaneEnabled)...)
	network := spec.Child("networkSpec")
	errs = append(errs, ValidateImmutable(network.Child("vnet", "id"), old.Spec.NetworkSpec.Vnet.ID, c.Spec.NetworkSpec.Vnet.ID)...)
	errs = append(errs, ValidateImmutable(network.Child("vnet", "name"), old.Spec.NetworkSpec.Vnet.Name, c.Spec.NetworkSpec.Vnet.Name)...)
	errs = append(errs, ValidateImmutable(network.Child("vnet", "resourceGroup"), old.Spec.NetworkSpec.Vnet.ResourceGroup, c.Spec.NetworkSpec.Vnet.ResourceGroup)...)
	errs = append(errs, ValidateImmutable(network.Child("privateDNSZone"), old.Spec.NetworkSpec.PrivateDNSZone, c.Spec.NetworkSpec.PrivateDNSZone)...)
	errs = append(errs, ValidateImmutable(network.Child("privateDNSZoneName"), old.Spec.NetworkSpec.PrivateDNSZoneName, c.Spec.NetworkSpec.PrivateDNSZoneName)...)
	errs = append(errs, ValidateImmutable(network.Child("privateDNSZoneResourceGroup"), old.Spec.NetworkSpec.PrivateDNSZoneResourceGroup, c.Spec.NetworkSpec.PrivateDNSZoneResourceGroup)...)
	if oldLB, lb := old.Spec.NetworkSpec.APIServerLB, c.Spec.NetworkSpec.APIServerLB; oldLB != nil && lb != nil {
		errs = append(errs, ValidateImmutable(network.Child("apiServerLB", "name"), oldLB.Name, lb.Name)...)
		errs = append(errs, ValidateImmutable(network.Child("apiServerLB", "type"), oldLB.Type, lb.Type)...)
		errs = append(errs, ValidateImmutable(network.Child("apiServerLB", "frontendIPs"), oldLB.FrontendIPs, lb.FrontendIPs)...)
	}
	oldRoles := map[string]SubnetRole{}
	for _, s := range old.Spec.NetworkSpec.Subnets {
		oldRoles[s.Name] = s.Role
	}
	for i, s := range c.Spec.NetworkSpec.Subnets {
		if role, ok := oldRoles[s.Name]; ok && role != s.Role {
			errs = append(errs, field.Invalid(network.Child("subnets").Index(i).Child("role"), s.Role, "the role of an existing subnet is immutable"))
		}
	}
	if old.Spec.ControlPlaneEndpoint.IsValid() {
		errs = append(errs, ValidateImmutable(spec.Child("controlPlaneEndpoint"), old.Spec.ControlPlaneEndpoint, c.Spec.ControlPlaneEndpoint)...)
	}
	return errs
}

// validateManagedByKept forbids removing the externally-managed annotation: an AzureCluster that an external
// system provisioned must not be taken over by the provider, which would then try to create its resources.
func validateManagedByKept(oldAnnotations, newAnnotations map[string]string) field.ErrorList {
	_, had := oldAnnotations[clusterv1.ManagedByAnnotation]
	_, has := newAnnotations[clusterv1.ManagedByAnnotation]
	if had && !has {
		return field.ErrorList{field.Forbidden(field.NewPath("metadata", "annotations").Key(clusterv1.ManagedByAnnotation),
			"an externally managed object cannot become managed by the provider: the annotation cannot be removed")}
	}
	return nil
}
