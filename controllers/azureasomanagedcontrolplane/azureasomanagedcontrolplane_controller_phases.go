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

package azureasomanagedcontrolplane

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// kubeconfigRefresh is how often a ready control plane re-reads the kubeconfig ASO writes, which ASO rotates.
const kubeconfigRefresh = 10 * time.Minute

// reconcileResources fills in what Cluster API owns on the raw objects, applies them, and writes Cluster API's
// kubeconfig secret once ASO has written one.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	cp := s.controlPlane
	objs, err := asomanaged.Parse(cp.Spec.Resources)
	if err != nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: err.Error()}
		return nil
	}
	mc := asomanaged.Find(objs, asomanaged.ManagedClusterKind)
	if mc == nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: "spec.resources has no ManagedCluster"}
		return nil
	}
	s.managedClusterName = mc.GetName()
	// A cluster handed over for adoption is not the provider's yet, so not in the manager's cache.
	live, err := r.Engine.ReadThrough(ctx, cp.Namespace, aks.ManagedClusterRef(mc.GetName()))
	if err != nil {
		return err
	}
	var profiles []map[string]any
	if state, _ := aks.ReadManagedCluster(live); !state.Created {
		// AKS creates a cluster with its system pool(s) inline; afterwards the agent pools are their own objects.
		if profiles, err = r.agentPoolProfiles(ctx, s.cluster); err != nil {
			return err
		}
		if len(profiles) == 0 {
			s.Waiting = lifecycle.Wait{Reason: WaitingForMachinePoolsReason, Message: "waiting for the AzureASOManagedMachinePools of the cluster's MachinePools: AKS creates the cluster with its pools, and needs a system pool"}
			return nil
		}
	}
	in := asomanaged.ManagedClusterInput{ClusterName: s.cluster.Name, Version: cp.Spec.Version, AgentPoolProfiles: profiles}
	if network := s.cluster.Spec.ClusterNetwork; network.Pods.CIDRBlocks != nil || network.Services.CIDRBlocks != nil {
		in.PodCIDRs, in.ServiceCIDRs = network.Pods.CIDRBlocks, network.Services.CIDRBlocks
	}
	if err := asomanaged.SetManagedClusterDefaults(mc, in); err != nil {
		s.Waiting = lifecycle.Wait{Reason: managed.InvalidResourcesReason, Message: fmt.Sprintf("ManagedCluster %s: %v", mc.GetName(), err)}
		return nil
	}

	if s.Kinds, err = managed.RecordKinds(ctx, r.Client, cp, objs); err != nil {
		return err
	}
	desired := asomanaged.Resources(objs)
	kubeconfig, err := managed.ReadKubeconfig(ctx, r.APIReader, cp.Namespace, kubeconfigSecrets(mc)...)
	if err != nil {
		return err
	}
	if kubeconfig != nil {
		desired = append(desired, azure.Resource{Object: managed.KubeconfigSecret(s.cluster.Name, kubeconfig)})
		s.kubeconfigWritten = true
		s.RequeueAfter = kubeconfigRefresh
	} else if len(kubeconfigSecrets(mc)) == 0 {
		s.kubeconfigMissing = "the ManagedCluster asks ASO for no kubeconfig (spec.operatorSpec.secrets); Cluster API needs one"
	}
	s.Result, err = r.Engine.Reconcile(ctx, cp, desired, aso.Options{ClusterName: s.cluster.Name, Kinds: s.Kinds})
	return err
}

// kubeconfigSecrets are the secrets a raw ManagedCluster asks ASO to write its kubeconfigs to, admin first.
func kubeconfigSecrets(mc *unstructured.Unstructured) []managed.SecretRef {
	var refs []managed.SecretRef
	for _, field := range []string{"adminCredentials", "userCredentials"} {
		name, _, _ := unstructured.NestedString(mc.Object, "spec", "operatorSpec", "secrets", field, "name")
		key, _, _ := unstructured.NestedString(mc.Object, "spec", "operatorSpec", "secrets", field, "key")
		if name != "" {
			refs = append(refs, managed.SecretRef{Name: name, Key: key})
		}
	}
	return refs
}

// agentPoolProfiles turns the AzureASOManagedMachinePools of the cluster's MachinePools into the managed cluster's
// inline pools, sorted by name, as CAPZ does: nil until every MachinePool's AzureASOManagedMachinePool exists and
// is the MachinePool's, so that the first PUT of the cluster has all its pools (the system pool among them)
// however the objects arrived.
func (r *Reconciler) agentPoolProfiles(ctx context.Context, cluster *clusterv1.Cluster) ([]map[string]any, error) {
	machinePools := &clusterv1.MachinePoolList{}
	if err := r.Client.List(ctx, machinePools, client.InNamespace(cluster.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
		return nil, err
	}
	sort.Slice(machinePools.Items, func(i, j int) bool { return machinePools.Items[i].Name < machinePools.Items[j].Name })
	var profiles []map[string]any
	for i := range machinePools.Items {
		mp := &machinePools.Items[i]
		ref := mp.Spec.Template.Spec.InfrastructureRef
		if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "AzureASOManagedMachinePool" {
			continue
		}
		pool := &infrav1.AzureASOManagedMachinePool{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: mp.Namespace, Name: ref.Name}, pool); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		if owner, err := util.GetOwnerMachinePool(ctx, r.Client, pool.ObjectMeta); err != nil || owner == nil || owner.Name != mp.Name {
			return nil, client.IgnoreNotFound(err) // Cluster API has not made the pool the MachinePool's yet
		}
		objs, err := asomanaged.Parse(pool.Spec.Resources)
		if err != nil {
			continue // the pool's own controller reports it
		}
		ap := asomanaged.Find(objs, asomanaged.AgentPoolKind)
		if ap == nil {
			continue
		}
		if err := asomanaged.SetAgentPoolDefaults(ap, asomanaged.AgentPoolInput{Version: mp.Spec.Template.Spec.Version, Replicas: mp.Spec.Replicas}); err != nil {
			continue
		}
		profiles = append(profiles, asomanaged.AgentPoolProfile(ap))
	}
	return profiles, nil
}

// reconcileManagedClusterStatus reports the endpoint and version ASO reports for the managed cluster.
func (r *Reconciler) reconcileManagedClusterStatus(_ context.Context, s *scope) error {
	mc, ok := aks.LiveManagedCluster(s.Result, s.managedClusterName)
	if !ok {
		return nil
	}
	cp := s.controlPlane
	host := mc.FQDN
	if mc.Private {
		host = mc.PrivateFQDN
	}
	if host != "" {
		cp.Status.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: host, Port: 443}
	}
	if v := mc.Version; v != "" {
		cp.Status.Version = "v" + strings.TrimPrefix(v, "v")
		cp.Status.Versions = []clusterv1.StatusVersion{{Version: cp.Status.Version}}
	}
	return nil
}
