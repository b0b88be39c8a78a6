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

package bench

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

const (
	kubernetesVersion = "v1.34.1"
	location          = "eastus"
	vmSize            = "Standard_D2s_v3"
	// bootstrapData stands for kubeadm's join cloud-config (about its size: the provider encodes it into each VM
	// until ASO reports the VM created).
	bootstrapData = "#cloud-config\nruncmd:\n- kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml\n"
)

// Cluster names of the scenarios: <prefix>-<two digits>, each in a namespace of its name.
const (
	machinesPrefix = "bm" // self-managed clusters with a MachineDeployment
	aksPrefix      = "ba" // AKS clusters (AzureManagedControlPlane) with agent pools
	flexPrefix     = "bf" // self-managed clusters with Flexible AzureMachinePools
)

func clusterName(prefix string, i int) string { return fmt.Sprintf("%s-%02d", prefix, i) }

// clusterNames returns the names (and namespaces) of a scenario's clusters.
func clusterNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = clusterName(prefix, i)
	}
	return out
}

// createAll creates objects in order, ignoring those that exist (a retried phase).
func createAll(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("failed to create %T %s: %w", o, client.ObjectKeyFromObject(o), err)
		}
	}
	return nil
}

// clusterBase is what every cluster's namespace holds before its Cluster: the namespace, the kubeconfig Secret
// through which Cluster API reaches the workload API server (as a control plane provider would write it), and,
// for self-managed clusters, the bootstrap data Secret its machines use instead of kubeadm's (kubeadm's bootstrap
// reconciler is not what is measured).
func clusterBase(name string, workloadKubeconfig []byte, bootstrap bool) []client.Object {
	labels := map[string]string{clusterv1.ClusterNameLabel: name}
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}}
	if workloadKubeconfig != nil {
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: secret.Name(name, secret.Kubeconfig), Labels: labels},
			Type:       clusterv1.ClusterSecretType,
			Data:       map[string][]byte{secret.KubeconfigDataName: workloadKubeconfig},
		})
	}
	if bootstrap {
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: bootstrapSecretName(name), Labels: labels},
			Type:       clusterv1.ClusterSecretType,
			Data:       map[string][]byte{"value": []byte(bootstrapData), "format": []byte("cloud-config")},
		})
	}
	return objs
}

func bootstrapSecretName(cluster string) string { return cluster + "-bootstrap" }

// selfManagedCluster is a Cluster with an AzureCluster of CAPZ's default flavor (its own resource group, network,
// load balancers) and no control plane provider.
func selfManagedCluster(name string) []client.Object {
	return []client.Object{
		&infrav1.AzureCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: name},
			Spec: infrav1.AzureClusterSpec{
				AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: location, SubscriptionID: SubscriptionID},
				ResourceGroup:         name,
				NetworkSpec: infrav1.NetworkSpec{
					Vnet: infrav1.VnetSpec{Name: name + "-vnet"},
					Subnets: infrav1.Subnets{
						{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "control-plane-subnet", Role: infrav1.SubnetControlPlane}},
						{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "node-subnet", Role: infrav1.SubnetNode}},
					},
				},
			},
		},
		&clusterv1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: name},
			Spec: clusterv1.ClusterSpec{
				ClusterNetwork:    clusterv1.ClusterNetwork{Pods: clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}}},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: name},
			},
		},
	}
}

// machineDeployment is a cluster's MachineDeployment of workers with its AzureMachineTemplate, written as Cluster
// API's defaulting webhook would leave it (its webhooks do not run here).
func machineDeployment(cluster string, replicas int) []client.Object {
	name := cluster + "-md-0"
	labels := map[string]string{clusterv1.ClusterNameLabel: cluster, clusterv1.MachineDeploymentNameLabel: name}
	return []client.Object{
		&infrav1.AzureMachineTemplate{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name},
			Spec: infrav1.AzureMachineTemplateSpec{Template: infrav1.AzureMachineTemplateResource{Spec: infrav1.AzureMachineSpec{
				VMSize: vmSize, OSDisk: infrav1.OSDisk{OSType: "Linux", DiskSizeGB: ptr.To[int32](128)},
			}}},
		},
		&clusterv1.MachineDeployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name, Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}},
			Spec: clusterv1.MachineDeploymentSpec{
				ClusterName: cluster,
				Replicas:    ptr.To(int32(replicas)),
				Selector:    metav1.LabelSelector{MatchLabels: labels},
				Rollout: clusterv1.MachineDeploymentRolloutSpec{Strategy: clusterv1.MachineDeploymentRolloutStrategy{
					Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
					RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
						MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0)),
					},
				}},
				Template: clusterv1.MachineTemplateSpec{
					ObjectMeta: clusterv1.ObjectMeta{Labels: labels},
					Spec: clusterv1.MachineSpec{
						ClusterName: cluster,
						Version:     kubernetesVersion,
						Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(bootstrapSecretName(cluster))},
						InfrastructureRef: clusterv1.ContractVersionedObjectReference{
							APIGroup: infrav1.GroupVersion.Group, Kind: "AzureMachineTemplate", Name: name,
						},
					},
				},
			},
		},
	}
}

// aksCluster is an AKS cluster of the typed API (CAPZ's aks flavor, with a workload identity) with pools agent
// pools of nodes nodes each, the first one the system pool.
func aksCluster(name string, pools, nodes int) []client.Object {
	identity := name + "-identity"
	objs := []client.Object{
		&infrav1.AzureClusterIdentity{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: identity},
			Spec: infrav1.AzureClusterIdentitySpec{
				Type:     infrav1.WorkloadIdentity,
				TenantID: "11111111-2222-3333-4444-555555555555", ClientID: "66666666-7777-8888-9999-000000000000",
				AllowedNamespaces: &infrav1.AllowedNamespaces{},
			},
		},
		&infrav1.AzureManagedControlPlane{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: name},
			Spec: infrav1.AzureManagedControlPlaneSpec{AzureManagedControlPlaneClassSpec: infrav1.AzureManagedControlPlaneClassSpec{
				ResourceGroupName: name, Version: kubernetesVersion, SubscriptionID: SubscriptionID, Location: location,
				IdentityRef: &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: identity},
			}},
		},
		&infrav1.AzureManagedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: name}},
		&clusterv1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: name},
			Spec: clusterv1.ClusterSpec{
				ClusterNetwork: clusterv1.ClusterNetwork{
					Pods:     clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}},
					Services: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}},
				},
				ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedControlPlane", Name: name},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureManagedCluster", Name: name},
			},
		},
	}
	for j := range pools {
		pool := fmt.Sprintf("%s-pool%d", name, j)
		mode := infrav1.NodePoolMode("User")
		if j == 0 {
			mode = "System"
		}
		objs = append(objs,
			&infrav1.AzureManagedMachinePool{
				ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: pool, Labels: map[string]string{clusterv1.ClusterNameLabel: name}},
				Spec: infrav1.AzureManagedMachinePoolSpec{AzureManagedMachinePoolClassSpec: infrav1.AzureManagedMachinePoolClassSpec{
					Name: ptr.To(fmt.Sprintf("pool%d", j)), Mode: mode, SKU: vmSize,
				}},
			},
			machinePool(name, pool, nodes, "", "AzureManagedMachinePool", infrav1.GroupVersion.Group))
	}
	return objs
}

// flexPools are a self-managed cluster's Flexible AzureMachinePools of instances instances each.
func flexPools(cluster string, pools, instances int) []client.Object {
	var objs []client.Object
	for j := range pools {
		pool := fmt.Sprintf("%s-mp-%d", cluster, j)
		objs = append(objs,
			&infrav1exp.AzureMachinePool{
				ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: pool, Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}},
				Spec: infrav1exp.AzureMachinePoolSpec{
					Location:          location,
					OrchestrationMode: infrav1exp.FlexibleOrchestrationMode,
					Template: infrav1exp.AzureMachinePoolMachineTemplate{
						VMSize: vmSize, OSDisk: infrav1.OSDisk{OSType: "Linux", DiskSizeGB: ptr.To[int32](128)},
					},
				},
			},
			machinePool(cluster, pool, instances, bootstrapSecretName(cluster), "AzureMachinePool", infrav1exp.GroupVersion.Group))
	}
	return objs
}

// machinePool is a MachinePool of an infrastructure kind, with a bootstrap data Secret ("" for AKS, whose nodes
// need none).
func machinePool(cluster, name string, replicas int, bootstrapSecret, kind, group string) *clusterv1.MachinePool {
	return &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name, Labels: map[string]string{clusterv1.ClusterNameLabel: cluster}},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: cluster,
			Replicas:    ptr.To(int32(replicas)),
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName:       cluster,
				Version:           kubernetesVersion,
				Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(bootstrapSecret)},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: kind, Name: name},
			}},
		},
	}
}

// progress is how far a phase got: how many of its units the provider reports ready (infra) and how many
// Cluster API reports with their Nodes (nodes); scaling down, how many of each are gone.
type progress struct {
	infra, nodes, want int
	gone               bool
}

func (p progress) String() string {
	if p.gone {
		return fmt.Sprintf("%d/%d AzureMachines gone, %d/%d Machines gone", p.infra, p.want, p.nodes, p.want)
	}
	return fmt.Sprintf("%d/%d ready, %d/%d with Nodes", p.infra, p.want, p.nodes, p.want)
}

// machinesProgress counts the AzureMachines that are Ready and the Machines that have a Node, in namespaces.
func machinesProgress(ctx context.Context, r client.Reader, namespaces []string, want int) (progress, error) {
	p := progress{want: want}
	for _, ns := range namespaces {
		ams := &infrav1.AzureMachineList{}
		if err := r.List(ctx, ams, client.InNamespace(ns)); err != nil {
			return p, err
		}
		for i := range ams.Items {
			if conditions.IsTrue(&ams.Items[i], clusterv1.ReadyCondition) && ptr.Deref(ams.Items[i].Status.Initialization.Provisioned, false) {
				p.infra++
			}
		}
		machines := &clusterv1.MachineList{}
		if err := r.List(ctx, machines, client.InNamespace(ns)); err != nil {
			return p, err
		}
		for _, m := range machines.Items {
			if m.Status.NodeRef.IsDefined() {
				p.nodes++
			}
		}
	}
	return p, nil
}

// goneProgress counts the AzureMachines and Machines that are gone from namespaces, out of want.
func goneProgress(ctx context.Context, r client.Reader, namespaces []string, want int) (progress, error) {
	p := progress{want: want, infra: want, nodes: want, gone: true}
	for _, ns := range namespaces {
		ams := &infrav1.AzureMachineList{}
		if err := r.List(ctx, ams, client.InNamespace(ns)); err != nil {
			return p, err
		}
		p.infra -= len(ams.Items)
		machines := &clusterv1.MachineList{}
		if err := r.List(ctx, machines, client.InNamespace(ns)); err != nil {
			return p, err
		}
		p.nodes -= len(machines.Items)
	}
	return p, nil
}

// aksProgress counts the agent pools (AzureManagedMachinePools) that are Ready, once their control plane is, and
// the MachinePools whose Nodes are all there.
func aksProgress(ctx context.Context, r client.Reader, namespaces []string, want int) (progress, error) {
	p := progress{want: want}
	for _, ns := range namespaces {
		cps := &infrav1.AzureManagedControlPlaneList{}
		if err := r.List(ctx, cps, client.InNamespace(ns)); err != nil {
			return p, err
		}
		if len(cps.Items) == 0 || !conditions.IsTrue(&cps.Items[0], clusterv1.ReadyCondition) {
			continue
		}
		pools := &infrav1.AzureManagedMachinePoolList{}
		if err := r.List(ctx, pools, client.InNamespace(ns)); err != nil {
			return p, err
		}
		for i := range pools.Items {
			if conditions.IsTrue(&pools.Items[i], clusterv1.ReadyCondition) {
				p.infra++
			}
		}
		n, err := machinePoolsWithNodes(ctx, r, ns)
		if err != nil {
			return p, err
		}
		p.nodes += n
	}
	return p, nil
}

// flexProgress counts the instances of Flexible pools (AzureMachinePoolMachines) that are Ready and the Nodes
// their MachinePools have.
func flexProgress(ctx context.Context, r client.Reader, namespaces []string, want int) (progress, error) {
	p := progress{want: want}
	for _, ns := range namespaces {
		instances := &infrav1exp.AzureMachinePoolMachineList{}
		if err := r.List(ctx, instances, client.InNamespace(ns)); err != nil {
			return p, err
		}
		for i := range instances.Items {
			if conditions.IsTrue(&instances.Items[i], clusterv1.ReadyCondition) {
				p.infra++
			}
		}
		pools := &clusterv1.MachinePoolList{}
		if err := r.List(ctx, pools, client.InNamespace(ns)); err != nil {
			return p, err
		}
		for _, mp := range pools.Items {
			p.nodes += min(len(mp.Status.NodeRefs), int(ptr.Deref(mp.Spec.Replicas, 0)))
		}
	}
	return p, nil
}

// machinePoolsWithNodes counts the MachinePools of a namespace that have a Node for every replica.
func machinePoolsWithNodes(ctx context.Context, r client.Reader, ns string) (int, error) {
	pools := &clusterv1.MachinePoolList{}
	if err := r.List(ctx, pools, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	n := 0
	for _, mp := range pools.Items {
		if len(mp.Status.NodeRefs) >= int(ptr.Deref(mp.Spec.Replicas, 0)) {
			n++
		}
	}
	return n, nil
}
