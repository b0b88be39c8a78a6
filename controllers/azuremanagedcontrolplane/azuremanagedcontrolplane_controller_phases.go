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

package azuremanagedcontrolplane

import (
	"context"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// kubeconfigRefresh is how often a ready control plane re-reads the kubeconfig ASO writes, which ASO rotates.
const kubeconfigRefresh = 10 * time.Minute

// reconcileResources translates the control plane (with its system pools while AKS has not created the cluster)
// and hands the objects, with the Cluster API kubeconfig once ASO wrote AKS's, to the engine.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	cp := s.controlPlane
	in := aks.ControlPlaneInput{
		Cluster: azure.Cluster{
			Name:           s.cluster.Name,
			SubscriptionID: cp.Spec.SubscriptionID,
			Location:       cp.Spec.Location,
			ResourceGroup:  cp.Spec.ResourceGroupName,
			AdditionalTags: cp.Spec.AdditionalTags,
		},
		Name: cp.Name,
		Spec: cp.Spec,
	}
	in.Spec.Version = desiredVersion(cp)
	if network := s.cluster.Spec.ClusterNetwork; network.Pods.CIDRBlocks != nil || network.Services.CIDRBlocks != nil {
		in.PodCIDRs, in.ServiceCIDRs = network.Pods.CIDRBlocks, network.Services.CIDRBlocks
	}
	if in.Cluster.SubscriptionID == "" {
		in.Cluster.SubscriptionID = aso.SubscriptionFromResourceGroup(ctx, r.Client, cp.Namespace, azure.ObjectName(cp.Spec.ResourceGroupName))
	}
	opts := aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.Credentials.SecretName, Kinds: s.Kinds,
		Patches: append(aso.MergePatches("ManagedCluster", "asoManagedClusterPatches", cp.Spec.ASOManagedClusterPatches),
			aso.UserPatches(cp.Spec.ASOPatches)...),
	}
	in.VNetSubnetID = aks.SubnetID(in.Cluster, cp.Spec.VirtualNetwork)
	desired := aks.ControlPlaneResources(in)

	live, err := r.Engine.Read(ctx, cp.Namespace, aks.ManagedClusterRef(azure.ObjectName(cp.Name)))
	if err != nil {
		return err
	}
	mc, exists := aks.ReadManagedCluster(live)
	switch {
	case in.Cluster.SubscriptionID == "":
		// Without the subscription the resource IDs between resources cannot be written yet: create the resource
		// group first, ASO reports the subscription in its ID. Nothing else is touched meanwhile.
		desired, opts.Incomplete = azure.OfFamily(desired, aks.FamilyResourceGroup), true
		s.Waiting = lifecycle.Wait{Reason: infrav1.ProvisioningReason, Message: "waiting for the resource group's ID, which names the subscription"}
	case !mc.Created:
		// AKS creates a cluster with its agent pools inline (CAPZ inlines every pool); afterwards the agent pools are
		// their own objects.
		pools, err := r.initialPools(ctx, s.cluster)
		if err != nil {
			return err
		}
		switch {
		case len(pools.withoutMachinePool) > 0:
			// As CAPZ: a pool's version and replicas are its MachinePool's, unknown until Cluster API owns it.
			s.Waiting = lifecycle.Wait{Reason: WaitingForMachinePoolsReason, Message: "waiting for the MachinePool of AzureManagedMachinePool " + strings.Join(pools.withoutMachinePool, ", ")}
		case pools.system:
			in.InitialPools = pools.inputs
			desired = aks.ControlPlaneResources(in)
		default:
			s.Waiting = lifecycle.Wait{Reason: WaitingForMachinePoolsReason, Message: "waiting for an AzureManagedMachinePool of mode System: AKS creates the cluster with its system pool"}
		}
		if s.Waiting.Message == "" {
			break
		}
		if exists {
			return nil // keep the cluster being created as it is
		}
		desired, opts.Incomplete = azure.WithoutFamily(desired, aks.FamilyManagedCluster), true
	}

	if s.Waiting.Message == "" {
		// Without local accounts AKS has no admin kubeconfig: only the Entra ID user kubeconfig, whose exec plugin
		// needs a token the provider does not mint.
		source := managed.SecretRef{Name: aks.AdminKubeconfigSecretName(s.cluster.Name), Key: aks.KubeconfigSecretKey}
		s.localAccountsDisabled = ptr.Deref(cp.Spec.DisableLocalAccounts, false)
		if s.localAccountsDisabled {
			source.Name = aks.UserKubeconfigSecretName(s.cluster.Name)
		}
		kubeconfig, err := managed.ReadKubeconfig(ctx, r.APIReader, cp.Namespace, source)
		if err != nil {
			return err
		}
		if kubeconfig != nil {
			desired = append(desired, azure.Resource{Object: managed.KubeconfigSecret(s.cluster.Name, kubeconfig)})
			s.kubeconfigWritten = true
			s.RequeueAfter = kubeconfigRefresh
		}
	}
	s.Result, err = r.Engine.Reconcile(ctx, cp, desired, opts)
	return err
}

// desiredVersion is the version to ask AKS for: spec.version, or the newer version AKS moved the cluster to
// through its auto-upgrade channel, as AKS never downgrades.
func desiredVersion(cp *infrav1.AzureManagedControlPlane) string {
	spec, err := version.ParseGeneric(cp.Spec.Version)
	if err != nil || cp.Status.AutoUpgradeVersion == "" {
		return cp.Spec.Version
	}
	if auto, err := version.ParseGeneric(cp.Status.AutoUpgradeVersion); err == nil && auto.GreaterThan(spec) {
		return cp.Status.AutoUpgradeVersion
	}
	return cp.Spec.Version
}

// initialPools are what the cluster's AzureManagedMachinePools tell of the agent pools AKS creates the cluster with.
type initialPools struct {
	// inputs are the pools, with their MachinePool's replicas and version.
	inputs []aks.AgentPoolInput
	// system is true when one of them is of mode System, which AKS needs.
	system bool
	// withoutMachinePool names the pools whose MachinePool is not known yet.
	withoutMachinePool []string
}

// initialPools reads the cluster's AzureManagedMachinePools, but those being deleted, for AKS to create the cluster
// with.
func (r *Reconciler) initialPools(ctx context.Context, cluster *clusterv1.Cluster) (initialPools, error) {
	var out initialPools
	pools := &infrav1.AzureManagedMachinePoolList{}
	if err := r.Client.List(ctx, pools, client.InNamespace(cluster.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
		return out, err
	}
	for i := range pools.Items {
		pool := &pools.Items[i]
		if !pool.DeletionTimestamp.IsZero() {
			continue
		}
		mp, err := util.GetOwnerMachinePool(ctx, r.Client, pool.ObjectMeta)
		if err != nil && !apierrors.IsNotFound(err) {
			return out, err
		}
		if mp == nil {
			out.withoutMachinePool = append(out.withoutMachinePool, pool.Name)
			continue
		}
		out.system = out.system || pool.Spec.Mode == infrav1.NodePoolModeSystem
		out.inputs = append(out.inputs, aks.AgentPoolInput{Name: pool.Name, Spec: pool.Spec, Version: mp.Spec.Template.Spec.Version, Replicas: mp.Spec.Replicas})
	}
	return out, nil
}

// reconcileManagedClusterStatus reports what AKS says: the API server endpoint, the version (and the version the
// auto-upgrade channel moved to) and the OIDC issuer.
func (r *Reconciler) reconcileManagedClusterStatus(_ context.Context, s *scope) error {
	cp := s.controlPlane
	mc, ok := aks.LiveManagedCluster(s.Result, azure.ObjectName(cp.Name))
	if !ok {
		return nil
	}
	host := mc.FQDN
	if p := cp.Spec.APIServerAccessProfile; p != nil && ptr.Deref(p.EnablePrivateCluster, false) {
		host = mc.PrivateFQDN
	}
	if host != "" {
		cp.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: host, Port: 443}
	}
	if current := mc.Version; current != "" {
		cp.Status.Version = "v" + strings.TrimPrefix(current, "v")
		cp.Status.Versions = []clusterv1.StatusVersion{{Version: cp.Status.Version}}
		cp.Status.AutoUpgradeVersion = autoUpgradeVersion(cp, cp.Status.Version)
	}
	if mc.OIDCIssuerURL != "" {
		cp.Status.OIDCIssuerProfile = &infrav1.OIDCIssuerProfileStatus{IssuerURL: ptr.To(mc.OIDCIssuerURL)}
	}
	return nil
}

// autoUpgradeVersion is the cluster's current version when an auto-upgrade channel moved it past spec.version.
func autoUpgradeVersion(cp *infrav1.AzureManagedControlPlane, current string) string {
	p := cp.Spec.AutoUpgradeProfile
	if p == nil || ptr.Deref(p.UpgradeChannel, infrav1.UpgradeChannelNone) == infrav1.UpgradeChannelNone {
		return ""
	}
	spec, err := version.ParseGeneric(cp.Spec.Version)
	if err != nil {
		return ""
	}
	if v, err := version.ParseGeneric(current); err == nil && v.GreaterThan(spec) {
		return current
	}
	return ""
}
