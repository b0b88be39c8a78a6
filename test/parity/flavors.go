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

package parity

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
)

// Flavor is a cluster template of CAPZ's that make parity applies to both sides.
type Flavor struct {
	// Name is the template's flavor: templates/cluster-template-<Name>.yaml ("default" is cluster-template.yaml).
	Name string
	// Cluster is the cluster's name; Subscription its Azure subscription, one per flavor, so that every ARM request
	// belongs to one flavor.
	Cluster, Subscription string
	// SelfManaged flavors have a KubeadmControlPlane (their Machines get Nodes); the others are AKS.
	SelfManaged bool
	// Vars are the flavor's own variables, on top of Variables'.
	Vars map[string]string
	// CAPZFeatureGates are the gates CAPZ's manager needs for the flavor besides MachinePool: a CAPZ user of the
	// flavor turns them on. They change CAPZ's defaults for every cluster (APIServerILB gives every public API
	// server load balancer an internal twin), so such a flavor runs on a CAPZ management plane of its own.
	CAPZFeatureGates string
	// Template is the flavor whose template the flavor renders (default Name), and Edits change its objects
	// after rendering, as a user's kustomize patch would.
	Template string
	Edits    []Edit
	// Class is the flavor whose template holds the ClusterClass the flavor's Cluster names (CLUSTER_CLASS_NAME), rendered
	// with the same variables and applied before it: CAPZ's docs (docs/book/src/topics/clusterclass.md, v1.26.0) have
	// users create the ClusterClass first.
	Class string
	// Brought are Azure resources the user made before the cluster and gave it (a resource group, a network), in
	// the order they are made: make parity and make parity-switch make them in the fake ARM before the flavor, and
	// they must survive the cluster's deletion.
	Brought []Seed
}

// Seed is an Azure resource that exists before a flavor: its ID after /subscriptions/<subscription>/, and the body
// the fake ARM holds.
type Seed struct {
	Path string
	Body map[string]any
}

// Edit sets a field of every rendered object of a kind.
type Edit struct {
	Kind  string
	Path  []string
	Value any
}

// Flavors are the flavors make parity compares by default.
var Flavors = []Flavor{
	{Name: "default", Cluster: "pdef", SelfManaged: true},
	// A Cluster of CAPZ's ClusterClass (the clusterclass flavor), whose objects Cluster API's topology controller
	// makes.
	{Name: "topology", Cluster: "ptopo", SelfManaged: true, Class: "clusterclass"},
	{Name: "apiserver-ilb", Cluster: "pilb", SelfManaged: true, Vars: map[string]string{"APISERVER_LB_DNS_SUFFIX": "parity"},
		CAPZFeatureGates: "APIServerILB=true"},
	{Name: "private", Cluster: "ppriv", SelfManaged: true},
	{Name: "dual-stack", Cluster: "pdual", SelfManaged: true},
	{Name: "machinepool", Cluster: "pmp", SelfManaged: true},
	{Name: "windows", Cluster: "pwin", SelfManaged: true},
	{Name: "aks-aso", Cluster: "paks"},
	{Name: "azure-cni-v1", Cluster: "pcni", SelfManaged: true},
	{Name: "ephemeral", Cluster: "peph", SelfManaged: true},
	{Name: "ipv6", Cluster: "pipv6", SelfManaged: true},
	{Name: "flatcar", Cluster: "pflat", SelfManaged: true, Vars: map[string]string{"FLATCAR_VERSION": "4152.2.3"}},
	{Name: "flatcar-sysext", Cluster: "psysx", SelfManaged: true, Vars: map[string]string{"FLATCAR_VERSION": "4152.2.3"}},
	{Name: "aad", Cluster: "paad", SelfManaged: true, Vars: map[string]string{"AZURE_SERVER_APP_ID": "00000000-0000-0000-0000-00000000000c"}},
	{Name: "windows-apiserver-ilb", Cluster: "pwilb", SelfManaged: true, Vars: map[string]string{"APISERVER_LB_DNS_SUFFIX": "parity"},
		CAPZFeatureGates: "APIServerILB=true"},
	{Name: "aks-aso-maintenance", Cluster: "paksm"},
	{Name: "machinepool-windows", Cluster: "pmpwin", SelfManaged: true},
	{Name: "nvidia-gpu", Cluster: "pgpu", SelfManaged: true, Vars: map[string]string{"AZURE_NODE_MACHINE_TYPE": "Standard_NC4as_T4_v3"}},
	{Name: "edgezone", Cluster: "pedge", SelfManaged: true, CAPZFeatureGates: "EdgeZone=true",
		Vars: map[string]string{"AZURE_EXTENDEDLOCATION_NAME": "microsoftlosangeles1", "AZURE_EXTENDEDLOCATION_TYPE": "EdgeZone"}},
	{Name: "azure-bastion", Cluster: "pbast", SelfManaged: true},
	// The default template with three control-plane machines and two workers in a region without availability zones
	// (fakearm.ZonelessLocations): every machine is in an availability set, and the control plane's SSH NAT rules
	// have three ports to keep.
	{Name: "ha-availability-sets", Cluster: "phaas", SelfManaged: true, Template: "default",
		Vars: map[string]string{"AZURE_LOCATION": "westus", "CONTROL_PLANE_MACHINE_COUNT": "3", "WORKER_MACHINE_COUNT": "2"}},
	// Clusters of CAPZ's AKS ClusterClasses (the aks-clusterclass flavors), whose objects Cluster API's topology
	// controller makes.
	{Name: "aks-topology", Cluster: "paktp", Class: "aks-clusterclass"},
	{Name: "aks-aso-topology", Cluster: "pakat", Class: "aks-aso-clusterclass"},
}

// MoreFlavors are CAPZ's other flavors, compared on request (--flavors): make parity runs them, but the differences
// they show are not all in docs/capz-parity.md yet, so they are not in the default set. A flavor moves to Flavors
// once a run of it shows no undocumented difference.
var MoreFlavors = []Flavor{
	// The default template with what CAPZ's flavors leave out (issue 40): machines with a system-assigned identity
	// (and its role assignment, Contributor of the subscription) and the bootstrap extension; a user's security rule
	// and a private endpoint in the node subnet; a peering to a network the user brought, in a resource group of its
	// own.
	{Name: "default-extras", Cluster: "pext", SelfManaged: true, Template: "default",
		Edits: []Edit{
			{Kind: "AzureMachineTemplate", Path: []string{"spec", "template", "spec", "identity"}, Value: "SystemAssigned"},
			{Kind: "AzureMachineTemplate", Path: []string{"spec", "template", "spec", "userAssignedIdentities"}, Value: nil},
			{Kind: "AzureMachineTemplate", Path: []string{"spec", "template", "spec", "disableVMBootstrapExtension"}, Value: false},
			{Kind: "AzureCluster", Path: []string{"spec", "networkSpec", "subnets"}, Value: []any{
				map[string]any{"name": "control-plane-subnet", "role": "control-plane"},
				map[string]any{"name": "node-subnet", "role": "node",
					"securityGroup": map[string]any{"securityRules": []any{map[string]any{
						"name": "allow_https", "description": "the workloads' HTTPS", "protocol": "Tcp", "direction": "Inbound",
						"priority": int64(2200), "source": "*", "sourcePorts": "*", "destination": "*", "destinationPorts": "443",
						"action": "Allow"}}},
					"privateEndpoints": []any{map[string]any{"name": "pext-storage-pe",
						"privateLinkServiceConnections": []any{map[string]any{"name": "storage", "groupIDs": []any{"blob"},
							"privateLinkServiceID": "/subscriptions/{subscription}/resourceGroups/pext-peer/providers/Microsoft.Storage/storageAccounts/pextstorage"}}}}},
			}},
			{Kind: "AzureCluster", Path: []string{"spec", "networkSpec", "vnet", "peerings"}, Value: []any{
				map[string]any{"resourceGroup": "pext-peer", "remoteVnetName": "pext-peer-vnet"}}},
		},
		Brought: []Seed{
			{Path: "resourceGroups/pext-peer", Body: map[string]any{"location": Location}},
			{Path: "resourceGroups/pext-peer/providers/Microsoft.Network/virtualNetworks/pext-peer-vnet", Body: map[string]any{
				"location": Location, "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"172.16.0.0/16"}}}}},
			{Path: "resourceGroups/pext-peer/providers/Microsoft.Storage/storageAccounts/pextstorage", Body: map[string]any{"location": Location}},
		}},
}

// SwitchFlavors are the flavors only make parity-switch builds, beside Flavors: the provider makes them
// differently from CAPZ on purpose (docs/capz-parity.md), so a side-by-side comparison says nothing new, but a
// cluster CAPZ built with them must still be taken over without a change.
var SwitchFlavors = []Flavor{
	// CAPZ's prow-machine-pool-flex test flavor: the machinepool template with a Flexible scale set.
	{Name: "machinepool-flex", Cluster: "pflex", SelfManaged: true, Template: "machinepool",
		Edits: []Edit{{Kind: "AzureMachinePool", Path: []string{"spec", "orchestrationMode"}, Value: "Flexible"}}},
	// The default template with CAPZ's default identity, WorkloadIdentity: CAPZ's credential and ASO's read a
	// federated service account token (ensureASOFederatedToken).
	{Name: "workload-identity", Cluster: "pwi", SelfManaged: true, Template: "default",
		Vars: map[string]string{"CLUSTER_IDENTITY_TYPE": "WorkloadIdentity"}},
	// AKS through AzureManagedControlPlane, AzureManagedCluster and AzureManagedMachinePool.
	{Name: "aks", Cluster: "pmaks"},
	// CAPZ's prow-custom-vnet test flavor (templates/test/ci/prow-custom-vnet/patches/custom-vnet.yaml) on the
	// default template: the network, its subnets, security groups and route table exist in a resource group of
	// their own, as CAPZ's e2e SetupExistingVNet makes them (test/e2e/azure_privatecluster.go); the cluster's own
	// resource group is brought too. CAPZ keeps their ASO objects at reconcile-policy skip; the provider must too,
	// and deleting the cluster must leave them.
	{Name: "custom-vnet", Cluster: "pcvnet", SelfManaged: true, Template: "default",
		Vars: map[string]string{"AZURE_RESOURCE_GROUP": "pcvnet-rg"},
		Edits: []Edit{{Kind: "AzureCluster", Path: []string{"spec", "networkSpec"}, Value: map[string]any{
			"vnet": map[string]any{"name": "custom-vnet", "resourceGroup": "pcvnet-vnetrg"},
			"subnets": []any{
				map[string]any{"name": "custom-vnet-controlplane-subnet", "role": "control-plane",
					"securityGroup": map[string]any{"name": "control-plane-nsg"}},
				map[string]any{"name": "custom-vnet-node-subnet", "role": "node",
					"routeTable": map[string]any{"name": "node-routetable"}, "securityGroup": map[string]any{"name": "node-nsg"}},
			},
		}}},
		Brought: customVNet("pcvnet-rg", "pcvnet-vnetrg")},
}

// customVNet is what CAPZ's e2e SetupExistingVNet makes for the custom-vnet flavor in the network's resource group
// (vnetGroup), and the cluster's resource group (group), with a route and a security rule of the user's.
func customVNet(group, vnetGroup string) []Seed {
	net := "resourceGroups/" + vnetGroup + "/providers/Microsoft.Network/"
	nsgID := func(name string) map[string]any {
		return map[string]any{"id": "/subscriptions/{subscription}/" + net + "networkSecurityGroups/" + name}
	}
	tags := map[string]any{"owner": "the user"}
	return []Seed{
		{Path: "resourceGroups/" + group, Body: map[string]any{"location": Location, "tags": tags}},
		{Path: "resourceGroups/" + vnetGroup, Body: map[string]any{"location": Location, "tags": tags}},
		{Path: net + "networkSecurityGroups/control-plane-nsg", Body: map[string]any{"location": Location}},
		{Path: net + "networkSecurityGroups/node-nsg", Body: map[string]any{"location": Location}},
		{Path: net + "routeTables/node-routetable", Body: map[string]any{"location": Location}},
		// The user's own route and security rule, which neither side may change or remove.
		{Path: net + "routeTables/node-routetable/routes/to-appliance", Body: map[string]any{"properties": map[string]any{
			"addressPrefix": "192.168.0.0/16", "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.0.1.100"}}},
		{Path: net + "networkSecurityGroups/node-nsg/securityRules/allow_corp_https", Body: map[string]any{"properties": map[string]any{
			"protocol": "Tcp", "access": "Allow", "direction": "Inbound", "priority": 3000, "sourceAddressPrefix": "192.168.0.0/16",
			"sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "443"}}},
		{Path: net + "virtualNetworks/custom-vnet", Body: map[string]any{"location": Location, "tags": tags,
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}},
		{Path: net + "virtualNetworks/custom-vnet/subnets/custom-vnet-controlplane-subnet", Body: map[string]any{
			"properties": map[string]any{"addressPrefix": "10.0.0.0/24", "networkSecurityGroup": nsgID("control-plane-nsg")}}},
		{Path: net + "virtualNetworks/custom-vnet/subnets/custom-vnet-node-subnet", Body: map[string]any{
			"properties": map[string]any{"addressPrefix": "10.0.1.0/24", "networkSecurityGroup": nsgID("node-nsg"),
				"routeTable": map[string]any{"id": "/subscriptions/{subscription}/" + net + "routeTables/node-routetable"}}}},
		{Path: net + "virtualNetworks/custom-vnet/subnets/custom-vnet-azure-bastion-subnet", Body: map[string]any{
			"properties": map[string]any{"addressPrefix": "10.0.2.0/24"}}},
	}
}

// brought returns the ARM IDs and bodies of the flavor's Brought resources, in order.
func (f Flavor) brought() (ids []string, bodies []map[string]any) {
	prefix := "/subscriptions/" + f.Subscription + "/"
	for _, b := range f.Brought {
		ids = append(ids, prefix+b.Path)
		bodies = append(bodies, withSubscription(b.Body, f.Subscription))
	}
	return ids, bodies
}

// withSubscription copies a body with {subscription} replaced in its strings.
func withSubscription(v map[string]any, subscription string) map[string]any {
	out, _ := replaceSubscription(v, subscription).(map[string]any)
	return out
}

// replaceSubscription copies a JSON value with {subscription} replaced in its strings.
func replaceSubscription(v any, subscription string) any {
	var replace func(v any) any
	replace = func(v any) any {
		switch t := v.(type) {
		case string:
			return strings.ReplaceAll(t, "{subscription}", subscription)
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[k] = replace(e)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = replace(e)
			}
			return out
		}
		return v
	}
	return replace(v)
}

// SwitchDefaults are the flavors make parity-switch builds by default.
var SwitchDefaults = []string{"default", "machinepool", "machinepool-flex", "private", "aks-aso", "aks", "custom-vnet", "ha-availability-sets", "workload-identity"}

func init() {
	for i := range Flavors {
		Flavors[i].Subscription = fmt.Sprintf("00000000-0000-0000-0000-0000000f%04d", i+1)
	}
	for i := range SwitchFlavors {
		SwitchFlavors[i].Subscription = fmt.Sprintf("00000000-0000-0000-0000-0000000f%04d", len(Flavors)+i+1)
	}
	for i := range MoreFlavors {
		MoreFlavors[i].Subscription = fmt.Sprintf("00000000-0000-0000-0000-0000000f%04d", len(Flavors)+len(SwitchFlavors)+i+1)
	}
}

// FlavorNamed finds a flavor of Flavors or SwitchFlavors.
func FlavorNamed(name string) (Flavor, bool) {
	for _, f := range slices.Concat(Flavors, MoreFlavors, SwitchFlavors) {
		if f.Name == name {
			return f, true
		}
	}
	return Flavor{}, false
}

// WorkloadIdentity reports whether the flavor's AzureClusterIdentity is of type WorkloadIdentity (CAPZ's templates'
// default) rather than the ServicePrincipal of the other flavors.
func (f Flavor) WorkloadIdentity() bool { return f.Vars["CLUSTER_IDENTITY_TYPE"] == "WorkloadIdentity" }

// Namespace is where the flavor's objects go on both sides.
func (f Flavor) Namespace() string { return "parity-" + f.Name }

// identity, tenant and the rest are the flavors' credentials: a service principal (AzureClusterIdentity type
// ServicePrincipal with a Secret; CAPZ's templates default to WorkloadIdentity, which only the workload-identity
// flavor keeps) that the fake ARM accepts with any secret. It is not ASO's global credential (test/env's FakeAzure),
// whose secret the fake checks.
const (
	TenantID            = "00000000-0000-0000-0000-00000000000a"
	ClientID            = "00000000-0000-0000-0000-00000000000b"
	clientSecret        = "parity-client-secret"
	identitySecretName  = "cluster-identity-secret"
	asoCredentialSecret = "aso-credential"
	// KubernetesVersion is every flavor's version.
	KubernetesVersion = "v1.34.1"
	// Location is every flavor's Azure region.
	Location = "eastus"
)

// sshPublicKey is the machines' SSH key (a public key made for make parity), so that neither side generates one.
const sshPublicKey = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDOye1c5lhZuMsRpjCaVBK+zGMNBGLoOa4PQCdtv5KS7uQiZNIfAWthp/p5Uq/oZDyMF8/jWQL179wc+fmuMlAc5tIwJm9zj8v3PHVnMGmctN+dOcK/lC5T/4oRsxSZHmsC2azH37Tnz+LICJDottxsYwMBJ9WyNY44OZeXD/D+pC8Iwnl9CcX213ZnyC/OLX33ski1s0AJEfiecX89Uk+B5rgA/LIIUgtv9eQGzcTAt6xXP4GVq2PF/7qEwT93dnFy7fUZnLnvII9Dil5CD64WA1SiD3Fkeck8wSKgG+Qwb7UDDEVati1n0xohD990OsiR0SeHjvGNOjukfUzvKIqB parity"

// Variables are the clusterctl variables of a flavor: the common ones, then the flavor's own.
func (f Flavor) Variables() map[string]string {
	vars := map[string]string{
		"CLUSTER_NAME":                            f.Cluster,
		"NAMESPACE":                               f.Namespace(),
		"KUBERNETES_VERSION":                      KubernetesVersion,
		"AZURE_LOCATION":                          Location,
		"AZURE_SUBSCRIPTION_ID":                   f.Subscription,
		"AZURE_TENANT_ID":                         TenantID,
		"AZURE_CLIENT_ID":                         ClientID,
		"AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY":  ClientID,
		"CLUSTER_IDENTITY_NAME":                   f.Cluster + "-identity",
		"CLUSTER_IDENTITY_TYPE":                   "ServicePrincipal",
		"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      identitySecretName,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": f.Namespace(),
		"AZURE_CONTROL_PLANE_MACHINE_TYPE":        "Standard_D2s_v3",
		"AZURE_NODE_MACHINE_TYPE":                 "Standard_D2s_v3",
		"CONTROL_PLANE_MACHINE_COUNT":             "1",
		"WORKER_MACHINE_COUNT":                    "1",
		"AZURE_SSH_PUBLIC_KEY":                    sshPublicKey,
		"AZURE_SSH_PUBLIC_KEY_B64":                base64.StdEncoding.EncodeToString([]byte(sshPublicKey)),
		"ASO_CREDENTIAL_SECRET_NAME":              asoCredentialSecret,
		"CLUSTER_CLASS_NAME":                      f.Cluster + "-class",
	}
	for k, v := range f.Vars {
		vars[k] = v
	}
	return vars
}

// existing are the Azure resources the flavors use and do not create, which the user's subscription has: the
// user-assigned identity CAPZ's templates give the machines for cloud-provider-azure (${CI_RG}/${USER_IDENTITY},
// their defaults).
func (f Flavor) existing() []string {
	rg := "/subscriptions/" + f.Subscription + "/resourceGroups/capz-ci"
	return []string{rg, rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cloud-provider-user-identity"}
}

// templateFile is the flavor's template in a templates directory.
func (f Flavor) templateFile(dir string) string {
	name := f.Name
	if f.Template != "" {
		name = f.Template
	}
	return templateOf(dir, name)
}

// templateOf is the template of a flavor of CAPZ's in a templates directory.
func templateOf(dir, name string) string {
	if name == "default" {
		return filepath.Join(dir, "cluster-template.yaml")
	}
	return filepath.Join(dir, "cluster-template-"+name+".yaml")
}

// Render renders the flavor's template of a templates directory with clusterctl's variable processor, as
// clusterctl generate cluster does, and puts every object into the flavor's namespace (clusterctl's
// --target-namespace). The AzureClusterIdentity gets the Secret of its service principal (ServicePrincipal needs
// one; the templates leave it out).
func (f Flavor) Render(templatesDir string) ([]*unstructured.Unstructured, error) {
	paths := []string{f.templateFile(templatesDir)}
	if f.Class != "" {
		paths = append([]string{templateOf(templatesDir, f.Class)}, paths...)
	}
	vars := f.Variables()
	var objs []*unstructured.Unstructured
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("failed to read flavor %s: %w", f.Name, err)
		}
		processed, err := yamlprocessor.NewSimpleProcessor().Process(raw, func(name string) (string, error) {
			if v, ok := vars[name]; ok {
				return v, nil
			}
			return "", fmt.Errorf("variable %s is not set", name)
		})
		if err != nil {
			return nil, fmt.Errorf("failed to render flavor %s from %s: %w", f.Name, path, err)
		}
		decoded, err := decodeObjects(processed, path)
		if err != nil {
			return nil, err
		}
		objs = append(objs, decoded...)
	}
	for _, o := range objs {
		o.SetNamespace(f.Namespace())
		for _, e := range f.Edits {
			if o.GetKind() == e.Kind {
				if err := unstructured.SetNestedField(o.Object, replaceSubscription(e.Value, f.Subscription), e.Path...); err != nil {
					return nil, fmt.Errorf("failed to edit %s of flavor %s: %w", e.Kind, f.Name, err)
				}
			}
		}
		if o.GetKind() == "AzureClusterIdentity" && !f.WorkloadIdentity() {
			if err := unstructured.SetNestedMap(o.Object, map[string]any{"name": identitySecretName, "namespace": f.Namespace()}, "spec", "clientSecret"); err != nil {
				return nil, err
			}
		}
	}
	return objs, nil
}

// kinds summarises objects as "Kind×n", sorted.
func kinds(objs []*unstructured.Unstructured) string {
	counts := map[string]int{}
	for _, o := range objs {
		counts[o.GetKind()]++
	}
	var out []string
	for k, n := range counts {
		out = append(out, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
