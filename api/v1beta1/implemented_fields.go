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
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A field we accept is a field we implement. This file is the one place that says which spec fields the
// controllers of each kind read. Every kind is listed: its webhook rejects a non-empty value in any other field
// with "field not supported yet", so nothing a user writes is silently ignored. TestFieldSupport walks every spec
// field of every kind and checks that each one is either listed here, with a test proving that it changes what the
// provider makes, or rejected.
//
// Paths use json names separated by dots; "[]" stands for any list item. A path covers everything under it.
var implementedFields = map[string][]string{
	// AzureCluster: controllers/azurecluster with the translators of azure/network and azure/resources.
	// cloudProviderConfigOverrides goes to the <machine template>-azure-json Secrets (azure/cloudconfig).
	// Not implemented: the ids of load balancers (a load balancer is always created), private IPs on
	// the frontends of outbound load balancers (they are public), and the API server load balancer's
	// frontendIPsCount (its frontends are frontendIPs; CAPZ counts only outbound frontends).
	"AzureCluster": {
		"subscriptionID", "location", "extendedLocation", "additionalTags", "identityRef", "azureEnvironment",
		"cloudProviderConfigOverrides", "failureDomains", "asoPatches", "resourceGroup", "bastionSpec", "controlPlaneEnabled", "controlPlaneEndpoint",
		"networkSpec.vnet", "networkSpec.subnets", "networkSpec.additionalAPIServerLBPorts", "networkSpec.privateDNSZone",
		"networkSpec.privateDNSZoneName", "networkSpec.privateDNSZoneResourceGroup",
		"networkSpec.apiServerLB.name", "networkSpec.apiServerLB.frontendIPs",
		"networkSpec.apiServerLB.backendPool", "networkSpec.apiServerLB.availabilityZones", "networkSpec.apiServerLB.sku",
		"networkSpec.apiServerLB.type", "networkSpec.apiServerLB.idleTimeoutInMinutes",
		"networkSpec.nodeOutboundLB.name", "networkSpec.nodeOutboundLB.frontendIPs[].name", "networkSpec.nodeOutboundLB.frontendIPs[].publicIP",
		"networkSpec.nodeOutboundLB.frontendIPsCount", "networkSpec.nodeOutboundLB.backendPool", "networkSpec.nodeOutboundLB.availabilityZones",
		"networkSpec.nodeOutboundLB.sku", "networkSpec.nodeOutboundLB.type", "networkSpec.nodeOutboundLB.idleTimeoutInMinutes",
		"networkSpec.controlPlaneOutboundLB.name", "networkSpec.controlPlaneOutboundLB.frontendIPs[].name", "networkSpec.controlPlaneOutboundLB.frontendIPs[].publicIP",
		"networkSpec.controlPlaneOutboundLB.frontendIPsCount", "networkSpec.controlPlaneOutboundLB.backendPool",
		"networkSpec.controlPlaneOutboundLB.availabilityZones", "networkSpec.controlPlaneOutboundLB.sku",
		"networkSpec.controlPlaneOutboundLB.type", "networkSpec.controlPlaneOutboundLB.idleTimeoutInMinutes",
	},
	// AzureMachine: controllers/azuremachine with the translators of azure/compute, azure/network and
	// azure/authorization. Every field is implemented (subnetName, acceleratedNetworking and roleAssignmentName
	// are moved into their replacements by defaulting).
	"AzureMachine": {
		"providerID", "vmSize", "failureDomain", "image", "identity", "userAssignedIdentities", "systemAssignedIdentityRole",
		"roleAssignmentName", "osDisk", "dataDisks", "sshPublicKey", "additionalTags", "additionalCapabilities",
		"allocatePublicIP", "enableIPForwarding", "acceleratedNetworking", "diagnostics", "spotVMOptions", "securityProfile",
		"subnetName", "dnsServers", "disableExtensionOperations", "disableVMBootstrapExtension", "vmExtensions",
		"networkInterfaces", "capacityReservationGroupID", "virtualMachineScaleSetID", "asoPatches",
	},
	// AzureManagedControlPlane: controllers/azuremanagedcontrolplane with the translators of azure/aks.
	// Not implemented: fleetsMember and extensions (ASO's FleetsMember and Extension kinds are not among the
	// provider's kinds yet) and enablePreviewFeatures: true (the AKS preview API is not either; false, the
	// default, is accepted).
	"AzureManagedControlPlane": {
		"machineTemplate", "resourceGroupName", "nodeResourceGroupName", "controlPlaneEndpoint", "sshPublicKey", "dnsPrefix",
		"version", "virtualNetwork", "subscriptionID", "location", "additionalTags", "networkPlugin", "networkPluginMode",
		"networkPolicy", "networkDataplane", "outboundType", "dnsServiceIP", "loadBalancerSKU", "identityRef", "aadProfile",
		"addonProfiles", "sku", "loadBalancerProfile", "apiServerAccessProfile", "autoscalerProfile", "azureEnvironment",
		"identity", "kubeletUserAssignedIdentity", "httpProxyConfig", "oidcIssuerProfile", "disableLocalAccounts",
		"autoUpgradeProfile", "securityProfile", "asoManagedClusterPatches", "asoPatches",
	},
	// AzureManagedCluster: controllers/azuremanagedcluster, which copies the control plane's endpoint.
	"AzureManagedCluster": {"controlPlaneEndpoint"},
	// AzureManagedMachinePool: controllers/azuremanagedmachinepool with the translators of azure/aks. Every field
	// is implemented.
	"AzureManagedMachinePool": {
		"additionalTags", "name", "mode", "sku", "osDiskSizeGB", "availabilityZones", "nodeLabels", "taints", "scaling",
		"maxPods", "osDiskType", "enableUltraSSD", "osType", "enableNodePublicIP", "nodePublicIPPrefixID",
		"scaleSetPriority", "scaleDownMode", "spotMaxPrice", "kubeletConfig", "kubeletDiskType", "linuxOSConfig",
		"subnetName", "enableFIPS", "enableEncryptionAtHost", "asoManagedClustersAgentPoolPatches", "asoPatches",
		"providerIDList",
	},
	// AzureMachinePool: exp/controllers/azuremachinepool with the translators of azure/compute (the scale set,
	// and for a Flexible scale set one VM per instance, made by exp/controllers/azuremachinepoolmachine). Every field
	// is implemented (template.subnetName, template.acceleratedNetworking and roleAssignmentName are moved into
	// their replacements by defaulting; providerID and providerIDList are set by the controller).
	"AzureMachinePool": {
		"location", "template", "additionalTags", "providerID", "providerIDList", "identity",
		"systemAssignedIdentityRole", "userAssignedIdentities", "roleAssignmentName", "strategy", "orchestrationMode",
		"platformFaultDomainCount", "zoneBalance", "asoPatches",
	},
	// AzureMachinePoolMachine: created by the AzureMachinePool controller for each instance of a Flexible scale
	// set. instanceID is CAPZ's record of an instance of a Uniform scale set (the provider makes no
	// AzureMachinePoolMachines for those: ASO cannot act on one of their instances): its webhook checks that it is the
	// instance spec.providerID names and keeps it unchanged, so that CAPZ's objects are admitted after a switch.
	"AzureMachinePoolMachine": {"providerID", "instanceID", "model"},
	// AzureClusterIdentity: azure/aso turns it into ASO's credential Secret of each cluster that references it.
	// resourceID is accepted with a warning: CAPZ deprecated it and ignores it too.
	// Not implemented: userAssignedIdentityCredentialsCloudType (ASO's cloud is set once per installation, not per
	// credential).
	"AzureClusterIdentity": {
		"type", "tenantID", "clientID", "clientSecret", "certPath", "userAssignedIdentityCredentialsPath",
		"allowedNamespaces", "resourceID",
	},
	// The AzureASOManaged* kinds: controllers/azureasomanaged* apply spec.resources as they are.
	"AzureASOManagedCluster":      {"resources", "controlPlaneEndpoint"},
	"AzureASOManagedControlPlane": {"resources", "version"},
	"AzureASOManagedMachinePool":  {"resources", "providerIDList"},
}

// templateOf maps a template kind to the kind it stamps out, and where that kind's spec sits in the template.
var templateOf = map[string]struct {
	kind string
	path []string
}{
	"AzureClusterTemplate":                {kind: "AzureCluster", path: []string{"template", "spec"}},
	"AzureMachineTemplate":                {kind: "AzureMachine", path: []string{"template", "spec"}},
	"AzureManagedControlPlaneTemplate":    {kind: "AzureManagedControlPlane", path: []string{"template", "spec"}},
	"AzureManagedClusterTemplate":         {kind: "AzureManagedCluster", path: []string{"template", "spec"}},
	"AzureManagedMachinePoolTemplate":     {kind: "AzureManagedMachinePool", path: []string{"template", "spec"}},
	"AzureASOManagedClusterTemplate":      {kind: "AzureASOManagedCluster", path: []string{"template", "spec"}},
	"AzureASOManagedControlPlaneTemplate": {kind: "AzureASOManagedControlPlane", path: []string{"template", "spec"}},
	"AzureASOManagedMachinePoolTemplate":  {kind: "AzureASOManagedMachinePool", path: []string{"template", "spec"}},
}

// IsFieldImplemented reports whether a spec field of a kind (a path as in implementedFields, e.g.
// "networkSpec.subnets[].name") is one the provider reads, so that its webhook admits it.
func IsFieldImplemented(kind, path string) bool {
	if t, ok := templateOf[kind]; ok {
		rest, inSpec := strings.CutPrefix(path, strings.Join(t.path, ".")+".")
		if !inSpec {
			// Outside the template's spec (its metadata): Cluster API copies it, the webhook checks none of it.
			return true
		}
		kind, path = t.kind, rest
	}
	implemented, gated := implementedFields[kind]
	return !gated || covers(implemented, path)
}

// ValidateImplementedFields rejects every non-empty spec field of a kind that its controller does not implement.
// spec is the kind's spec struct; for a template kind, only its spec.template.spec is checked.
func ValidateImplementedFields(kind string, spec any) field.ErrorList {
	return validateImplementedFields(kind, nil, spec)
}

// notSupportedYet is the detail of ValidateImplementedFields' errors.
const notSupportedYet = "field not supported yet"

// ValidateImplementedFieldsUpdate replaces, among the errors of an update's validation, those of
// ValidateImplementedFields by the refusals of the fields the update sets or changes. A field the provider does not
// implement is refused when a user sets it; an object that has it already (one CAPZ made before a switch,
// docs/migrating-from-capz.md) is not refused every update that leaves it as it is: its metadata, finalizers and
// the fields the provider implements can still change, and clusterctl move can still update it.
func ValidateImplementedFieldsUpdate(kind string, oldSpec, spec any, errs field.ErrorList) field.ErrorList {
	kept := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		if e.Type != field.ErrorTypeForbidden || e.Detail != notSupportedYet {
			kept = append(kept, e)
		}
	}
	return append(kept, validateImplementedFields(kind, oldSpec, spec)...)
}

// validateImplementedFields is ValidateImplementedFields, only for what differs from oldSpec when it is not nil.
func validateImplementedFields(kind string, oldSpec, spec any) field.ErrorList {
	path := field.NewPath("spec")
	content, err := toFields(spec)
	if err != nil {
		return field.ErrorList{field.InternalError(path, err)}
	}
	var old map[string]any
	if oldSpec != nil {
		if old, err = toFields(oldSpec); err != nil {
			return field.ErrorList{field.InternalError(path, err)}
		}
	}
	if t, ok := templateOf[kind]; ok {
		kind = t.kind
		for _, key := range t.path {
			path = path.Child(key)
			next, _ := content[key].(map[string]any)
			content = next
			if oldSpec != nil {
				next, _ := old[key].(map[string]any)
				old = next
			}
		}
	}
	implemented, gated := implementedFields[kind]
	if !gated {
		return nil
	}
	var was *any
	if oldSpec != nil {
		var o any = old
		was = &o
	}
	return unimplemented(path, "", content, was, implemented)
}

// unimplemented walks a value top-down and reports the shortest paths holding a value no implemented path covers.
// With old (the value at the same path before an update, nil for a create), a value equal to it is not reported.
func unimplemented(path *field.Path, pattern string, value any, old *any, implemented []string) field.ErrorList {
	if isEmpty(value) {
		return nil
	}
	if old != nil && reflect.DeepEqual(value, *old) {
		return nil
	}
	if pattern != "" && covers(implemented, pattern) {
		return nil
	}
	if pattern != "" && !leadsTo(implemented, pattern) {
		return field.ErrorList{field.Forbidden(path, notSupportedYet)}
	}
	var errs field.ErrorList
	switch v := value.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			errs = append(errs, unimplemented(path.Child(k), join(pattern, k), v[k], childOf(old, k), implemented)...)
		}
	case []any:
		for i, item := range v {
			errs = append(errs, unimplemented(path.Index(i), pattern+"[]", item, itemOf(old, i), implemented)...)
		}
	default:
		errs = append(errs, field.Forbidden(path, notSupportedYet))
	}
	return errs
}

// childOf is the value of a key of an old map value: nil (nothing to compare with) when old is nil, an empty
// value (a new field) when old has no such key.
func childOf(old *any, key string) *any {
	if old == nil {
		return nil
	}
	m, _ := (*old).(map[string]any)
	child := m[key]
	return &child
}

// itemOf is the item of an old list value at an index, as childOf.
func itemOf(old *any, i int) *any {
	if old == nil {
		return nil
	}
	var item any
	if l, _ := (*old).([]any); i < len(l) {
		item = l[i]
	}
	return &item
}

func join(pattern, key string) string {
	if pattern == "" {
		return key
	}
	return pattern + "." + key
}

// covers reports whether an implemented path is the pattern or one of its parents.
func covers(implemented []string, pattern string) bool {
	for _, p := range implemented {
		if p == pattern || strings.HasPrefix(pattern, p+".") || strings.HasPrefix(pattern, p+"[]") {
			return true
		}
	}
	return false
}

// leadsTo reports whether the pattern is a parent of an implemented path.
func leadsTo(implemented []string, pattern string) bool {
	for _, p := range implemented {
		if strings.HasPrefix(p, pattern+".") || strings.HasPrefix(p, pattern+"[]") {
			return true
		}
	}
	return false
}

func isEmpty(value any) bool {
	if value == nil {
		return true
	}
	v := reflect.ValueOf(value)
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Float64:
		return v.Float() == 0
	}
	return false
}
