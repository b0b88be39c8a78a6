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

package kubeletsim

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocontainerservice "github.com/Azure/azure-service-operator/v2/api/containerservice/v1api20250801"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

const (
	// DefaultInterval is how often the simulator looks at the management cluster by default.
	DefaultInterval = 250 * time.Millisecond

	// Labels AKS puts on its nodes; the provider finds a pool's nodes by them.
	agentPoolLabel   = "kubernetes.azure.com/agentpool"
	nodeClusterLabel = "kubernetes.azure.com/cluster"
	// controlPlaneNodeLabel is the label kubeadm puts on control plane nodes.
	controlPlaneNodeLabel = "node-role.kubernetes.io/control-plane"
	// kubeadmConfigMap is the ConfigMap kubeadm init writes into kube-system.
	kubeadmConfigMap = "kubeadm-config"
)

// Options configure a Simulator.
type Options struct {
	// Management reads the management cluster's AzureMachines, ASO agent pools and managed clusters, and the
	// etcd CA Secret of each cluster whose etcd a client reaches.
	Management client.Reader
	// Workload writes the Nodes (and kubeadm's ConfigMap) into the workload cluster.
	Workload client.Client
	// Namespace limits the simulator to one namespace of the management cluster; empty means all.
	Namespace string
	// SubscriptionID is the simulated Azure subscription, part of the AKS nodes' provider IDs.
	SubscriptionID string
	// Interval is how often the simulator looks; defaults to DefaultInterval.
	Interval time.Duration
	// ARM is the fake Azure whose scale sets' instances (in SubscriptionID) get Nodes, as Azure makes them from the
	// scale set's model (a Uniform one's, or a Flexible one's VMs); nil: none.
	ARM *fakearm.Server
	// Logf reports what could not be written; nil discards it.
	Logf func(format string, args ...any)
}

// Simulator registers Nodes in a workload cluster for the machines of a management cluster until stopped.
type Simulator struct {
	opts   Options
	cancel context.CancelFunc
	done   chan struct{}
	// machineNodes and poolMachineNodes are the Nodes the simulator registered for AzureMachines and for the
	// instances of Flexible AzureMachinePools, and has not deleted; only the loop touches them until done.
	machineNodes, poolMachineNodes sets.Set[string]
	// poolNodes and scaleSetNodes are the Nodes registered for agent pools and for the instances of Uniform scale
	// sets, with the kubelet version each reports.
	poolNodes, scaleSetNodes map[string]string
	// kubeadmInitialized is set once kubeadm's ConfigMap exists in the workload cluster.
	kubeadmInitialized bool
	// kubeadmInitCreated is set when this simulator wrote kubeadm's ConfigMap (DeleteNodes removes it).
	kubeadmInitCreated bool
	// kubelet is the endpoint every Node of the simulator reports; nil if it could not start.
	kubelet *kubeletServer
	// etcd plays the etcd members of the control plane Nodes.
	etcd *etcdSim
	// endpointsStopped makes stopping the kubelet endpoint and the etcd members happen once.
	endpointsStopped sync.Once
}

// Start starts a simulator; Stop ends it.
func Start(opts Options) *Simulator {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Simulator{
		opts: opts, cancel: cancel, done: make(chan struct{}),
		machineNodes: sets.New[string](), poolMachineNodes: sets.New[string](), poolNodes: map[string]string{}, scaleSetNodes: map[string]string{},
	}
	s.etcd = newEtcdSim(opts.Management)
	kubelet, err := startKubeletServer(s.etcd.dialPod)
	if err != nil {
		// The Nodes still register; port forwarding to their pods fails, as with an unreachable kubelet.
		opts.Logf("Failed to start the simulated kubelets' endpoint: %v", err)
	}
	s.kubelet = kubelet
	go s.run(ctx)
	return s
}

// refusePorts is what a pod answers whose port nothing listens on.
func refusePorts(namespace, pod string, port int) (net.Conn, error) {
	return nil, fmt.Errorf("nothing listens on port %d of pod %s/%s", port, namespace, pod)
}

// Stop ends the simulator and waits for it; the Nodes it registered stay (see DeleteNodes). It may be called more
// than once.
func (s *Simulator) Stop() {
	s.stopLoop()
	s.stopEndpoints()
}

// stopLoop ends the loop that registers Nodes and waits for it.
func (s *Simulator) stopLoop() {
	s.cancel()
	<-s.done
}

// stopEndpoints stops the kubelet endpoint and the etcd members.
func (s *Simulator) stopEndpoints() {
	s.endpointsStopped.Do(func() {
		s.etcd.stop()
		if s.kubelet != nil {
			s.kubelet.stop()
		}
	})
}

// DeleteNodes stops the simulator and deletes the Nodes it registered, as tests do when they end. The kubelet
// endpoint and the etcd members stop after their Nodes are gone, so that a controller still dialling a Node's pod
// through the API server reaches it (a refused port-forward makes the kubeadm control plane provider's dialer fall
// back to SPDY: see registerMachineNodes).
func (s *Simulator) DeleteNodes(ctx context.Context) error {
	s.stopLoop()
	defer s.stopEndpoints()
	var errs []error
	registered := s.machineNodes.Union(s.poolMachineNodes).Union(sets.KeySet(s.poolNodes)).Union(sets.KeySet(s.scaleSetNodes))
	for _, name := range sets.List(registered) {
		if err := s.opts.Workload.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("failed to delete Node %s: %w", name, err))
		}
		errs = append(errs, deleteStaticPods(ctx, s.opts.Workload, name)...)
	}
	// What this simulator's kubeadm init wrote goes with the cluster, so that the next cluster on the workload
	// cluster starts uninitialized; what was there before it (a plane's KubeadmInitialized) stays.
	if s.kubeadmInitCreated {
		if err := s.opts.Workload.Delete(ctx, KubeadmConfigMap()); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("failed to delete kubeadm's ConfigMap: %w", err))
		}
		s.kubeadmInitCreated = false
	}
	s.machineNodes.Clear()
	s.poolMachineNodes.Clear()
	clear(s.poolNodes)
	clear(s.scaleSetNodes)
	return kerrors.NewAggregate(errs)
}

func (s *Simulator) run(ctx context.Context) {
	defer close(s.done)
	ticker := time.NewTicker(s.opts.Interval)
	defer ticker.Stop()
	for {
		s.registerMachineNodes(ctx)
		s.registerPoolMachineNodes(ctx)
		s.syncAgentPoolNodes(ctx)
		s.syncScaleSetNodes(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// registerMachineNodes registers a Ready Node, named after the machine, for every AzureMachine with a provider ID
// (ASO has created its VM), as kubelet with cloud-provider-azure does, with kubeadm's label and taint on control
// plane Nodes. The first control plane Node also plays kubeadm init.
func (s *Simulator) registerMachineNodes(ctx context.Context) {
	machines := &infrav1.AzureMachineList{}
	if err := s.opts.Management.List(ctx, machines, client.InNamespace(s.opts.Namespace)); err != nil {
		return
	}
	for _, am := range machines.Items {
		providerID := ptr.Deref(am.Spec.ProviderID, "")
		if providerID == "" || s.machineNodes.Has(am.Name) {
			continue
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: am.Name, Labels: map[string]string{corev1.LabelHostname: am.Name}},
			Spec:       corev1.NodeSpec{ProviderID: providerID},
		}
		_, controlPlane := am.Labels[clusterv1.MachineControlPlaneLabel]
		if controlPlane {
			// kubeadm's role label and taint of control plane nodes.
			node.Labels[controlPlaneNodeLabel] = ""
			node.Spec.Taints = []corev1.Taint{{Key: controlPlaneNodeLabel, Effect: corev1.TaintEffectNoSchedule}}
			if err := s.initKubeadm(ctx); err != nil {
				s.logf(ctx, "Failed to write kubeadm's ConfigMap for Node %s: %v", am.Name, err)
				continue
			}
		}
		// The mirror pods come before the Node, so that the kubeadm control plane provider never looks for the etcd
		// pod of a Node it sees and gets a 404: a port-forward the API server refuses makes its dialer fall back
		// from WebSockets to SPDY, whose round tripper its concurrent etcd dials share (a data race in Cluster API
		// v1.14.2's controlplane/kubeadm/pkg/proxy that -race reports).
		if controlPlane {
			if err := runStaticPods(ctx, s.opts.Workload, node.Name); err != nil {
				s.logf(ctx, "Failed to report the static pods of Node %s: %v", am.Name, err)
				continue
			}
		}
		if err := s.registerNode(ctx, node); err != nil {
			s.logf(ctx, "Failed to register Node %s: %v", am.Name, err)
			continue
		}
		if controlPlane {
			s.etcd.join(am.Namespace, am.Labels[clusterv1.ClusterNameLabel], node.Name)
		}
		s.machineNodes.Insert(am.Name)
	}
}

// registerPoolMachineNodes registers a Ready Node, named after the instance, for every AzureMachinePoolMachine (an
// instance of a Flexible scale set) whose VM ASO reports created, with the instance's provider ID.
func (s *Simulator) registerPoolMachineNodes(ctx context.Context) {
	instances := &infrav1exp.AzureMachinePoolMachineList{}
	if err := s.opts.Management.List(ctx, instances, client.InNamespace(s.opts.Namespace)); err != nil {
		return
	}
	for _, m := range instances.Items {
		if m.Spec.ProviderID == "" || s.poolMachineNodes.Has(m.Name) {
			continue
		}
		vm := &asocompute.VirtualMachine{}
		if err := s.opts.Management.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: azure.ObjectName(m.Name)}, vm); err != nil {
			continue
		}
		if ready := genruntime.GetReadyCondition(vm); ready == nil || ready.Status != metav1.ConditionTrue {
			continue
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: m.Name, Labels: map[string]string{corev1.LabelHostname: m.Name}},
			Spec:       corev1.NodeSpec{ProviderID: m.Spec.ProviderID},
		}
		if err := s.registerNode(ctx, node); err != nil {
			s.logf(ctx, "Failed to register Node %s: %v", m.Name, err)
			continue
		}
		s.poolMachineNodes.Insert(m.Name)
	}
}

// initKubeadm writes what kubeadm init leaves in kube-system that KubeadmControlPlane checks to consider the
// control plane initialized.
func (s *Simulator) initKubeadm(ctx context.Context) error {
	if s.kubeadmInitialized {
		return nil
	}
	err := s.opts.Workload.Create(ctx, KubeadmConfigMap())
	switch {
	case err == nil:
		s.kubeadmInitCreated = true
	case !apierrors.IsAlreadyExists(err):
		return err
	}
	s.kubeadmInitialized = true
	return nil
}

// KubeadmConfigMap is what kubeadm init leaves in kube-system and the kubeadm control plane provider looks for to
// consider a control plane initialized.
func KubeadmConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: kubeadmConfigMap},
		Data:       map[string]string{"ClusterConfiguration": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n"},
	}
}

// syncAgentPoolNodes registers the Nodes the agent pools have and deletes those beyond their counts, as AKS does
// when it scales.
func (s *Simulator) syncAgentPoolNodes(ctx context.Context) {
	if want := AgentPoolNodes(ctx, s.opts.Management, s.opts.Namespace, s.opts.SubscriptionID); want != nil {
		s.syncNodes(ctx, want, s.poolNodes)
	}
}

// syncScaleSetNodes registers a Node for every instance of the fake ARM's scale sets in the subscription (a Uniform
// one's, or a VM Azure made from a Flexible one's model), named after the instance's computer name, and deletes the
// Nodes of instances gone, as cloud-provider-azure's node lifecycle controller does.
func (s *Simulator) syncScaleSetNodes(ctx context.Context) {
	if s.opts.ARM == nil {
		return
	}
	want := map[string]*corev1.Node{}
	for _, instance := range s.opts.ARM.ScaleSetInstances(s.opts.SubscriptionID) {
		name := strings.ToLower(instance.ComputerName)
		want[name] = &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
			Spec:       corev1.NodeSpec{ProviderID: instance.ProviderID},
		}
	}
	s.syncNodes(ctx, want, s.scaleSetNodes)
}

// syncNodes registers the wanted Nodes that are not registered yet, reports the new kubelet version of those whose
// version changed (an upgraded agent pool's), and deletes the registered ones no longer wanted, keeping registered
// (name → kubelet version) up to date.
func (s *Simulator) syncNodes(ctx context.Context, want map[string]*corev1.Node, registered map[string]string) {
	for name, node := range want {
		version, ok := registered[name]
		if ok && version == node.Status.NodeInfo.KubeletVersion {
			continue
		}
		if err := s.registerNode(ctx, node); err != nil {
			s.logf(ctx, "Failed to register Node %s: %v", name, err)
			continue
		}
		registered[name] = node.Status.NodeInfo.KubeletVersion
	}
	for name := range registered {
		if _, ok := want[name]; ok {
			continue
		}
		err := s.opts.Workload.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		if err == nil || apierrors.IsNotFound(err) {
			delete(registered, name)
		}
	}
}

// logf reports a failure, unless the simulator is stopping (its writes fail then).
func (s *Simulator) logf(ctx context.Context, format string, args ...any) {
	if ctx.Err() == nil {
		s.opts.Logf(format, args...)
	}
}

// AgentPoolNodes are the Nodes the agent pools of a namespace (all namespaces when empty) have now, by name: as
// many as ASO reports for each pool (status.count), labelled with the pool and the cluster's node resource group,
// with the scale set's provider IDs and the pool's current Kubernetes version as their kubelet's, as AKS registers
// them (Cluster API's topology checks a MachinePool's Nodes run its version before the next upgrade). It returns
// nil when they cannot be read.
func AgentPoolNodes(ctx context.Context, management client.Reader, namespace, subscriptionID string) map[string]*corev1.Node {
	pools := &asocontainerservice.ManagedClustersAgentPoolList{}
	if err := management.List(ctx, pools, client.InNamespace(namespace)); err != nil {
		return nil
	}
	out := map[string]*corev1.Node{}
	for _, pool := range pools.Items {
		if pool.Spec.Owner == nil || pool.Status.Count == nil {
			continue
		}
		mc := &asocontainerservice.ManagedCluster{}
		if err := management.Get(ctx, client.ObjectKey{Namespace: pool.Namespace, Name: pool.Spec.Owner.Name}, mc); err != nil {
			return nil
		}
		nodeRG, clusterID := ptr.Deref(mc.Status.NodeResourceGroup, ""), ptr.Deref(mc.Status.Id, "")
		if nodeRG == "" || clusterID == "" {
			// The cluster is not created yet (ASO has not reported it): it has no nodes, and the provider finds a
			// pool's nodes by this label.
			continue
		}
		// AKS names a pool's scale set aks-<pool>-<number>-vmss, the number derived from the cluster: unique Node
		// names across clusters sharing one workload API server. The fake ARM shows the same scale sets.
		scaleSet := fakearm.AgentPoolScaleSet(clusterID, pool.Spec.AzureName)
		kubelet := ""
		if v := ptr.Deref(pool.Status.CurrentOrchestratorVersion, ""); v != "" {
			kubelet = "v" + strings.TrimPrefix(v, "v")
		}
		for i := range *pool.Status.Count {
			name := fmt.Sprintf("%s%06d", scaleSet, i)
			out[name] = &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
					agentPoolLabel: pool.Spec.AzureName, nodeClusterLabel: nodeRG,
				}},
				Spec: corev1.NodeSpec{ProviderID: fmt.Sprintf(
					"azure:///subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachineScaleSets/%s/virtualMachines/%d",
					subscriptionID, strings.ToLower(nodeRG), scaleSet, i)},
				Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}},
			}
		}
	}
	return out
}

// registerNode creates a Node (or finds it) and reports it Ready, without memory, disk or PID pressure, with the
// simulator's kubelet endpoint on the loopback address, as its kubelet does.
func (s *Simulator) registerNode(ctx context.Context, node *corev1.Node) error {
	if s.kubelet != nil {
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = s.kubelet.port()
	}
	now := metav1.Now()
	node.Status.Conditions = []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"},
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID"},
	}
	for i := range node.Status.Conditions {
		node.Status.Conditions[i].LastHeartbeatTime, node.Status.Conditions[i].LastTransitionTime = now, now
	}
	// The API server keeps a Node's status on creation, as kubelet registers it: the Node is never seen without its
	// kubelet endpoint (a port-forward to one of its pods would fail). The status update covers a Node that exists.
	status := node.Status
	c := s.opts.Workload
	if err := c.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	node.Status = status
	return c.Status().Update(ctx, node)
}
