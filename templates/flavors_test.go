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

package templates

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/clusterctlrepo"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// timeout bounds each wait for a flavor's objects; the flavors reconcile side by side on two cores. ASO's own
// controllers (TEMPLATES_ASO=fake-arm) back off for up to 30 s while an owner is not ready, at each level.
var timeout = map[bool]time.Duration{false: 3 * time.Minute, true: 30 * time.Minute}[realASO]

const (
	interval = 500 * time.Millisecond

	kubernetesVersion = "v1.34.1"
	location          = "eastus"
	identityName      = "cluster-identity"
	// The machine sizes differ, so that tests can tell the machines apart.
	controlPlaneMachineType = "Standard_D2s_v3"
	nodeMachineType         = "Standard_D4s_v3"
	flatcarVersion          = "4230.2.3"
	identitySecret          = "cluster-identity-secret"
)

// clusterctlVariables are the variables clusterctl sets itself from its flags (cluster name, --target-namespace,
// --kubernetes-version, --control-plane-machine-count, --worker-machine-count).
var clusterctlVariables = sets.New("CLUSTER_NAME", "NAMESPACE", "KUBERNETES_VERSION", "CONTROL_PLANE_MACHINE_COUNT", "WORKER_MACHINE_COUNT")

// Required variables (no default) of the flavors, besides clusterctlVariables.
var (
	identityVariables = []string{"AZURE_CLIENT_ID", "AZURE_CLUSTER_IDENTITY_SECRET_NAME", "AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE",
		"AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID", "CLUSTER_IDENTITY_NAME"}
	selfManagedVariables = slices.Concat([]string{"AZURE_CONTROL_PLANE_MACHINE_TYPE", "AZURE_LOCATION", "AZURE_NODE_MACHINE_TYPE"}, identityVariables)
	aksVariables         = slices.Concat([]string{"AZURE_LOCATION", "AZURE_NODE_MACHINE_TYPE"}, identityVariables)
	aksASOVariables      = []string{"AZURE_CLIENT_ID", "AZURE_LOCATION", "AZURE_NODE_MACHINE_TYPE", "AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID"}
)

// The ASO kinds of the flavors' clusters, once reconciled.
var (
	// selfManagedKinds: the AzureCluster's network (resource group, virtual network, two subnets with their security
	// groups and the default control plane rules, the node route table, the node NAT gateway, the public API server
	// load balancer and the public IPs of both), and each machine's network interface and VM (no bootstrap
	// extension: the flavors leave disableVMBootstrapExtension unset, as CAPZ's do); the control plane machine's
	// identity is Contributor on the subscription (a role assignment), and its SSH port is on the API server load
	// balancer (an inbound NAT rule).
	selfManagedKinds = []string{"ResourceGroup", "VirtualNetwork", "VirtualNetworksSubnet", "NetworkSecurityGroup",
		"NetworkSecurityGroupsSecurityRule", "RouteTable", "NatGateway", "PublicIPAddress", "LoadBalancer",
		"LoadBalancersInboundNatRule", "NetworkInterface", "VirtualMachine", "RoleAssignment"}
	// aksASOKinds: the resource group, the managed cluster and its agent pools.
	aksASOKinds = []string{"ResourceGroup", "ManagedCluster", "ManagedClustersAgentPool"}
	// aksKinds: those and the virtual network and subnet of the nodes, which the AzureManagedControlPlane creates.
	aksKinds = slices.Concat(aksASOKinds, []string{"VirtualNetwork", "VirtualNetworksSubnet"})
)

// flavor is a template and what its test expects.
type flavor struct {
	// name is the flavor (clusterctl generate cluster --flavor); "default" is cluster-template.yaml.
	name string
	// prefix starts the cluster's name (the fake Azure is shared by the package, so names are unique).
	prefix string
	// required are the variables without a default, besides clusterctlVariables.
	required []string
	// vars are set on top of the common variables.
	vars map[string]string
	// classes are the ClusterClasses of a ClusterClass flavor, which renders no Cluster.
	classes []string
	// machines is the number of AzureMachines of a self-managed flavor's cluster (with one control plane machine
	// and one worker per MachineDeployment).
	machines int
	// asoKinds are exactly the ASO kinds in the cluster's namespace once it is reconciled.
	asoKinds []string
	// check asserts what is particular to the flavor, on the reconciled cluster; it is retried until it passes.
	check func(g Gomega, f *fixture)
	// cni is the ClusterResourceSet that applies a self-managed cluster's CNI; cni-flannel when empty.
	cni string
	// userObjects are what the user creates beside the template, as the flavor's documentation says.
	userObjects func(f *fixture) []client.Object
}

// flavors are every flavor in templates/ (TestFlavors_AllTested checks there is no other).
var flavors = []flavor{
	{name: "default", prefix: "dflt", required: selfManagedVariables, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster+"-public-lb"))).To(ConsistOf(
				frontend{name: f.cluster + "-public-lb-frontEnd", publicIP: "pip-" + f.cluster + "-apiserver"}))
			natGateway := f.aso(g, "NatGateway", f.cluster+"-node-natgw-1")
			g.Expect(nested(natGateway, "spec", "location")).To(Equal(location))
			g.Expect(vmSizes(g, f)).To(ConsistOf(controlPlaneMachineType, nodeMachineType))
			// Only the control plane machine has an identity, for cloud-provider-azure.
			g.Expect(f.asoList(g, "RoleAssignment")).To(HaveLen(1))
		}},
	{name: "private", prefix: "prv", required: selfManagedVariables, machines: 2,
		// No public API server address (its SSH rule is on the internal load balancer, unused, as CAPZ makes it); a
		// private DNS zone for it, a public outbound load balancer (and its IP) for the control plane, and a bastion
		// host in its own subnet.
		asoKinds: slices.Concat(selfManagedKinds,
			[]string{"PrivateDnsZone", "PrivateDnsZonesVirtualNetworkLink", "PrivateDnsZonesARecord", "BastionHost"}),
		check: func(g Gomega, f *fixture) {
			lb := f.aso(g, "LoadBalancer", f.cluster+"-internal-lb")
			g.Expect(lbFrontends(lb)).To(ConsistOf(frontend{name: f.cluster + "-internal-lb-frontEnd", privateIP: "10.0.0.100"}))
			g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster+"-outbound-lb"))).To(HaveLen(1))
			f.aso(g, "PrivateDnsZonesARecord", f.cluster+".capz.io-apiserver")
			f.aso(g, "BastionHost", f.cluster+"-azure-bastion")
		}},
	{name: "azure-bastion", prefix: "bstn", required: selfManagedVariables, machines: 2, asoKinds: slices.Concat(selfManagedKinds, []string{"BastionHost"}),
		check: func(g Gomega, f *fixture) {
			bastion := f.aso(g, "BastionHost", f.cluster+"-azure-bastion")
			g.Expect(nested(bastion, "spec", "sku", "name")).To(Equal("Basic"))
			f.asoByAzureName(g, "VirtualNetworksSubnet", "AzureBastionSubnet")
		}},
	{name: "apiserver-ilb", prefix: "ilb", required: selfManagedVariables, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			// Azure does not mix public and private frontends: the private one is on an internal companion load
			// balancer, whose backend pool the control plane machine joins too.
			g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster+"-public-lb"))).To(ConsistOf(
				frontend{name: f.cluster + "-public-lb-frontEnd", publicIP: "pip-" + f.cluster + "-apiserver"}))
			g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster+"-public-lb-internal"))).To(ConsistOf(
				frontend{name: f.cluster + "-internal-lb-frontEnd", privateIP: "10.0.0.100"}))
			var pools []string
			for _, nic := range f.asoList(g, "NetworkInterface") {
				configs, _, _ := unstructured.NestedSlice(nic.Object, "spec", "ipConfigurations")
				for _, c := range configs {
					refs, _, _ := unstructured.NestedSlice(c.(map[string]any), "loadBalancerBackendAddressPools")
					for _, r := range refs {
						id, _, _ := unstructured.NestedString(r.(map[string]any), "reference", "armId")
						pools = append(pools, id[strings.LastIndex(id, "/")+1:])
					}
				}
			}
			g.Expect(pools).To(ContainElements(f.cluster+"-public-lb-backendPool", f.cluster+"-public-lb-backendPool-internal"))
		}},
	{name: "ipv6", prefix: "ipv6", required: selfManagedVariables, machines: 2,
		// IPv6 subnets get no NAT gateway: the nodes go out through a node outbound load balancer.
		asoKinds: without(selfManagedKinds, "NatGateway"),
		check:    checkDualStackNetwork},
	{name: "dual-stack", prefix: "dual", required: selfManagedVariables, machines: 2, asoKinds: without(selfManagedKinds, "NatGateway"),
		check: checkDualStackNetwork},
	{name: "windows", prefix: "win", required: selfManagedVariables, machines: 3, asoKinds: selfManagedKinds,
		check: checkWindowsWorker},
	{name: "windows-apiserver-ilb", prefix: "wilb", required: selfManagedVariables, machines: 3, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster+"-public-lb-internal"))).To(ConsistOf(
				frontend{name: f.cluster + "-internal-lb-frontEnd", privateIP: "10.0.0.100"}))
			checkWindowsWorker(g, f)
		}},
	{name: "aad", prefix: "aad", required: slices.Concat(selfManagedVariables, []string{"AZURE_SERVER_APP_ID"}),
		vars: map[string]string{"AZURE_SERVER_APP_ID": "00000000-0000-0000-0000-00000000000c"}, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			// kube-apiserver trusts the tenant's Entra ID issuer for the server application (the control plane's
			// configuration as Cluster API admitted it).
			kcp := &unstructured.Unstructured{}
			kcp.SetAPIVersion("controlplane.cluster.x-k8s.io/v1beta2")
			kcp.SetKind("KubeadmControlPlane")
			g.Expect(f.reader.Get(context.Background(), client.ObjectKey{Namespace: f.namespace, Name: f.cluster + "-control-plane"}, kcp)).To(Succeed())
			args, _, _ := unstructured.NestedSlice(kcp.Object, "spec", "kubeadmConfigSpec", "clusterConfiguration", "apiServer", "extraArgs")
			g.Expect(args).To(ContainElements(
				map[string]any{"name": "oidc-issuer-url", "value": "https://sts.windows.net/00000000-0000-0000-0000-00000000000a/"},
				map[string]any{"name": "oidc-client-id", "value": "00000000-0000-0000-0000-00000000000c"},
				map[string]any{"name": "oidc-username-claim", "value": "oid"},
				map[string]any{"name": "oidc-groups-claim", "value": "groups"},
			))
		}},
	{name: "ephemeral", prefix: "eph", required: selfManagedVariables, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			vms := f.asoList(g, "VirtualMachine")
			g.Expect(vms).To(HaveLen(2))
			for _, vm := range vms {
				g.Expect(nested(vm, "spec", "storageProfile", "osDisk", "diffDiskSettings", "option")).To(Equal("Local"), vm.GetName())
				g.Expect(nested(vm, "spec", "storageProfile", "osDisk", "caching")).To(Equal("ReadOnly"), vm.GetName())
			}
		}},
	{name: "flatcar", prefix: "fc", required: slices.Concat(selfManagedVariables, []string{"FLATCAR_VERSION"}),
		vars: map[string]string{"FLATCAR_VERSION": flatcarVersion}, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			checkIgnition(g, f)
			for _, vm := range f.asoList(g, "VirtualMachine") {
				g.Expect(nested(vm, "spec", "storageProfile", "imageReference", "communityGalleryImageId")).To(Equal(
					"/CommunityGalleries/flatcar4capi-742ef0cb-dcaa-4ecb-9cb0-bfd2e43dccc0/Images/flatcar-stable-amd64-capi-"+
						kubernetesVersion+"/Versions/"+flatcarVersion), vm.GetName())
			}
		}},
	{name: "flatcar-sysext", prefix: "fcsx", required: slices.Concat(selfManagedVariables, []string{"FLATCAR_VERSION"}),
		vars: map[string]string{"FLATCAR_VERSION": flatcarVersion}, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			checkIgnition(g, f)
			for _, vm := range f.asoList(g, "VirtualMachine") {
				g.Expect(nestedAny(vm, "spec", "storageProfile", "imageReference")).To(Equal(map[string]any{
					"publisher": "kinvolk", "offer": "flatcar-container-linux-corevm-amd64", "sku": "stable-gen2", "version": flatcarVersion,
				}), vm.GetName())
			}
		}},
	// The user creates the ConfigMap azure-cni-v1 from Azure CNI's manifests; a stand-in here.
	{name: "azure-cni-v1", prefix: "acni", required: selfManagedVariables, machines: 2, asoKinds: selfManagedKinds, cni: "azure-cni-v1",
		userObjects: func(f *fixture) []client.Object {
			return []client.Object{&corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: f.namespace, Name: "azure-cni-v1"},
				Data:       map[string]string{"azure-cni.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: azure-cni-stand-in\n  namespace: kube-system\n"},
			}}
		},
		check: func(g Gomega, f *fixture) {
			nics := f.asoList(g, "NetworkInterface")
			g.Expect(nics).To(HaveLen(2))
			for _, nic := range nics {
				configs, _, _ := unstructured.NestedSlice(nic.Object, "spec", "ipConfigurations")
				g.Expect(configs).To(HaveLen(110), nic.GetName())
			}
			g.Expect(f.list(g, "addons.cluster.x-k8s.io/v1beta2", "ClusterResourceSet")).To(ConsistOf(
				HaveField("Object", HaveKeyWithValue("metadata", HaveKeyWithValue("name", "cni-azure-cni-v1"))),
				HaveField("Object", HaveKeyWithValue("metadata", HaveKeyWithValue("name", "cloud-provider-azure")))))
		}},
	// The GPU workers' size replaces AZURE_NODE_MACHINE_TYPE.
	{name: "nvidia-gpu", prefix: "gpu", required: without(selfManagedVariables, "AZURE_NODE_MACHINE_TYPE"), machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			g.Expect(vmSizes(g, f)).To(ConsistOf(controlPlaneMachineType, "Standard_NC4as_T4_v3"))
		}},
	{name: "edgezone", prefix: "ez", required: slices.Concat(selfManagedVariables, []string{"AZURE_EXTENDEDLOCATION_NAME"}),
		vars: map[string]string{"AZURE_EXTENDEDLOCATION_NAME": "microsoftlosangeles1"}, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			vnet := f.aso(g, "VirtualNetwork", f.cluster+"-vnet")
			g.Expect(nested(vnet, "spec", "extendedLocation", "name")).To(Equal("microsoftlosangeles1"))
			// As CAPZ: an Edge Zone has no failure domains, so no VM gets a zone, and a NAT gateway's address stays in
			// the region.
			for _, vm := range f.asoList(g, "VirtualMachine") {
				g.Expect(nested(vm, "spec", "extendedLocation", "name")).To(Equal("microsoftlosangeles1"), vm.GetName())
				g.Expect(nestedAny(vm, "spec", "zones")).To(BeNil(), vm.GetName())
			}
			natIP := f.aso(g, "PublicIPAddress", "pip-"+f.cluster+"-node-natgw-1")
			g.Expect(nestedAny(natIP, "spec", "extendedLocation")).To(BeNil())
		}},
	// The workers are machine pools: one Flexible scale set each, and per instance a VM (of the scale set) and its
	// network interface; only the control plane machine is an AzureMachine.
	{name: "machinepool", prefix: "mp", required: selfManagedVariables, machines: 1,
		asoKinds: slices.Concat(selfManagedKinds, []string{"VirtualMachineScaleSet"}),
		check:    checkMachinePools(map[string]string{"-mp-0": "Linux"})},
	{name: "machinepool-windows", prefix: "mpw", required: selfManagedVariables, machines: 1,
		asoKinds: slices.Concat(selfManagedKinds, []string{"VirtualMachineScaleSet"}),
		check:    checkMachinePools(map[string]string{"-mp-0": "Linux", "-mp-win": "Windows"})},
	{name: "aks", prefix: "aks", required: aksVariables, asoKinds: aksKinds, check: checkAKS},
	{name: "aks-aso", prefix: "aso", required: aksASOVariables, asoKinds: aksASOKinds,
		check: func(g Gomega, f *fixture) {
			checkAKS(g, f)
			// CAPZ's credential Secret holds only IDs (ASO's workload identity): under the default credential policy the
			// objects are applied, and the control plane warns that no identity vouches for it.
			for _, cp := range f.list(g, infraAPIVersion, "AzureASOManagedControlPlane") {
				g.Expect(nestedAny(&cp, "status", "conditions")).To(ContainElement(And(
					HaveKeyWithValue("type", "CredentialsVouched"), HaveKeyWithValue("status", "False"),
					HaveKeyWithValue("reason", "CredentialNotVouched"))))
			}
		}},
	{name: "aks-aso-maintenance", prefix: "asom", required: aksASOVariables, asoKinds: slices.Concat(aksASOKinds, []string{"MaintenanceConfiguration"}),
		check: func(g Gomega, f *fixture) {
			checkAKS(g, f)
			mc := f.aso(g, "ManagedCluster", f.cluster)
			g.Expect(nested(mc, "spec", "autoUpgradeProfile", "nodeOSUpgradeChannel")).To(Equal("NodeImage"))
			window := f.aso(g, "MaintenanceConfiguration", f.cluster+"-node-os-upgrade")
			g.Expect(nested(window, "spec", "azureName")).To(Equal("aksManagedNodeOSUpgradeSchedule"))
			g.Expect(nested(window, "spec", "owner", "name")).To(Equal(f.cluster))
			g.Expect(nested(window, "spec", "maintenanceWindow", "startTime")).To(Equal("00:00"))
			g.Expect(nested(window, "spec", "maintenanceWindow", "durationHours")).To(Equal("4"))
			g.Expect(nested(window, "spec", "maintenanceWindow", "schedule", "weekly", "dayOfWeek")).To(Equal("Sunday"))
		}},
	{name: "clusterclass", classes: []string{"default"}},
	{name: "aks-clusterclass", classes: []string{"aks"}},
	{name: "aks-aso-clusterclass", classes: []string{"aks-aso"}},
	{name: "topology", prefix: "topo", required: selfManagedVariables, machines: 2, asoKinds: selfManagedKinds,
		check: func(g Gomega, f *fixture) {
			checkTopology("AzureCluster", "KubeadmControlPlane")(g, f)
			// The class's patches: the AzureCluster's location and identity, the machines' sizes.
			azureCluster := f.get(g, infraAPIVersion, "AzureCluster", f.cluster)
			g.Expect(nested(azureCluster, "spec", "location")).To(Equal(location))
			g.Expect(nested(azureCluster, "spec", "identityRef", "name")).To(Equal(identityName))
			var sizes []string
			for _, t := range f.list(g, infraAPIVersion, "AzureMachineTemplate") {
				if _, ok := t.GetLabels()[clusterv1.ClusterTopologyOwnedLabel]; ok {
					sizes = append(sizes, nested(&t, "spec", "template", "spec", "vmSize"))
				}
			}
			g.Expect(sizes).To(ConsistOf(controlPlaneMachineType, nodeMachineType))
			g.Expect(vmSizes(g, f)).To(ConsistOf(controlPlaneMachineType, nodeMachineType))
		}},
	{name: "aks-topology", prefix: "akst", required: aksVariables, asoKinds: aksKinds,
		check: func(g Gomega, f *fixture) {
			checkTopology("AzureManagedCluster", "AzureManagedControlPlane")(g, f)
			checkAKS(g, f)
			// The class's patches put the cluster and its network in the Cluster's resource group.
			g.Expect(f.aso(g, "ManagedCluster", f.cluster).Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("owner", HaveKeyWithValue("name", f.cluster))))
			g.Expect(nested(f.aso(g, "VirtualNetwork", f.cluster), "spec", "owner", "name")).To(Equal(f.cluster))
		}},
	{name: "aks-aso-topology", prefix: "asot", required: aksASOVariables, asoKinds: aksASOKinds,
		check: func(g Gomega, f *fixture) {
			checkTopology("AzureASOManagedCluster", "AzureASOManagedControlPlane")(g, f)
			checkAKS(g, f)
			for _, kind := range aksASOKinds {
				for _, o := range f.asoList(g, kind) {
					g.Expect(o.GetAnnotations()).To(HaveKeyWithValue("serviceoperator.azure.com/credential-from", f.cluster+"-aso-credentials"))
				}
			}
		}},
}

// checkMachinePools checks the machine pools of a cluster, by name suffix and OS: each AzureMachinePool is Ready
// with a Flexible scale set and one instance (WORKER_MACHINE_COUNT), whose AzureMachinePoolMachine is Ready and
// whose VM, of the pool's OS, belongs to the scale set; a Windows instance has an admin password.
func checkMachinePools(pools map[string]string) func(g Gomega, f *fixture) {
	return func(g Gomega, f *fixture) {
		g.Expect(f.list(g, infraAPIVersion, "AzureMachinePool")).To(HaveLen(len(pools)))
		for suffix, osType := range pools {
			name := f.cluster + suffix
			pool := f.get(g, infraAPIVersion, "AzureMachinePool", name)
			g.Expect(isReady(pool)).To(BeTrue(), "AzureMachinePool %s is not Ready: %v", name, nestedAny(pool, "status", "conditions"))
			g.Expect(nestedAny(pool, "status", "ready")).To(Equal(true))
			// CAPZ v1.26.0 names a Windows pool's scale set "win-" and the pool name's last 5 characters, the name
			// being longer than 9 (azure/scope/machinepool.go, MachinePoolScope.Name).
			scaleSet := name
			if osType == "Windows" {
				scaleSet = "win-" + name[len(name)-5:]
			}
			vmss := f.aso(g, "VirtualMachineScaleSet", scaleSet)
			g.Expect(nested(vmss, "spec", "orchestrationMode")).To(Equal("Flexible"))
			g.Expect(nested(vmss, "spec", "azureName")).To(Equal(scaleSet))
			var instances []string
			for _, m := range f.list(g, infraAPIVersion, "AzureMachinePoolMachine") {
				if m.GetLabels()[clusterv1.MachinePoolNameLabel] == name {
					g.Expect(isReady(&m)).To(BeTrue(), "AzureMachinePoolMachine %s is not Ready", m.GetName())
					instances = append(instances, m.GetName())
				}
			}
			g.Expect(instances).To(HaveLen(1), "instances of %s", name)
			vm := f.aso(g, "VirtualMachine", instances[0])
			g.Expect(nested(vm, "spec", "virtualMachineScaleSet", "reference", "name")).To(Equal(scaleSet))
			g.Expect(nested(vm, "spec", "storageProfile", "osDisk", "osType")).To(Equal(osType))
			if osType == "Windows" {
				g.Expect(nested(vm, "spec", "osProfile", "adminPassword", "name")).NotTo(BeEmpty())
			}
		}
	}
}

// selfManaged tells whether the flavor's cluster runs on AzureMachines.
func (fl flavor) selfManaged() bool { return fl.machines > 0 }

// checkWindowsWorker checks that one of the cluster's VMs is a Windows worker, with the generated admin password.
func checkWindowsWorker(g Gomega, f *fixture) {
	var windows []string
	for _, vm := range f.asoList(g, "VirtualMachine") {
		if nested(vm, "spec", "storageProfile", "osDisk", "osType") == "Windows" {
			windows = append(windows, vm.GetName())
			g.Expect(nested(vm, "spec", "osProfile", "adminPassword", "name")).NotTo(BeEmpty())
		}
	}
	g.Expect(windows).To(HaveLen(1))
}

// TestFlavors renders every flavor with clusterctl from the local repository, checks its variables and the error
// for a missing one, creates the objects through the webhooks and waits for the cluster to reconcile: ASO objects
// of exactly the expected kinds, all Ready, and the flavor's own checks. ClusterClass flavors are checked to be
// valid for Cluster API's ClusterClass controller.
//
// Every flavor is created first (TestFlavors/create/<flavor>), then each is waited for
// (TestFlavors/reconcile/<flavor>): the clusters reconcile side by side, so the test takes about as long as the
// slowest flavor whatever go test's -parallel. The clusters stay until the API server stops.
//
// Each flavor's v1beta1 form (TestFlavors/create/v1beta1/<flavor>) is created through the same webhooks, paused, and
// read back as stored: when its objects are the flavor's own (but for the names), Cluster API and the provider read
// the same objects and make the same cluster of them, and reconcile/v1beta1/<flavor> holds it to the flavor's
// result; when they differ, the test logs the difference, unpauses the Cluster and waits for it to reconcile like
// the flavor.
func TestFlavors(t *testing.T) {
	ctx := t.Context()
	r := localRepository(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := env.Env.ControlPlane.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	created := map[string]*fixture{}
	for _, fl := range flavors {
		t.Run("create/"+fl.name, func(st *testing.T) {
			g := NewWithT(st)
			f := newFixture(ctx, g, fl)
			f.createUserObjects(ctx, g, fl)
			opts := func(listVariablesOnly bool) clusterctl.GetClusterTemplateOptions {
				flavorName := fl.name
				if flavorName == "default" {
					flavorName = ""
				}
				return clusterctl.GetClusterTemplateOptions{
					Kubeconfig:               clusterctl.Kubeconfig{Path: kubeconfig},
					ProviderRepositorySource: &clusterctl.ProviderRepositorySourceOptions{InfrastructureProvider: providerName + ":" + r.Version, Flavor: flavorName},
					ClusterName:              f.cluster,
					TargetNamespace:          f.namespace,
					KubernetesVersion:        kubernetesVersion,
					ControlPlaneMachineCount: ptr.To[int64](1),
					WorkerMachineCount:       ptr.To[int64](1),
					ListVariablesOnly:        listVariablesOnly,
				}
			}

			// The variables: the required ones are the expected ones, and every variable is documented.
			vars, err := newClusterctl(ctx, st, r, f.vars).GetClusterTemplate(ctx, opts(true))
			g.Expect(err).NotTo(HaveOccurred())
			var required []string
			for name, def := range vars.VariableMap() {
				if def == nil && !clusterctlVariables.Has(name) {
					required = append(required, name)
				}
				g.Expect(string(readme)).To(ContainSubstring("`"+name+"`"), "variable %s is not in templates/README.md", name)
			}
			g.Expect(required).To(ConsistOf(fl.required))

			// Without any variable, the rendering fails and names exactly the required ones (a flavor with none
			// renders).
			_, err = newClusterctl(ctx, st, r, nil).GetClusterTemplate(ctx, opts(false))
			if len(fl.required) == 0 {
				g.Expect(err).NotTo(HaveOccurred())
			} else {
				g.Expect(err).To(HaveOccurred())
				g.Expect(missingVariables(err.Error())).To(ConsistOf(fl.required), err.Error())
			}

			tmpl, err := newClusterctl(ctx, st, r, f.vars).GetClusterTemplate(ctx, opts(false))
			g.Expect(err).NotTo(HaveOccurred())
			raw, err := tmpl.Yaml()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(raw)).NotTo(ContainSubstring("${"))
			f.objs = tmpl.Objs()
			for i := range f.objs {
				g.Expect(f.objs[i].GetNamespace()).To(Equal(f.namespace), "%s %s", f.objs[i].GetKind(), f.objs[i].GetName())
			}
			if fl.classes == nil {
				g.Expect(f.objs).To(ContainElement(HaveField("Object", HaveKeyWithValue("kind", "Cluster"))))
			}

			// Admission: every object is created through the webhooks.
			f.create(ctx, g, f.objs)
			created[fl.name] = f
		})
	}
	// The compatibility corpus: each flavor again as CAPZ users write it, with Cluster API's v1beta1 kinds
	// (testdata/v1beta1, hack/v1beta1corpus), rendered from its file as `clusterctl generate cluster --from` does and
	// created unchanged; the reconcile subtests expect the same cluster as from the flavor.
	for _, fl := range flavors {
		t.Run("create/v1beta1/"+fl.name, func(st *testing.T) {
			g := NewWithT(st)
			v1beta1 := fl
			v1beta1.prefix = cmp.Or(fl.prefix, "cc") + "1"
			f := newFixture(ctx, g, v1beta1)
			f.createUserObjects(ctx, g, fl)
			f.objs = renderV1beta1(ctx, st, g, r, kubeconfig, f, templateFile(fl.name))
			if class := topologyClass(f.objs); class != "" {
				// The class comes first, from its own file, as clusterctl adds it to a topology flavor.
				f.objs = append(renderV1beta1(ctx, st, g, r, kubeconfig, f, "clusterclass-"+class+".yaml"), f.objs...)
			}
			for _, o := range f.objs {
				if strings.HasSuffix(o.GroupVersionKind().Group, "cluster.x-k8s.io") && !strings.HasPrefix(o.GetAPIVersion(), "infrastructure.") {
					g.Expect(o.GetAPIVersion()).To(HaveSuffix("/v1beta1"), "%s %s", o.GetKind(), o.GetName())
				}
			}
			// Paused, so that nothing reconciles it until it is known to differ from the flavor.
			paused := pauseCluster(g, f.objs)
			f.create(ctx, g, f.objs)
			created["v1beta1/"+fl.name] = f
			if !paused {
				return // a ClusterClass flavor: reconcile/v1beta1 checks the classes
			}
			if flavorForm := created[fl.name]; flavorForm != nil {
				diff := storedDiff(ctx, g, flavorForm, f)
				if diff == "" {
					f.sameAs = flavorForm
					return
				}
				st.Logf("Cluster API stored the v1beta1 form differently from the flavor (-flavor +v1beta1); reconciling it too:\n%s", diff)
			}
			unpauseCluster(ctx, g, f)
		})
	}
	reconciled := map[*fixture]bool{}
	for _, fl := range flavors {
		for _, name := range []string{fl.name, "v1beta1/" + fl.name} {
			t.Run("reconcile/"+name, func(st *testing.T) {
				f := created[name]
				if f != nil && f.sameAs != nil {
					// The same objects as the flavor's: the same cluster, and the same ARM requests.
					if !reconciled[f.sameAs] {
						st.Fatalf("the flavor's cluster (reconcile/%s), whose objects this form's equal, did not reconcile", fl.name)
					}
					return
				}
				reconcileFlavor(st, fl, f)
				if fl.classes == nil && !st.Failed() {
					checkARMRequests(st, name, fl.name, name != fl.name, f)
				}
				reconciled[f] = f != nil && !st.Failed()
			})
		}
	}
}

// pauseCluster sets spec.paused on the objects' Cluster (Cluster API's v1beta1 form) and reports whether there is
// one.
func pauseCluster(g *WithT, objs []unstructured.Unstructured) bool {
	for i := range objs {
		if objs[i].GetKind() == "Cluster" {
			g.Expect(unstructured.SetNestedField(objs[i].Object, true, "spec", "paused")).To(Succeed())
			return true
		}
	}
	return false
}

// unpauseCluster lets Cluster API and the provider reconcile the fixture's paused Cluster.
func unpauseCluster(ctx context.Context, g *WithT, f *fixture) {
	cluster := &clusterv1.Cluster{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: f.namespace, Name: f.cluster}, cluster)).To(Succeed())
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Spec.Paused = ptr.To(false)
	g.Expect(env.Env.Patch(ctx, cluster, patch)).To(Succeed())
}

// storedDiff compares the objects of a flavor's v1beta1 form, read back as stored (Cluster API's v1beta2), with
// the flavor's objects as the API server stored them when they were created, and returns the differences: the same
// kinds and names, and the same labels, annotations and content, once the v1beta1 form's namespace and cluster name
// read as the flavor's (and so does the API server's default DNS label, derived from the cluster name). What the API
// server and the controllers add (uid, resource version, owner references, finalizers, managed fields, status) is
// left out, and so is the Cluster's spec.paused, which this test sets, and an SSH key the webhooks generated at
// random where the template has none.
func storedDiff(ctx context.Context, g *WithT, flavorForm, v1beta1Form *fixture) string {
	// The API server's default DNS label is the cluster name and a hash of names derived from it: it maps as a
	// whole, first.
	dnsLabel := func(cluster string) string {
		return infrav1.APIServerDNSLabel(p.SubscriptionID(), cluster, infrav1.APIServerPublicIPName(cluster), cluster)
	}
	rename := strings.NewReplacer(dnsLabel(v1beta1Form.cluster), dnsLabel(flavorForm.cluster),
		v1beta1Form.namespace, flavorForm.namespace, v1beta1Form.cluster, flavorForm.cluster)
	want := map[string]map[string]any{}
	for i := range flavorForm.stored {
		o := &flavorForm.stored[i]
		want[o.GetKind()+" "+o.GetName()] = comparableForm(g, o, &flavorForm.objs[i], nil)
	}
	got := map[string]map[string]any{}
	for i := range v1beta1Form.objs {
		o := &v1beta1Form.objs[i]
		key := o.GetKind() + " " + rename.Replace(o.GetName())
		stored := &unstructured.Unstructured{}
		if w, ok := want[key]; ok {
			stored.SetAPIVersion(w["apiVersion"].(string)) // read as the flavor's was created: the stored version
		} else {
			stored.SetAPIVersion(o.GetAPIVersion())
		}
		stored.SetKind(o.GetKind())
		g.Expect(v1beta1Form.reader.Get(ctx, client.ObjectKey{Namespace: v1beta1Form.namespace, Name: o.GetName()}, stored)).To(Succeed())
		got[key] = comparableForm(g, stored, o, rename)
	}
	return gocmp.Diff(want, got)
}

// generatedKey stands for an SSH public key the webhooks generated.
const generatedKey = "(generated by the webhook)"

// comparableForm is what storedDiff compares of a stored object, whose template object was rendered, with rename
// applied to every string.
func comparableForm(g *WithT, o, rendered *unstructured.Unstructured, rename *strings.Replacer) map[string]any {
	obj := o.DeepCopy().Object
	delete(obj, "status")
	metadata := map[string]any{"name": o.GetName()}
	for _, field := range []string{"labels", "annotations"} {
		if v, ok, _ := unstructured.NestedFieldNoCopy(obj, "metadata", field); ok {
			metadata[field] = v
		}
	}
	obj["metadata"] = metadata
	if o.GetKind() == "Cluster" {
		unstructured.RemoveNestedField(obj, "spec", "paused")
	}
	// The AzureMachinePool webhook generates a key when the template sets none (spec.template.sshPublicKey): a
	// random one.
	if o.GetKind() == "AzureMachinePool" {
		if _, set, _ := unstructured.NestedString(rendered.Object, "spec", "template", "sshPublicKey"); !set {
			if key, _, _ := unstructured.NestedString(obj, "spec", "template", "sshPublicKey"); key != "" {
				g.Expect(unstructured.SetNestedField(obj, generatedKey, "spec", "template", "sshPublicKey")).To(Succeed())
			}
		}
	}
	raw, err := json.Marshal(obj)
	g.Expect(err).NotTo(HaveOccurred())
	if rename != nil {
		raw = []byte(rename.Replace(string(raw)))
	}
	out := map[string]any{}
	g.Expect(json.Unmarshal(raw, &out)).To(Succeed())
	return out
}

// reconcileFlavor waits until a created flavor's cluster (or ClusterClass) is what the flavor promises.
func reconcileFlavor(st *testing.T, fl flavor, f *fixture) {
	g := NewWithT(st)
	if f == nil {
		st.Skipf("TestFlavors did not create the flavor %s", fl.name)
	}
	if fl.classes != nil {
		checkClusterClasses(g, f, f.objs, fl.classes)
		return
	}
	g.Eventually(func(g Gomega) {
		if fl.selfManaged() {
			checkSelfManaged(g, f, fl.machines, cmp.Or(fl.cni, "cni-flannel"))
		}
		if fl.check != nil {
			fl.check(g, f)
		}
		kinds := sets.List(sets.KeySet(f.asoObjects(g)))
		g.Expect(kinds).To(ConsistOf(fl.asoKinds), "ASO kinds in namespace %s", f.namespace)
		for _, objs := range f.asoObjects(g) {
			for _, o := range objs {
				g.Expect(isReady(o)).To(BeTrue(), "%s %s is not Ready (generation %d): %v", o.GetKind(), o.GetName(),
					o.GetGeneration(), nestedAny(o, "status", "conditions"))
			}
		}
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// templateFile is the file of a flavor's template.
func templateFile(flavor string) string {
	if flavor == "default" {
		return "cluster-template.yaml"
	}
	return "cluster-template-" + flavor + ".yaml"
}

// renderV1beta1 renders a template of the v1beta1 corpus with the fixture's variables, as `clusterctl generate
// cluster --from <file>` does.
func renderV1beta1(ctx context.Context, t *testing.T, g *WithT, r *clusterctlrepo.Repository, kubeconfig string, f *fixture, file string) []unstructured.Unstructured {
	tmpl, err := newClusterctl(ctx, t, r, f.vars).GetClusterTemplate(ctx, clusterctl.GetClusterTemplateOptions{
		Kubeconfig:               clusterctl.Kubeconfig{Path: kubeconfig},
		URLSource:                &clusterctl.URLSourceOptions{URL: filepath.Join("testdata", "v1beta1", file)},
		ClusterName:              f.cluster,
		TargetNamespace:          f.namespace,
		KubernetesVersion:        kubernetesVersion,
		ControlPlaneMachineCount: ptr.To[int64](1),
		WorkerMachineCount:       ptr.To[int64](1),
	})
	g.Expect(err).NotTo(HaveOccurred())
	raw, err := tmpl.Yaml()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(raw)).NotTo(ContainSubstring("${"))
	return tmpl.Objs()
}

// topologyClass is the ClusterClass a v1beta1 topology Cluster of the objects uses, if any.
func topologyClass(objs []unstructured.Unstructured) string {
	for _, o := range objs {
		if o.GetKind() == "Cluster" {
			if class, _, _ := unstructured.NestedString(o.Object, "spec", "topology", "class"); class != "" {
				return class
			}
		}
	}
	return ""
}

// fixture is a flavor's namespace, cluster name, variables and rendered objects.
type fixture struct {
	namespace string
	cluster   string
	vars      map[string]string
	objs      []unstructured.Unstructured
	reader    client.Reader
	// stored are the objects as the API server stored them when they were created (its responses).
	stored []unstructured.Unstructured
	// sameAs is, for a v1beta1 form stored as its flavor's objects, the flavor's fixture.
	sameAs *fixture
}

// newFixture creates the namespace and what a user creates besides the template: the Secret of the
// AzureClusterIdentity and, for self-managed flavors, the kubeconfig through which Cluster API reaches the
// workload cluster (written before the Cluster, as a user-provided kubeconfig, so that the KubeadmControlPlane
// uses it instead of one for the Azure load balancer, which is unreachable here; see bringUpAPIServer for when it
// reaches the workload cluster). The namespace stays until the API server stops: deleting it would tear down its
// cluster, which nothing checks here, while the package's other tests run.
func newFixture(ctx context.Context, g *WithT, fl flavor) *fixture {
	ns, err := env.Env.CreateNamespace(ctx, "flavor-"+fl.name)
	g.Expect(err).NotTo(HaveOccurred())
	prefix := fl.prefix
	if prefix == "" {
		prefix = "cc"
	}
	f := &fixture{namespace: ns.Name, cluster: prefix + "-" + randomSuffix(), reader: env.Env.GetAPIReader()}
	f.vars = map[string]string{
		"AZURE_LOCATION":                          location,
		"AZURE_SUBSCRIPTION_ID":                   p.SubscriptionID(),
		"AZURE_TENANT_ID":                         "00000000-0000-0000-0000-00000000000a",
		"AZURE_CLIENT_ID":                         "00000000-0000-0000-0000-00000000000b",
		"CLUSTER_IDENTITY_NAME":                   identityName,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      identitySecret,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": f.namespace,
		"AZURE_CONTROL_PLANE_MACHINE_TYPE":        controlPlaneMachineType,
		"AZURE_NODE_MACHINE_TYPE":                 nodeMachineType,
	}
	for k, v := range fl.vars {
		f.vars[k] = v
	}

	identity := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.namespace, Name: identitySecret},
		Data:       map[string][]byte{"clientSecret": []byte("not-a-secret")},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	if fl.selfManaged() {
		kubeconfig, err := p.Workload.Kubeconfig()
		g.Expect(err).NotTo(HaveOccurred())
		down, err := unreachableKubeconfig(kubeconfig)
		g.Expect(err).NotTo(HaveOccurred())
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: f.namespace, Name: secret.Name(f.cluster, secret.Kubeconfig),
				Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster},
			},
			Data: map[string][]byte{secret.KubeconfigDataName: down},
		}
		g.Expect(env.Env.Create(ctx, s)).To(Succeed())
		go f.bringUpAPIServer(ctx, kubeconfig)
	}
	return f
}

// unreachableAPIServer is where a self-managed cluster's kubeconfig points until its first control plane machine
// has its bootstrap data: a closed port, as the Azure load balancer answers nothing before kubeadm init ran.
const unreachableAPIServer = "https://127.0.0.1:1"

// unreachableKubeconfig is the kubeconfig with every cluster's server at unreachableAPIServer.
func unreachableKubeconfig(kubeconfig []byte) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, err
	}
	for _, c := range cfg.Clusters {
		c.Server = unreachableAPIServer
	}
	return clientcmd.Write(*cfg)
}

// bringUpAPIServer plays kubeadm init on the cluster's first control plane machine: once one of the namespace's
// control plane KubeadmConfigs has its bootstrap data, the cluster's kubeconfig reaches the workload cluster.
//
// The workload cluster is shared by every flavor and holds kubeadm's ConfigMap from the start (the plane's
// KubeadmInitialized), which the KubeadmControlPlane takes for "kubeadm init ran" (HasKubeadmConfig in
// controlplane/kubeadm/pkg/workload_cluster.go of Cluster API v1.14.2). Reachable before the first machine's
// bootstrap data is made, it let Cluster API mark the control plane initialized while the kubeadm bootstrap
// provider had not yet reconciled that machine's KubeadmConfig: the provider then took the join path for it
// (kubeadmconfig_controller.go: reconcile, joinControlplane sets joinConfiguration.controlPlane), and the
// KubeadmControlPlane compared that init KubeadmConfig as a join one with its joinConfiguration
// (controlplane/kubeadm/pkg/filters.go: matchesKubeadmConfig, isKubeadmConfigForJoin), found it outdated and rolled
// the machine out: a third machine. On Azure the API server answers only once the first machine ran kubeadm init
// with the data made for init, so this order is the real one.
func (f *fixture) bringUpAPIServer(ctx context.Context, kubeconfig []byte) {
	key := client.ObjectKey{Namespace: f.namespace, Name: secret.Name(f.cluster, secret.Kubeconfig)}
	_ = wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		configs := &unstructured.UnstructuredList{}
		configs.SetAPIVersion("bootstrap.cluster.x-k8s.io/v1beta2")
		configs.SetKind("KubeadmConfigList")
		if err := f.reader.List(ctx, configs, client.InNamespace(f.namespace),
			client.MatchingLabels{clusterv1.ClusterNameLabel: f.cluster}, client.HasLabels{clusterv1.MachineControlPlaneLabel}); err != nil {
			return false, nil
		}
		initialized := slices.ContainsFunc(configs.Items, func(c unstructured.Unstructured) bool {
			return nested(&c, "status", "dataSecretName") != ""
		})
		if !initialized {
			return false, nil
		}
		s := &corev1.Secret{}
		if err := env.Env.Get(ctx, key, s); err != nil {
			return false, nil
		}
		patch := client.MergeFrom(s.DeepCopy())
		s.Data[secret.KubeconfigDataName] = kubeconfig
		return env.Env.Patch(ctx, s, patch) == nil, nil
	})
}

// createUserObjects creates what the user creates beside the flavor's template.
func (f *fixture) createUserObjects(ctx context.Context, g *WithT, fl flavor) {
	if fl.userObjects == nil {
		return
	}
	for _, o := range fl.userObjects(f) {
		g.Expect(env.Env.Create(ctx, o)).To(Succeed(), "%T %s", o, o.GetName())
	}
}

// create creates the objects in the template's order, and keeps them as stored. On ASO's own controllers
// (TEMPLATES_ASO=fake-arm), an ASO credential Secret of the template gets a client secret, so that ASO authenticates
// with the fake Azure as a service principal (the templates' workload identity needs a token file that only a pod
// has).
func (f *fixture) create(ctx context.Context, g *WithT, objs []unstructured.Unstructured) {
	for i := range objs {
		o := objs[i].DeepCopy()
		if _, asoCredential, _ := unstructured.NestedString(o.Object, "stringData", "AUTH_MODE"); realASO && o.GetKind() == "Secret" && asoCredential {
			g.Expect(unstructured.SetNestedField(o.Object, "fake-azure-takes-any-secret", "stringData", "AZURE_CLIENT_SECRET")).To(Succeed())
		}
		g.Expect(env.Env.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
		f.stored = append(f.stored, *o)
	}
}

// get reads an object of the namespace by kind (a key of the scheme) and name.
func (f *fixture) get(g Gomega, apiVersion, kind, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	g.Expect(f.reader.Get(context.Background(), client.ObjectKey{Namespace: f.namespace, Name: name}, o)).To(Succeed(), "%s %s", kind, name)
	return o
}

// list lists the objects of a kind in the namespace.
func (f *fixture) list(g Gomega, apiVersion, kind string) []unstructured.Unstructured {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(apiVersion)
	l.SetKind(kind + "List")
	g.Expect(f.reader.List(context.Background(), l, client.InNamespace(f.namespace))).To(Succeed())
	return l.Items
}

// checkSelfManaged asserts what every self-managed cluster reaches: an AzureCluster and its machines Ready, the
// control plane initialized, the add-ons applied to the workload cluster, and cloud-provider-azure's azure.json
// naming Azure resources the provider created.
func checkSelfManaged(g Gomega, f *fixture, machines int, cni string) {
	kcp := checkSelfManagedMachines(g, f, machines)
	checkAddons(g, f, kcp, cni)
}

// checkSelfManagedMachines asserts that a self-managed cluster's AzureCluster is Ready, its control plane
// initialized, and that it has that many AzureMachines, Ready (their bootstrap data written and their VMs
// created); it returns the KubeadmControlPlane.
func checkSelfManagedMachines(g Gomega, f *fixture, machines int) *unstructured.Unstructured {
	cluster := f.get(g, clusterv1.GroupVersion.String(), "Cluster", f.cluster)
	infraName := nested(cluster, "spec", "infrastructureRef", "name")
	g.Expect(infraName).NotTo(BeEmpty())
	azureCluster := f.get(g, infraAPIVersion, "AzureCluster", infraName)
	g.Expect(isReady(azureCluster)).To(BeTrue(), "AzureCluster %s is not Ready: %v", infraName, nestedAny(azureCluster, "status", "conditions"))
	g.Expect(nestedAny(azureCluster, "status", "initialization", "provisioned")).To(Equal(true))

	cpName := nested(cluster, "spec", "controlPlaneRef", "name")
	kcp := f.get(g, "controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane", cpName)
	g.Expect(nestedAny(kcp, "status", "initialization", "controlPlaneInitialized")).To(Equal(true), "KubeadmControlPlane %s is not initialized", cpName)

	// The control plane machines are as the KubeadmControlPlane wants them (Cluster API's UpToDate condition of a
	// Machine): none is to be rolled out right after its creation, which would add a machine.
	for _, m := range f.list(g, clusterv1.GroupVersion.String(), "Machine") {
		if _, ok := m.GetLabels()[clusterv1.MachineControlPlaneLabel]; ok {
			status, message := conditionOf(&m, clusterv1.MachineUpToDateCondition)
			g.Expect(status).To(Equal("True"), "Machine %s is not up to date: %s", m.GetName(), message)
		}
	}
	azureMachines := f.list(g, infraAPIVersion, "AzureMachine")
	g.Expect(azureMachines).To(HaveLen(machines))
	for i := range azureMachines {
		g.Expect(isReady(&azureMachines[i])).To(BeTrue(), "AzureMachine %s is not Ready: %v", azureMachines[i].GetName(),
			nestedAny(&azureMachines[i], "status", "conditions"))
	}
	return kcp
}

// conditionOf returns the status and message of an object's condition, empty when it has none of that type.
func conditionOf(o *unstructured.Unstructured, conditionType string) (status, message string) {
	conditions, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == conditionType {
			status, _ = m["status"].(string)
			message, _ = m["message"].(string)
			return status, message
		}
	}
	return "", ""
}

// checkAddons asserts that the ClusterResourceSets applied the CNI and cloud-provider-azure to the workload
// cluster and that cloud-provider-azure's azure.json names Azure resources the provider created.
func checkAddons(g Gomega, f *fixture, kcp *unstructured.Unstructured, cni string) {
	// The ClusterResourceSets applied both add-ons to the workload cluster.
	binding := f.get(g, "addons.cluster.x-k8s.io/v1beta2", "ClusterResourceSetBinding", f.cluster)
	applied := map[string]bool{}
	bindings, _, _ := unstructured.NestedSlice(binding.Object, "spec", "bindings")
	for _, b := range bindings {
		resources, _, _ := unstructured.NestedSlice(b.(map[string]any), "resources")
		for _, r := range resources {
			name, _, _ := unstructured.NestedString(r.(map[string]any), "name")
			ok, _, _ := unstructured.NestedBool(r.(map[string]any), "applied")
			applied[name] = ok
		}
	}
	g.Expect(applied).To(HaveKeyWithValue(HavePrefix(cni), true))
	g.Expect(applied).To(HaveKeyWithValue("cloud-provider-azure", true))

	// azure.json, for cloud-provider-azure, names the cluster's resources as the provider created them.
	cfg := azureJSON(g, kcp)
	vnet := f.aso(g, "VirtualNetwork", cfg["vnetName"])
	g.Expect(vnet.GetName()).To(Equal(cfg["vnetName"]))
	g.Expect(nested(f.aso(g, "ResourceGroup", cfg["resourceGroup"]), "spec", "location")).To(Equal(cfg["location"]))
	f.aso(g, "VirtualNetworksSubnet", cfg["vnetName"]+"-"+cfg["subnetName"])
	f.aso(g, "NetworkSecurityGroup", cfg["securityGroupName"])
	f.aso(g, "RouteTable", cfg["routeTableName"])
	g.Expect(cfg["subscriptionId"]).To(Equal(p.SubscriptionID()))
}

// checkIgnition asserts that every machine's bootstrap data is Ignition, which the VM carries as its custom data.
func checkIgnition(g Gomega, f *fixture) {
	configs := f.list(g, "bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig")
	g.Expect(configs).To(HaveLen(2))
	for i := range configs {
		name := nested(&configs[i], "status", "dataSecretName")
		g.Expect(name).NotTo(BeEmpty(), "KubeadmConfig %s has no bootstrap data", configs[i].GetName())
		data := &corev1.Secret{}
		g.Expect(f.reader.Get(context.Background(), client.ObjectKey{Namespace: f.namespace, Name: name}, data)).To(Succeed())
		g.Expect(string(data.Data["format"])).To(Equal("ignition"))
		var ignition struct {
			Ignition struct{ Version string } `json:"ignition"`
		}
		g.Expect(json.Unmarshal(data.Data["value"], &ignition)).To(Succeed())
		g.Expect(ignition.Ignition.Version).NotTo(BeEmpty(), "bootstrap data %s is an Ignition config", name)
	}
}

// azureJSON parses the string values of /etc/kubernetes/azure.json from the KubeadmControlPlane.
func azureJSON(g Gomega, kcp *unstructured.Unstructured) map[string]string {
	files, _, _ := unstructured.NestedSlice(kcp.Object, "spec", "kubeadmConfigSpec", "files")
	for _, file := range files {
		m := file.(map[string]any)
		if m["path"] != "/etc/kubernetes/azure.json" {
			continue
		}
		var cfg map[string]any
		g.Expect(jsonUnmarshal(m["content"].(string), &cfg)).To(Succeed())
		out := map[string]string{}
		for k, v := range cfg {
			if s, ok := v.(string); ok {
				out[k] = s
			}
		}
		return out
	}
	g.Expect(files).To(ContainElement(HaveKeyWithValue("path", "/etc/kubernetes/azure.json")), "KubeadmControlPlane %s", kcp.GetName())
	return nil
}

// vmSizes are the sizes of the namespace's VMs.
func vmSizes(g Gomega, f *fixture) []string {
	var sizes []string
	for _, vm := range f.asoList(g, "VirtualMachine") {
		sizes = append(sizes, nested(vm, "spec", "hardwareProfile", "vmSize"))
	}
	return sizes
}

// checkDualStackNetwork asserts the IPv4+IPv6 network of the ipv6 and dual-stack flavors: dual-stack subnets, and
// a node outbound load balancer instead of a NAT gateway.
func checkDualStackNetwork(g Gomega, f *fixture) {
	vnet := f.aso(g, "VirtualNetwork", f.cluster+"-vnet")
	prefixes, _, _ := unstructured.NestedStringSlice(vnet.Object, "spec", "addressSpace", "addressPrefixes")
	g.Expect(prefixes).To(ConsistOf("10.0.0.0/8", "2001:1234:5678:9a00::/56"))
	for _, subnet := range []string{"control-plane-subnet", "node-subnet"} {
		s := f.aso(g, "VirtualNetworksSubnet", f.cluster+"-vnet-"+subnet)
		prefixes, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "addressPrefixes")
		g.Expect(prefixes).To(HaveLen(2), subnet)
		g.Expect(prefixes).To(ContainElement(ContainSubstring(":")), subnet)
	}
	g.Expect(lbFrontends(f.aso(g, "LoadBalancer", f.cluster))).To(HaveLen(1))
}

// checkAKS asserts an AKS cluster: its managed cluster named after the Cluster, at the Kubernetes version, a system
// pool pool0 and a user pool pool1 of one node of the nodes' size, and Cluster API's kubeconfig.
func checkAKS(g Gomega, f *fixture) {
	mc := f.aso(g, "ManagedCluster", f.cluster)
	g.Expect(nested(mc, "spec", "kubernetesVersion")).To(Equal(strings.TrimPrefix(kubernetesVersion, "v")))
	modes := map[string]string{}
	for _, pool := range f.asoList(g, "ManagedClustersAgentPool") {
		modes[nested(pool, "spec", "azureName")] = nested(pool, "spec", "mode")
		g.Expect(nested(pool, "spec", "owner", "name")).To(Equal(f.cluster))
		g.Expect(nested(pool, "spec", "vmSize")).To(Equal(nodeMachineType))
		// One node each: AKS_SYSTEM_POOL_MACHINE_COUNT's default and WORKER_MACHINE_COUNT.
		g.Expect(nested(pool, "spec", "count")).To(Equal("1"), pool.GetName())
	}
	g.Expect(modes).To(Equal(map[string]string{"pool0": "System", "pool1": "User"}))
	// The control plane wrote Cluster API's kubeconfig from the one ASO wrote.
	s := &corev1.Secret{}
	g.Expect(f.reader.Get(context.Background(), client.ObjectKey{Namespace: f.namespace, Name: secret.Name(f.cluster, secret.Kubeconfig)}, s)).To(Succeed())
}

// checkTopology asserts that Cluster API's topology controller created the cluster's infrastructure and control
// plane from the class, named after the Cluster.
func checkTopology(infraKind, controlPlaneKind string) func(g Gomega, f *fixture) {
	return func(g Gomega, f *fixture) {
		cluster := f.get(g, clusterv1.GroupVersion.String(), "Cluster", f.cluster)
		g.Expect(nested(cluster, "spec", "infrastructureRef", "kind")).To(Equal(infraKind))
		g.Expect(nested(cluster, "spec", "infrastructureRef", "name")).To(Equal(f.cluster))
		g.Expect(nested(cluster, "spec", "controlPlaneRef", "kind")).To(Equal(controlPlaneKind))
		infra := f.get(g, infraAPIVersion, infraKind, f.cluster)
		g.Expect(infra.GetLabels()).To(HaveKey(clusterv1.ClusterTopologyOwnedLabel))
	}
}

// checkClusterClasses asserts that Cluster API's ClusterClass controller accepted the classes: their templates'
// references are up to date and their variables valid.
func checkClusterClasses(g *WithT, f *fixture, objs []unstructured.Unstructured, names []string) {
	var classes []string
	for _, o := range objs {
		if o.GetKind() == "ClusterClass" {
			classes = append(classes, o.GetName())
		}
	}
	g.Expect(classes).To(ConsistOf(names))
	g.Eventually(func(g Gomega) {
		for _, name := range names {
			cc := &clusterv1.ClusterClass{}
			g.Expect(f.reader.Get(context.Background(), client.ObjectKey{Namespace: f.namespace, Name: name}, cc)).To(Succeed())
			for _, condition := range []string{clusterv1.ClusterClassRefVersionsUpToDateCondition, clusterv1.ClusterClassVariablesReadyCondition} {
				c := findCondition(cc.Status.Conditions, condition)
				g.Expect(c).NotTo(BeNil(), "ClusterClass %s has no %s condition", name, condition)
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "ClusterClass %s: %s: %s", name, condition, c.Message)
			}
		}
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

func findCondition(conditions []metav1.Condition, t string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}

// TestFlavors_AllTested makes sure TestFlavors covers every template in templates/.
func TestFlavors_AllTested(t *testing.T) {
	g := NewWithT(t)
	files, err := filepath.Glob("cluster-template*.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	var rendered []string
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(file, "cluster-template"), "-"), ".yaml")
		if name == "" {
			name = "default"
		}
		rendered = append(rendered, name)
	}
	var tested []string
	for _, fl := range flavors {
		tested = append(tested, fl.name)
	}
	g.Expect(rendered).To(ConsistOf(tested))
}

// TestFlavors_UpToDate renders the flavors from templates/flavors and compares them with the committed files, so
// that a change to the sources without make generate-flavors fails the tests too, not only make verify.
func TestFlavors_UpToDate(t *testing.T) {
	g := NewWithT(t)
	kustomize, err := env.Tool("kustomize")
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join("..", "hack", "generate-flavors.sh"), kustomize, dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	g.Expect(cmd.Run()).To(Succeed(), out.String())

	fresh, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	committed, err := filepath.Glob("*.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, f := range fresh {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	g.Expect(names).To(Equal(committed), "run 'make generate-flavors'")
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(dir, name))
		g.Expect(err).NotTo(HaveOccurred())
		got, err := os.ReadFile(name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(bytes.Equal(got, want)).To(BeTrue(), "%s is stale: run 'make generate-flavors'", name)
	}
}

// randomSuffix makes a cluster name unique (Cluster API's util.RandomString is not safe for parallel tests).
func randomSuffix() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return string(b)
}

func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
}

// missingVariables parses clusterctl's error for missing variables: "value for variables [A, B] is not set. …".
func missingVariables(msg string) []string {
	_, rest, ok := strings.Cut(msg, "value for variables [")
	if !ok {
		return nil
	}
	list, _, ok := strings.Cut(rest, "] is not set")
	if !ok {
		return nil
	}
	return strings.Split(list, ", ")
}
