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

package azuremachinepool

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/takeover"
)

const (
	// InstancesReadyCondition is True when the pool has the MachinePool's number of instances, all ready and of
	// the current model.
	InstancesReadyCondition = "InstancesReady"

	// ScalingReason means the pool has more or fewer instances than the MachinePool wants.
	ScalingReason = "Scaling"
	// RollingOutReason means some instances run an older model and are being replaced.
	RollingOutReason = "RollingOut"
)

// updateStatus turns what the phases learned, and the pass's error, into the AzureMachinePool's status and
// conditions.
func updateStatus(s *scope, err error) {
	pool := s.pool
	if s.provisioningState != "" {
		pool.Status.ProvisioningState = s.provisioningState
	}
	version := s.machinePool.Spec.Template.Spec.Version
	pool.Status.Version = version
	pool.Status.Image = pool.Spec.Template.Image
	if pool.Status.Image == nil && version != "" {
		pool.Status.Image = compute.DefaultImage(pool.Spec.Template.OSDisk.OSType, version)
	}
	var instances metav1.Condition
	switch byAzure, known := s.azureMakesInstances(); {
	case !known:
	case !byAzure:
		pool.Status.InfrastructureMachineKind = infrav1exp.AzureMachinePoolMachineKind
		if s.replicas != nil || s.Result != nil {
			instances = setFlexibleInstances(pool, desiredReplicas(s.machinePool), version, s.replicas)
		}
	case s.nodesKnown:
		instances = setUniformInstances(pool, desiredReplicas(s.machinePool), s.capacity, s.nodes, s.watermark)
	case s.Result != nil:
		// The workload cluster is not reachable (yet): the instances are unknown, not their number.
		pool.Status.Replicas = s.capacity
	}
	if instances.Type != "" && s.draining != "" {
		instances.Status, instances.Reason, instances.Message = metav1.ConditionFalse, DrainingReason, s.draining
	}
	if instances.Type != "" && s.Deleting == "" {
		conditions.Set(pool, instances)
	}
	if s.Result != nil && s.Result.Ready() && s.Deleting == "" {
		pool.Status.Initialization.Provisioned = ptr.To(true)
	}
	// Cluster API v1.14 reads status.ready for machine pools, as it did initialization.provisioned's predecessor.
	pool.Status.Ready = ptr.Deref(pool.Status.Initialization.Provisioned, false)

	facts := s.Facts(err)
	if n := len(s.replicas); s.Deleting != "" && n > 0 {
		facts.Deleting = fmt.Sprintf("%d instances before the scale set", n)
	}
	if instances.Type != "" && instances.Status != metav1.ConditionTrue {
		facts.Pending = lifecycle.Wait{Reason: instances.Reason, Message: instances.Message}
	}
	lifecycle.SetConditions(pool, facts)
	if s.taken != nil {
		conditions.Set(pool, takeover.Condition(s.capzDifferences))
	}
}

// setFlexibleInstances reports the instances of a Flexible pool: status.instances, providerIDList (the VMs of
// the instances that are not being deleted, once created), status.replicas (their number), and the
// InstancesReady condition.
func setFlexibleInstances(pool *infrav1exp.AzureMachinePool, desired int32, version string, replicas []infrav1exp.AzureMachinePoolMachine) metav1.Condition {
	pool.Status.Instances = nil
	var ids []string
	ready, current := 0, 0
	var notReady *infrav1exp.AzureMachinePoolMachine
	sorted := append([]infrav1exp.AzureMachinePoolMachine(nil), replicas...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for i := range sorted {
		m := &sorted[i]
		if !m.DeletionTimestamp.IsZero() {
			continue
		}
		upToDate := m.Spec.Model != nil && m.Spec.Model.UpToDate(pool, version)
		instance := infrav1exp.AzureMachinePoolInstanceStatus{
			ProviderID: m.Spec.ProviderID, InstanceName: m.Status.InstanceName, ProvisioningState: m.Status.ProvisioningState,
			LatestModelApplied: upToDate,
		}
		if m.Spec.Model != nil {
			instance.Version = m.Spec.Model.Version
		}
		pool.Status.Instances = append(pool.Status.Instances, instance)
		if ptr.Deref(m.Status.Initialization.Provisioned, false) {
			ids = append(ids, m.Spec.ProviderID)
		}
		switch {
		case !conditions.IsTrue(m, clusterv1.ReadyCondition):
			if notReady == nil {
				notReady = m
			}
		case upToDate:
			current++
			ready++
		default:
			ready++
		}
	}
	sort.Strings(ids)
	pool.Spec.ProviderIDList = ids
	pool.Status.Replicas = int32(len(ids))
	active := len(pool.Status.Instances)
	c := metav1.Condition{Type: InstancesReadyCondition, Status: metav1.ConditionFalse}
	switch {
	case notReady != nil:
		c.Reason, c.Message = infrav1.ProvisioningReason, fmt.Sprintf("AzureMachinePoolMachine %s is not ready", notReady.Name)
		if ready := conditions.Get(notReady, clusterv1.ReadyCondition); ready != nil {
			c.Reason, c.Message = ready.Reason, fmt.Sprintf("AzureMachinePoolMachine %s: %s", notReady.Name, ready.Message)
		}
	case current < active:
		c.Reason, c.Message = RollingOutReason, fmt.Sprintf("%d of %d instances run the current model", current, active)
	case int32(active) != desired:
		c.Reason, c.Message = ScalingReason, fmt.Sprintf("%d of %d instances", active, desired)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	return c
}

// setUniformInstances reports the instances of a Uniform pool from the scale set's Nodes: status.instances,
// providerIDList, status.replicas (the capacity Azure reports), and the InstancesReady condition.
func setUniformInstances(pool *infrav1exp.AzureMachinePool, desired, capacity int32, nodes []nodeInfo, watermark int) metav1.Condition {
	pool.Status.Instances = nil
	ids := make([]string, 0, len(nodes))
	outdated := 0
	for _, n := range nodes {
		upToDate := n.instanceID > watermark
		if !upToDate {
			outdated++
		}
		ids = append(ids, n.providerID)
		pool.Status.Instances = append(pool.Status.Instances, infrav1exp.AzureMachinePoolInstanceStatus{
			ProviderID: n.providerID, InstanceID: fmt.Sprint(n.instanceID), LatestModelApplied: upToDate,
		})
	}
	sort.Strings(ids)
	pool.Spec.ProviderIDList = ids
	pool.Status.Replicas = capacity
	c := metav1.Condition{Type: InstancesReadyCondition, Status: metav1.ConditionFalse}
	switch {
	case outdated > 0:
		c.Reason, c.Message = RollingOutReason, fmt.Sprintf("%d of %d instances run an older model", outdated, len(nodes))
	case capacity != desired:
		c.Reason, c.Message = ScalingReason, fmt.Sprintf("the scale set has %d of %d instances", capacity, desired)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	return c
}
