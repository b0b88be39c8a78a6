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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// instance is an AzureMachinePoolMachine of pool, of its current model unless outdated.
func instance(pool *infrav1exp.AzureMachinePool, name string, provisioned, ready, outdated, deleting bool) infrav1exp.AzureMachinePoolMachine {
	model := pool.Model("v1.34.1", "")
	if outdated {
		model.Template.VMSize = "Standard_Old"
	}
	m := infrav1exp.AzureMachinePoolMachine{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       infrav1exp.AzureMachinePoolMachineSpec{ProviderID: "azure:///vms/" + name, Model: &model},
	}
	if provisioned {
		m.Status.Initialization.Provisioned = ptr.To(true)
	}
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	conditions.Set(&m, metav1.Condition{Type: clusterv1.ReadyCondition, Status: status, Reason: "R", Message: "m"})
	if deleting {
		m.DeletionTimestamp = ptr.To(metav1.Now())
	}
	return m
}

func TestSetFlexibleInstances(t *testing.T) {
	pool := &infrav1exp.AzureMachinePool{Spec: infrav1exp.AzureMachinePoolSpec{Template: infrav1exp.AzureMachinePoolMachineTemplate{VMSize: "Standard_D2s_v3"}}}
	tests := []struct {
		name        string
		desired     int32
		replicas    []infrav1exp.AzureMachinePoolMachine
		wantIDs     []string
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
	}{
		{name: "empty", desired: 0, wantStatus: metav1.ConditionTrue, wantReason: infrav1.ReadyReason},
		{
			name: "ready", desired: 2,
			replicas:   []infrav1exp.AzureMachinePoolMachine{instance(pool, "b", true, true, false, false), instance(pool, "a", true, true, false, false)},
			wantIDs:    []string{"azure:///vms/a", "azure:///vms/b"},
			wantStatus: metav1.ConditionTrue, wantReason: infrav1.ReadyReason,
		},
		{
			name: "an instance not ready: its reason and message", desired: 2,
			replicas:   []infrav1exp.AzureMachinePoolMachine{instance(pool, "a", true, true, false, false), instance(pool, "b", false, false, false, false)},
			wantIDs:    []string{"azure:///vms/a"},
			wantStatus: metav1.ConditionFalse, wantReason: "R", wantMessage: "AzureMachinePoolMachine b: m",
		},
		{
			name: "rolling out", desired: 2,
			replicas:   []infrav1exp.AzureMachinePoolMachine{instance(pool, "a", true, true, true, false), instance(pool, "b", true, true, false, false)},
			wantIDs:    []string{"azure:///vms/a", "azure:///vms/b"},
			wantStatus: metav1.ConditionFalse, wantReason: RollingOutReason, wantMessage: "1 of 2 instances run the current model",
		},
		{
			name: "scaling down: deleting instances are no longer listed", desired: 1,
			replicas:   []infrav1exp.AzureMachinePoolMachine{instance(pool, "a", true, true, false, false), instance(pool, "b", true, true, false, true)},
			wantIDs:    []string{"azure:///vms/a"},
			wantStatus: metav1.ConditionTrue, wantReason: infrav1.ReadyReason,
		},
		{
			name: "scaling up", desired: 3,
			replicas:   []infrav1exp.AzureMachinePoolMachine{instance(pool, "a", true, true, false, false)},
			wantIDs:    []string{"azure:///vms/a"},
			wantStatus: metav1.ConditionFalse, wantReason: ScalingReason, wantMessage: "1 of 3 instances",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p := pool.DeepCopy()
			c := setFlexibleInstances(p, tc.desired, "v1.34.1", tc.replicas)
			g.Expect(p.Spec.ProviderIDList).To(Equal(tc.wantIDs))
			g.Expect(p.Status.Replicas).To(Equal(int32(len(tc.wantIDs))))
			g.Expect(c.Status).To(Equal(tc.wantStatus))
			g.Expect(c.Reason).To(Equal(tc.wantReason))
			g.Expect(c.Message).To(Equal(tc.wantMessage))
		})
	}
}

func TestSetUniformInstances(t *testing.T) {
	g := NewWithT(t)
	pool := &infrav1exp.AzureMachinePool{}
	nodes := []nodeInfo{{providerID: "azure:///vmss/virtualMachines/3", instanceID: 3, ready: true}, {providerID: "azure:///vmss/virtualMachines/1", instanceID: 1}}
	c := setUniformInstances(pool, 2, 2, nodes, 1)
	g.Expect(pool.Spec.ProviderIDList).To(Equal([]string{"azure:///vmss/virtualMachines/1", "azure:///vmss/virtualMachines/3"}))
	g.Expect(pool.Status.Replicas).To(Equal(int32(2)))
	g.Expect(c.Reason).To(Equal(RollingOutReason))
	g.Expect(pool.Status.Instances).To(ConsistOf(
		HaveField("LatestModelApplied", true), HaveField("LatestModelApplied", false)))

	c = setUniformInstances(pool, 3, 2, nodes, 0)
	g.Expect(c.Reason).To(Equal(ScalingReason))
	c = setUniformInstances(pool, 2, 2, nodes, 0)
	g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "Nodes that are not ready are the workload cluster's business")
}
