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

package lifecycle

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/event"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

func TestIgnoreStatusOnlyUpdates(t *testing.T) {
	old := &infrav1.AzureMachine{ObjectMeta: metav1.ObjectMeta{
		Name: "m", ResourceVersion: "1", Generation: 1,
		Labels: map[string]string{"a": "b"}, Finalizers: []string{infrav1.MachineFinalizer},
	}}
	withReady := func(status metav1.ConditionStatus) *infrav1.AzureMachine {
		m := old.DeepCopy()
		conditions.Set(m, metav1.Condition{Type: clusterv1.ReadyCondition, Status: status, Reason: "Reason"})
		return m
	}
	ready, notReady := withReady(metav1.ConditionTrue), withReady(metav1.ConditionFalse)
	tests := []struct {
		name   string
		change func(m *infrav1.AzureMachine)
		// old is the object before, when not the plain one.
		old  *infrav1.AzureMachine
		want bool
	}{
		{name: "a resync (same resourceVersion)", change: func(*infrav1.AzureMachine) {}, want: true},
		{name: "status only", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion = "2"
			conditions.Set(m, metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready"})
		}, want: false},
		{name: "status only, Ready stays True", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion = "2"
			conditions.Set(m, metav1.Condition{Type: infrav1.ResourcesReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready"})
		}, old: ready, want: false},
		{name: "status only, Ready True to False (a status the cache missed)", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion = "2"
			conditions.Set(m, metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse, Reason: "Provisioning"})
		}, old: ready, want: true},
		{name: "status only, Ready False to True", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion = "2"
			conditions.Set(m, metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready"})
		}, old: notReady, want: false},
		{name: "spec (the generation moves)", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion, m.Generation = "2", 2
		}, want: true},
		{name: "a label", change: func(m *infrav1.AzureMachine) { m.ResourceVersion, m.Labels = "2", map[string]string{"a": "c"} }, want: true},
		{name: "an annotation", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion, m.Annotations = "2", map[string]string{clusterv1.PausedAnnotation: ""}
		}, want: true},
		{name: "the finalizers", change: func(m *infrav1.AzureMachine) { m.ResourceVersion, m.Finalizers = "2", nil }, want: true},
		{name: "an owner", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion = "2"
			m.OwnerReferences = []metav1.OwnerReference{{Kind: "Machine", Name: "m"}}
		}, want: true},
		{name: "the deletion", change: func(m *infrav1.AzureMachine) {
			m.ResourceVersion, m.DeletionTimestamp = "2", ptr.To(metav1.Now())
		}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			before := old
			if tt.old != nil {
				before = tt.old
			}
			changed := before.DeepCopy()
			tt.change(changed)
			g.Expect(IgnoreStatusOnlyUpdates().Update(event.UpdateEvent{ObjectOld: before, ObjectNew: changed})).To(Equal(tt.want))
		})
	}
}
