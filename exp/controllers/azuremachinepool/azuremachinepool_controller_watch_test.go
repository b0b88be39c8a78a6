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
	"sigs.k8s.io/controller-runtime/pkg/event"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// TestSpecOrCredentialsChanged: the pool hears of its AzureCluster's spec changes and CredentialsReady
// transitions, not of the rest of its status.
func TestSpecOrCredentialsChanged(t *testing.T) {
	g := NewWithT(t)
	cluster := func(generation int64, credentials metav1.ConditionStatus, reason string, other ...metav1.Condition) *infrav1.AzureCluster {
		ac := &infrav1.AzureCluster{ObjectMeta: metav1.ObjectMeta{Generation: generation}}
		ac.Status.Conditions = append(ac.Status.Conditions, other...)
		ac.Status.Conditions = append(ac.Status.Conditions, metav1.Condition{Type: infrav1.CredentialsReadyCondition, Status: credentials, Reason: reason})
		return ac
	}
	p := specOrCredentialsChanged()
	update := func(old, updated *infrav1.AzureCluster) bool {
		return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: updated})
	}
	ready := cluster(1, metav1.ConditionTrue, "CredentialsReady")
	g.Expect(update(ready, cluster(2, metav1.ConditionTrue, "CredentialsReady"))).To(BeTrue(), "a spec change")
	g.Expect(update(ready, cluster(1, metav1.ConditionFalse, infrav1.NamespaceNotAllowedReason))).To(BeTrue(), "a revocation")
	g.Expect(update(ready, cluster(1, metav1.ConditionTrue, "CredentialsReady",
		metav1.Condition{Type: "LoadBalancersReady", Status: metav1.ConditionFalse}))).To(BeFalse(), "another condition")
	g.Expect(p.Create(event.CreateEvent{Object: ready})).To(BeFalse())
}
