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
	"slices"
	"strings"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/authorization"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// FamilyScaleSet is the family of a machine pool's scale set: the AzureMachinePool's ScaleSetReady condition.
var FamilyScaleSet = azure.NewFamily("ScaleSet")

// ScaleSetInput is everything the translators need to know about an AzureMachinePool, resolved by the controller.
type ScaleSetInput struct {
	// Cluster holds the resource group, subscription, location and tags of the cluster; the pool's spec.location
	// wins over the cluster's location.
	Cluster azure.Cluster
	// Name is the scale set's name (ScaleSetName): the pool's, or CAPZ's name for a long-named Windows pool.
	Name string
	// Spec is the AzureMachinePool's spec, as its webhook defaulted it.
	Spec infrav1exp.AzureMachinePoolSpec
	// FlexibleWithProfile makes a Flexible scale set as CAPZ v1.26.0 makes one (azure/services/scalesets/spec.go):
	// with a VM profile and a capacity, from which Azure makes the instances, as it does for a Uniform scale set,
	// instead of one AzureMachinePoolMachine per instance. The controller sets it for a Flexible pool it took over
	// from CAPZ (docs/migrating-from-capz.md).
	FlexibleWithProfile bool
	// Capacity is the number of instances of a scale set with a VM profile.
	Capacity int32
	// RollingOut is true while a Uniform scale set has instances of an older model: Azure must then remove its
	// oldest instances on scale-in, whatever the pool's delete policy (see scaleInRule).
	RollingOut bool
	// Zones are the availability zones of the scale set: the MachinePool's failure domains.
	Zones []string
	// VNet is the cluster's virtual network.
	VNet VNetRef
	// DefaultSubnet is the subnet of network interfaces that name none: the cluster's node subnet.
	DefaultSubnet string
	// BackendPools are the load balancer pools the primary network interface joins: the node outbound pool, when
	// there is one.
	BackendPools []BackendPoolRef
	// BootstrapData is the MachinePool's bootstrap data: the custom data of a Uniform scale set's instances.
	BootstrapData []byte
	// KubernetesVersion is the MachinePool's Kubernetes version, which selects the default image.
	KubernetesVersion string
	// WindowsAdminPassword is the admin password of a Windows Uniform scale set's instances, stored in a Secret that
	// the scale set references.
	WindowsAdminPassword string
}

const (
	// maxWindowsPoolName is the longest name of a Windows pool whose scale set CAPZ v1.26.0 names after it; a longer
	// one's is "win-" and the last five characters of the pool's name (azure/scope/machinepool.go,
	// MachinePoolScope.Name), so that the scale set's name is a computer name prefix Windows accepts.
	maxWindowsPoolName    = 9
	windowsScaleSetPrefix = "win-"
	windowsScaleSetSuffix = 5
)

// ScaleSetName is the Azure name of a machine pool's scale set. A pool that already has a scale set keeps its name:
// the azureName of its ASO scale set (live holds the namespace's ASO objects of the kind; those the pool does not
// control are skipped), else the scale set its provider ID or its instances' provider IDs name. Earlier releases
// named every scale set after its pool, and renaming a live scale set would replace it and its instances. A new
// scale set gets CAPZ v1.26.0's name, so that a pool switched from CAPZ takes over CAPZ's scale set.
func ScaleSetName(pool *infrav1exp.AzureMachinePool, live []azure.Object) string {
	for _, o := range live {
		vmss, ok := o.(*asocompute.VirtualMachineScaleSet)
		if !ok || vmss == nil || !metav1.IsControlledBy(vmss, pool) {
			continue
		}
		if vmss.Spec.AzureName != "" {
			return vmss.Spec.AzureName
		}
		// ASO defaults azureName to the object's name.
		return vmss.Name
	}
	ids := append([]string{pool.Spec.ProviderID}, pool.Spec.ProviderIDList...)
	for _, i := range pool.Status.Instances {
		ids = append(ids, i.ProviderID)
	}
	for _, id := range ids {
		if name := scaleSetOf(id); name != "" {
			return name
		}
	}
	if name := pool.Name; pool.Spec.Template.OSDisk.OSType == azure.WindowsOS && len(name) > maxWindowsPoolName {
		return windowsScaleSetPrefix + name[len(name)-windowsScaleSetSuffix:]
	}
	return pool.Name
}

// scaleSetOf is the scale set a provider ID names: a scale set's, or a Uniform instance's
// (.../virtualMachineScaleSets/<name>/virtualMachines/<id>); "" for any other, such as a Flexible instance's VM.
func scaleSetOf(providerID string) string {
	parts := strings.Split(providerID, "/")
	for i := 0; i+1 < len(parts); i++ {
		// cloud-provider-azure may write the path in another case.
		if strings.EqualFold(parts[i], "virtualMachineScaleSets") {
			return parts[i+1]
		}
	}
	return ""
}

// MachinePoolResources returns the objects of an AzureMachinePool, in the order the engine applies them: the
// Secrets the scale set reads (a Uniform scale set's Windows admin password and protected extension settings),
// the scale set, and the role assignment of a Uniform scale set's system-assigned identity. The instances of a
// Flexible scale set are not among them: each is an AzureMachinePoolMachine with its own objects (see
// ReplicaResources).
func MachinePoolResources(in ScaleSetInput) []azure.Resource {
	var out []azure.Resource
	profile := in.HasProfile()
	if profile {
		for _, secret := range ScaleSetSecrets(in) {
			out = append(out, azure.Resource{Object: secret})
		}
	}
	out = append(out, azure.Resource{Object: VirtualMachineScaleSet(in), Family: FamilyScaleSet})
	if profile && in.Spec.Identity == infrav1.VMIdentitySystemAssigned {
		ra := authorization.RoleAssignmentInput{PrincipalFrom: principalIDConfigMap(in.Name)}
		if role := in.Spec.SystemAssignedIdentityRole; role != nil {
			ra.Name, ra.Scope, ra.DefinitionID = role.Name, role.Scope, role.DefinitionID
		}
		out = append(out, azure.Resource{Object: authorization.RoleAssignment(in.cluster(), ra), Family: FamilyRoleAssignments})
	}
	return out
}

// ScaleSetSecrets returns the Secrets a Uniform scale set reads: its Windows admin password and the protected
// settings of its extensions (the bootstrap extension's command too). Their values never enter the scale set's spec.
func ScaleSetSecrets(in ScaleSetInput) []*corev1.Secret {
	var out []*corev1.Secret
	if in.Spec.Template.OSDisk.OSType == azure.WindowsOS {
		out = append(out, opaqueSecret(WindowsPasswordSecretName(in.Name), map[string]string{WindowsPasswordKey: in.WindowsAdminPassword}))
	}
	for _, e := range in.Spec.Template.VMExtensions {
		if len(e.ProtectedSettings) > 0 {
			out = append(out, protectedSettingsSecret(in.Name, e.Name, e.ProtectedSettings))
		}
	}
	t := in.Spec.Template
	if b, ok := bootstrapExtensionOf(in.Cluster, t.OSDisk.OSType, t.VMSize, t.DisableVMBootstrapExtension); ok {
		out = append(out, protectedSettingsSecret(in.Name, b.name, b.protectedSettings()))
	}
	return out
}

// HasProfile reports whether the scale set has a VM profile from which Azure makes its instances: a Uniform one, or
// a Flexible one made as CAPZ makes it (FlexibleWithProfile).
func (in ScaleSetInput) HasProfile() bool {
	return in.Spec.OrchestrationMode != infrav1exp.FlexibleOrchestrationMode || in.FlexibleWithProfile
}

// machineSpec is the pool's template as an AzureMachine's spec, for what the VM and scale set translators share.
func (in ScaleSetInput) machineSpec() infrav1.AzureMachineSpec {
	pool := &infrav1exp.AzureMachinePool{Spec: in.Spec}
	return replicaSpec("", pool.Model(in.KubernetesVersion, ""))
}

// cluster is the cluster with the pool's location, which may differ from the cluster's.
func (in ScaleSetInput) cluster() azure.Cluster {
	c := in.Cluster
	if in.Spec.Location != "" {
		c.Location = in.Spec.Location
	}
	return c
}

// ReplicaInput is everything the translators need to know about an instance of a Flexible scale set (an
// AzureMachinePoolMachine), resolved by the controller.
type ReplicaInput struct {
	// Cluster holds the resource group, subscription and tags of the cluster; its Location is the pool's
	// spec.location.
	Cluster azure.Cluster
	// ScaleSet is the name of the pool's scale set (ScaleSetName), which the VM joins.
	ScaleSet string
	// Name is the AzureMachinePoolMachine's name, which is also the VM's name.
	Name string
	// Model is the AzureMachinePoolMachine's spec.model: the pool's settings when the instance was created.
	Model infrav1exp.AzureMachinePoolMachineModel
	// VNet is the cluster's virtual network.
	VNet VNetRef
	// DefaultSubnet is the subnet of network interfaces that name none: the cluster's node subnet.
	DefaultSubnet string
	// BackendPools are the load balancer pools the primary network interface joins.
	BackendPools []BackendPoolRef
	// BootstrapData is the MachinePool's bootstrap data; nil once the VM exists, as for an AzureMachine.
	BootstrapData []byte
	// WindowsAdminPassword is the admin password of a Windows instance, stored in a Secret the VM references.
	WindowsAdminPassword string
}

// ReplicaResources returns the objects of an instance of a Flexible scale set: those of an AzureMachine made from
// the instance's model (network interfaces, the VM, Secrets, extensions, the role assignment of a system-assigned
// identity), with the VM in the scale set and the model's terminate notifications.
func ReplicaResources(in ReplicaInput) []azure.Resource {
	return MachineResources(MachineInput{
		Cluster:                      in.Cluster,
		Name:                         in.Name,
		Spec:                         replicaSpec(in.Name, in.Model),
		Role:                         azure.RoleNode,
		Zone:                         in.Model.FailureDomain,
		VNet:                         in.VNet,
		DefaultSubnet:                in.DefaultSubnet,
		BackendPools:                 in.BackendPools,
		BootstrapData:                in.BootstrapData,
		KubernetesVersion:            in.Model.Version,
		WindowsAdminPassword:         in.WindowsAdminPassword,
		ScaleSet:                     in.ScaleSet,
		TerminateNotificationTimeout: in.Model.Template.TerminateNotificationTimeout,
	})
}

// replicaSpec is the AzureMachine spec of an instance made from a model. Each instance's VM has its own
// system-assigned identity, so each gets its own role assignment, named after the pool's and the instance.
func replicaSpec(name string, m infrav1exp.AzureMachinePoolMachineModel) infrav1.AzureMachineSpec {
	t := m.Template
	spec := infrav1.AzureMachineSpec{
		VMSize:                      t.VMSize,
		Image:                       t.Image,
		OSDisk:                      t.OSDisk,
		DataDisks:                   t.DataDisks,
		SSHPublicKey:                t.SSHPublicKey,
		AcceleratedNetworking:       t.AcceleratedNetworking,
		AdditionalCapabilities:      t.AdditionalCapabilities,
		Diagnostics:                 t.Diagnostics,
		SecurityProfile:             t.SecurityProfile,
		SpotVMOptions:               t.SpotVMOptions,
		SubnetName:                  t.SubnetName,
		VMExtensions:                t.VMExtensions,
		DisableVMBootstrapExtension: t.DisableVMBootstrapExtension,
		NetworkInterfaces:           inheritAcceleratedNetworking(t.NetworkInterfaces),
		// A Flexible instance's interfaces forward IP as a Uniform scale set's do (see scaleSetNetworkProfile).
		EnableIPForwarding:     true,
		AdditionalTags:         m.AdditionalTags,
		Identity:               m.Identity,
		UserAssignedIdentities: m.UserAssignedIdentities,
	}
	if role := m.SystemAssignedIdentityRole; role != nil {
		r := *role
		if name != "" {
			r.Name = ReplicaRoleAssignmentName(role.Name, name)
		}
		spec.SystemAssignedIdentityRole = &r
	}
	return spec
}

// inheritAcceleratedNetworking gives a Flexible instance's interfaces accelerated networking as a scale set's
// interface configurations get it (scaleSetNetworkProfile): one that leaves it unset takes the first interface's;
// when that is unset too, MachineResources gives what the VM size supports.
func inheritAcceleratedNetworking(nics []infrav1.NetworkInterface) []infrav1.NetworkInterface {
	if len(nics) == 0 || nics[0].AcceleratedNetworking == nil {
		return nics
	}
	out := slices.Clone(nics)
	for i := range out {
		if out[i].AcceleratedNetworking == nil {
			out[i].AcceleratedNetworking = ptr.To(*nics[0].AcceleratedNetworking)
		}
	}
	return out
}

// ReplicaRoleAssignmentName is the name (a GUID) of the role assignment of an instance's system-assigned
// identity: derived from the pool's role assignment name and the instance, so that a retry never makes another.
func ReplicaRoleAssignmentName(poolRoleAssignment, replica string) string {
	return infrav1.StableGUID(poolRoleAssignment + "/" + replica)
}
