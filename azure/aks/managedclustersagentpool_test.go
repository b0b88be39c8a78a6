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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

// agentPoolCases are the agent pools of the golden files.
func agentPoolCases() map[string]AgentPoolInput {
	cp := controlPlane(nil)
	return map[string]AgentPoolInput{
		"system": poolInput(cp, machinePool("pool0", infrav1.NodePoolModeSystem, nil), ptr.To[int32](3)),
		"user-autoscaling": poolInput(cp, machinePool("my-cluster-pool1", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
			p.Spec.Name = ptr.To("pool1")
			p.Spec.Scaling = &infrav1.ManagedMachinePoolScaling{MinSize: ptr.To[int32](1), MaxSize: ptr.To[int32](10)}
			p.Spec.ScaleDownMode = ptr.To(infrav1.ScaleDownModeDeallocate)
			p.Spec.AvailabilityZones = []string{"1", "2"}
			p.Spec.NodeLabels = map[string]string{"workload": "web", "tier": "frontend"}
			p.Spec.Taints = infrav1.Taints{
				{Key: "dedicated", Value: "web", Effect: infrav1.TaintEffectNoSchedule},
				{Key: "gpu", Value: "false", Effect: infrav1.TaintEffectPreferNoSchedule},
			}
			p.Spec.MaxPods = ptr.To[int32](60)
			p.Spec.OSDiskSizeGB = ptr.To[int32](128)
			p.Spec.AdditionalTags = infrav1.Tags{"cost-center": "web"}
			p.Spec.SubnetName = ptr.To("web-nodes")
		}), ptr.To[int32](4)),
		"spot": poolInput(cp, machinePool("spot0", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
			p.Spec.SKU = "Standard_D4s_v5"
			p.Spec.ScaleSetPriority = ptr.To(infrav1.ScaleSetPrioritySpot)
			p.Spec.SpotMaxPrice = ptr.To(resource.MustParse("0.0725"))
			p.Spec.Taints = infrav1.Taints{{Key: "kubernetes.azure.com/scalesetpriority", Value: "spot", Effect: infrav1.TaintEffectNoSchedule}}
			p.Spec.OsDiskType = ptr.To(infrav1.ManagedOSDiskTypeEphemeral)
			p.Spec.EnableNodePublicIP = ptr.To(true)
			p.Spec.NodePublicIPPrefixID = ptr.To("/subscriptions/" + testSubscription + "/resourceGroups/ips-rg/providers/Microsoft.Network/publicIPPrefixes/nodes")
		}), ptr.To[int32](2)),
		"kubelet-linux-os-config": poolInput(cp, machinePool("tuned0", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
			p.Spec.EnableUltraSSD = ptr.To(true)
			p.Spec.EnableFIPS = ptr.To(true)
			p.Spec.EnableEncryptionAtHost = ptr.To(true)
			p.Spec.KubeletDiskType = ptr.To(infrav1.KubeletDiskTypeTemporary)
			p.Spec.KubeletConfig = &infrav1.KubeletConfig{
				CPUManagerPolicy:      ptr.To(infrav1.CPUManagerPolicyStatic),
				CPUCfsQuota:           ptr.To(true),
				CPUCfsQuotaPeriod:     ptr.To("110ms"),
				ImageGcHighThreshold:  ptr.To[int32](85),
				ImageGcLowThreshold:   ptr.To[int32](70),
				TopologyManagerPolicy: ptr.To(infrav1.TopologyManagerPolicyBestEffort),
				AllowedUnsafeSysctls:  []string{"net.core.somaxconn", "kernel.msg*"},
				FailSwapOn:            ptr.To(false),
				ContainerLogMaxSizeMB: ptr.To[int32](50),
				ContainerLogMaxFiles:  ptr.To[int32](5),
				PodMaxPids:            ptr.To[int32](4096),
			}
			p.Spec.LinuxOSConfig = &infrav1.LinuxOSConfig{
				SwapFileSizeMB:             ptr.To[int32](1024),
				TransparentHugePageEnabled: ptr.To(infrav1.TransparentHugePageEnabledMadvise),
				TransparentHugePageDefrag:  ptr.To(infrav1.TransparentHugePageDefragDeferMadvise),
				Sysctls: &infrav1.SysctlConfig{
					FsAioMaxNr:                     ptr.To[int32](65536),
					FsFileMax:                      ptr.To[int32](100000),
					FsInotifyMaxUserWatches:        ptr.To[int32](1000000),
					FsNrOpen:                       ptr.To[int32](1048576),
					KernelThreadsMax:               ptr.To[int32](100000),
					NetCoreNetdevMaxBacklog:        ptr.To[int32](2000),
					NetCoreOptmemMax:               ptr.To[int32](40960),
					NetCoreRmemDefault:             ptr.To[int32](262144),
					NetCoreRmemMax:                 ptr.To[int32](16777216),
					NetCoreSomaxconn:               ptr.To[int32](16384),
					NetCoreWmemDefault:             ptr.To[int32](262144),
					NetCoreWmemMax:                 ptr.To[int32](16777216),
					NetIpv4IPLocalPortRange:        ptr.To("32768 60999"),
					NetIpv4NeighDefaultGcThresh1:   ptr.To[int32](4096),
					NetIpv4NeighDefaultGcThresh2:   ptr.To[int32](8192),
					NetIpv4NeighDefaultGcThresh3:   ptr.To[int32](16384),
					NetIpv4TCPFinTimeout:           ptr.To[int32](30),
					NetIpv4TCPKeepaliveProbes:      ptr.To[int32](9),
					NetIpv4TCPKeepaliveTime:        ptr.To[int32](7200),
					NetIpv4TCPMaxSynBacklog:        ptr.To[int32](8192),
					NetIpv4TCPMaxTwBuckets:         ptr.To[int32](32768),
					NetIpv4TCPTwReuse:              ptr.To(true),
					NetIpv4TCPkeepaliveIntvl:       ptr.To[int32](30),
					NetNetfilterNfConntrackBuckets: ptr.To[int32](65536),
					NetNetfilterNfConntrackMax:     ptr.To[int32](131072),
					VMMaxMapCount:                  ptr.To[int32](262144),
					VMSwappiness:                   ptr.To[int32](10),
					VMVfsCachePressure:             ptr.To[int32](100),
				},
			}
		}), ptr.To[int32](1)),
		"windows": poolInput(cp, machinePool("win0", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
			p.Spec.OSType = ptr.To(infrav1.AgentPoolOSTypeWindows)
			p.Spec.SKU = "Standard_D4s_v3"
			p.Spec.OSDiskSizeGB = ptr.To[int32](256)
		}), ptr.To[int32](1)),
	}
}

func TestAgentPool(t *testing.T) {
	for name, in := range agentPoolCases() {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, "managedclustersagentpool-"+name, AgentPool(in))
		})
	}
}

// TestAgentPoolProfile checks that the inline profile has the agent pool's settings: every field of the
// ManagedCluster's profile that the agent pool also has holds the same value.
func TestAgentPoolProfile(t *testing.T) {
	for name, in := range agentPoolCases() {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			pool := toMap(t, AgentPool(in).Spec)
			profile := toMap(t, AgentPoolProfile(in))
			g.Expect(profile["name"]).To(Equal(pool["azureName"]))
			delete(profile, "name")
			delete(pool, "azureName")
			delete(pool, "owner")
			g.Expect(profile).To(Equal(pool))
		})
	}
}

func TestAgentPool_Count(t *testing.T) {
	scaling := &infrav1.ManagedMachinePoolScaling{MinSize: ptr.To[int32](2), MaxSize: ptr.To[int32](5)}
	tests := []struct {
		name        string
		replicas    *int32
		scaling     *infrav1.ManagedMachinePoolScaling
		wantCount   *int
		wantEnabled bool
	}{
		{name: "replicas", replicas: ptr.To[int32](3), wantCount: ptr.To(3)},
		{name: "zero replicas", replicas: ptr.To[int32](0), wantCount: ptr.To(0)},
		{name: "no replicas: 1", wantCount: ptr.To(1)},
		{name: "autoscaling: the replicas", replicas: ptr.To[int32](4), scaling: scaling, wantCount: ptr.To(4), wantEnabled: true},
		{name: "autoscaling: at least minSize", replicas: ptr.To[int32](1), scaling: scaling, wantCount: ptr.To(2), wantEnabled: true},
		{name: "autoscaling: at most maxSize", replicas: ptr.To[int32](9), scaling: scaling, wantCount: ptr.To(5), wantEnabled: true},
		{name: "autoscaling without replicas: minSize", scaling: scaling, wantCount: ptr.To(2), wantEnabled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := poolInput(controlPlane(nil), machinePool("pool1", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
				p.Spec.Scaling = tt.scaling
			}), tt.replicas)
			spec := AgentPool(in).Spec
			g.Expect(spec.Count).To(Equal(tt.wantCount))
			g.Expect(*spec.EnableAutoScaling).To(Equal(tt.wantEnabled))
			if tt.wantEnabled {
				g.Expect(*spec.MinCount).To(Equal(2))
				g.Expect(*spec.MaxCount).To(Equal(5))
			} else {
				g.Expect(spec.MinCount).To(BeNil())
				g.Expect(spec.MaxCount).To(BeNil())
			}
		})
	}
}

func TestAgentPool_Subnet(t *testing.T) {
	const vnetID = "/subscriptions/" + testSubscription + "/resourceGroups/my-cluster/providers/Microsoft.Network/virtualNetworks/my-aks"
	tests := []struct {
		name, clusterSubnetID string
		subnetName            *string
		want                  string
	}{
		{name: "the cluster's subnet", clusterSubnetID: vnetID + "/subnets/my-aks", want: vnetID + "/subnets/my-aks"},
		{name: "an empty subnet name", clusterSubnetID: vnetID + "/subnets/my-aks", subnetName: ptr.To(""), want: vnetID + "/subnets/my-aks"},
		{name: "another subnet of the network", clusterSubnetID: vnetID + "/subnets/my-aks", subnetName: ptr.To("gpu"), want: vnetID + "/subnets/gpu"},
		{name: "no subnet known", subnetName: ptr.To("gpu")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := poolInput(controlPlane(nil), machinePool("pool1", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
				p.Spec.SubnetName = tt.subnetName
			}), nil)
			in.VNetSubnetID = tt.clusterSubnetID
			ref := AgentPool(in).Spec.VnetSubnetReference
			if tt.want == "" {
				g.Expect(ref).To(BeNil())
				return
			}
			g.Expect(ref.ARMID).To(Equal(tt.want))
			g.Expect(ref.Name).To(BeEmpty())
		})
	}
}

func TestAgentPool_Names(t *testing.T) {
	g := NewWithT(t)
	cp := controlPlane(nil)
	// The object is named after the AzureManagedMachinePool, the Azure agent pool after spec.name.
	in := poolInput(cp, machinePool("My.Pool", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
		p.Spec.Name = ptr.To("pool2")
	}), nil)
	pool := AgentPool(in)
	g.Expect(pool.Name).To(HavePrefix("my.pool-"))
	g.Expect(pool.Spec.AzureName).To(Equal("pool2"))
	// Without spec.name (only when the object's name is no valid agent pool name), the object's name.
	in.Spec.Name = nil
	g.Expect(AgentPool(in).Spec.AzureName).To(Equal("My.Pool"))
	g.Expect(*AgentPool(in).Spec.OrchestratorVersion).To(Equal("1.33.2"))
	in.Version = ""
	g.Expect(AgentPool(in).Spec.OrchestratorVersion).To(BeNil())
}

func TestAgentPool_SpotMaxPrice(t *testing.T) {
	for given, want := range map[string]float64{"-1": -1, "0.0725": 0.0725, "1.5": 1.5, "25m": 0.025} {
		g := NewWithT(t)
		in := poolInput(controlPlane(nil), machinePool("spot0", infrav1.NodePoolModeUser, func(p *infrav1.AzureManagedMachinePool) {
			p.Spec.ScaleSetPriority = ptr.To(infrav1.ScaleSetPrioritySpot)
			p.Spec.SpotMaxPrice = ptr.To(resource.MustParse(given))
		}), nil)
		before := in.Spec.SpotMaxPrice.DeepCopy()
		g.Expect(*AgentPool(in).Spec.SpotMaxPrice).To(Equal(want), given)
		g.Expect(*in.Spec.SpotMaxPrice).To(Equal(before), "the input is left alone")
	}
}

func TestAgentPool_DoesNotShareInput(t *testing.T) {
	g := NewWithT(t)
	in := agentPoolCases()["user-autoscaling"]
	pool := AgentPool(in)
	pool.Spec.NodeLabels["workload"] = "changed"
	pool.Spec.AvailabilityZones[0] = "changed"
	*pool.Spec.MaxPods = 1
	g.Expect(in.Spec.NodeLabels["workload"]).To(Equal("web"))
	g.Expect(in.Spec.AvailabilityZones[0]).To(Equal("1"))
	g.Expect(*in.Spec.MaxPods).To(Equal(int32(60)))
}
