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

package compute

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// defaultedPoolSpec returns the spec of an AzureMachinePool after its defaulting webhook ran: Standard_D2s_v3
// VMs with the test SSH key in eastus, changed by mutate first.
func defaultedPoolSpec(t *testing.T, name string, mutate func(*infrav1exp.AzureMachinePoolSpec)) infrav1exp.AzureMachinePoolSpec {
	t.Helper()
	p := &infrav1exp.AzureMachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: infrav1exp.AzureMachinePoolSpec{
			Location: "eastus",
			Template: infrav1exp.AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3", SSHPublicKey: testSSHKey},
		},
	}
	if mutate != nil {
		mutate(&p.Spec)
	}
	if err := p.SetDefaults(); err != nil {
		t.Fatal(err)
	}
	return p.Spec
}

// poolInput is a machine pool of testCluster over zones 1 to 3, joining the node outbound load balancer.
func poolInput(t *testing.T, name string, mutate func(*infrav1exp.AzureMachinePoolSpec)) ScaleSetInput {
	return ScaleSetInput{
		Cluster: testCluster, Name: name, Spec: defaultedPoolSpec(t, name, mutate),
		Capacity:          3,
		Zones:             []string{"1", "2", "3"},
		VNet:              VNetRef{Name: "my-cluster-vnet"},
		DefaultSubnet:     "my-cluster-node-subnet",
		BackendPools:      []BackendPoolRef{{LoadBalancer: "my-cluster", Pool: "my-cluster-outboundBackendPool"}},
		BootstrapData:     []byte(testBootstrapData),
		KubernetesVersion: "v1.34.1",
	}
}

func flexible(s *infrav1exp.AzureMachinePoolSpec) {
	s.OrchestrationMode = infrav1exp.FlexibleOrchestrationMode
}

// poolCases are the machine pools of the golden files.
func poolCases(t *testing.T) map[string]ScaleSetInput {
	cases := map[string]ScaleSetInput{
		"uniform-default":       poolInput(t, "my-cluster-mp-0", nil),
		"flexible-default":      poolInput(t, "my-cluster-mp-flex", flexible),
		"flexible-with-profile": flexibleWithProfile(poolInput(t, "my-cluster-mp-flex", flexible)),
		"flexible-fault-domains-zone-balance": poolInput(t, "my-cluster-mp-flex", func(s *infrav1exp.AzureMachinePoolSpec) {
			flexible(s)
			s.PlatformFaultDomainCount = ptr.To[int32](2)
			s.ZoneBalance = ptr.To(true)
			s.AdditionalTags = infrav1.Tags{"workload": "batch"}
		}),
		"uniform-windows-extensions-system-identity": poolInput(t, "my-cluster-mp-win", func(s *infrav1exp.AzureMachinePoolSpec) {
			s.Template.OSDisk.OSType = "Windows"
			s.Template.OSDisk.DiskSizeGB = ptr.To[int32](128)
			s.Template.DisableVMBootstrapExtension = ptr.To(false)
			s.Template.VMExtensions = []infrav1.VMExtension{{
				Name: "CustomScript", Publisher: "Microsoft.Compute", Version: "1.10",
				Settings:          infrav1.Tags{"fileUris": "https://example.com/setup.ps1"},
				ProtectedSettings: infrav1.Tags{"commandToExecute": "setup.ps1 -Token s3cr3t-t0ken"},
			}}
			s.Identity = infrav1.VMIdentitySystemAssigned
			s.Strategy.RollingUpdate = &infrav1exp.MachineRollingUpdateDeployment{
				MaxSurge: ptr.To(intOrString(0)), MaxUnavailable: ptr.To(intOrString(1)),
			}
		}),
		"uniform-spot-trusted-launch-user-identity-disks": poolInput(t, "my-cluster-mp-spot", func(s *infrav1exp.AzureMachinePoolSpec) {
			s.Template.SpotVMOptions = &infrav1.SpotVMOptions{MaxPrice: ptr.To(resource.MustParse("0.05"))}
			s.Template.SecurityProfile = &infrav1.SecurityProfile{
				SecurityType: infrav1.SecurityTypesTrustedLaunch,
				UefiSettings: &infrav1.UefiSettings{SecureBootEnabled: ptr.To(true), VTpmEnabled: ptr.To(true)},
			}
			s.Template.TerminateNotificationTimeout = ptr.To[int32](10)
			s.Template.OSDisk.DiffDiskSettings = &infrav1.DiffDiskSettings{Option: "Local"}
			s.Template.OSDisk.CachingType = "ReadOnly"
			s.Template.DataDisks = []infrav1.DataDisk{{NameSuffix: "etcd", DiskSizeGB: 64, ManagedDisk: &infrav1.ManagedDiskParameters{StorageAccountType: "UltraSSD_LRS"}}}
			s.Template.NetworkInterfaces = []infrav1.NetworkInterface{
				{AcceleratedNetworking: ptr.To(true), PrivateIPConfigs: 2},
				{SubnetName: "storage-subnet"},
			}
			s.Identity = infrav1.VMIdentityUserAssigned
			s.UserAssignedIdentities = []infrav1.UserAssignedIdentity{{
				ProviderID: "azure:///subscriptions/" + testSubscription + "/resourceGroups/identities-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cloud-provider",
			}}
		}),
	}
	win := cases["uniform-windows-extensions-system-identity"]
	// A new pool's scale set, named as CAPZ names it: win-p-win.
	win.Name = ScaleSetName(&infrav1exp.AzureMachinePool{ObjectMeta: metav1.ObjectMeta{Name: win.Name}, Spec: win.Spec}, nil)
	win.WindowsAdminPassword = "Aa1!not-a-real-password"
	win.Zones = nil
	cases["uniform-windows-extensions-system-identity"] = win
	dualStack := poolInput(t, "my-cluster-mp-ds", nil)
	dualStack.VNet.IPv6Subnets = []string{"my-cluster-node-subnet"}
	cases["uniform-dual-stack"] = dualStack
	return cases
}

// TestVirtualMachineScaleSet_NetworkInterfaces: as CAPZ has them, every interface forwards IP, and an interface in
// an IPv6 subnet gets a secondary IPv6 configuration in the same subnet; so do a Flexible pool's instances.
func TestVirtualMachineScaleSet_NetworkInterfaces(t *testing.T) {
	g := NewWithT(t)
	nic := VirtualMachineScaleSet(poolCases(t)["uniform-dual-stack"]).Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations[0]
	g.Expect(nic.EnableIPForwarding).To(HaveValue(BeTrue()))
	g.Expect(nic.IpConfigurations).To(HaveLen(2))
	v4, v6 := nic.IpConfigurations[0], nic.IpConfigurations[1]
	g.Expect(v4.Primary).To(HaveValue(BeTrue()))
	g.Expect(v4.LoadBalancerBackendAddressPools).To(HaveLen(1), "the primary configuration joins the outbound pool")
	g.Expect(v6.Name).To(HaveValue(Equal("ipConfigv6")))
	g.Expect(v6.Primary).To(HaveValue(BeFalse()))
	g.Expect(v6.PrivateIPAddressVersion).To(HaveValue(BeEquivalentTo("IPv6")))
	g.Expect(v6.Subnet).To(Equal(v4.Subnet))
	g.Expect(v6.LoadBalancerBackendAddressPools).To(BeEmpty())

	ipv4Only := VirtualMachineScaleSet(poolCases(t)["uniform-default"]).Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations[0]
	g.Expect(ipv4Only.IpConfigurations).To(HaveLen(1), "no IPv6 configuration outside IPv6 subnets")

	flex := poolCases(t)["flexible-default"].Spec
	model := infrav1exp.AzureMachinePoolMachineModel{Template: flex.Template, Version: "v1.34.1"}
	g.Expect(replicaSpec("my-cluster-mp-flex-0", model).EnableIPForwarding).To(BeTrue())
}

func TestMachinePoolResources(t *testing.T) {
	for name, in := range poolCases(t) {
		t.Run(name, func(t *testing.T) {
			var out []goldenResource
			for _, r := range MachinePoolResources(in) {
				out = append(out, goldenResource{Kind: kindOf(r.Object), Family: r.Family, Object: r.Object})
			}
			golden.Assert(t, "machinepool-"+name, out)
		})
	}
}

// replicaInput is an instance of the Flexible pool my-cluster-mp-flex, made from the pool's settings.
func replicaInput(t *testing.T, name, zone string, mutate func(*infrav1exp.AzureMachinePoolSpec)) ReplicaInput {
	pool := poolInput(t, "my-cluster-mp-flex", func(s *infrav1exp.AzureMachinePoolSpec) {
		flexible(s)
		if mutate != nil {
			mutate(s)
		}
	})
	return ReplicaInput{
		Cluster: testCluster, ScaleSet: pool.Name, Name: name,
		Model: (&infrav1exp.AzureMachinePool{Spec: pool.Spec}).Model("v1.34.1", zone),
		VNet:  pool.VNet, DefaultSubnet: pool.DefaultSubnet, BackendPools: pool.BackendPools,
		BootstrapData: []byte(testBootstrapData),
	}
}

func replicaCases(t *testing.T) map[string]ReplicaInput {
	return map[string]ReplicaInput{
		"default": replicaInput(t, "my-cluster-mp-flex-7fk2q", "2", nil),
		"system-identity-terminate-notification": replicaInput(t, "my-cluster-mp-flex-x9d4m", "", func(s *infrav1exp.AzureMachinePoolSpec) {
			s.Identity = infrav1.VMIdentitySystemAssigned
			s.Template.TerminateNotificationTimeout = ptr.To[int32](7)
			s.Template.DataDisks = []infrav1.DataDisk{{NameSuffix: "etcd", DiskSizeGB: 64}}
		}),
	}
}

func TestReplicaResources(t *testing.T) {
	for name, in := range replicaCases(t) {
		t.Run(name, func(t *testing.T) {
			var out []goldenResource
			for _, r := range ReplicaResources(in) {
				out = append(out, goldenResource{Kind: kindOf(r.Object), Family: r.Family, Object: r.Object})
			}
			golden.Assert(t, "replica-"+name, out)
		})
	}
}

func TestVirtualMachineScaleSet_Flexible(t *testing.T) {
	g := NewWithT(t)
	in := poolCases(t)["flexible-default"]
	resources := MachinePoolResources(in)
	g.Expect(resources).To(HaveLen(1), "a Flexible scale set has no Secrets nor role assignment: its instances do")
	vmss := resources[0].Object.(*asocompute.VirtualMachineScaleSet)
	g.Expect(resources[0].Family).To(Equal(FamilyScaleSet))
	g.Expect(vmss.Spec.OrchestrationMode).To(HaveValue(Equal(asocompute.OrchestrationMode_Flexible)))
	g.Expect(vmss.Spec.PlatformFaultDomainCount).To(HaveValue(Equal(1)))
	g.Expect(vmss.Spec.VirtualMachineProfile).To(BeNil(), "the VMs are separate ASO objects")
	g.Expect(vmss.Spec.Sku).To(BeNil(), "a Flexible scale set's size is the number of VMs attached to it")
	g.Expect(vmss.Spec.Zones).To(Equal([]string{"1", "2", "3"}))
	g.Expect(yamlOf(t, resources)).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(testBootstrapData))))
}

// flexibleWithProfile is a Flexible pool taken over from CAPZ, which made its scale set with a VM profile.
func flexibleWithProfile(in ScaleSetInput) ScaleSetInput {
	in.FlexibleWithProfile = true
	return in
}

func TestVirtualMachineScaleSet_FlexibleWithProfile(t *testing.T) {
	g := NewWithT(t)
	in := poolCases(t)["flexible-with-profile"]
	g.Expect(in.HasProfile()).To(BeTrue())
	windows := func(s *infrav1exp.AzureMachinePoolSpec) {
		flexible(s)
		s.Template.OSDisk.OSType = "Windows"
		s.Identity = infrav1.VMIdentitySystemAssigned
	}
	var kinds []string
	for _, r := range MachinePoolResources(flexibleWithProfile(poolInput(t, "my-cluster-mp-win", windows))) {
		kinds = append(kinds, fmt.Sprintf("%T/%s", r.Object, r.Object.GetName()))
	}
	g.Expect(kinds).To(ContainElements("*v1.Secret/"+WindowsPasswordSecretName("my-cluster-mp-win"), "*v1api20220301.VirtualMachineScaleSet/my-cluster-mp-win"),
		"the profile's Secrets, as for a Uniform scale set")
	g.Expect(kinds).To(HaveLen(3), "and the role assignment of its system-assigned identity")
	vmss := VirtualMachineScaleSet(in)
	g.Expect(vmss.Spec.OrchestrationMode).To(HaveValue(Equal(asocompute.OrchestrationMode_Flexible)))
	g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(3)), "Azure makes the instances from the profile")
	g.Expect(vmss.Spec.PlatformFaultDomainCount).To(HaveValue(Equal(1)))
	g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.CustomData).To(HaveValue(Equal(base64.StdEncoding.EncodeToString([]byte(testBootstrapData)))))
	g.Expect(vmss.Spec.VirtualMachineProfile.NetworkProfile.NetworkApiVersion).To(
		HaveValue(Equal(asocompute.VirtualMachineScaleSetNetworkProfile_NetworkApiVersion_20201101)))
	g.Expect(vmss.Spec.Overprovision).To(BeNil(), "CAPZ sets no overprovisioning on a Flexible scale set")
	g.Expect(vmss.Spec.UpgradePolicy).To(BeNil(), "CAPZ sets no upgrade policy on a Flexible scale set")

	uniform := VirtualMachineScaleSet(poolCases(t)["uniform-default"])
	g.Expect(uniform.Spec.VirtualMachineProfile.NetworkProfile.NetworkApiVersion).To(BeNil())
	g.Expect(poolCases(t)["flexible-default"].HasProfile()).To(BeFalse())
}

func TestVirtualMachineScaleSet_Uniform(t *testing.T) {
	g := NewWithT(t)
	in := poolCases(t)["uniform-default"]
	vmss := VirtualMachineScaleSet(in)
	g.Expect(vmss.Spec.Sku.Capacity).To(HaveValue(Equal(3)))
	g.Expect(vmss.Spec.UpgradePolicy.Mode).To(HaveValue(Equal(asocompute.UpgradePolicy_Mode_Manual)),
		"the provider rolls the instances; Azure must never reimage a running one")
	g.Expect(vmss.Spec.ScaleInPolicy.Rules).To(Equal([]asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}))
	g.Expect(vmss.Spec.ZoneBalance).To(BeNil(), "zoneBalance is unset in the spec")
	g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.CustomData).To(HaveValue(Equal(base64.StdEncoding.EncodeToString([]byte(testBootstrapData)))))
	g.Expect(vmss.Spec.VirtualMachineProfile.StorageProfile.ImageReference.CommunityGalleryImageId).To(
		HaveValue(Equal("/CommunityGalleries/" + DefaultImageGallery + "/Images/" + DefaultLinuxImage + "/Versions/1.34.1")))

	in.Capacity = 0
	g.Expect(VirtualMachineScaleSet(in).Spec.Sku.Capacity).To(HaveValue(Equal(0)), "a pool of no instances is a scale set of capacity 0")
}

func TestVirtualMachineScaleSet_ScaleInPolicy(t *testing.T) {
	for policy, want := range map[infrav1exp.AzureMachinePoolDeletePolicyType]asocompute.ScaleInPolicy_Rules{
		infrav1exp.OldestDeletePolicyType: asocompute.ScaleInPolicy_Rules_OldestVM,
		infrav1exp.NewestDeletePolicyType: asocompute.ScaleInPolicy_Rules_NewestVM,
		infrav1exp.RandomDeletePolicyType: asocompute.ScaleInPolicy_Rules_Default,
	} {
		g := NewWithT(t)
		in := poolInput(t, "p", func(s *infrav1exp.AzureMachinePoolSpec) {
			s.Strategy.RollingUpdate = &infrav1exp.MachineRollingUpdateDeployment{DeletePolicy: policy}
		})
		g.Expect(VirtualMachineScaleSet(in).Spec.ScaleInPolicy.Rules).To(Equal([]asocompute.ScaleInPolicy_Rules{want}), string(policy))

		in.RollingOut = true
		g.Expect(VirtualMachineScaleSet(in).Spec.ScaleInPolicy.Rules).To(Equal([]asocompute.ScaleInPolicy_Rules{asocompute.ScaleInPolicy_Rules_OldestVM}),
			"%s while rolling out: the rollout's scale-in removes the outdated, oldest instances", policy)
	}
}

func TestScaleSetName(t *testing.T) {
	const uid = "pool-uid"
	id := func(name string) string {
		return "azure://" + azure.ResourceID(testSubscription, "my-cluster", azure.TypeScaleSet, name)
	}
	// scaleSet is an ASO scale set of the namespace, controlled by the owner with this UID.
	scaleSet := func(object, azureName, owner string) azure.Object {
		return &asocompute.VirtualMachineScaleSet{
			ObjectMeta: metav1.ObjectMeta{Name: object, OwnerReferences: []metav1.OwnerReference{{
				APIVersion: infrav1exp.GroupVersion.String(), Kind: "AzureMachinePool", Name: "some-pool", UID: types.UID(owner), Controller: ptr.To(true),
			}}},
			Spec: asocompute.VirtualMachineScaleSet_Spec{AzureName: azureName},
		}
	}
	cases := []struct {
		name   string
		pool   string
		osType string
		mutate func(*infrav1exp.AzureMachinePool)
		live   []azure.Object
		want   string
	}{
		{name: "a Linux pool of any length: its own name", pool: "my-cluster-linux-pool-0", osType: "Linux", want: "my-cluster-linux-pool-0"},
		{name: "a short Linux pool", pool: "lin", osType: "Linux", want: "lin"},
		{name: "a Windows pool of 9 characters: its own name", pool: "win-pool1", osType: "Windows", want: "win-pool1"},
		{name: "a short Windows pool", pool: "win", osType: "Windows", want: "win"},
		{name: "a Windows pool of 10 characters: CAPZ's name", pool: "windows-p1", osType: "Windows", want: "win-ws-p1"},
		{name: "a long Windows pool: CAPZ's name", pool: "my-cluster-mp-win", osType: "Windows", want: "win-p-win"},
		{
			name: "a long Windows pool whose ASO scale set an earlier release named after it keeps it",
			pool: "my-cluster-mp-win", osType: "Windows",
			live: []azure.Object{scaleSet("my-cluster-mp-win", "my-cluster-mp-win", uid)},
			want: "my-cluster-mp-win",
		},
		{
			name: "the azureName counts, not the ASO object's name",
			pool: "my-cluster-mp-win", osType: "Windows",
			live: []azure.Object{scaleSet("my-cluster-mp-win-1a2b3c4d", "My-Cluster-MP-Win", uid)},
			want: "My-Cluster-MP-Win",
		},
		{
			name: "an ASO scale set without azureName: its object's name, as ASO defaults it",
			pool: "my-cluster-mp-win", osType: "Windows",
			live: []azure.Object{scaleSet("my-cluster-mp-win", "", uid)},
			want: "my-cluster-mp-win",
		},
		{
			name: "a long Windows pool keeps the CAPZ-named scale set it has",
			pool: "my-cluster-mp-win", osType: "Windows",
			live: []azure.Object{scaleSet("win-p-win", "win-p-win", uid)},
			want: "win-p-win",
		},
		{
			name: "another pool's scale set is not the pool's",
			pool: "my-cluster-mp-win", osType: "Windows",
			live: []azure.Object{scaleSet("my-cluster-mp-win", "my-cluster-mp-win", "other-uid"), &asocompute.VirtualMachineScaleSet{}},
			want: "win-p-win",
		},
		{
			name: "the scale set the pool's provider ID names is kept",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) { p.Spec.ProviderID = id("my-cluster-mp-win") },
			want:   "my-cluster-mp-win",
		},
		{
			name: "a CAPZ pool's provider ID names CAPZ's scale set",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) { p.Spec.ProviderID = id("win-p-win") },
			want:   "win-p-win",
		},
		{
			name: "the scale set of the instances in providerIDList is kept, whatever the case of the path",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) {
				p.Spec.ProviderIDList = []string{strings.ToLower(id("my-cluster-mp-win")) + "/virtualmachines/0"}
			},
			want: "my-cluster-mp-win",
		},
		{
			name: "the scale set of the instances in status.instances is kept",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) {
				p.Status.Instances = []infrav1exp.AzureMachinePoolInstanceStatus{{ProviderID: id("my-cluster-mp-win") + "/virtualMachines/3"}}
			},
			want: "my-cluster-mp-win",
		},
		{
			name: "a Flexible instance's VM names no scale set",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) {
				p.Spec.ProviderIDList = []string{"azure://" + azure.ResourceID(testSubscription, "my-cluster", azure.TypeVirtualMachine, "my-cluster-mp-win-abcde")}
			},
			want: "win-p-win",
		},
		{
			name: "the ASO scale set wins over a provider ID",
			pool: "my-cluster-mp-win", osType: "Windows",
			mutate: func(p *infrav1exp.AzureMachinePool) { p.Spec.ProviderID = id("win-p-win") },
			live:   []azure.Object{scaleSet("my-cluster-mp-win", "my-cluster-mp-win", uid)},
			want:   "my-cluster-mp-win",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pool := &infrav1exp.AzureMachinePool{ObjectMeta: metav1.ObjectMeta{Name: tc.pool, UID: uid}}
			pool.Spec.Template.OSDisk.OSType = tc.osType
			if tc.mutate != nil {
				tc.mutate(pool)
			}
			NewWithT(t).Expect(ScaleSetName(pool, tc.live)).To(Equal(tc.want))
		})
	}
}

// TestVirtualMachineScaleSet_WindowsScaleSetName: a new Windows scale set named as CAPZ names it has its name as its
// computer name prefix, as CAPZ's has.
func TestVirtualMachineScaleSet_WindowsScaleSetName(t *testing.T) {
	g := NewWithT(t)
	vmss := VirtualMachineScaleSet(poolCases(t)["uniform-windows-extensions-system-identity"])
	g.Expect(vmss.Name).To(Equal("win-p-win"))
	g.Expect(vmss.Spec.AzureName).To(Equal("win-p-win"))
	g.Expect(vmss.Spec.VirtualMachineProfile.OsProfile.ComputerNamePrefix).To(HaveValue(Equal("win-p-win")))
}

// TestVirtualMachineScaleSet_WindowsComputerNamePrefix: the scale set of a Windows pool an earlier release named after
// the pool keeps the prefix it was made with, cut to 9 characters.
func TestVirtualMachineScaleSet_WindowsComputerNamePrefix(t *testing.T) {
	g := NewWithT(t)
	g.Expect(computerNamePrefix("my-cluster-mp-win", "Windows")).To(Equal("my-cluste"))
	g.Expect(computerNamePrefix("win-pool-0", "Windows")).To(Equal("win-pool"), "no trailing dash")
	g.Expect(computerNamePrefix("my-cluster-mp-0", "Linux")).To(Equal("my-cluster-mp-0"))
}

func TestMachinePoolResources_SecretsStayInSecrets(t *testing.T) {
	g := NewWithT(t)
	in := poolCases(t)["uniform-windows-extensions-system-identity"]
	secrets := map[string]string{}
	var kinds []string
	for _, r := range MachinePoolResources(in) {
		kinds = append(kinds, kindOf(r.Object)+"/"+r.Family)
		if secret, ok := r.Object.(*corev1.Secret); ok {
			for k, v := range secret.Data {
				secrets[secret.Name+"/"+k] = string(v)
			}
			continue
		}
		text := yamlOf(t, []any{r.Object})
		for _, value := range []string{"Aa1!not-a-real-password", "s3cr3t-t0ken"} {
			g.Expect(text).NotTo(ContainSubstring(value))
			g.Expect(text).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(value))))
		}
	}
	g.Expect(kinds).To(Equal([]string{"Secret/", "Secret/", "Secret/", "VirtualMachineScaleSet/ScaleSet", "RoleAssignment/RoleAssignments"}))
	g.Expect(secrets).To(Equal(map[string]string{
		"win-p-win-windows-password/password":                                                     "Aa1!not-a-real-password",
		ProtectedSettingsSecretName("win-p-win", "CustomScript") + "/commandToExecute":            "setup.ps1 -Token s3cr3t-t0ken",
		ProtectedSettingsSecretName("win-p-win", WindowsBootstrapExtension) + "/commandToExecute": WindowsBootstrapCommand,
	}))
}

func TestReplicaResources_JoinsTheScaleSet(t *testing.T) {
	g := NewWithT(t)
	in := replicaCases(t)["system-identity-terminate-notification"]
	var vm *asocompute.VirtualMachine
	var names []string
	for _, r := range ReplicaResources(in) {
		names = append(names, kindOf(r.Object)+"/"+r.Object.GetName())
		if v, ok := r.Object.(*asocompute.VirtualMachine); ok {
			vm = v
		}
	}
	g.Expect(vm).NotTo(BeNil())
	g.Expect(vm.Spec.VirtualMachineScaleSet.Reference.Name).To(Equal("my-cluster-mp-flex"))
	g.Expect(vm.Spec.VirtualMachineScaleSet.Reference.Kind).To(Equal("VirtualMachineScaleSet"))
	g.Expect(vm.Spec.ScheduledEventsProfile.TerminateNotificationProfile.NotBeforeTimeout).To(HaveValue(Equal("PT7M")))
	g.Expect(vm.Spec.Zones).To(BeEmpty())
	poolRole := in.Model.SystemAssignedIdentityRole.Name
	replicaRole := ReplicaRoleAssignmentName(poolRole, in.Name)
	g.Expect(replicaRole).NotTo(Equal(poolRole))
	g.Expect(names).To(ContainElement("RoleAssignment/"+replicaRole), "each instance's identity has its own role assignment")
	other := replicaInput(t, "my-cluster-mp-flex-other", "", func(s *infrav1exp.AzureMachinePoolSpec) { s.Identity = infrav1.VMIdentitySystemAssigned })
	other.Model.SystemAssignedIdentityRole = in.Model.SystemAssignedIdentityRole
	g.Expect(ReplicaRoleAssignmentName(poolRole, other.Name)).NotTo(Equal(replicaRole))
	g.Expect(strings.Join(names, " ")).To(ContainSubstring("NetworkInterface/my-cluster-mp-flex-x9d4m-nic"))
	g.Expect(azure.ObjectName(in.Name)).To(Equal(vm.Name))
}

func intOrString(n int32) intstr.IntOrString { return intstr.FromInt32(n) }

// A scale set's interface configuration, and a Flexible instance's interface, that leaves accelerated networking
// unset takes the first interface's, else what the VM size supports, as CAPZ's scale sets; the user's value wins,
// and an unknown size sends none.
func TestMachinePool_AcceleratedNetworking(t *testing.T) {
	tests := []struct {
		name   string
		vmSize string
		nics   []infrav1.NetworkInterface
		want   []*bool
	}{
		{name: "a size with the capability and no user value", vmSize: "Standard_D2s_v3", want: []*bool{ptr.To(true)}},
		{name: "a size without the capability", vmSize: "Standard_NC6s_v3", want: []*bool{ptr.To(false)}},
		{name: "the user's false wins", vmSize: "Standard_D2s_v3",
			nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(false)}}, want: []*bool{ptr.To(false)}},
		{name: "an unknown size sends none", vmSize: "Standard_Z2_v9", want: []*bool{nil}},
		{name: "an unset interface takes the first interface's", vmSize: "Standard_D4s_v3",
			nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(false)}, {SubnetName: "other"}},
			want: []*bool{ptr.To(false), ptr.To(false)}},
		{name: "the second interface's own value wins", vmSize: "Standard_Z2_v9",
			nics: []infrav1.NetworkInterface{{}, {SubnetName: "other", AcceleratedNetworking: ptr.To(true)}},
			want: []*bool{nil, ptr.To(true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mutate := func(s *infrav1exp.AzureMachinePoolSpec) {
				s.Template.VMSize, s.Template.NetworkInterfaces = tt.vmSize, tt.nics
			}
			var uniform []*bool
			for _, c := range VirtualMachineScaleSet(poolInput(t, "my-cluster-mp-an", mutate)).Spec.VirtualMachineProfile.NetworkProfile.NetworkInterfaceConfigurations {
				uniform = append(uniform, c.EnableAcceleratedNetworking)
			}
			g.Expect(uniform).To(Equal(tt.want), "Uniform")
			var flexible []*bool
			for _, r := range ReplicaResources(replicaInput(t, "my-cluster-mp-flex-an", "1", mutate)) {
				if nic, ok := r.Object.(*asonetwork.NetworkInterface); ok {
					flexible = append(flexible, nic.Spec.EnableAcceleratedNetworking)
				}
			}
			g.Expect(flexible).To(Equal(tt.want), "Flexible instance")
		})
	}
}
