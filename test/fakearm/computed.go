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

package fakearm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// compute adds what Azure computes to a rendered resource. Values derive from the resource's ID (a VM's vmId also
// from its instance: a VM created again after a deletion has another), so they are the same on every GET and in
// every run. The lock is held.
func (s *Server) compute(out map[string]any, r *resource) {
	props := out["properties"].(map[string]any)
	computeIdentity(out, r)
	switch strings.ToLower(r.id.fullType()) {
	case "microsoft.managedidentity/userassignedidentities":
		props["principalId"] = PrincipalID(r.id.raw)
		props["clientId"] = clientID(r.id.raw)
		props["tenantId"] = r.tenant
	case "microsoft.compute/virtualmachines":
		props["vmId"] = stableGUID(r.id.raw, instancePurpose("vmId", r.instance))
	case "microsoft.compute/availabilitysets":
		props["virtualMachines"] = s.availabilitySetMembers(r)
	case scaleSetType:
		props["uniqueId"] = stableGUID(r.id.raw, "uniqueId")
	case scaleSetInstanceType:
		s.computeInstance(out, props, r)
	case "microsoft.network/networkinterfaces":
		s.computeNetworkInterface(props, r)
	case "microsoft.network/publicipaddresses":
		computePublicIPAddress(props, location(out), r)
	case "microsoft.network/privateendpoints":
		computePrivateEndpoint(props)
	case "microsoft.containerservice/managedclusters":
		computeManagedCluster(props, location(out), r)
	case "microsoft.containerservice/managedclusters/agentpools":
		s.computeAgentPool(props, r)
	case "microsoft.authorization/roleassignments":
		if str(props, "scope") == "" {
			props["scope"] = scopeOf(r.id)
		}
	}
	if strings.EqualFold(r.id.namespace, "Microsoft.Network") {
		nameSubResources(props, r.id.raw)
	}
}

// stableGUID is a GUID derived from an ID (any case) and a purpose.
func stableGUID(id, purpose string) string {
	h := sha256.Sum256([]byte(strings.ToLower(id) + "#" + purpose))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// instancePurpose is the purpose of a GUID unique to one instance of a resource ID: the first instance keeps the
// plain purpose, a later one (created after a deletion) gets another GUID.
func instancePurpose(purpose string, instance int) string {
	if instance == 0 {
		return purpose
	}
	return fmt.Sprintf("%s#%d", purpose, instance)
}

// shortHash is the 8 hex digits Azure puts into generated host names.
func shortHash(id, purpose string) string {
	h := sha256.Sum256([]byte(strings.ToLower(id) + "#" + purpose))
	return hex.EncodeToString(h[:4])
}

// hashUint is a number derived from an ID and a purpose, for addresses.
func hashUint(id, purpose string) uint32 {
	h := sha256.Sum256([]byte(strings.ToLower(id) + "#" + purpose))
	return binary.BigEndian.Uint32(h[:4])
}

// PrincipalID and clientID are a managed identity's: a user-assigned identity reports them on itself and on every
// resource that lists it in identity.userAssignedIdentities; a system-assigned identity's principal is its
// resource's. PrincipalID is exported for comparisons of runs: they say whose principal a role assignment names.
func PrincipalID(id string) string { return stableGUID(id, "principalId") }
func clientID(id string) string    { return stableGUID(id, "clientId") }

// location is a rendered resource's location as host names carry it: lower case, no spaces.
func location(out map[string]any) string {
	return strings.ToLower(strings.ReplaceAll(str(out, "location"), " ", ""))
}

// scopeOf is the scope of an extension resource, "/" for the tenant.
func scopeOf(id armID) string {
	if id.parent == "" {
		return "/"
	}
	return id.parent
}

// computeIdentity fills identity.principalId and tenantId of a system-assigned identity, and the principal and
// client IDs of each user-assigned identity listed.
func computeIdentity(out map[string]any, r *resource) {
	identity, ok := out["identity"].(map[string]any)
	if !ok {
		return
	}
	if strings.Contains(strings.ToLower(str(identity, "type")), "systemassigned") {
		identity["principalId"] = PrincipalID(r.id.raw)
		identity["tenantId"] = r.tenant
	}
	assigned, _ := identity["userAssignedIdentities"].(map[string]any)
	for id, v := range assigned {
		entry, ok := v.(map[string]any)
		if !ok {
			entry = map[string]any{}
			assigned[id] = entry
		}
		entry["principalId"] = PrincipalID(id)
		entry["clientId"] = clientID(id)
	}
}

// computeNetworkInterface gives each IP configuration without an address one, inside its subnet's prefix when the
// fake holds the subnet (Azure's first four and the last address excluded), else in 10.0.0.0/8.
func (s *Server) computeNetworkInterface(props map[string]any, r *resource) {
	configs, _ := props["ipConfigurations"].([]any)
	for i, c := range configs {
		config, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cp := ensureMap(config, "properties")
		if str(cp, "privateIPAllocationMethod") == "" {
			cp["privateIPAllocationMethod"] = "Dynamic"
		}
		if str(cp, "privateIPAddressVersion") == "" {
			cp["privateIPAddressVersion"] = "IPv4"
		}
		if str(cp, "privateIPAddress") != "" {
			continue
		}
		purpose := fmt.Sprintf("ipConfiguration/%d/%s", i, str(config, "name"))
		if strings.EqualFold(str(cp, "privateIPAddressVersion"), "IPv6") {
			h := hashUint(r.id.raw, purpose)
			cp["privateIPAddress"] = fmt.Sprintf("fd00::%x:%x", h>>16, h&0xffff)
			continue
		}
		cp["privateIPAddress"] = s.privateIPv4(str(lookupMap(cp, "subnet"), "id"), hashUint(r.id.raw, purpose))
	}
}

// privateIPv4 is an address in a subnet's IPv4 prefix, or in 10.0.0.0/8 without one. The lock is held.
func (s *Server) privateIPv4(subnetID string, h uint32) string {
	if subnet, ok := s.resources[parseID(subnetID).key()]; ok && subnetID != "" {
		sp := lookupMap(subnet.body, "properties")
		prefixText := str(sp, "addressPrefix")
		if prefixes, ok := sp["addressPrefixes"].([]any); prefixText == "" && ok && len(prefixes) > 0 {
			prefixText, _ = prefixes[0].(string)
		}
		if prefix, err := netip.ParsePrefix(prefixText); err == nil && prefix.Addr().Is4() && prefix.Bits() <= 29 {
			size := uint32(1) << (32 - prefix.Bits())
			base := prefix.Masked().Addr().As4()
			addr := binary.BigEndian.Uint32(base[:]) + 4 + h%(size-5)
			var out [4]byte
			binary.BigEndian.PutUint32(out[:], addr)
			return netip.AddrFrom4(out).String()
		}
	}
	return fmt.Sprintf("10.%d.%d.%d", h>>24, (h>>16)&0xff, 4+(h&0xff)%250)
}

// computePublicIPAddress gives a public IP address its address and, with a DNS label, its FQDN.
func computePublicIPAddress(props map[string]any, loc string, r *resource) {
	if str(props, "ipAddress") == "" {
		h := hashUint(r.id.raw, "ipAddress")
		if strings.EqualFold(str(props, "publicIPAddressVersion"), "IPv6") {
			props["ipAddress"] = fmt.Sprintf("2603:1030::%x:%x", h>>16, h&0xffff)
		} else {
			props["ipAddress"] = fmt.Sprintf("20.%d.%d.%d", (h>>16)&0xff, (h>>8)&0xff, 1+(h&0xff)%254)
		}
	}
	dns := lookupMap(props, "dnsSettings")
	if label := str(dns, "domainNameLabel"); label != "" && str(dns, "fqdn") == "" {
		dns["fqdn"] = fmt.Sprintf("%s.%s.cloudapp.azure.com", label, loc)
	}
}

// computePrivateEndpoint gives each private link service connection a state, as Azure does: approved for an
// automatic connection, pending for a manual one (ASO's post-reconciliation check waits for its approval).
func computePrivateEndpoint(props map[string]any) {
	for key, status := range map[string]string{
		"privateLinkServiceConnections":       "Approved",
		"manualPrivateLinkServiceConnections": "Pending",
	} {
		connections, _ := props[key].([]any)
		for _, c := range connections {
			connection, ok := c.(map[string]any)
			if !ok {
				continue
			}
			cp := ensureMap(connection, "properties")
			if state := lookupMap(cp, "privateLinkServiceConnectionState"); str(state, "status") == "" {
				cp["privateLinkServiceConnectionState"] = map[string]any{"status": status, "description": status, "actionsRequired": "None"}
			}
		}
	}
}

// computeManagedCluster adds a managed cluster's FQDNs, versions, node resource group, power state and OIDC issuer.
func computeManagedCluster(props map[string]any, loc string, r *resource) {
	prefix := str(props, "dnsPrefix")
	if prefix == "" {
		prefix = str(props, "fqdnSubdomain")
	}
	if prefix == "" {
		prefix = r.id.name
	}
	host := fmt.Sprintf("%s-%s", prefix, shortHash(r.id.raw, "fqdn"))
	props["fqdn"] = fmt.Sprintf("%s.hcp.%s.azmk8s.io", host, loc)
	props["azurePortalFQDN"] = fmt.Sprintf("%s.portal.hcp.%s.azmk8s.io", host, loc)
	if api := lookupMap(props, "apiServerAccessProfile"); api != nil && api["enablePrivateCluster"] == true {
		props["privateFQDN"] = fmt.Sprintf("%s.%s.privatelink.%s.azmk8s.io", host, shortHash(r.id.raw, "privateFQDN"), loc)
	}
	if version := str(props, "kubernetesVersion"); version != "" {
		props["currentKubernetesVersion"] = version
	}
	if str(props, "nodeResourceGroup") == "" {
		props["nodeResourceGroup"] = fmt.Sprintf("MC_%s_%s_%s", r.id.resourceGroup, r.id.name, loc)
	}
	if lookupMap(props, "powerState") == nil {
		props["powerState"] = map[string]any{"code": "Running"}
	}
	if oidc := lookupMap(props, "oidcIssuerProfile"); oidc != nil && oidc["enabled"] == true {
		oidc["issuerURL"] = fmt.Sprintf("https://%s.oic.prod-aks.azure.com/%s/%s/", loc, r.tenant, stableGUID(r.id.raw, "oidc"))
	}
}

// computeAgentPool adds an agent pool's versions (its cluster's when it names none) and power state. The lock is
// held.
func (s *Server) computeAgentPool(props map[string]any, r *resource) {
	version := str(props, "orchestratorVersion")
	if version == "" {
		if cluster, ok := s.resources[strings.ToLower(r.id.parent)]; ok {
			version = str(lookupMap(cluster.body, "properties"), "kubernetesVersion")
		}
	}
	if version != "" {
		if str(props, "orchestratorVersion") == "" {
			props["orchestratorVersion"] = version
		}
		props["currentOrchestratorVersion"] = version
	}
	if lookupMap(props, "powerState") == nil {
		props["powerState"] = map[string]any{"code": "Running"}
	}
}

// nameSubResources gives the named entries of a network resource's lists (a load balancer's frontend IP
// configurations and pools, a network interface's IP configurations, ...) the IDs Azure gives them.
func nameSubResources(props map[string]any, id string) {
	for key, v := range props {
		items, _ := v.([]any)
		for _, item := range items {
			entry, ok := item.(map[string]any)
			if name := str(entry, "name"); ok && name != "" && entry["id"] == nil {
				entry["id"] = id + "/" + key + "/" + name
			}
		}
	}
}

// availabilitySetMembers lists the VMs in an availability set (properties.availabilitySet names it), as Azure reports
// them: CAPZ deletes a set only when it has none. The lock is held.
func (s *Server) availabilitySetMembers(set *resource) []any {
	var ids []string
	for _, r := range s.resources {
		if strings.EqualFold(r.id.fullType(), "Microsoft.Compute/virtualMachines") &&
			strings.EqualFold(str(lookupMap(r.body, "properties", "availabilitySet"), "id"), set.id.raw) {
			ids = append(ids, r.id.raw)
		}
	}
	sort.Strings(ids)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, map[string]any{"id": id})
	}
	return out
}
