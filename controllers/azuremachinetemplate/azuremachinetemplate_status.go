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

package azuremachinetemplate

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
)

// templateGroupKind is Cluster API's cloned-from-groupkind annotation of a machine cloned from an AzureMachineTemplate.
var templateGroupKind = "AzureMachineTemplate." + infrav1.GroupVersion.Group

// reconcileStatus reports what cluster-autoscaler needs to scale a MachineDeployment of the template from zero:
// status.nodeInfo from the spec (the OS disk's type and the VM size's processor architecture), and status.capacity
// from the Node of a machine of the template. The provider never calls Azure, so it learns a size's capacity
// (vCPUs, memory, ephemeral storage, pods, devices) from the first Node that joins, then keeps it: the template's
// VM size is immutable. Until a machine has joined, status.capacity is empty; the autoscaler then reads the
// capacity.cluster-autoscaler.kubernetes.io/* annotations of the MachineDeployment, if any.
func (r *Reconciler) reconcileStatus(ctx context.Context, s *scope) error {
	template := s.template
	template.Status.NodeInfo = nodeInfoOf(template.Spec.Template.Spec)
	capacity, err := r.nodeCapacity(ctx, template, s.cluster)
	if err != nil {
		return err
	}
	if capacity != nil {
		template.Status.Capacity = capacity
	}
	return nil
}

// nodeInfoOf is the operating system and processor architecture of the template's machines.
func nodeInfoOf(spec infrav1.AzureMachineSpec) *infrav1.NodeInfo {
	info := &infrav1.NodeInfo{Architecture: "amd64", OperatingSystem: "linux"}
	if compute.IsArm64Size(spec.VMSize) {
		info.Architecture = "arm64"
	}
	if spec.OSDisk.OSType == azure.WindowsOS {
		info.OperatingSystem = "windows"
	}
	return info
}

// nodeCapacity is the capacity of the Node of a machine cloned from the template, or nil when none has joined or the
// workload cluster is not reachable (the status keeps what it had).
func (r *Reconciler) nodeCapacity(ctx context.Context, template *infrav1.AzureMachineTemplate, cluster *clusterv1.Cluster) (corev1.ResourceList, error) {
	machines := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, machines, client.InNamespace(template.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
		return nil, fmt.Errorf("failed to list the Machines of Cluster %s: %w", cluster.Name, err)
	}
	// Every machine of the template has the same VM size: the first Node found will do.
	nodeName := ""
	for i := range machines.Items {
		m := &machines.Items[i]
		if m.Status.NodeRef.Name != "" && r.templateOf(ctx, m) == template.Name {
			nodeName = m.Status.NodeRef.Name
			break
		}
	}
	if nodeName == "" {
		return nil, nil
	}
	// Uncached: one Node read now and then is cheaper than a cache of every Node of every workload cluster.
	c, err := r.ClusterCache.GetUncachedClient(ctx, client.ObjectKeyFromObject(cluster))
	if errors.Is(err, clustercache.ErrClusterNotConnected) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	node := &corev1.Node{}
	if err := c.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to get Node %s of Cluster %s: %w", nodeName, cluster.Name, err)
	}
	if len(node.Status.Capacity) == 0 {
		return nil, nil
	}
	return node.Status.Capacity, nil
}

// templateOf is the name of the AzureMachineTemplate a Machine's AzureMachine was cloned from, or "".
func (r *Reconciler) templateOf(ctx context.Context, m *clusterv1.Machine) string {
	ref := m.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "AzureMachine" {
		return ""
	}
	am := &infrav1.AzureMachine{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, am); err != nil {
		return ""
	}
	if am.Annotations[clusterv1.TemplateClonedFromGroupKindAnnotation] != templateGroupKind {
		return ""
	}
	return am.Annotations[clusterv1.TemplateClonedFromNameAnnotation]
}

// machineToTemplate maps a Machine to the template its AzureMachine was cloned from.
func (r *Reconciler) machineToTemplate(ctx context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	if name := r.templateOf(ctx, m); name != "" {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: name}}}
	}
	return nil
}

// nodeJoined passes the Machine events that may give a template its capacity: a Machine whose Node has joined.
func nodeJoined() predicate.Predicate {
	nodeOf := func(o client.Object) string {
		if m, ok := o.(*clusterv1.Machine); ok {
			return m.Status.NodeRef.Name
		}
		return ""
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return nodeOf(e.Object) != "" },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return nodeOf(e.ObjectNew) != "" && nodeOf(e.ObjectNew) != nodeOf(e.ObjectOld)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
