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

package aks

import (
	"reflect"
	"testing"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

const (
	testSubscription = "00000000-0000-0000-0000-000000000001"
	// testSSHKey is a base64-encoded OpenSSH public key; testSSHKeyText is what it decodes to, trimmed.
	testSSHKey     = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUk3Z1c0T2gxMXNZSHRuYWp3TXc4elIxTS9OeDZyamw4NGtCU3c5cjdFMUIgYWtzQGV4YW1wbGUK"
	testSSHKeyText = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAII7gW4Oh11sYHtnajwMw8zR1M/Nx6rjl84kBSw9r7E1B aks@example"
	// testServiceCIDR is the service CIDR of the Cluster, as CAPZ's AKS templates set it.
	testServiceCIDR = "192.168.0.0/16"
	testVersion     = "v1.33.2"
)

// controlPlane returns the AzureManagedControlPlane my-aks of the Cluster my-cluster, changed by mutate and then
// defaulted as its webhook does.
func controlPlane(mutate func(*infrav1.AzureManagedControlPlane)) *infrav1.AzureManagedControlPlane {
	cp := &infrav1.AzureManagedControlPlane{
		ObjectMeta: metav1.ObjectMeta{
			Name: "my-aks", Namespace: "default", Labels: map[string]string{infrav1.ClusterNameLabel: "my-cluster"},
		},
		Spec: infrav1.AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
			Version:        testVersion,
			Location:       "eastus",
			SubscriptionID: testSubscription,
			IdentityRef:    &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "cluster-identity", Namespace: "default"},
		}},
	}
	if mutate != nil {
		mutate(cp)
	}
	cp.SetDefaults()
	return cp
}

// machinePool returns an AzureManagedMachinePool of mode and sku, changed by mutate and then defaulted as the API
// server's schema and the webhook do.
func machinePool(name string, mode infrav1.NodePoolMode, mutate func(*infrav1.AzureManagedMachinePool)) *infrav1.AzureManagedMachinePool {
	p := &infrav1.AzureManagedMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{infrav1.ClusterNameLabel: "my-cluster"}},
		Spec: infrav1.AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
			Mode: mode, SKU: "Standard_D2s_v3",
			// Schema defaults.
			OsDiskType:    ptr.To(infrav1.ManagedOSDiskTypeManaged),
			ScaleDownMode: ptr.To(infrav1.ScaleDownModeDelete),
		}},
	}
	if mutate != nil {
		mutate(p)
	}
	p.SetDefaults()
	return p
}

// clusterOf resolves the cluster of a control plane the way the controller does.
func clusterOf(cp *infrav1.AzureManagedControlPlane) azure.Cluster {
	s := cp.Spec
	return azure.Cluster{
		Name: cp.Labels[infrav1.ClusterNameLabel], SubscriptionID: s.SubscriptionID, Location: s.Location,
		ResourceGroup: s.ResourceGroupName, AdditionalTags: s.AdditionalTags,
	}
}

// poolInput builds the agent pool input of a machine pool of the control plane, as the controller does.
func poolInput(cp *infrav1.AzureManagedControlPlane, p *infrav1.AzureManagedMachinePool, replicas *int32) AgentPoolInput {
	c := clusterOf(cp)
	return AgentPoolInput{
		Cluster: c, ManagedClusterName: cp.Name, Name: p.Name, Spec: p.Spec, Replicas: replicas, Version: testVersion,
		VNetSubnetID: SubnetID(c, cp.Spec.VirtualNetwork),
	}
}

// controlPlaneInput builds the control plane input as the controller does before the cluster exists: the
// Cluster's service CIDR and the system pools, each with 3 replicas.
func controlPlaneInput(cp *infrav1.AzureManagedControlPlane, systemPools ...*infrav1.AzureManagedMachinePool) ControlPlaneInput {
	c := clusterOf(cp)
	in := ControlPlaneInput{
		Cluster: c, Name: cp.Name, Spec: cp.Spec, ClusterName: c.Name,
		ServiceCIDRs: []string{testServiceCIDR}, VNetSubnetID: SubnetID(c, cp.Spec.VirtualNetwork),
	}
	for _, p := range systemPools {
		in.InitialPools = append(in.InitialPools, poolInput(cp, p, ptr.To[int32](3)))
	}
	return in
}

// object is a Kubernetes object as azure.Resource holds it.
type object interface {
	metav1.Object
	runtime.Object
}

// resourceView is how a composed resource appears in a golden file.
type resourceView struct {
	Kind       string `json:"kind"`
	Family     string `json:"family"`
	Adoptable  bool   `json:"adoptable,omitempty"`
	Referenced bool   `json:"referenced,omitempty"`
	Object     object `json:"object"`
}

func view(resources []azure.Resource) []resourceView {
	out := make([]resourceView, 0, len(resources))
	for _, r := range resources {
		out = append(out, resourceView{Kind: kindOf(r.Object), Family: r.Family, Adoptable: r.Adoptable, Referenced: r.Referenced, Object: r.Object})
	}
	return out
}

func kindOf(obj any) string { return reflect.TypeOf(obj).Elem().Name() }

func TestControlPlaneResources(t *testing.T) {
	system := machinePool("pool0", infrav1.NodePoolModeSystem, nil)
	tests := map[string]*infrav1.AzureManagedControlPlane{
		"minimal": controlPlane(nil),
		// The user's virtual network in its own resource group, with private endpoints in its subnet.
		"byo-vnet": controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
			cp.Spec.VirtualNetwork = infrav1.ManagedControlPlaneVirtualNetwork{
				ResourceGroup: "network-rg", Name: "shared-vnet", CIDRBlock: "10.10.0.0/16",
				Subnet: infrav1.ManagedControlPlaneSubnet{
					Name: "aks-nodes", CIDRBlock: "10.10.1.0/24",
					PrivateEndpoints: infrav1.PrivateEndpoints{{
						Name: "my-aks-keyvault-pe",
						PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{
							PrivateLinkServiceID: "/subscriptions/" + testSubscription + "/resourceGroups/kv-rg/providers/Microsoft.KeyVault/vaults/my-kv",
							GroupIDs:             []string{"vault"},
						}},
					}},
				},
			}
		}),
		// A network the provider creates in the cluster's group, with service endpoints and a private endpoint.
		"managed-vnet-endpoints": controlPlane(func(cp *infrav1.AzureManagedControlPlane) {
			cp.Spec.VirtualNetwork = infrav1.ManagedControlPlaneVirtualNetwork{
				Name: "aks-vnet", CIDRBlock: "10.20.0.0/16",
				Subnet: infrav1.ManagedControlPlaneSubnet{
					Name: "aks-nodes", CIDRBlock: "10.20.0.0/20",
					ServiceEndpoints: infrav1.ServiceEndpoints{{Service: "Microsoft.Storage", Locations: []string{"eastus"}}},
					PrivateEndpoints: infrav1.PrivateEndpoints{{
						Name: "my-aks-storage-pe", ManualApproval: true,
						PrivateLinkServiceConnections: []infrav1.PrivateLinkServiceConnection{{
							Name:                 "blob",
							PrivateLinkServiceID: "/subscriptions/" + testSubscription + "/resourceGroups/st-rg/providers/Microsoft.Storage/storageAccounts/mystorage",
							GroupIDs:             []string{"blob"}, RequestMessage: "AKS cluster my-aks",
						}},
					}},
				},
			}
		}),
	}
	for name, cp := range tests {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, "cluster-"+name, view(ControlPlaneResources(controlPlaneInput(cp, system))))
		})
	}
}

func TestControlPlaneResources_Modes(t *testing.T) {
	tests := []struct {
		name      string
		vnetGroup string
		want      []string
	}{
		{name: "network in the cluster's group", vnetGroup: "", want: []string{
			"ResourceGroup/my-cluster/ResourceGroup/adoptable",
			"VirtualNetwork/my-aks/VNet/adoptable",
			"VirtualNetworksSubnet/my-aks-my-aks/Subnets/adoptable",
			"ManagedCluster/my-aks/ManagedCluster/managed",
		}},
		{name: "network in the cluster's group, named in another case", vnetGroup: "MY-CLUSTER", want: []string{
			"ResourceGroup/my-cluster/ResourceGroup/adoptable",
			"VirtualNetwork/my-aks/VNet/adoptable",
			"VirtualNetworksSubnet/my-aks-my-aks/Subnets/adoptable",
			"ManagedCluster/my-aks/ManagedCluster/managed",
		}},
		{name: "network in another group", vnetGroup: "network-rg", want: []string{
			"ResourceGroup/my-cluster/ResourceGroup/adoptable",
			"VirtualNetwork/my-aks/VNet/referenced",
			"VirtualNetworksSubnet/my-aks-my-aks/Subnets/referenced",
			"ManagedCluster/my-aks/ManagedCluster/managed",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			cp := controlPlane(func(cp *infrav1.AzureManagedControlPlane) { cp.Spec.VirtualNetwork.ResourceGroup = tt.vnetGroup })
			var got []string
			for _, r := range ControlPlaneResources(controlPlaneInput(cp)) {
				g.Expect(r.Adoptable && r.Referenced).To(BeFalse())
				mode := "managed"
				switch {
				case r.Adoptable:
					mode = "adoptable"
				case r.Referenced:
					mode = "referenced"
				}
				got = append(got, kindOf(r.Object)+"/"+r.Object.GetName()+"/"+r.Family+"/"+mode)
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestSubnetID(t *testing.T) {
	g := NewWithT(t)
	c := azure.Cluster{SubscriptionID: testSubscription, ResourceGroup: "cluster-rg"}
	g.Expect(SubnetID(c, infrav1.ManagedControlPlaneVirtualNetwork{Name: "vnet", Subnet: infrav1.ManagedControlPlaneSubnet{Name: "nodes"}})).To(Equal(
		"/subscriptions/" + testSubscription + "/resourceGroups/cluster-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"))
	g.Expect(SubnetID(c, infrav1.ManagedControlPlaneVirtualNetwork{
		ResourceGroup: "network-rg", Name: "vnet", Subnet: infrav1.ManagedControlPlaneSubnet{Name: "nodes"},
	})).To(Equal("/subscriptions/" + testSubscription + "/resourceGroups/network-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"))
}

func TestMachinePoolResources(t *testing.T) {
	g := NewWithT(t)
	cp := controlPlane(nil)
	out := MachinePoolResources(poolInput(cp, machinePool("pool1", infrav1.NodePoolModeUser, nil), ptr.To[int32](2)))
	g.Expect(out).To(HaveLen(1))
	g.Expect(out[0].Family).To(Equal(FamilyAgentPool))
	g.Expect(out[0].Adoptable || out[0].Referenced).To(BeFalse())
	pool, ok := out[0].Object.(*asocontainerservice.ManagedClustersAgentPool)
	g.Expect(ok).To(BeTrue())
	g.Expect(pool.Name).To(Equal("pool1"))
	g.Expect(pool.Spec.Owner.Name).To(Equal("my-aks"))
}

func TestControlPlaneResources_Deterministic(t *testing.T) {
	g := NewWithT(t)
	in := controlPlaneInput(fullControlPlane(), machinePool("pool1", infrav1.NodePoolModeSystem, nil), machinePool("pool0", infrav1.NodePoolModeSystem, nil))
	first := yamlText(t, view(ControlPlaneResources(in)))
	for range 10 {
		g.Expect(yamlText(t, view(ControlPlaneResources(in)))).To(Equal(first))
	}
}
