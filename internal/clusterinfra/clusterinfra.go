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

package clusterinfra

import (
	"context"

	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/external"
	"sigs.k8s.io/cluster-api/util/annotations"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
)

// Infrastructure is what a machine needs from its cluster's infrastructure object.
type Infrastructure struct {
	// Kind and Name identify the infrastructure object, for messages.
	Kind, Name string
	// SubscriptionID is the cluster's subscription: the object's, or the one ASO reports for its resource group.
	SubscriptionID string
	// Location is the cluster's Azure region.
	Location string
	// ResourceGroup is the cluster's resource group.
	ResourceGroup string
	// ExtendedLocation is the cluster's Edge Zone, if any.
	ExtendedLocation *infrav1.ExtendedLocationSpec
	// AdditionalTags are the cluster's tags.
	AdditionalTags map[string]string
	// IdentityRef is the cluster's AzureClusterIdentity, if it uses one; machines check it allows their namespace
	// before naming the cluster's credential secret (aso.Engine.ClusterCredentials).
	IdentityRef *corev1.ObjectReference
	// Network is the cluster's network.
	Network infrav1.NetworkSpec
	// AzureEnvironment is the cluster's Azure cloud, e.g. AzurePublicCloud.
	AzureEnvironment string
	// CloudProviderConfigOverrides are the cluster's overrides of cloud-provider-azure's configuration.
	CloudProviderConfigOverrides *infrav1.CloudProviderConfigOverrides
	// AvailabilitySets tells whether the cluster's machines go into availability sets, which its AzureCluster
	// creates (compute.ClusterHasAvailabilitySets); never for an infrastructure object the provider does not
	// reconcile (another kind, or an externally managed AzureCluster).
	AvailabilitySets bool
	// MakesLoadBalancers tells whether the provider's AzureCluster makes the cluster's load balancers as ASO objects:
	// false for an infrastructure object the provider does not reconcile (another kind, or an externally managed
	// AzureCluster).
	MakesLoadBalancers bool
}

// Resolve waits for the Cluster's infrastructure to be provisioned and reads it. waiting explains, for a Ready
// message, why there is nothing to use yet. cached reads an AzureCluster (the manager watches it) and the ASO
// ResourceGroup whose ID names the subscription when the object names none; apiReader reads an infrastructure
// object of any other kind.
func Resolve(ctx context.Context, apiReader, cached client.Reader, cluster *clusterv1.Cluster) (infra *Infrastructure, waiting string, err error) {
	if !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
		return nil, "waiting for the Cluster's infrastructure to be provisioned", nil
	}
	obj, err := get(ctx, apiReader, cached, cluster.Spec.InfrastructureRef, cluster.Namespace)
	if err != nil {
		return nil, "", err
	}
	infra, err = From(obj)
	if err != nil {
		return nil, "", err
	}
	if missing := infra.Missing(); missing != "" {
		return nil, missing, nil
	}
	if infra.SubscriptionID == "" {
		infra.SubscriptionID = aso.SubscriptionFromResourceGroup(ctx, cached, cluster.Namespace, azure.ObjectName(infra.ResourceGroup))
	}
	if infra.SubscriptionID == "" {
		return nil, fmt.Sprintf("the cluster's subscription is unknown: set spec.subscriptionID on %s %s", infra.Kind, infra.Name), nil
	}
	return infra, "", nil
}

// get reads the infrastructure object. An AzureCluster comes from the cache, so that a machine's pass does not
// cost two reads of the API server (the kind's CRD for its contract version, then the object); any other kind is
// read at the version its CRD's contract label names.
func get(ctx context.Context, apiReader, cached client.Reader, ref clusterv1.ContractVersionedObjectReference, namespace string) (*unstructured.Unstructured, error) {
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != azureClusterKind {
		return external.GetObjectFromContractVersionedRef(ctx, apiReader, ref, namespace)
	}
	ac := &infrav1.AzureCluster{}
	if err := cached.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, ac); err != nil {
		return nil, fmt.Errorf("failed to get AzureCluster %s/%s: %w", namespace, ref.Name, err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetGroupVersionKind(infrav1.GroupVersion.WithKind(azureClusterKind))
	return obj, nil
}

const azureClusterKind = "AzureCluster"

// From takes the AzureCluster-shaped fields of an infrastructure object.
func From(obj *unstructured.Unstructured) (*Infrastructure, error) {
	spec, _, err := unstructured.NestedMap(obj.Object, "spec")
	if err != nil {
		return nil, fmt.Errorf("%s %s has no spec: %w", obj.GetKind(), obj.GetName(), err)
	}
	fields := &struct {
		infrav1.AzureClusterClassSpec `json:",inline"`
		NetworkSpec                   infrav1.NetworkSpec `json:"networkSpec,omitempty"`
		ResourceGroup                 string              `json:"resourceGroup,omitempty"`
	}{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, fields); err != nil {
		return nil, fmt.Errorf("%s %s does not have AzureCluster-shaped fields: %w", obj.GetKind(), obj.GetName(), err)
	}
	ours := obj.GroupVersionKind().GroupKind() == infrav1.GroupVersion.WithKind(azureClusterKind).GroupKind() && !annotations.IsExternallyManaged(obj)
	return &Infrastructure{
		Kind: obj.GetKind(), Name: obj.GetName(),
		SubscriptionID: fields.SubscriptionID, Location: fields.Location, ResourceGroup: fields.ResourceGroup,
		ExtendedLocation: fields.ExtendedLocation, AdditionalTags: fields.AdditionalTags,
		IdentityRef: fields.IdentityRef, Network: fields.NetworkSpec, AzureEnvironment: fields.AzureEnvironment,
		CloudProviderConfigOverrides: fields.CloudProviderConfigOverrides,
		AvailabilitySets:             ours && compute.ClusterHasAvailabilitySets(fields.Location, fields.FailureDomains, fields.ExtendedLocation),
		MakesLoadBalancers:           ours,
	}, nil
}

// Missing names the fields a machine cannot do without, for the Ready message.
func (c *Infrastructure) Missing() string {
	switch {
	case c.Location == "":
		return fmt.Sprintf("%s %s has no spec.location", c.Kind, c.Name)
	case c.ResourceGroup == "":
		return fmt.Sprintf("%s %s has no spec.resourceGroup", c.Kind, c.Name)
	case c.Network.Vnet.Name == "":
		return fmt.Sprintf("%s %s has no spec.networkSpec.vnet.name", c.Kind, c.Name)
	}
	return ""
}

// VNetResourceGroup is the resource group of the cluster's virtual network.
func (c *Infrastructure) VNetResourceGroup() string {
	if c.Network.Vnet.ResourceGroup != "" {
		return c.Network.Vnet.ResourceGroup
	}
	return c.ResourceGroup
}

// VNet is the cluster's virtual network as the machine translators reference it.
func (c *Infrastructure) VNet() compute.VNetRef {
	ref := compute.VNetRef{Name: c.Network.Vnet.Name, ResourceGroup: c.VNetResourceGroup()}
	for _, s := range c.Network.Subnets {
		if slices.ContainsFunc(s.CIDRBlocks, func(cidr string) bool { return strings.Contains(cidr, ":") }) {
			ref.IPv6Subnets = append(ref.IPv6Subnets, s.Name)
		}
	}
	return ref
}

// SubnetFor returns the cluster's subnet for a role: the first subnet with the role, else one with role cluster.
func (c *Infrastructure) SubnetFor(role infrav1.SubnetRole) string {
	for _, want := range []infrav1.SubnetRole{role, infrav1.SubnetCluster} {
		for _, s := range c.Network.Subnets {
			if s.Role == want {
				return s.Name
			}
		}
	}
	return ""
}

// SubnetHasNATGateway tells whether the cluster's subnet of that name has a NAT gateway.
func (c *Infrastructure) SubnetHasNATGateway(name string) bool {
	for _, s := range c.Network.Subnets {
		if s.Name == name {
			return s.NatGateway.Name != ""
		}
	}
	return false
}

// Credentials checks that the cluster's identity may be used from the owner's namespace and names the cluster's
// credential secret for the owner's ASO objects (aso.Engine.ClusterCredentials); when it may not, they lose
// credential-from and the owner must wait.
func (c *Infrastructure) Credentials(ctx context.Context, e *aso.Engine, owner client.Object, cluster string, kinds []schema.GroupVersionKind) (aso.Credentials, error) {
	return e.ClusterCredentials(ctx, owner, aso.CredentialsInput{ClusterName: cluster, IdentityRef: c.IdentityRef, Kinds: kinds})
}

// PausedCredentials checks, while the Cluster is paused, whether the cluster's identity may still be used from the
// owner's namespace, revoking the owner's credentials when it may not (Credentials). Nothing is checked while the
// infrastructure cannot be resolved: infra is nil then.
func PausedCredentials(ctx context.Context, apiReader, cached client.Reader, e *aso.Engine, cluster *clusterv1.Cluster, owner client.Object, kinds []schema.GroupVersionKind) (*Infrastructure, aso.Credentials, error) {
	infra, waiting, err := Resolve(ctx, apiReader, cached, cluster)
	if err != nil || waiting != "" {
		return nil, aso.Credentials{}, err
	}
	creds, err := infra.Credentials(ctx, e, owner, cluster.Name, kinds)
	return infra, creds, err
}

// AzureCluster returns the translator's view of the cluster. Machines own their resources by the resource
// group's ARM ID: the group may be managed by another system and have no ASO object.
func (c *Infrastructure) AzureCluster(cluster string) azure.Cluster {
	return azure.Cluster{
		Name: cluster, SubscriptionID: c.SubscriptionID, Location: c.Location, ExtendedLocation: c.ExtendedLocation,
		ResourceGroup: c.ResourceGroup, AdditionalTags: c.AdditionalTags, AzureEnvironment: c.AzureEnvironment, ResourceGroupByID: true,
	}
}

// BackendPool is a backend address pool of a load balancer in the cluster's resource group.
type BackendPool struct {
	LoadBalancer, Pool string
}

// LBPools lists the load balancer backend pools a machine's primary interface (or a scale set's) joins, in CAPZ
// v1.26.0's order (azure/services/networkinterfaces/spec.go). A worker goes out through the node outbound load
// balancer only when it has neither a public IP of its own nor a NAT gateway on its subnet (natGateway), as in CAPZ
// v1.26.0; a scale set always joins it (publicIP and natGateway false).
func (c *Infrastructure) LBPools(controlPlane, publicIP, natGateway bool) []BackendPool {
	var out []BackendPool
	add := func(lb *infrav1.LoadBalancerSpec) {
		if lb != nil && lb.Name != "" && lb.BackendPool.Name != "" {
			out = append(out, BackendPool{LoadBalancer: lb.Name, Pool: lb.BackendPool.Name})
		}
	}
	if controlPlane {
		// CAPZ's order: the control plane's outbound pool first (only a private cluster has one), then the API
		// server's pools. Azure keeps them as a set, but a switched cluster's interfaces are then written unchanged.
		add(c.Network.ControlPlaneOutboundLB)
		add(c.Network.APIServerLB)
		add(network.APIServerInternalLB(c.Network.APIServerLB))
	} else if !publicIP && !natGateway {
		add(c.Network.NodeOutboundLB)
	}
	return out
}
