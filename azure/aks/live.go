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
	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// ControlPlaneKinds are the ASO kinds an AzureManagedControlPlane may own, at the versions ControlPlaneResources
// produces.
func ControlPlaneKinds() []azure.Object {
	return []azure.Object{
		&asoresources.ResourceGroup{}, &asonetwork.VirtualNetwork{}, &asonetwork.VirtualNetworksSubnet{},
		&asonetwork.PrivateEndpoint{}, &asocontainerservice.ManagedCluster{},
	}
}

// AgentPoolKinds are the ASO kinds an AzureManagedMachinePool may own.
func AgentPoolKinds() []azure.Object {
	return []azure.Object{&asocontainerservice.ManagedClustersAgentPool{}}
}

// GoWithManagedCluster are the kinds Azure deletes with their managed cluster, its child resources (agent pools,
// maintenance configurations): while the whole Cluster is deleted, they are left to go with it
// (lifecycle.Kind.GoWithCluster), as CAPZ leaves its pools. AKS refuses to delete a cluster's last System pool on
// its own, and a child's DELETE after its cluster's finds nothing. One with no managed cluster of the provider's
// above it (a user's cluster, referenced) is deleted as any other.
func GoWithManagedCluster(kind schema.GroupKind) (schema.GroupKind, bool) {
	switch kind {
	case asocontainerservice.GroupVersion.WithKind("ManagedClustersAgentPool").GroupKind(),
		asocontainerservice.GroupVersion.WithKind("MaintenanceConfiguration").GroupKind():
		return asocontainerservice.GroupVersion.WithKind("ManagedCluster").GroupKind(), true
	}
	return schema.GroupKind{}, false
}

// ControlPlaneDeleteOrder deletes the AKS cluster before the network it runs in, deepest first, then the resource
// group when the cluster owns it: one by one, as CAPZ deletes them (a resource group deleted as a whole first
// would leave the network's DELETEs nothing to find).
var ControlPlaneDeleteOrder = [][]schema.GroupKind{
	{asocontainerservice.GroupVersion.WithKind("ManagedCluster").GroupKind(), asonetwork.GroupVersion.WithKind("PrivateEndpoint").GroupKind()},
	{asonetwork.GroupVersion.WithKind("VirtualNetworksSubnet").GroupKind()},
	{asonetwork.GroupVersion.WithKind("VirtualNetwork").GroupKind()},
	{asoresources.GroupVersion.WithKind("ResourceGroup").GroupKind()},
}

// ManagedClusterRef names a ManagedCluster object, for the engine to read; it is also an object of the kind, to
// watch.
func ManagedClusterRef(name string) azure.Object {
	return &asocontainerservice.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// AgentPoolRef names a ManagedClustersAgentPool object, for the engine to read; it is also an object of the kind,
// to watch.
func AgentPoolRef(name string) azure.Object {
	return &asocontainerservice.ManagedClustersAgentPool{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// ManagedClusterState is what a ManagedCluster object says of the AKS cluster.
type ManagedClusterState struct {
	// Created is true once ASO reports the cluster's resource ID.
	Created bool
	// FQDN and PrivateFQDN are the API server's host names; Private is the spec's enablePrivateCluster.
	FQDN, PrivateFQDN string
	Private           bool
	// Version is the Kubernetes version AKS reports; SpecVersion the one the spec asks for.
	Version, SpecVersion string
	// OIDCIssuerURL is the cluster's OIDC issuer, when it has one.
	OIDCIssuerURL string
	// NodeResourceGroup is the resource group of the cluster's nodes.
	NodeResourceGroup string
	// Owner is the name of the ResourceGroup object the ManagedCluster belongs to.
	Owner string
}

// ReadManagedCluster reads a live ManagedCluster, of this package's API version or another one (raw resources are
// of the user's); false for none.
func ReadManagedCluster(obj azure.Object) (ManagedClusterState, bool) {
	mc := &asocontainerservice.ManagedCluster{}
	if !as(obj, "ManagedCluster", mc) {
		return ManagedClusterState{}, false
	}
	st := ManagedClusterState{
		Created:           mc.Status.Id != nil,
		FQDN:              ptr.Deref(mc.Status.Fqdn, ""),
		PrivateFQDN:       ptr.Deref(mc.Status.PrivateFQDN, ""),
		Version:           ptr.Deref(mc.Status.CurrentKubernetesVersion, ""),
		SpecVersion:       ptr.Deref(mc.Spec.KubernetesVersion, ""),
		NodeResourceGroup: ptr.Deref(mc.Status.NodeResourceGroup, ""),
	}
	if p := mc.Spec.ApiServerAccessProfile; p != nil {
		st.Private = ptr.Deref(p.EnablePrivateCluster, false)
	}
	if p := mc.Status.OidcIssuerProfile; p != nil {
		st.OIDCIssuerURL = ptr.Deref(p.IssuerURL, "")
	}
	if mc.Spec.Owner != nil {
		st.Owner = mc.Spec.Owner.Name
	}
	return st, true
}

// AgentPoolState is what a ManagedClustersAgentPool object says of the agent pool.
type AgentPoolState struct {
	// Count is the pool's size AKS reports (nil while unknown); SpecCount the one the spec asks for.
	Count, SpecCount *int
	// Name is the agent pool's name in Azure.
	Name string
	// ManagedCluster is the name of the ManagedCluster object the pool belongs to.
	ManagedCluster string
	// Version is the Kubernetes version the spec asks for; CurrentVersion the one AKS reports.
	Version, CurrentVersion string
}

// ReadAgentPool reads a live ManagedClustersAgentPool, of this package's API version or another one; false for
// none.
func ReadAgentPool(obj azure.Object) (AgentPoolState, bool) {
	ap := &asocontainerservice.ManagedClustersAgentPool{}
	if !as(obj, "ManagedClustersAgentPool", ap) {
		return AgentPoolState{}, false
	}
	st := AgentPoolState{
		Count: ap.Status.Count, SpecCount: ap.Spec.Count, Name: ap.Spec.AzureName,
		Version: ptr.Deref(ap.Spec.OrchestratorVersion, ""), CurrentVersion: ptr.Deref(ap.Status.CurrentOrchestratorVersion, ""),
	}
	if st.Name == "" {
		st.Name = ap.Name
	}
	if ap.Spec.Owner != nil {
		st.ManagedCluster = ap.Spec.Owner.Name
	}
	return st, true
}

// as reads obj, a live object of kind, into into, a typed object of that kind: directly when obj is of into's
// type, through its JSON fields when it is unstructured (another API version); false for nil or another kind.
func as[T any, PT interface {
	*T
	azure.Object
}](obj azure.Object, kind string, into PT) bool {
	switch o := obj.(type) {
	case PT:
		if o == nil {
			return false
		}
		*into = *o
		return true
	case *unstructured.Unstructured:
		return o != nil && o.GetKind() == kind && runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into) == nil
	}
	return false
}

// LiveManagedCluster reads the ManagedCluster object of that name among the objects the engine read.
func LiveManagedCluster(live azure.Live, name string) (ManagedClusterState, bool) {
	return ReadManagedCluster(live.Live("ManagedCluster", name))
}

// LiveAgentPool reads the ManagedClustersAgentPool object of that name among the objects the engine read.
func LiveAgentPool(live azure.Live, name string) (AgentPoolState, bool) {
	return ReadAgentPool(live.Live("ManagedClustersAgentPool", name))
}
