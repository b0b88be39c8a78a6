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

package azure

import (
	"maps"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// Cluster is what every translator needs to know about the cluster an Azure resource belongs to, resolved by a
// controller.
type Cluster struct {
	// Name is the Cluster API cluster's name; it names the cluster's Azure tag.
	Name string
	// SubscriptionID is the Azure subscription; empty until known (see the ResourceID functions).
	SubscriptionID string
	// Location is the Azure region.
	Location string
	// ExtendedLocation is an Edge Zone, if any.
	ExtendedLocation *infrav1.ExtendedLocationSpec
	// ResourceGroup is the cluster's resource group.
	ResourceGroup string
	// AdditionalTags are added to every resource.
	AdditionalTags map[string]string
	// AzureEnvironment is the cluster's Azure cloud (azureEnvironment); empty means the public cloud.
	AzureEnvironment string
	// ResourceGroupByID makes resources in the resource group owned by the group's ARM ID rather than by an ASO
	// ResourceGroup object in the namespace. Machines use it: the cluster's resource group may be managed by
	// another system (an externally managed or non-Azure InfraCluster) and have no ASO object.
	ResourceGroupByID bool
}

// ResourceGroupOwner is the ASO owner of the resources in the cluster's resource group.
func (c Cluster) ResourceGroupOwner() *genruntime.KnownResourceReference {
	if c.ResourceGroupByID {
		return &genruntime.KnownResourceReference{ARMID: ResourceGroupID(c.SubscriptionID, c.ResourceGroup)}
	}
	return &genruntime.KnownResourceReference{Name: ObjectName(c.ResourceGroup)}
}

// Tags returns the tags of a resource the provider creates for the cluster: the additional tags, the extra ones,
// the role tag when role is set, and the cluster's "owned" tag, which wins over the others. Each translator
// passes the role CAPZ v1.26.0 tags its kind with, or none where CAPZ has none.
func (c Cluster) Tags(role string, extra ...map[string]string) map[string]string {
	tags := map[string]string{}
	maps.Copy(tags, c.AdditionalTags)
	for _, e := range extra {
		maps.Copy(tags, e)
	}
	if role != "" {
		tags[infrav1.RoleTagKey] = role
	}
	tags[ClusterTagKey(c.Name)] = infrav1.ResourceLifecycleOwned
	return tags
}

// NamedTags returns Tags with the "Name" tag, the resource's Azure name, which CAPZ v1.26.0 puts on the kinds it
// tags with a name: resource groups, virtual networks, security groups, route tables, public IPs, NAT gateways,
// network interfaces, VMs, scale sets, availability sets, bastion hosts, private endpoints and AKS clusters.
func (c Cluster) NamedTags(name, role string, extra ...map[string]string) map[string]string {
	tags := c.Tags(role, extra...)
	tags[NameTagKey] = name
	return tags
}

// MachineTags are the extra tags (for Tags and NamedTags) of a machine's VM and network interfaces, of an
// availability set and of a scale set: the user's additional tags and CloudProviderTagKey, which wins, as CAPZ
// v1.26.0 tags them.
func (c Cluster) MachineTags(additional map[string]string) map[string]string {
	tags := maps.Clone(additional)
	if tags == nil {
		tags = map[string]string{}
	}
	tags[CloudProviderTagKey(c.Name)] = infrav1.ResourceLifecycleOwned
	return tags
}

// CloudProviderTagKey is the tag by which cloud-provider-azure knows the VMs, scale sets and interfaces of a cluster.
func CloudProviderTagKey(cluster string) string { return "kubernetes.io_cluster_" + cluster }

// NameTagKey is the tag that carries a resource's name.
const NameTagKey = "Name"

// ClusterTagKey is the tag that marks the resources of a cluster.
func ClusterTagKey(cluster string) string { return infrav1.ClusterTagPrefix + cluster }

// Roles of resources, the values of the role tag, as CAPZ v1.26.0 writes them.
const (
	RoleCommon               = "common"
	RoleNode                 = "node"
	RoleControlPlane         = "control-plane"
	RoleBastion              = "Bastion"
	RoleAPIServer            = "apiserver"
	RoleAPIServerInternal    = "apiserver-internal"
	RoleNodeOutbound         = "nodeOutbound"
	RoleControlPlaneOutbound = "controlPlaneOutbound"
)
