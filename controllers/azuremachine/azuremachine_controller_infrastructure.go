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

package azuremachine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cluster-api/controllers/external"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// clusterInfrastructure is what a machine needs from its cluster's infrastructure object. It is read by field
// name, not by kind: an AzureCluster (managed by the provider or by someone else) or any other InfraCluster kind
// with AzureCluster-shaped fields (spec.location, spec.resourceGroup, spec.subscriptionID, spec.networkSpec, …).
type clusterInfrastructure struct {
	kind, name       string
	subscriptionID   string
	location         string
	resourceGroup    string
	extendedLocation *infrav1.ExtendedLocationSpec
	additionalTags   map[string]string
	// identity is true when the cluster uses an AzureClusterIdentity, so ASO reads <cluster>-aso-secret.
	identity bool
	network  infrav1.NetworkSpec
}

// readClusterInfrastructure reads the Cluster's infrastructure object through its contract-versioned reference.
func (r *Reconciler) readClusterInfrastructure(ctx context.Context, s *scope) (*clusterInfrastructure, error) {
	ref := s.cluster.Spec.InfrastructureRef
	obj, err := external.GetObjectFromContractVersionedRef(ctx, r.APIReader, ref, s.cluster.Namespace)
	if err != nil {
		return nil, err
	}
	return infrastructureFrom(obj)
}

// infrastructureFrom takes the AzureCluster-shaped fields of an infrastructure object.
func infrastructureFrom(obj *unstructured.Unstructured) (*clusterInfrastructure, error) {
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
	return &clusterInfrastructure{
		kind: obj.GetKind(), name: obj.GetName(),
		subscriptionID: fields.SubscriptionID, location: fields.Location, resourceGroup: fields.ResourceGroup,
		extendedLocation: fields.ExtendedLocation, additionalTags: fields.AdditionalTags,
		identity: fields.IdentityRef != nil, network: fields.NetworkSpec,
	}, nil
}

// missing names the fields a machine cannot do without, for the Ready message.
func (c *clusterInfrastructure) missing() string {
	switch {
	case c.location == "":
		return fmt.Sprintf("%s %s has no spec.location", c.kind, c.name)
	case c.resourceGroup == "":
		return fmt.Sprintf("%s %s has no spec.resourceGroup", c.kind, c.name)
	case c.network.Vnet.Name == "":
		return fmt.Sprintf("%s %s has no spec.networkSpec.vnet.name", c.kind, c.name)
	}
	return ""
}

// vnetResourceGroup is the resource group of the cluster's virtual network.
func (c *clusterInfrastructure) vnetResourceGroup() string {
	if c.network.Vnet.ResourceGroup != "" {
		return c.network.Vnet.ResourceGroup
	}
	return c.resourceGroup
}

// subnetFor returns the cluster's subnet for a role: the first subnet with the role, else one with role cluster.
func (c *clusterInfrastructure) subnetFor(role infrav1.SubnetRole) string {
	for _, want := range []infrav1.SubnetRole{role, infrav1.SubnetCluster} {
		for _, s := range c.network.Subnets {
			if s.Role == want {
				return s.Name
			}
		}
	}
	return ""
}

// credentialSecret is the ASO credential secret of the cluster, when it uses an identity.
func (c *clusterInfrastructure) credentialSecret(cluster string) string {
	if !c.identity {
		return ""
	}
	return aso.CredentialSecretName(cluster)
}

// azureCluster returns the translator's view of the cluster.
func (c *clusterInfrastructure) azureCluster(cluster string) azure.Cluster {
	return azure.Cluster{
		Name: cluster, SubscriptionID: c.subscriptionID, Location: c.location, ExtendedLocation: c.extendedLocation,
		ResourceGroup: c.resourceGroup, AdditionalTags: c.additionalTags, ResourceGroupByID: true,
	}
}

// lbPools lists the load balancer backend pools a machine's primary interface joins. A worker with its own
// public IP goes out through it, not through the node outbound load balancer.
func (c *clusterInfrastructure) lbPools(controlPlane, publicIP bool) [][2]string {
	var out [][2]string
	add := func(lb *infrav1.LoadBalancerSpec) {
		if lb != nil && lb.Name != "" && lb.BackendPool.Name != "" {
			out = append(out, [2]string{lb.Name, lb.BackendPool.Name})
		}
	}
	if controlPlane {
		add(c.network.APIServerLB)
		add(c.network.ControlPlaneOutboundLB)
	} else if !publicIP {
		add(c.network.NodeOutboundLB)
	}
	return out
}
