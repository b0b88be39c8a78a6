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
	"reflect"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

const (
	// testSSHKey is a base64-encoded OpenSSH public key; testSSHKeyText is what it decodes to.
	testSSHKey     = "c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSUFPaEI3L3p6aEMrSFhEZEdPZEx3SmxuNU5Zd202VU5YeDNjaG1RU1ZURzQK"
	testSSHKeyText = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4"
	// testBootstrapData stands for a Machine's bootstrap data.
	testBootstrapData = "#cloud-config\nruncmd:\n- kubeadm join\n"
	testSubscription  = "00000000-0000-0000-0000-000000000001"
)

// testCluster is the cluster the compute golden files are made for. Like the AzureMachine controller, it owns
// the machine's resources by the resource group's ARM ID.
var testCluster = azure.Cluster{
	Name: "my-cluster", SubscriptionID: testSubscription, Location: "eastus",
	ResourceGroup: "my-cluster-rg", AdditionalTags: map[string]string{"team": "platform"}, ResourceGroupByID: true,
}

// defaultedSpec returns the spec of an AzureMachine after its defaulting webhook ran: a Standard_D2s_v3 with the
// test SSH key, changed by mutate first.
func defaultedSpec(t *testing.T, name string, mutate func(*infrav1.AzureMachineSpec)) infrav1.AzureMachineSpec {
	t.Helper()
	m := &infrav1.AzureMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", SSHPublicKey: testSSHKey},
	}
	if mutate != nil {
		mutate(&m.Spec)
	}
	if err := m.SetDefaults(); err != nil {
		t.Fatal(err)
	}
	return m.Spec
}

// controlPlaneInput is a control-plane machine of testCluster in zone 1, joining the API server and control-plane
// outbound load balancers, before its VM exists.
func controlPlaneInput(t *testing.T, name string, mutate func(*infrav1.AzureMachineSpec)) MachineInput {
	return MachineInput{
		Cluster: testCluster, Name: name, Spec: defaultedSpec(t, name, mutate),
		Role: azure.RoleControlPlane, Zone: "1",
		VNet:          VNetRef{Name: "my-cluster-vnet"},
		DefaultSubnet: "my-cluster-controlplane-subnet",
		BackendPools: []BackendPoolRef{
			{LoadBalancer: "my-cluster-public-lb", Pool: "my-cluster-public-lb-backendPool"},
			{LoadBalancer: "my-cluster-outbound-lb", Pool: "my-cluster-outbound-lb-outboundBackendPool"},
		},
		BootstrapData:     []byte(testBootstrapData),
		KubernetesVersion: "v1.34.1",
	}
}

// workerInput is a worker machine of testCluster in zone 2, joining the node outbound load balancer, before its
// VM exists.
func workerInput(t *testing.T, name string, mutate func(*infrav1.AzureMachineSpec)) MachineInput {
	return MachineInput{
		Cluster: testCluster, Name: name, Spec: defaultedSpec(t, name, mutate),
		Role: azure.RoleNode, Zone: "2",
		VNet:              VNetRef{Name: "my-cluster-vnet"},
		DefaultSubnet:     "my-cluster-node-subnet",
		BackendPools:      []BackendPoolRef{{LoadBalancer: "my-cluster", Pool: "my-cluster-outboundBackendPool"}},
		BootstrapData:     []byte(testBootstrapData),
		KubernetesVersion: "v1.34.1",
	}
}

// machineCases are the machines of the golden files, shared by the tests of every kind.
func machineCases(t *testing.T) map[string]MachineInput {
	cases := map[string]MachineInput{
		"control-plane-default": controlPlaneInput(t, "my-cluster-control-plane-7xk2p", nil),
		"worker-two-nics-public-ip-data-disks": workerInput(t, "my-cluster-md-0-4gq8r-zt5vn", func(s *infrav1.AzureMachineSpec) {
			s.AllocatePublicIP = true
			s.EnableIPForwarding = true
			s.DNSServers = []string{"10.1.0.53"}
			s.AdditionalTags = infrav1.Tags{"workload": "batch"}
			s.NetworkInterfaces = []infrav1.NetworkInterface{
				{AcceleratedNetworking: ptr.To(true), PrivateIPConfigs: 2},
				{SubnetName: "storage-subnet", AcceleratedNetworking: ptr.To(false)},
			}
			s.OSDisk.DiskSizeGB = ptr.To[int32](128)
			s.OSDisk.ManagedDisk = &infrav1.ManagedDiskParameters{StorageAccountType: "Premium_LRS"}
			s.DataDisks = []infrav1.DataDisk{
				{NameSuffix: "etcddisk", DiskSizeGB: 256, ManagedDisk: &infrav1.ManagedDiskParameters{StorageAccountType: "Premium_LRS"}},
				{NameSuffix: "ultra", DiskSizeGB: 512, ManagedDisk: &infrav1.ManagedDiskParameters{StorageAccountType: "UltraSSD_LRS"}},
			}
		}),
		"windows": workerInput(t, "my-cluster-md-win-8c7d9-kq4lz", func(s *infrav1.AzureMachineSpec) {
			s.OSDisk.OSType = "Windows"
			s.DisableVMBootstrapExtension = ptr.To(false)
			s.OSDisk.DiskSizeGB = ptr.To[int32](128)
		}),
		"marketplace-third-party-image": workerInput(t, "my-cluster-md-0-4gq8r-mkt01", func(s *infrav1.AzureMachineSpec) {
			s.Image = &infrav1.Image{Marketplace: &infrav1.AzureMarketplaceImage{
				ImagePlan:       infrav1.ImagePlan{Publisher: "kinvolk", Offer: "flatcar-container-linux", SKU: "stable"},
				ThirdPartyImage: true,
			}}
		}),
		"compute-gallery-private-image": workerInput(t, "my-cluster-md-0-4gq8r-gal01", func(s *infrav1.AzureMachineSpec) {
			s.Image = &infrav1.Image{ComputeGallery: &infrav1.AzureComputeGalleryImage{
				Gallery: "my_gallery", Name: "ubuntu-2404-k8s", Version: "1.34.1",
				SubscriptionID: ptr.To("00000000-0000-0000-0000-0000000000aa"), ResourceGroup: ptr.To("images-rg"),
			}}
		}),
		"spot-trusted-launch-user-identity": workerInput(t, "my-cluster-md-spot-6v2hd-p9wq1", func(s *infrav1.AzureMachineSpec) {
			s.SpotVMOptions = &infrav1.SpotVMOptions{MaxPrice: ptr.To(resource.MustParse("0.05"))}
			s.SecurityProfile = &infrav1.SecurityProfile{
				SecurityType: infrav1.SecurityTypesTrustedLaunch,
				UefiSettings: &infrav1.UefiSettings{SecureBootEnabled: ptr.To(true), VTpmEnabled: ptr.To(true)},
			}
			s.Identity = infrav1.VMIdentityUserAssigned
			s.UserAssignedIdentities = []infrav1.UserAssignedIdentity{{
				ProviderID: "azure:///subscriptions/" + testSubscription + "/resourceGroups/identities-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/cloud-provider",
			}}
		}),
		"confidential-vm": workerInput(t, "my-cluster-md-cvm-2m4nb-h7s3x", func(s *infrav1.AzureMachineSpec) {
			s.VMSize = "Standard_DC4as_v5"
			s.OSDisk.ManagedDisk = &infrav1.ManagedDiskParameters{
				StorageAccountType: "Premium_LRS",
				SecurityProfile: &infrav1.VMDiskSecurityProfile{
					SecurityEncryptionType: infrav1.SecurityEncryptionTypeDiskWithVMGuestState,
					DiskEncryptionSet: &infrav1.DiskEncryptionSetParameters{
						ID: "/subscriptions/" + testSubscription + "/resourceGroups/keys-rg/providers/Microsoft.Compute/diskEncryptionSets/cvm-des",
					},
				},
			}
			s.SecurityProfile = &infrav1.SecurityProfile{
				SecurityType: infrav1.SecurityTypesConfidentialVM,
				UefiSettings: &infrav1.UefiSettings{SecureBootEnabled: ptr.To(true), VTpmEnabled: ptr.To(true)},
			}
		}),
		"vm-extensions": workerInput(t, "my-cluster-md-0-4gq8r-ext01", func(s *infrav1.AzureMachineSpec) {
			s.DisableVMBootstrapExtension = ptr.To(false)
			s.VMExtensions = []infrav1.VMExtension{
				{
					Name: "CustomScript", Publisher: "Microsoft.Azure.Extensions", Version: "2.1",
					Settings:          infrav1.Tags{"fileUris": "https://example.com/setup.sh"},
					ProtectedSettings: infrav1.Tags{"commandToExecute": "./setup.sh --token s3cr3t-t0ken"},
				},
				{Name: "AzureMonitorLinuxAgent", Publisher: "Microsoft.Azure.Monitor", Version: "1.0"},
			}
		}),
		"system-identity-custom-role": controlPlaneInput(t, "my-cluster-control-plane-r8t2w", func(s *infrav1.AzureMachineSpec) {
			s.Identity = infrav1.VMIdentitySystemAssigned
			s.SystemAssignedIdentityRole = &infrav1.SystemAssignedIdentityRole{
				Scope:        "/subscriptions/" + testSubscription + "/resourceGroups/dns-rg",
				DefinitionID: "/subscriptions/" + testSubscription + "/providers/Microsoft.Authorization/roleDefinitions/befefa01-2a29-4197-83a8-272ff33ce314",
			}
		}),
		"after-creation": controlPlaneInput(t, "my-cluster-control-plane-7xk2p", nil),
		"ephemeral-os-disk": workerInput(t, "my-cluster-md-eph-5j6k7-b2c3d", func(s *infrav1.AzureMachineSpec) {
			s.OSDisk.DiffDiskSettings = &infrav1.DiffDiskSettings{Option: "Local", Placement: ptr.To(infrav1.DiffDiskPlacement("ResourceDisk"))}
			s.OSDisk.CachingType = "ReadOnly"
			s.OSDisk.ManagedDisk = &infrav1.ManagedDiskParameters{StorageAccountType: "Standard_LRS"}
		}),
	}
	windows := cases["windows"]
	windows.WindowsAdminPassword = "Aa1!not-a-real-password"
	cases["windows"] = windows
	after := cases["after-creation"]
	after.BootstrapData = nil
	cases["after-creation"] = after
	// A worker of a cluster in a region without availability zones: no zone, its MachineDeployment's set.
	avset := workerInput(t, "my-cluster-md-0-4gq8r-as001", nil)
	avset.Zone, avset.AvailabilitySet = "", AvailabilitySetName(testCluster.Name, "my-cluster-md-0")
	cases["availability-set"] = avset
	// A control-plane machine behind a public API server load balancer, with its SSH rule on it.
	ssh := controlPlaneInput(t, "my-cluster-control-plane-ssh01", nil)
	ssh.SSHRule = &network.SSHRule{LoadBalancer: "my-cluster-public-lb", Frontend: "my-cluster-public-lb-frontEnd", FrontendPort: 22}
	cases["control-plane-ssh-rule"] = ssh
	return cases
}

// goldenResource is one object of a machine as the golden files show it.
type goldenResource struct {
	Kind   string        `json:"kind"`
	Family string        `json:"family,omitempty"`
	Object client.Object `json:"object"`
}

func kindOf(obj client.Object) string { return reflect.TypeOf(obj).Elem().Name() }

func TestMachineResources(t *testing.T) {
	for name, in := range machineCases(t) {
		t.Run(name, func(t *testing.T) {
			var out []goldenResource
			for _, r := range MachineResources(in) {
				out = append(out, goldenResource{Kind: kindOf(r.Object), Family: r.Family, Object: r.Object})
			}
			golden.Assert(t, "machine-"+name, out)
		})
	}
}

func TestMachineResources_DefaultControlPlane(t *testing.T) {
	g := NewWithT(t)
	var got []string
	for _, r := range MachineResources(machineCases(t)["control-plane-default"]) {
		g.Expect(r.Referenced).To(BeFalse())
		g.Expect(r.Adoptable).To(BeFalse())
		got = append(got, kindOf(r.Object)+"/"+r.Object.GetName()+"/"+r.Family)
	}
	// No bootstrap extension: as in CAPZ since v1.25, only disableVMBootstrapExtension: false installs it.
	g.Expect(got).To(Equal([]string{
		"NetworkInterface/my-cluster-control-plane-7xk2p-nic/NetworkInterfaces",
		"VirtualMachine/my-cluster-control-plane-7xk2p/VirtualMachine",
	}))
}

func TestMachineResources_Order(t *testing.T) {
	g := NewWithT(t)
	in := workerInput(t, "m", func(s *infrav1.AzureMachineSpec) {
		s.OSDisk.OSType = "Windows"
		s.AllocatePublicIP = true
		s.Identity = infrav1.VMIdentitySystemAssigned
		s.NetworkInterfaces = []infrav1.NetworkInterface{{}, {}}
		s.VMExtensions = []infrav1.VMExtension{{Name: "e", Publisher: "p", Version: "1", ProtectedSettings: infrav1.Tags{"k": "v"}}}
		s.DisableVMBootstrapExtension = ptr.To(false)
	})
	var got []string
	for _, r := range MachineResources(in) {
		got = append(got, kindOf(r.Object)+"/"+r.Object.GetName()+"/"+r.Family)
	}
	g.Expect(got).To(Equal([]string{
		"PublicIPAddress/pip-m/PublicIPs",
		"NetworkInterface/m-nic-0/NetworkInterfaces",
		"NetworkInterface/m-nic-1/NetworkInterfaces",
		"VirtualMachine/m/VirtualMachine",
		"Secret/m-windows-password/",
		"Secret/m-e-protected/",
		"Secret/" + ProtectedSettingsSecretName("m", WindowsBootstrapExtension) + "/",
		"VirtualMachinesExtension/m-e/VMExtensions",
		"VirtualMachinesExtension/m-capz.windows.bootstrapping-" + suffixOf(t, "m-CAPZ.Windows.Bootstrapping") + "/VMExtensions",
		"RoleAssignment/" + in.Spec.SystemAssignedIdentityRole.Name + "/RoleAssignments",
	}))
}

// suffixOf is the hash suffix azure.ObjectName gives a name that is not a valid Kubernetes name.
func suffixOf(t *testing.T, name string) string {
	t.Helper()
	objectName := azure.ObjectName(name)
	return objectName[strings.LastIndex(objectName, "-")+1:]
}

func TestMachineResources_BootstrapDataOnlyInCustomData(t *testing.T) {
	g := NewWithT(t)
	encoded := base64.StdEncoding.EncodeToString([]byte(testBootstrapData))
	for name, in := range machineCases(t) {
		all := yamlOf(t, MachineResources(in))
		vm := VirtualMachine(in)
		if in.BootstrapData == nil {
			g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil(), name)
			g.Expect(all).NotTo(ContainSubstring(encoded), name)
			continue
		}
		g.Expect(ptr.Deref(vm.Spec.OsProfile.CustomData, "")).To(Equal(encoded), name)
		g.Expect(strings.Count(all, encoded)).To(Equal(1), name)
		g.Expect(all).NotTo(ContainSubstring("kubeadm join"), name)
	}
}

func TestMachineResources_SecretsStayInSecrets(t *testing.T) {
	g := NewWithT(t)
	in := machineCases(t)["vm-extensions"]
	in.Spec.OSDisk.OSType = "Windows"
	in.WindowsAdminPassword = "Aa1!not-a-real-password"
	secrets := map[string]string{}
	for _, r := range MachineResources(in) {
		if secret, ok := r.Object.(*corev1.Secret); ok {
			g.Expect(r.Family).To(BeEmpty())
			for k, v := range secret.Data {
				secrets[secret.Name+"/"+k] = string(v)
			}
			continue
		}
		// No ASO object carries a secret value, in any encoding.
		text := yamlOf(t, []any{r.Object})
		for _, value := range []string{"Aa1!not-a-real-password", "s3cr3t-t0ken"} {
			g.Expect(text).NotTo(ContainSubstring(value))
			g.Expect(text).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(value))))
		}
	}
	g.Expect(secrets).To(Equal(map[string]string{
		"my-cluster-md-0-4gq8r-ext01-windows-password/password":                                          "Aa1!not-a-real-password",
		ProtectedSettingsSecretName("my-cluster-md-0-4gq8r-ext01", "CustomScript") + "/commandToExecute": "./setup.sh --token s3cr3t-t0ken",
		// The bootstrap extension's command is a protected setting too, as CAPZ sends it.
		ProtectedSettingsSecretName("my-cluster-md-0-4gq8r-ext01", WindowsBootstrapExtension) + "/commandToExecute": WindowsBootstrapCommand,
	}))
}

func TestMachineResources_NoExtensions(t *testing.T) {
	g := NewWithT(t)
	in := machineCases(t)["vm-extensions"]
	in.Spec.DisableExtensionOperations = ptr.To(true)
	for _, r := range MachineResources(in) {
		g.Expect(r.Object).NotTo(BeAssignableToTypeOf(&corev1.Secret{}))
		g.Expect(r.Family).NotTo(Equal(FamilyVMExtensions))
	}
	g.Expect(*VirtualMachine(in).Spec.OsProfile.AllowExtensionOperations).To(BeFalse())
}

// yamlOf is the YAML of some objects, or of azure.Resources' objects.
func yamlOf[T any](t *testing.T, objects []T) string {
	t.Helper()
	var list []any
	for _, o := range objects {
		if r, ok := any(o).(azure.Resource); ok {
			list = append(list, r.Object)
			continue
		}
		list = append(list, o)
	}
	out, err := yaml.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A network interface that leaves accelerated networking unset gets what the VM size supports, as in CAPZ; the
// user's value wins, and an unknown size sends none.
func TestMachineResources_AcceleratedNetworking(t *testing.T) {
	tests := []struct {
		name   string
		vmSize string
		nics   []infrav1.NetworkInterface
		want   []*bool
	}{
		{name: "a size with the capability and no user value", vmSize: "Standard_D2s_v3", want: []*bool{ptr.To(true)}},
		{name: "a size without the capability", vmSize: "Standard_B2s", want: []*bool{ptr.To(false)}},
		{name: "the user's false wins", vmSize: "Standard_D2s_v3",
			nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(false)}}, want: []*bool{ptr.To(false)}},
		{name: "the user's true wins", vmSize: "Standard_Z2_v9",
			nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(true)}}, want: []*bool{ptr.To(true)}},
		{name: "an unknown size sends none", vmSize: "Standard_Z2_v9", want: []*bool{nil}},
		{name: "each interface on its own, as CAPZ's machines", vmSize: "Standard_D4s_v3",
			nics: []infrav1.NetworkInterface{{AcceleratedNetworking: ptr.To(false)}, {SubnetName: "other"}},
			want: []*bool{ptr.To(false), ptr.To(true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := workerInput(t, "my-cluster-md-0-an", func(s *infrav1.AzureMachineSpec) {
				s.VMSize, s.NetworkInterfaces = tt.vmSize, tt.nics
			})
			var got []*bool
			for _, nic := range network.NetworkInterfaces(in.Cluster, nicInput(in)) {
				got = append(got, nic.Spec.EnableAcceleratedNetworking)
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

// The primary interface's subnet decides a machine's outbound pools: its interface's own subnet, else the AzureMachine's
// subnetName when it lists no interface, else the role's default subnet; the same subnet the interface gets.
func TestPrimarySubnet(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec infrav1.AzureMachineSpec
		want string
	}{
		{name: "default", spec: infrav1.AzureMachineSpec{NetworkInterfaces: []infrav1.NetworkInterface{{}}}, want: "node-subnet"},
		{name: "the first interface's", spec: infrav1.AzureMachineSpec{SubnetName: "ignored",
			NetworkInterfaces: []infrav1.NetworkInterface{{SubnetName: "first"}, {SubnetName: "second"}}}, want: "first"},
		{name: "subnetName without interfaces", spec: infrav1.AzureMachineSpec{SubnetName: "mine"}, want: "mine"},
		{name: "nothing", spec: infrav1.AzureMachineSpec{}, want: "node-subnet"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := MachineInput{Name: "m", Spec: tt.spec, DefaultSubnet: "node-subnet"}
			if got := PrimarySubnet(in); got != tt.want {
				t.Errorf("PrimarySubnet = %q, want %q", got, tt.want)
			}
			nics := network.NetworkInterfaces(testCluster, nicInput(in))
			if len(nics) == 0 || !strings.HasSuffix(nics[0].Spec.IpConfigurations[0].Subnet.Reference.ARMID, "/subnets/"+tt.want) {
				t.Errorf("the primary interface is not in subnet %q", tt.want)
			}
		})
	}
}
