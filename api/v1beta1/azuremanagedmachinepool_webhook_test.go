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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/feature"
)

// newManagedMachinePool returns a defaulted, valid AzureManagedMachinePool, changed by the given functions
// before defaulting.
func newManagedMachinePool(changes ...func(*AzureManagedMachinePool)) *AzureManagedMachinePool {
	p := &AzureManagedMachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool0", Namespace: "ns"},
		Spec: AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: AzureManagedMachinePoolClassSpec{
			Mode: NodePoolModeUser,
			SKU:  "Standard_D2s_v3",
		}},
	}
	for _, change := range changes {
		change(p)
	}
	p.SetDefaults()
	return p
}

func TestAzureManagedMachinePool_AgentPoolName(t *testing.T) {
	tests := []struct {
		name         string
		objectName   string
		specName     *string
		osType       AgentPoolOSType
		wantSpecName *string
		wantPaths    []string
	}{
		{name: "object name fits", objectName: "pool0", wantSpecName: ptr.To("pool0")},
		{name: "object name with a hyphen needs a spec name", objectName: "my-pool", wantPaths: []string{"spec.name"}},
		{name: "object name too long needs a spec name", objectName: "averylongpool1", wantPaths: []string{"spec.name"}},
		{name: "spec name kept over the object name", objectName: "my-pool", specName: ptr.To("mypool"), wantSpecName: ptr.To("mypool")},
		{name: "spec name with uppercase letters", objectName: "pool0", specName: ptr.To("Pool1"), wantSpecName: ptr.To("Pool1"), wantPaths: []string{"spec.name"}},
		{name: "spec name starting with a digit", objectName: "pool0", specName: ptr.To("1pool"), wantSpecName: ptr.To("1pool"), wantPaths: []string{"spec.name"}},
		{name: "twelve characters on Linux", objectName: "abcdefghijkl", wantSpecName: ptr.To("abcdefghijkl")},
		{name: "thirteen characters on Linux", objectName: "pool0", specName: ptr.To("abcdefghijklm"), wantSpecName: ptr.To("abcdefghijklm"), wantPaths: []string{"spec.name"}},
		{name: "six characters on Windows", objectName: "win001", osType: AgentPoolOSTypeWindows, wantSpecName: ptr.To("win001")},
		{name: "seven characters on Windows need a spec name", objectName: "windows", osType: AgentPoolOSTypeWindows, wantPaths: []string{"spec.name"}},
		{name: "seven-character spec name on Windows", objectName: "win", specName: ptr.To("windows"), osType: AgentPoolOSTypeWindows, wantSpecName: ptr.To("windows"), wantPaths: []string{"spec.name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := newManagedMachinePool(func(p *AzureManagedMachinePool) {
				p.Name, p.Spec.Name = tc.objectName, tc.specName
				if tc.osType != "" {
					p.Spec.OSType = ptr.To(tc.osType)
				}
			})
			g.Expect(p.Spec.Name).To(Equal(tc.wantSpecName))
			_, err := azureManagedMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedMachinePool_ValidateCreate(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*AzureManagedMachinePool)
		wantPaths []string
	}{
		{name: "defaulted pool is valid", change: func(*AzureManagedMachinePool) {}},
		{name: "no mode", change: func(p *AzureManagedMachinePool) { p.Spec.Mode = "" }, wantPaths: []string{"spec.mode"}},
		{name: "no VM size", change: func(p *AzureManagedMachinePool) { p.Spec.SKU = "" }, wantPaths: []string{"spec.sku"}},
		{name: "Windows System pool", change: func(p *AzureManagedMachinePool) {
			p.Spec.Name, p.Spec.Mode, p.Spec.OSType = ptr.To("win"), NodePoolModeSystem, ptr.To(AgentPoolOSTypeWindows)
		}, wantPaths: []string{"spec.osType"}},
		{name: "reserved node label", change: func(p *AzureManagedMachinePool) {
			p.Spec.NodeLabels = map[string]string{"team": "a", "kubernetes.azure.com/scalesetpriority": "spot"}
		}, wantPaths: []string{"spec.nodeLabels[kubernetes.azure.com/scalesetpriority]"}},
		{name: "node label value too long", change: func(p *AzureManagedMachinePool) {
			p.Spec.NodeLabels = map[string]string{"team": "a-value-that-is-much-longer-than-sixty-three-characters-and-not-a-label"}
		}, wantPaths: []string{"spec.nodeLabels[team]"}},
		{name: "taint with a bad key", change: func(p *AzureManagedMachinePool) {
			p.Spec.Taints = Taints{{Key: "bad key", Value: "v", Effect: TaintEffectNoSchedule}}
		}, wantPaths: []string{"spec.taints[0].key"}},
		{name: "taint twice", change: func(p *AzureManagedMachinePool) {
			p.Spec.Taints = Taints{{Key: "gpu", Value: "a", Effect: TaintEffectNoSchedule}, {Key: "gpu", Value: "b", Effect: TaintEffectNoSchedule}}
		}, wantPaths: []string{"spec.taints[1]"}},
		{name: "autoscaling with only a maximum", change: func(p *AzureManagedMachinePool) {
			p.Spec.Scaling = &ManagedMachinePoolScaling{MaxSize: ptr.To[int32](3)}
		}, wantPaths: []string{"spec.scaling.minSize"}},
		{name: "autoscaling minimum above maximum", change: func(p *AzureManagedMachinePool) {
			p.Spec.Scaling = &ManagedMachinePoolScaling{MinSize: ptr.To[int32](4), MaxSize: ptr.To[int32](3)}
		}, wantPaths: []string{"spec.scaling.minSize"}},
		{name: "User pool scaling to zero", change: func(p *AzureManagedMachinePool) {
			p.Spec.Scaling = &ManagedMachinePoolScaling{MinSize: ptr.To[int32](0), MaxSize: ptr.To[int32](3)}
		}},
		{name: "System pool scaling to zero", change: func(p *AzureManagedMachinePool) {
			p.Spec.Mode = NodePoolModeSystem
			p.Spec.Scaling = &ManagedMachinePoolScaling{MinSize: ptr.To[int32](0), MaxSize: ptr.To[int32](3)}
		}, wantPaths: []string{"spec.scaling.minSize"}},
		{name: "too few pods per node", change: func(p *AzureManagedMachinePool) { p.Spec.MaxPods = ptr.To[int32](9) }, wantPaths: []string{"spec.maxPods"}},
		{name: "too many pods per node", change: func(p *AzureManagedMachinePool) { p.Spec.MaxPods = ptr.To[int32](251) }, wantPaths: []string{"spec.maxPods"}},
		{name: "OS disk too small", change: func(p *AzureManagedMachinePool) { p.Spec.OSDiskSizeGB = ptr.To[int32](29) }, wantPaths: []string{"spec.osDiskSizeGB"}},
		{name: "OS disk too large", change: func(p *AzureManagedMachinePool) { p.Spec.OSDiskSizeGB = ptr.To[int32](2049) }, wantPaths: []string{"spec.osDiskSizeGB"}},
		{name: "availability zone twice", change: func(p *AzureManagedMachinePool) {
			p.Spec.AvailabilityZones = []string{"1", "2", "1"}
		}, wantPaths: []string{"spec.availabilityZones[2]"}},
		{name: "spot price on a regular pool", change: func(p *AzureManagedMachinePool) {
			p.Spec.SpotMaxPrice = ptr.To(resource.MustParse("0.5"))
		}, wantPaths: []string{"spec.spotMaxPrice"}},
		{name: "spot pool with the on-demand price", change: func(p *AzureManagedMachinePool) {
			p.Spec.ScaleSetPriority, p.Spec.SpotMaxPrice = ptr.To(ScaleSetPrioritySpot), ptr.To(resource.MustParse("-1"))
		}},
		{name: "spot System pool", change: func(p *AzureManagedMachinePool) {
			p.Spec.Mode, p.Spec.ScaleSetPriority = NodePoolModeSystem, ptr.To(ScaleSetPrioritySpot)
		}, wantPaths: []string{"spec.scaleSetPriority"}},
		{name: "public IP prefix without node public IPs", change: func(p *AzureManagedMachinePool) {
			p.Spec.NodePublicIPPrefixID = ptr.To("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/publicIPPrefixes/p")
		}, wantPaths: []string{"spec.enableNodePublicIP"}},
		{name: "public IP prefix not a prefix ID", change: func(p *AzureManagedMachinePool) {
			p.Spec.EnableNodePublicIP = ptr.To(true)
			p.Spec.NodePublicIPPrefixID = ptr.To("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/p")
		}, wantPaths: []string{"spec.nodePublicIPPrefixID"}},
		{name: "image GC thresholds equal", change: func(p *AzureManagedMachinePool) {
			p.Spec.KubeletConfig = &KubeletConfig{ImageGcHighThreshold: ptr.To[int32](80), ImageGcLowThreshold: ptr.To[int32](80)}
		}, wantPaths: []string{"spec.kubeletConfig.imageGcLowThreshold"}},
		{name: "unsafe sysctl AKS does not allow", change: func(p *AzureManagedMachinePool) {
			p.Spec.KubeletConfig = &KubeletConfig{AllowedUnsafeSysctls: []string{"net.core.somaxconn", "kernel.panic", "kernel.shm*"}}
		}, wantPaths: []string{"spec.kubeletConfig.allowedUnsafeSysctls[1]"}},
		{name: "CFS quota period without unit", change: func(p *AzureManagedMachinePool) {
			p.Spec.KubeletConfig = &KubeletConfig{CPUCfsQuotaPeriod: ptr.To("100")}
		}, wantPaths: []string{"spec.kubeletConfig.cpuCfsQuotaPeriod"}},
		{name: "swap file with failSwapOn unset", change: func(p *AzureManagedMachinePool) {
			p.Spec.LinuxOSConfig = &LinuxOSConfig{SwapFileSizeMB: ptr.To[int32](1024)}
		}, wantPaths: []string{"spec.linuxOSConfig.swapFileSizeMB"}},
		{name: "swap file with failSwapOn false", change: func(p *AzureManagedMachinePool) {
			p.Spec.LinuxOSConfig = &LinuxOSConfig{SwapFileSizeMB: ptr.To[int32](1024)}
			p.Spec.KubeletConfig = &KubeletConfig{FailSwapOn: ptr.To(false)}
		}},
		{name: "local port range starting too low", change: func(p *AzureManagedMachinePool) {
			p.Spec.LinuxOSConfig = &LinuxOSConfig{Sysctls: &SysctlConfig{NetIpv4IPLocalPortRange: ptr.To("1000 60000")}}
		}, wantPaths: []string{"spec.linuxOSConfig.sysctls.netIpv4IPLocalPortRange"}},
		{name: "Linux OS config on Windows", change: func(p *AzureManagedMachinePool) {
			p.Spec.Name, p.Spec.OSType = ptr.To("win"), ptr.To(AgentPoolOSTypeWindows)
			p.Spec.LinuxOSConfig = &LinuxOSConfig{TransparentHugePageEnabled: ptr.To(TransparentHugePageEnabledNever)}
		}, wantPaths: []string{"spec.linuxOSConfig"}},
		{name: "bad subnet name", change: func(p *AzureManagedMachinePool) { p.Spec.SubnetName = ptr.To("-subnet") }, wantPaths: []string{"spec.subnetName"}},
		{name: "agent pool patch not an object", change: func(p *AzureManagedMachinePool) {
			p.Spec.ASOManagedClustersAgentPoolPatches = []string{"- op: add"}
		}, wantPaths: []string{"spec.asoManagedClustersAgentPoolPatches[0]"}},
		{name: "ASO patch changes the owner", change: func(p *AzureManagedMachinePool) {
			p.Spec.ASOPatches = []ASOPatch{{Target: ASOPatchTarget{Kind: "ManagedClustersAgentPool"}, Patch: `{"spec": {"owner": {"name": "x"}}}`}}
		}, wantPaths: []string{"spec.asoPatches[0].patch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := newManagedMachinePool(tc.change)
			_, err := azureManagedMachinePoolWebhook{}.ValidateCreate(context.Background(), p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedMachinePool_ValidateCreateWithoutMachinePools(t *testing.T) {
	g := NewWithT(t)
	g.Expect(feature.MutableGates.Set("MachinePool=false")).To(Succeed())
	defer func() { g.Expect(feature.MutableGates.Set("MachinePool=true")).To(Succeed()) }()
	_, err := azureManagedMachinePoolWebhook{}.ValidateCreate(context.Background(), newManagedMachinePool())
	g.Expect(causePaths(err)).To(ConsistOf("spec"))
}

func TestAzureManagedMachinePool_ValidateUpdate(t *testing.T) {
	tests := []struct {
		name      string
		old       func(*AzureManagedMachinePool)
		change    func(*AzureManagedMachinePool)
		wantPaths []string
	}{
		{name: "scaling, labels, taints, tags and mode change", change: func(p *AzureManagedMachinePool) {
			p.Spec.Scaling = &ManagedMachinePoolScaling{MinSize: ptr.To[int32](1), MaxSize: ptr.To[int32](5)}
			p.Spec.NodeLabels = map[string]string{"team": "b"}
			p.Spec.Taints = Taints{{Key: "gpu", Effect: TaintEffectNoSchedule}}
			p.Spec.AdditionalTags = Tags{"cost": "1"}
			p.Spec.Mode = NodePoolModeSystem
		}},
		{name: "agent pool name", change: func(p *AzureManagedMachinePool) { p.Spec.Name = ptr.To("pool1") }, wantPaths: []string{"spec.name"}},
		{name: "VM size", change: func(p *AzureManagedMachinePool) { p.Spec.SKU = "Standard_D4s_v3" }, wantPaths: []string{"spec.sku"}},
		{name: "OS disk size", change: func(p *AzureManagedMachinePool) { p.Spec.OSDiskSizeGB = ptr.To[int32](64) }, wantPaths: []string{"spec.osDiskSizeGB"}},
		{name: "OS disk type", change: func(p *AzureManagedMachinePool) { p.Spec.OsDiskType = ptr.To(ManagedOSDiskTypeEphemeral) }, wantPaths: []string{"spec.osDiskType"}},
		{name: "OS type", change: func(p *AzureManagedMachinePool) { p.Spec.OSType = ptr.To(AgentPoolOSTypeWindows) }, wantPaths: []string{"spec.osType"}},
		{name: "max pods", change: func(p *AzureManagedMachinePool) { p.Spec.MaxPods = ptr.To[int32](50) }, wantPaths: []string{"spec.maxPods"}},
		{name: "scale set priority", change: func(p *AzureManagedMachinePool) { p.Spec.ScaleSetPriority = ptr.To(ScaleSetPrioritySpot) }, wantPaths: []string{"spec.scaleSetPriority"}},
		{name: "node public IPs", change: func(p *AzureManagedMachinePool) { p.Spec.EnableNodePublicIP = ptr.To(true) }, wantPaths: []string{"spec.enableNodePublicIP"}},
		{name: "ultra SSD", change: func(p *AzureManagedMachinePool) { p.Spec.EnableUltraSSD = ptr.To(true) }, wantPaths: []string{"spec.enableUltraSSD"}},
		{name: "kubelet config", change: func(p *AzureManagedMachinePool) {
			p.Spec.KubeletConfig = &KubeletConfig{PodMaxPids: ptr.To[int32](100)}
		}, wantPaths: []string{"spec.kubeletConfig"}},
		{name: "kubelet disk type", change: func(p *AzureManagedMachinePool) {
			p.Spec.KubeletDiskType = ptr.To(KubeletDiskTypeTemporary)
		}, wantPaths: []string{"spec.kubeletDiskType"}},
		{name: "Linux OS config", change: func(p *AzureManagedMachinePool) {
			p.Spec.LinuxOSConfig = &LinuxOSConfig{TransparentHugePageEnabled: ptr.To(TransparentHugePageEnabledNever)}
		}, wantPaths: []string{"spec.linuxOSConfig"}},
		{name: "availability zones reordered", old: func(p *AzureManagedMachinePool) {
			p.Spec.AvailabilityZones = []string{"1", "2"}
		}, change: func(p *AzureManagedMachinePool) { p.Spec.AvailabilityZones = []string{"2", "1"} }},
		{name: "availability zone added", old: func(p *AzureManagedMachinePool) {
			p.Spec.AvailabilityZones = []string{"1", "2"}
		}, change: func(p *AzureManagedMachinePool) { p.Spec.AvailabilityZones = []string{"1", "2", "3"} }, wantPaths: []string{"spec.availabilityZones"}},
		{name: "subnet set for the first time", change: func(p *AzureManagedMachinePool) { p.Spec.SubnetName = ptr.To("nodes") }},
		{name: "subnet changed", old: func(p *AzureManagedMachinePool) {
			p.Spec.SubnetName = ptr.To("nodes")
		}, change: func(p *AzureManagedMachinePool) { p.Spec.SubnetName = ptr.To("other") }, wantPaths: []string{"spec.subnetName"}},
		{name: "FIPS changed", old: func(p *AzureManagedMachinePool) {
			p.Spec.EnableFIPS = ptr.To(false)
		}, change: func(p *AzureManagedMachinePool) { p.Spec.EnableFIPS = ptr.To(true) }, wantPaths: []string{"spec.enableFIPS"}},
		{name: "encryption at host changed", old: func(p *AzureManagedMachinePool) {
			p.Spec.EnableEncryptionAtHost = ptr.To(false)
		}, change: func(p *AzureManagedMachinePool) { p.Spec.EnableEncryptionAtHost = ptr.To(true) }, wantPaths: []string{"spec.enableEncryptionAtHost"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newManagedMachinePool()
			if tc.old != nil {
				tc.old(old)
			}
			p := old.DeepCopy()
			tc.change(p)
			p.SetDefaults()
			_, err := azureManagedMachinePoolWebhook{}.ValidateUpdate(context.Background(), old, p)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}

func TestAzureManagedMachinePoolTemplate_Validate(t *testing.T) {
	newTemplate := func() *AzureManagedMachinePoolTemplate {
		tmpl := &AzureManagedMachinePoolTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "ns"},
			Spec: AzureManagedMachinePoolTemplateSpec{Template: AzureManagedMachinePoolTemplateResource{
				Spec: AzureManagedMachinePoolTemplateResourceSpec{AzureManagedMachinePoolClassSpec: AzureManagedMachinePoolClassSpec{
					Mode: NodePoolModeUser, SKU: "Standard_D2s_v3",
				}},
			}},
		}
		NewWithT(t).Expect(azureManagedMachinePoolTemplateWebhook{}.Default(context.Background(), tmpl)).To(Succeed())
		return tmpl
	}

	t.Run("defaults and validates the class spec without a name", func(t *testing.T) {
		g := NewWithT(t)
		tmpl := newTemplate()
		g.Expect(tmpl.Spec.Template.Spec.OSType).To(HaveValue(Equal(AgentPoolOSTypeLinux)))
		g.Expect(tmpl.Spec.Template.Spec.Name).To(BeNil(), "each machine pool names its own agent pool")
		_, err := azureManagedMachinePoolTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
		g.Expect(err).NotTo(HaveOccurred())

		tmpl.Spec.Template.Spec.MaxPods = ptr.To[int32](300)
		_, err = azureManagedMachinePoolTemplateWebhook{}.ValidateCreate(context.Background(), tmpl)
		g.Expect(causePaths(err)).To(ConsistOf("spec.template.spec.maxPods"))
	})

	tests := []struct {
		name      string
		ctx       context.Context
		dryRun    bool
		wantPaths []string
	}{
		{name: "changed", ctx: context.Background(), wantPaths: []string{"spec.template.spec"}},
		{name: "changed in a topology dry-run", ctx: topologyDryRunContext(), dryRun: true},
		{name: "changed in a dry-run without the topology annotation", ctx: topologyDryRunContext(), wantPaths: []string{"spec.template.spec"}},
		{name: "annotated but not a dry-run", ctx: context.Background(), dryRun: true, wantPaths: []string{"spec.template.spec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			old := newTemplate()
			tmpl := old.DeepCopy()
			if tc.dryRun {
				tmpl.Annotations = topologyDryRunAnnotations()
			}
			tmpl.Spec.Template.Spec.SKU = "Standard_D4s_v3"
			_, err := azureManagedMachinePoolTemplateWebhook{}.ValidateUpdate(tc.ctx, old, tmpl)
			g.Expect(causePaths(err)).To(ConsistOf(tc.wantPaths))
		})
	}
}
