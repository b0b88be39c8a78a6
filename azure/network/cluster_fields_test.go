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
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// consumedElsewhere lists the AzureCluster spec fields (json paths, "[]" for list items) that ClusterResources does
// not put into ASO objects, and why. Every other field must show up in its output (TestClusterResources_EveryField).
var consumedElsewhere = map[string]string{
	"identityRef":      "the controller resolves the identity into the ASO credential secret",
	"azureEnvironment": "the webhook derives the API server's DNS name from it; ASO's endpoints come from its credential",
	"cloudProviderConfigOverrides": "not an ASO object: azure/cloudconfig writes it into the machines' azure.json " +
		"Secrets",
	"failureDomains":             "azure.FailureDomains turns it into status.failureDomains",
	"asoPatches":                 "the engine applies them to the generated objects",
	"controlPlaneEnabled":        "selects whether there is an API server load balancer (golden case no-control-plane)",
	"controlPlaneEndpoint":       "the controller reports the API server endpoint there; nothing in Azure is made from it",
	"networkSpec.privateDNSZone": "selects whether the private DNS zone exists (TestClusterResources_PrivateDNSZoneNone)",
	"networkSpec.subnets[].role": "selects behaviour, not a value: default rules, the API server's subnet, role tags " +
		"(golden cases)",
	"bastionSpec.azureBastion.subnet.role":                "the bastion subnet's role is always bastion",
	"networkSpec.apiServerLB.type":                        "selects public or private frontends (golden cases default and private)",
	"networkSpec.nodeOutboundLB.type":                     "always Public (the webhook)",
	"networkSpec.controlPlaneOutboundLB.type":             "always Public (the webhook)",
	"networkSpec.apiServerLB.frontendIPsCount":            "not supported yet: the frontends of the API server load balancer are frontendIPs",
	"networkSpec.nodeOutboundLB.frontendIPsCount":         "the webhook turns it into frontendIPs",
	"networkSpec.controlPlaneOutboundLB.frontendIPsCount": "the webhook turns it into frontendIPs",
	"networkSpec.apiServerLB.id": "not supported yet: CAPZ ignores load balancer ids too: the load balancers are " +
		"always the provider's",
	"networkSpec.nodeOutboundLB.id":         "not supported yet: as networkSpec.apiServerLB.id",
	"networkSpec.controlPlaneOutboundLB.id": "not supported yet: as networkSpec.apiServerLB.id",
	"networkSpec.nodeOutboundLB.frontendIPs[].privateIP": "not supported yet: an outbound load balancer has public " +
		"frontends only",
	"networkSpec.controlPlaneOutboundLB.frontendIPs[].privateIP": "not supported yet: as " +
		"networkSpec.nodeOutboundLB.frontendIPs[].privateIP",
}

func isConsumedElsewhere(path string) bool {
	for p := range consumedElsewhere {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") {
			return true
		}
	}
	return false
}

const fieldsSubscription = "11111111-2222-3333-4444-555555555555"

func fieldsID(kind, name string) string {
	return "/subscriptions/" + fieldsSubscription + "/resourceGroups/ids-rg/providers/Microsoft.Network/" + kind + "/" + name
}

// namedSubnet is a subnet whose every field is set, for a virtual network the provider manages; prefix keeps its
// values distinct.
func namedSubnet(prefix string, role infrav1.SubnetRole, cidr string) infrav1.SubnetSpec {
	return infrav1.SubnetSpec{
		SubnetClassSpec: infrav1.SubnetClassSpec{
			Name: prefix + "-subnet", Role: role, CIDRBlocks: []string{cidr},
			ServiceEndpoints: infrav1.ServiceEndpoints{{Service: prefix + ".Service", Locations: []string{prefix + "-se-location"}}},
			PrivateEndpoints: infrav1.PrivateEndpoints{{
				Name: prefix + "-pe", Location: prefix + "-pe-location", CustomNetworkInterfaceName: prefix + "-pe-nic",
				PrivateIPAddresses:        []string{strings.TrimSuffix(cidr, "0/24") + "77"},
				ApplicationSecurityGroups: []string{fieldsID("applicationSecurityGroups", prefix+"-asg")},
				ManualApproval:            true,
				PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{
					Name: prefix + "-plsc", PrivateLinkServiceID: fieldsID("privateLinkServices", prefix+"-pls"),
					GroupIDs: []string{prefix + "-group"}, RequestMessage: prefix + "-request",
				}},
			}},
		},
		SecurityGroup: infrav1.SecurityGroup{
			Name: prefix + "-nsg",
			SecurityGroupClass: infrav1.SecurityGroupClass{
				Tags: infrav1.Tags{prefix + "-nsg-tag": prefix + "-nsg-value"},
				SecurityRules: infrav1.SecurityRules{
					{
						Name: prefix + "-rule-1", Description: prefix + "-description-1", Protocol: infrav1.SecurityGroupProtocolUDP,
						Direction: infrav1.SecurityRuleDirectionOutbound, Priority: 3101, Action: infrav1.SecurityRuleActionDeny,
						SourcePorts: ptr.To("3102-3103"), DestinationPorts: ptr.To("3104,3105"),
						Source: ptr.To(prefix + "-source"), Destination: ptr.To(prefix + "-destination"),
					},
					{
						Name: prefix + "-rule-2", Description: prefix + "-description-2", Protocol: infrav1.SecurityGroupProtocolICMP,
						Direction: infrav1.SecurityRuleDirectionInbound, Priority: 3106, Action: infrav1.SecurityRuleActionAllow,
						Sources: []*string{ptr.To(prefix + "-sources-a"), ptr.To(prefix + "-sources-b")}, SourcePorts: ptr.To("*"),
						Destination: ptr.To(prefix + "-destination-2"), DestinationPorts: ptr.To("*"),
					},
				},
			},
		},
		RouteTable: infrav1.RouteTable{Name: prefix + "-rt"},
		NatGateway: infrav1.NatGateway{
			NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: prefix + "-natgw"},
			NatGatewayIP: infrav1.PublicIPSpec{
				Name: prefix + "-natgw-pip", DNSName: prefix + "-natgw-label.example.com",
				IPTags: []infrav1.IPTag{{Type: prefix + "-iptag-type", Tag: "/" + prefix + "-iptag"}},
			},
			Zones: []string{"2"},
		},
	}
}

// idSubnet is a subnet whose security group, route table and NAT gateway are the user's, given by id.
func idSubnet(prefix string, role infrav1.SubnetRole, cidr string) infrav1.SubnetSpec {
	return infrav1.SubnetSpec{
		SubnetClassSpec: infrav1.SubnetClassSpec{Name: prefix + "-subnet", Role: role, CIDRBlocks: []string{cidr}},
		SecurityGroup:   infrav1.SecurityGroup{Name: prefix + "-nsg", ID: fieldsID("networkSecurityGroups", prefix+"-nsg")},
		RouteTable:      infrav1.RouteTable{Name: prefix + "-rt", ID: fieldsID("routeTables", prefix+"-rt")},
		NatGateway: infrav1.NatGateway{
			NatGatewayClassSpec: infrav1.NatGatewayClassSpec{Name: prefix + "-natgw"}, ID: fieldsID("natGateways", prefix+"-natgw"),
		},
	}
}

func outboundLB(prefix string, idle int32, zone string) *infrav1.LoadBalancerSpec {
	return &infrav1.LoadBalancerSpec{
		ID:   fieldsID("loadBalancers", prefix+"-lb"),
		Name: prefix + "-lb",
		FrontendIPs: []infrav1.FrontendIP{{Name: prefix + "-frontend", PublicIP: &infrav1.PublicIPSpec{
			Name: prefix + "-pip", DNSName: prefix + "-label.example.com",
			IPTags: []infrav1.IPTag{{Type: prefix + "-iptag-type", Tag: "/" + prefix + "-iptag"}},
		}}},
		FrontendIPsCount:      ptr.To[int32](1),
		BackendPool:           infrav1.BackendPool{Name: prefix + "-pool"},
		AvailabilityZones:     []string{zone},
		LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{SKU: infrav1.SKUStandard, Type: infrav1.Public, IdleTimeoutInMinutes: ptr.To(idle)},
	}
}

// fullSpecs are AzureCluster specs that, together, set every spec field. One spec cannot: a user's virtual network
// (vnet.id) has no security groups, route tables or NAT gateways, a private API server no public IP, and so on.
func fullSpecs() map[string]infrav1.AzureClusterSpec {
	base := infrav1.AzureClusterSpec{
		AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
			SubscriptionID:   fieldsSubscription,
			Location:         "westus", // a region without zones: every zone in the output comes from the spec
			ExtendedLocation: &infrav1.ExtendedLocationSpec{Name: "edge-zone-name", Type: "EdgeZone"},
			AdditionalTags:   infrav1.Tags{"additional-tag": "additional-value"},
			IdentityRef:      &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "identity", Namespace: "ns"},
			AzureEnvironment: "AzureChinaCloud",
			CloudProviderConfigOverrides: &infrav1.CloudProviderConfigOverrides{
				RateLimits: []infrav1.RateLimitSpec{{Name: "defaultRateLimit", Config: infrav1.RateLimitConfig{
					CloudProviderRateLimit: true, CloudProviderRateLimitQPS: ptr.To(resource.MustParse("1")), CloudProviderRateLimitBucket: 2,
					CloudProviderRateLimitQPSWrite: ptr.To(resource.MustParse("3")), CloudProviderRateLimitBucketWrite: 4,
				}}},
				BackOffs: infrav1.BackOffConfig{
					CloudProviderBackoff: true, CloudProviderBackoffRetries: 5, CloudProviderBackoffExponent: ptr.To(resource.MustParse("6")),
					CloudProviderBackoffDuration: 7, CloudProviderBackoffJitter: ptr.To(resource.MustParse("8")),
				},
			},
			FailureDomains: infrav1.FailureDomains{"fd": {ControlPlane: true, Attributes: map[string]string{"k": "v"}}},
			ASOPatches: []infrav1.ASOPatch{{
				Target: infrav1.ASOPatchTarget{Kind: "VirtualNetwork", Name: "vnet"}, Type: infrav1.MergePatchType, Patch: "{}",
			}},
		},
		ResourceGroup:        "cluster-rg",
		ControlPlaneEnabled:  ptr.To(true),
		ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "api.example.com", Port: 6443},
	}

	managed := base
	managed.NetworkSpec = infrav1.NetworkSpec{
		Vnet: infrav1.VnetSpec{
			ResourceGroup: "vnet-rg", Name: "managed-vnet",
			Peerings: infrav1.VnetPeerings{{VnetPeeringClassSpec: infrav1.VnetPeeringClassSpec{
				ResourceGroup: "peer-rg", RemoteVnetName: "remote-vnet",
				ForwardPeeringProperties: infrav1.VnetPeeringProperties{
					AllowForwardedTraffic: ptr.To(true), AllowGatewayTransit: ptr.To(true),
					AllowVirtualNetworkAccess: ptr.To(true), UseRemoteGateways: ptr.To(true),
				},
				ReversePeeringProperties: infrav1.VnetPeeringProperties{
					AllowForwardedTraffic: ptr.To(false), AllowGatewayTransit: ptr.To(false),
					AllowVirtualNetworkAccess: ptr.To(false), UseRemoteGateways: ptr.To(false),
				},
			}}},
			VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/8"}, Tags: infrav1.Tags{"vnet-tag": "vnet-value"}},
		},
		Subnets: infrav1.Subnets{
			namedSubnet("cp", infrav1.SubnetControlPlane, "10.1.0.0/24"),
			namedSubnet("node", infrav1.SubnetNode, "10.2.0.0/24"),
		},
		APIServerLB: &infrav1.LoadBalancerSpec{
			ID:                    fieldsID("loadBalancers", "api-lb"),
			Name:                  "api-lb",
			FrontendIPs:           []infrav1.FrontendIP{{Name: "api-frontend", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.1.0.100"}}},
			FrontendIPsCount:      ptr.To[int32](1),
			BackendPool:           infrav1.BackendPool{Name: "api-pool"},
			AvailabilityZones:     []string{"1"},
			LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{SKU: infrav1.SKUStandard, Type: infrav1.Internal, IdleTimeoutInMinutes: ptr.To[int32](17)},
		},
		NodeOutboundLB:             outboundLB("node-outbound", 18, "3"),
		ControlPlaneOutboundLB:     outboundLB("cp-outbound", 19, "2"),
		AdditionalAPIServerLBPorts: []infrav1.LoadBalancerPort{{Name: "extra-port", Port: 9345}},
		PrivateDNSZone:             ptr.To(infrav1.PrivateDNSZoneModeSystem),
		NetworkClassSpec:           infrav1.NetworkClassSpec{PrivateDNSZoneName: "zone.example.com", PrivateDNSZoneResourceGroup: "dns-rg"},
	}
	bastionSubnet := namedSubnet("bastion", infrav1.SubnetBastion, "10.255.255.0/24")
	bastionSubnet.Name = infrav1.DefaultAzureBastionSubnetName
	managed.BastionSpec.AzureBastion = &infrav1.AzureBastion{
		Name: "bastion-host", Subnet: bastionSubnet, Sku: infrav1.StandardBastionHostSku, EnableTunneling: true,
		PublicIP: infrav1.PublicIPSpec{
			Name: "bastion-pip", DNSName: "bastion-label.example.com",
			IPTags: []infrav1.IPTag{{Type: "bastion-iptag-type", Tag: "/bastion-iptag"}},
		},
	}

	// The user's security groups, route tables and NAT gateways, and a public API server.
	ids := base
	ids.NetworkSpec = infrav1.NetworkSpec{
		Vnet: infrav1.VnetSpec{ResourceGroup: "vnet-rg", Name: "ids-vnet", VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/8"}}},
		Subnets: infrav1.Subnets{
			idSubnet("ids-cp", infrav1.SubnetControlPlane, "10.1.0.0/24"),
			idSubnet("ids-node", infrav1.SubnetNode, "10.2.0.0/24"),
		},
		APIServerLB: outboundLB("public-api", 20, "1"),
	}
	idsBastionSubnet := idSubnet("ids-bastion", infrav1.SubnetBastion, "10.255.255.0/24")
	idsBastionSubnet.Name = infrav1.DefaultAzureBastionSubnetName
	ids.BastionSpec.AzureBastion = &infrav1.AzureBastion{Name: "ids-bastion", Subnet: idsBastionSubnet, PublicIP: infrav1.PublicIPSpec{Name: "ids-bastion-pip"}}

	// The user's virtual network and subnets.
	byo := base
	byoVnet := fieldsID("virtualNetworks", "byo-vnet")
	byo.NetworkSpec = infrav1.NetworkSpec{
		Vnet: infrav1.VnetSpec{ID: byoVnet, ResourceGroup: "ids-rg", Name: "byo-vnet"},
		Subnets: infrav1.Subnets{
			{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "byo-cp-subnet", Role: infrav1.SubnetControlPlane}, ID: byoVnet + "/subnets/byo-cp"},
			{
				SubnetClassSpec: infrav1.SubnetClassSpec{Name: "byo-node-subnet", Role: infrav1.SubnetNode, PrivateEndpoints: infrav1.PrivateEndpoints{{
					Name: "byo-pe", PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{PrivateLinkServiceID: fieldsID("privateLinkServices", "byo-pls")}},
				}}},
				ID: byoVnet + "/subnets/byo-node",
			},
		},
		APIServerLB: &infrav1.LoadBalancerSpec{
			Name:                  "byo-api-lb",
			FrontendIPs:           []infrav1.FrontendIP{{Name: "byo-frontend", FrontendIPClass: infrav1.FrontendIPClass{PrivateIPAddress: "10.1.0.100"}}},
			BackendPool:           infrav1.BackendPool{Name: "byo-pool"},
			LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Internal},
		},
	}
	byo.BastionSpec.AzureBastion = &infrav1.AzureBastion{
		Name: "byo-bastion", PublicIP: infrav1.PublicIPSpec{Name: "byo-bastion-pip"},
		Subnet: infrav1.SubnetSpec{
			SubnetClassSpec: infrav1.SubnetClassSpec{Name: infrav1.DefaultAzureBastionSubnetName, Role: infrav1.SubnetBastion},
			ID:              byoVnet + "/subnets/" + infrav1.DefaultAzureBastionSubnetName,
		},
	}
	return map[string]infrav1.AzureClusterSpec{"managed": managed, "ids": ids, "byo": byo}
}

// TestClusterResources_EveryField checks that every AzureCluster spec field is translated: each value set in the
// full specs appears in the YAML of ClusterResources' output, except the fields consumed elsewhere; and the full
// specs together set every field of the type, so a field added to the API fails here until it is handled.
func TestClusterResources_EveryField(t *testing.T) {
	set := map[string]bool{}
	for name, spec := range fullSpecs() {
		ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Name: "fields-cluster", Namespace: "default"}, Spec: spec}
		out, err := yaml.Marshal(view(ClusterResources(inputOf(ac))))
		if err != nil {
			t.Fatal(err)
		}
		text := string(out)
		leafValues("", reflect.ValueOf(spec), func(path string, v reflect.Value) {
			set[path] = true
			for _, want := range expectedText(path, v) {
				if !strings.Contains(text, want) {
					t.Errorf("%s: spec.%s = %v: %q is not in the output", name, path, v.Interface(), want)
				}
			}
		})
	}
	all := map[string]bool{}
	leafPaths("", reflect.TypeOf(infrav1.AzureClusterSpec{}), all)
	for _, path := range slices.Sorted(maps.Keys(all)) {
		if !set[path] {
			t.Errorf("spec.%s is set by no full spec: set it, or list it in consumedElsewhere with the reason", path)
		}
	}
	for path := range consumedElsewhere {
		if !all[path] && !hasLeafUnder(all, path) && !isStructPath(path) {
			t.Errorf("consumedElsewhere lists spec.%s, which is no field", path)
		}
	}
	// Admitted and implemented, or rejected: the webhook admits every field found in the output and rejects every
	// field not supported yet.
	for path := range set {
		if !isConsumedElsewhere(path) && !infrav1.IsFieldImplemented("AzureCluster", path) {
			t.Errorf("spec.%s reaches the objects, yet the webhook rejects it as not implemented", path)
		}
	}
	for path, reason := range consumedElsewhere {
		if notSupported := strings.HasPrefix(reason, "not supported yet"); notSupported == infrav1.IsFieldImplemented("AzureCluster", path) {
			t.Errorf("spec.%s: consumedElsewhere says %q, yet the webhook's implemented fields say %t", path, reason, !notSupported)
		}
	}
}

func hasLeafUnder(all map[string]bool, prefix string) bool {
	for p := range all {
		if strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[]") {
			return true
		}
	}
	return false
}

// isStructPath reports whether path names a field of AzureClusterSpec (leafPaths skips consumed paths entirely).
func isStructPath(path string) bool {
	t := reflect.TypeOf(infrav1.AzureClusterSpec{})
	for _, part := range strings.Split(path, ".") {
		part = strings.TrimSuffix(part, "[]")
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		f, ok := fieldByJSONName(t, part)
		if !ok {
			return false
		}
		t = f.Type
	}
	return true
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		json, inline := jsonName(f)
		if inline {
			if found, ok := fieldByJSONName(f.Type, name); ok {
				return found, true
			}
		} else if json == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonName(f reflect.StructField) (name string, inline bool) {
	name, _, _ = strings.Cut(f.Tag.Get("json"), ",")
	if name == "" && f.Anonymous {
		return "", true
	}
	if name == "" {
		name = f.Name
	}
	return name, false
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// leafPaths collects the path of every leaf field of a type, except those consumed elsewhere.
func leafPaths(prefix string, t reflect.Type, out map[string]bool) {
	if prefix != "" && isConsumedElsewhere(prefix) {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		leafPaths(prefix, t.Elem(), out)
	case reflect.Slice:
		leafPaths(prefix+"[]", t.Elem(), out)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, inline := jsonName(f)
			if inline {
				leafPaths(prefix, f.Type, out)
			} else if name != "-" {
				leafPaths(joinPath(prefix, name), f.Type, out)
			}
		}
	default:
		out[prefix] = true
	}
}

// leafValues visits every leaf field that holds a value: a non-nil pointer, a non-empty map, a non-zero scalar.
func leafValues(prefix string, v reflect.Value, visit func(path string, v reflect.Value)) {
	if prefix != "" && isConsumedElsewhere(prefix) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Elem().Kind() == reflect.Struct {
			leafValues(prefix, v.Elem(), visit)
		} else {
			visit(prefix, v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			leafValues(prefix+"[]", v.Index(i), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, inline := jsonName(f)
			if inline {
				leafValues(prefix, v.Field(i), visit)
			} else if name != "-" {
				leafValues(joinPath(prefix, name), v.Field(i), visit)
			}
		}
	case reflect.Map:
		if v.Len() > 0 {
			visit(prefix, v)
		}
	default:
		if !v.IsZero() {
			visit(prefix, v)
		}
	}
}

// expectedText is what a spec value becomes in the output YAML.
func expectedText(path string, v reflect.Value) []string {
	name := path[strings.LastIndex(path, ".")+1:]
	name = strings.TrimSuffix(name, "[]")
	switch v.Kind() {
	case reflect.Map:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(v.Interface().(infrav1.Tags))) {
			out = append(out, fmt.Sprintf("%s: %s", k, v.MapIndex(reflect.ValueOf(k)).String()))
		}
		return out
	case reflect.Bool:
		if name == "manualApproval" {
			return []string{"manualPrivateLinkServiceConnections:"}
		}
		return []string{fmt.Sprintf("%s: %t", name, v.Bool())}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return []string{fmt.Sprintf(": %d", v.Int())}
	case reflect.String:
		s := v.String()
		switch name {
		case "dnsName":
			label, _, _ := strings.Cut(s, ".")
			return []string{label}
		case "sourcePorts", "destinationPorts":
			return strings.Split(s, ",")
		}
		return []string{s}
	}
	return []string{fmt.Sprint(v.Interface())}
}
