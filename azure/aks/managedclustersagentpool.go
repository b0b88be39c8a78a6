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
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// AgentPoolInput is everything the translators need to know about an AzureManagedMachinePool, resolved by the
// controller.
type AgentPoolInput struct {
	// Cluster is the resolved cluster (see ControlPlaneInput.Cluster); its tags go to the pool's nodes.
	Cluster azure.Cluster
	// ManagedClusterName is the AKS cluster's name: the AzureManagedControlPlane's name.
	ManagedClusterName string
	// Name is the AzureManagedMachinePool's name, which names the ASO object.
	Name string
	// Spec is the AzureManagedMachinePool's spec, as its webhook defaulted it.
	Spec infrav1.AzureManagedMachinePoolSpec
	// Replicas is the node count to ask for. Without autoscaling it is the MachinePool's replicas (nil means 1).
	// With autoscaling (spec.scaling) the autoscaler owns the count: the controller passes the MachinePool's
	// replicas to create the pool and then the count AKS reports (the agent pool's status.count), as CAPZ does, so
	// that no apply scales the pool back; the count is kept within minSize and maxSize (nil means minSize).
	Replicas *int32
	// Version is the Kubernetes version of the nodes: the MachinePool's version, or the control plane's
	// status.autoUpgradeVersion when AKS upgraded to a newer one; empty leaves it to AKS. A leading "v" is dropped.
	Version string
	// VNetSubnetID is the ARM ID of the cluster's node subnet (see SubnetID). A pool with subnetName takes the
	// subnet of that name in the same virtual network.
	VNetSubnetID string
}

// agentPoolName is the agent pool's name in AKS: spec.name, defaulted to the AzureManagedMachinePool's name.
func agentPoolName(in AgentPoolInput) string {
	if name := ptr.Deref(in.Spec.Name, ""); name != "" {
		return name
	}
	return in.Name
}

// AgentPool returns the AKS agent pool of an AzureManagedMachinePool, owned by the AKS cluster's ManagedCluster
// object and named after the AzureManagedMachinePool; spec.azureName is the pool's AKS name (spec.name).
//
//   - vmSize is the sku; mode, availability zones, node labels, maxPods, the OS disk, the OS type, UltraSSD, node
//     public IPs, spot settings, the kubelet and Linux OS configuration, FIPS and encryption at host come from the
//     spec; taints are written key=value:Effect.
//   - Without scaling the pool has Replicas nodes; with scaling the autoscaler is on between minSize and maxSize
//     (see AgentPoolInput.Replicas for the count).
//   - The nodes are in the cluster's subnet, or in the subnet named by subnetName in the cluster's virtual network.
//   - The pool is a virtual machine scale set, tagged with the pool's additionalTags only, as CAPZ v1.26.0 tags it
//     (azure/services/agentpools/spec.go; AKS tags the pool's scale set itself).
func AgentPool(in AgentPoolInput) *asocontainerservice.ManagedClustersAgentPool {
	spec := agentPoolSpec(in)
	spec.AzureName = agentPoolName(in)
	spec.Owner = &genruntime.KnownResourceReference{Name: azure.ObjectName(in.ManagedClusterName)}
	return &asocontainerservice.ManagedClustersAgentPool{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name)},
		Spec:       spec,
	}
}

// AgentPoolProfile returns the agent pool of an AzureManagedMachinePool as the ManagedCluster's inline profile,
// with the same settings as AgentPool, for AKS to create the pool with the cluster.
func AgentPoolProfile(in AgentPoolInput) asocontainerservice.ManagedClusterAgentPoolProfile {
	s := agentPoolSpec(in)
	return asocontainerservice.ManagedClusterAgentPoolProfile{
		Name:                        ptr.To(agentPoolName(in)),
		AvailabilityZones:           s.AvailabilityZones,
		Count:                       s.Count,
		EnableAutoScaling:           s.EnableAutoScaling,
		EnableEncryptionAtHost:      s.EnableEncryptionAtHost,
		EnableFIPS:                  s.EnableFIPS,
		EnableNodePublicIP:          s.EnableNodePublicIP,
		EnableUltraSSD:              s.EnableUltraSSD,
		KubeletConfig:               s.KubeletConfig,
		KubeletDiskType:             s.KubeletDiskType,
		LinuxOSConfig:               s.LinuxOSConfig,
		MaxCount:                    s.MaxCount,
		MaxPods:                     s.MaxPods,
		MinCount:                    s.MinCount,
		Mode:                        s.Mode,
		NodeLabels:                  s.NodeLabels,
		NodePublicIPPrefixReference: s.NodePublicIPPrefixReference,
		NodeTaints:                  s.NodeTaints,
		OrchestratorVersion:         s.OrchestratorVersion,
		OsDiskSizeGB:                s.OsDiskSizeGB,
		OsDiskType:                  s.OsDiskType,
		OsType:                      s.OsType,
		ScaleDownMode:               s.ScaleDownMode,
		ScaleSetPriority:            s.ScaleSetPriority,
		SpotMaxPrice:                s.SpotMaxPrice,
		Tags:                        s.Tags,
		Type:                        s.Type,
		VmSize:                      s.VmSize,
		VnetSubnetReference:         s.VnetSubnetReference,
	}
}

// agentPoolSpec holds the settings of an agent pool, without its name and owner.
func agentPoolSpec(in AgentPoolInput) asocontainerservice.ManagedClustersAgentPool_Spec {
	s := in.Spec
	out := asocontainerservice.ManagedClustersAgentPool_Spec{
		Type:                   ptr.To(asocontainerservice.AgentPoolType_VirtualMachineScaleSets),
		Mode:                   ptr.To(asocontainerservice.AgentPoolMode(s.Mode)),
		VmSize:                 nonEmpty(s.SKU),
		OrchestratorVersion:    nonEmpty(strings.TrimPrefix(in.Version, "v")),
		AvailabilityZones:      slices.Clone(s.AvailabilityZones),
		NodeLabels:             maps.Clone(s.NodeLabels),
		NodeTaints:             nodeTaints(s.Taints),
		MaxPods:                toInt(s.MaxPods),
		OsDiskType:             azure.Enum[asocontainerservice.OSDiskType](s.OsDiskType),
		OsType:                 azure.Enum[asocontainerservice.OSType](s.OSType),
		EnableUltraSSD:         clone(s.EnableUltraSSD),
		EnableNodePublicIP:     clone(s.EnableNodePublicIP),
		ScaleSetPriority:       azure.Enum[asocontainerservice.ScaleSetPriority](s.ScaleSetPriority),
		ScaleDownMode:          azure.Enum[asocontainerservice.ScaleDownMode](s.ScaleDownMode),
		KubeletConfig:          kubeletConfig(s.KubeletConfig),
		KubeletDiskType:        azure.Enum[asocontainerservice.KubeletDiskType](s.KubeletDiskType),
		LinuxOSConfig:          linuxOSConfig(s.LinuxOSConfig),
		EnableFIPS:             clone(s.EnableFIPS),
		EnableEncryptionAtHost: clone(s.EnableEncryptionAtHost),
		Tags:                   maps.Clone(s.AdditionalTags),
		EnableAutoScaling:      ptr.To(s.Scaling != nil),
		Count:                  nodeCount(in.Replicas, s.Scaling),
	}
	// 0 is AKS's default size for the VM size: CAPZ sends it for a pool that sets none.
	out.OsDiskSizeGB = ptr.To(asocontainerservice.ContainerServiceOSDisk(ptr.Deref(s.OSDiskSizeGB, 0)))
	if id := ptr.Deref(s.NodePublicIPPrefixID, ""); id != "" {
		out.NodePublicIPPrefixReference = armReference(id)
	}
	if s.SpotMaxPrice != nil {
		out.SpotMaxPrice = ptr.To(price(*s.SpotMaxPrice))
	}
	if s.Scaling != nil {
		out.MinCount = toInt(s.Scaling.MinSize)
		out.MaxCount = toInt(s.Scaling.MaxSize)
	}
	if id := poolSubnetID(in.VNetSubnetID, ptr.Deref(s.SubnetName, "")); id != "" {
		out.VnetSubnetReference = armReference(id)
	}
	return out
}

// nodeCount is the node count of a pool: the replicas (1 by default) without autoscaling; with autoscaling the
// replicas kept within the autoscaler's range, minSize by default.
func nodeCount(replicas *int32, scaling *infrav1.ManagedMachinePoolScaling) *int {
	if scaling == nil {
		return ptr.To(int(ptr.Deref(replicas, 1)))
	}
	if replicas == nil {
		return toInt(scaling.MinSize)
	}
	n := *replicas
	if scaling.MinSize != nil && n < *scaling.MinSize {
		n = *scaling.MinSize
	}
	if scaling.MaxSize != nil && n > *scaling.MaxSize {
		n = *scaling.MaxSize
	}
	return ptr.To(int(n))
}

// poolSubnetID is the ARM ID of a pool's subnet: the cluster's subnet, or the named subnet of the same virtual
// network.
func poolSubnetID(clusterSubnetID, subnetName string) string {
	i := strings.LastIndex(clusterSubnetID, "/subnets/")
	if subnetName == "" || i < 0 {
		return clusterSubnetID
	}
	return azure.ChildID(clusterSubnetID[:i], "subnets", subnetName)
}

// price is a decimal price as the float ASO takes, the nearest to its decimal text (AsApproximateFloat64 is off
// in the last digits: 0.0725 would be 0.07250000000000001).
func price(q resource.Quantity) float64 {
	f, err := strconv.ParseFloat(q.AsDec().String(), 64)
	if err != nil {
		return q.AsApproximateFloat64()
	}
	return f
}

// nodeTaints writes taints the way AKS takes them: key=value:Effect.
func nodeTaints(taints infrav1.Taints) []string {
	if len(taints) == 0 {
		return nil
	}
	out := make([]string, 0, len(taints))
	for _, t := range taints {
		out = append(out, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
	}
	return out
}

func kubeletConfig(k *infrav1.KubeletConfig) *asocontainerservice.KubeletConfig {
	if k == nil {
		return nil
	}
	return &asocontainerservice.KubeletConfig{
		CpuManagerPolicy:      (*string)(clone(k.CPUManagerPolicy)),
		CpuCfsQuota:           clone(k.CPUCfsQuota),
		CpuCfsQuotaPeriod:     clone(k.CPUCfsQuotaPeriod),
		ImageGcHighThreshold:  toInt(k.ImageGcHighThreshold),
		ImageGcLowThreshold:   toInt(k.ImageGcLowThreshold),
		TopologyManagerPolicy: (*string)(clone(k.TopologyManagerPolicy)),
		AllowedUnsafeSysctls:  slices.Clone(k.AllowedUnsafeSysctls),
		FailSwapOn:            clone(k.FailSwapOn),
		ContainerLogMaxSizeMB: toInt(k.ContainerLogMaxSizeMB),
		ContainerLogMaxFiles:  toInt(k.ContainerLogMaxFiles),
		PodMaxPids:            toInt(k.PodMaxPids),
	}
}

func linuxOSConfig(l *infrav1.LinuxOSConfig) *asocontainerservice.LinuxOSConfig {
	if l == nil {
		return nil
	}
	return &asocontainerservice.LinuxOSConfig{
		SwapFileSizeMB:             toInt(l.SwapFileSizeMB),
		Sysctls:                    sysctls(l.Sysctls),
		TransparentHugePageDefrag:  (*string)(clone(l.TransparentHugePageDefrag)),
		TransparentHugePageEnabled: (*string)(clone(l.TransparentHugePageEnabled)),
	}
}

func sysctls(s *infrav1.SysctlConfig) *asocontainerservice.SysctlConfig {
	if s == nil {
		return nil
	}
	return &asocontainerservice.SysctlConfig{
		FsAioMaxNr:                     toInt(s.FsAioMaxNr),
		FsFileMax:                      toInt(s.FsFileMax),
		FsInotifyMaxUserWatches:        toInt(s.FsInotifyMaxUserWatches),
		FsNrOpen:                       toInt(s.FsNrOpen),
		KernelThreadsMax:               toInt(s.KernelThreadsMax),
		NetCoreNetdevMaxBacklog:        toInt(s.NetCoreNetdevMaxBacklog),
		NetCoreOptmemMax:               toInt(s.NetCoreOptmemMax),
		NetCoreRmemDefault:             toInt(s.NetCoreRmemDefault),
		NetCoreRmemMax:                 toInt(s.NetCoreRmemMax),
		NetCoreSomaxconn:               toInt(s.NetCoreSomaxconn),
		NetCoreWmemDefault:             toInt(s.NetCoreWmemDefault),
		NetCoreWmemMax:                 toInt(s.NetCoreWmemMax),
		NetIpv4IpLocalPortRange:        clone(s.NetIpv4IPLocalPortRange),
		NetIpv4NeighDefaultGcThresh1:   toInt(s.NetIpv4NeighDefaultGcThresh1),
		NetIpv4NeighDefaultGcThresh2:   toInt(s.NetIpv4NeighDefaultGcThresh2),
		NetIpv4NeighDefaultGcThresh3:   toInt(s.NetIpv4NeighDefaultGcThresh3),
		NetIpv4TcpFinTimeout:           toInt(s.NetIpv4TCPFinTimeout),
		NetIpv4TcpKeepaliveProbes:      toInt(s.NetIpv4TCPKeepaliveProbes),
		NetIpv4TcpKeepaliveTime:        toInt(s.NetIpv4TCPKeepaliveTime),
		NetIpv4TcpMaxSynBacklog:        toInt(s.NetIpv4TCPMaxSynBacklog),
		NetIpv4TcpMaxTwBuckets:         toInt(s.NetIpv4TCPMaxTwBuckets),
		NetIpv4TcpTwReuse:              clone(s.NetIpv4TCPTwReuse),
		NetIpv4TcpkeepaliveIntvl:       toInt(s.NetIpv4TCPkeepaliveIntvl),
		NetNetfilterNfConntrackBuckets: toInt(s.NetNetfilterNfConntrackBuckets),
		NetNetfilterNfConntrackMax:     toInt(s.NetNetfilterNfConntrackMax),
		VmMaxMapCount:                  toInt(s.VMMaxMapCount),
		VmSwappiness:                   toInt(s.VMSwappiness),
		VmVfsCachePressure:             toInt(s.VMVfsCachePressure),
	}
}
