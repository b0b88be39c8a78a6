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
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
)

func TestSetConditions_Ready(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Group: "network.azure.com", Resource: "natgateways"}, "natgw",
		errors.New(`admission webhook "validate.natgateway" denied the request: updating 'spec.azureName' is not allowed`))
	notAllowed := &aso.Credentials{Reason: infrav1.NamespaceNotAllowedReason, Message: "namespace not allowed"}
	tests := []struct {
		name        string
		facts       Facts
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
		wantKept    bool
	}{
		{name: "deleting wins", facts: Facts{Deleting: "the cluster's Azure resources", Err: denied, Credentials: notAllowed},
			wantStatus: metav1.ConditionFalse, wantReason: infrav1.DeletingReason, wantMessage: "deleting the cluster's Azure resources; " + denied.Error()},
		{name: "credentials that cannot be used", facts: Facts{Credentials: notAllowed, Err: denied},
			wantStatus: metav1.ConditionFalse, wantReason: infrav1.NamespaceNotAllowedReason, wantMessage: "namespace not allowed"},
		{name: "the pass's error shows the API's reason and message", facts: Facts{Err: denied, Result: &aso.Result{}, Waiting: Wait{Reason: "W", Message: "waiting"}},
			wantStatus: metav1.ConditionFalse, wantReason: "Forbidden", wantMessage: denied.Error()},
		{name: "an error without an API status", facts: Facts{Err: fmt.Errorf("failed to get Secret ns/s: %w", errors.New("connection reset"))},
			wantStatus: metav1.ConditionFalse, wantReason: infrav1.APIErrorReason, wantMessage: "failed to get Secret ns/s: connection reset"},
		{name: "waiting", facts: Facts{Waiting: Wait{Reason: "WaitingForX", Message: "waiting for x"}},
			wantStatus: metav1.ConditionFalse, wantReason: "WaitingForX", wantMessage: "waiting for x"},
		{name: "nothing learned keeps Ready", facts: Facts{}, wantKept: true},
		{name: "pending after the resources", facts: Facts{Result: &aso.Result{}, Pending: Wait{Reason: "WaitingForEndpoint", Message: "no endpoint yet"}},
			wantStatus: metav1.ConditionFalse, wantReason: "WaitingForEndpoint", wantMessage: "no endpoint yet"},
		{name: "ready", facts: Facts{Result: &aso.Result{}, Credentials: &aso.Credentials{Ready: true, Reason: aso.CredentialsReadyReason}},
			wantStatus: metav1.ConditionTrue, wantReason: infrav1.ReadyReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &infrav1.AzureCluster{}
			previous := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionUnknown, Reason: "Previous"}
			conditions.Set(obj, previous)
			SetConditions(obj, tt.facts)
			ready := conditions.Get(obj, clusterv1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			if tt.wantKept {
				g.Expect(ready.Reason).To(Equal("Previous"))
				return
			}
			g.Expect(ready.Status).To(Equal(tt.wantStatus))
			g.Expect(ready.Reason).To(Equal(tt.wantReason))
			g.Expect(ready.Message).To(Equal(tt.wantMessage))
		})
	}
}

func TestSetConditions_FamiliesAndCredentials(t *testing.T) {
	g := NewWithT(t)
	obj := &infrav1.AzureCluster{}
	conditions.Set(obj, metav1.Condition{Type: "BastionHostReady", Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason})
	conditions.Set(obj, metav1.Condition{Type: "OtherReady", Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason})
	obj.Status.Resources = []infrav1.ResourceStatus{{Resource: infrav1.StatusResource{Kind: "BastionHost", Name: "old"}}}

	SetConditions(obj, Facts{
		Result:      &aso.Result{},
		Credentials: &aso.Credentials{Reason: infrav1.NamespaceNotAllowedReason, Message: "not allowed"},
	})
	g.Expect(conditions.Get(obj, azure.FamilyCondition(network.FamilyBastionHost))).To(BeNil(), "a family the result no longer reports is removed")
	g.Expect(conditions.Get(obj, "OtherReady")).NotTo(BeNil(), "conditions of other owners stay")
	g.Expect(obj.Status.Resources).To(BeEmpty())
	g.Expect(conditions.Get(obj, infrav1.ResourcesReadyCondition)).To(HaveField("Status", metav1.ConditionTrue))
	g.Expect(conditions.Get(obj, infrav1.CredentialsReadyCondition)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Message", "not allowed")))

	// Without a result (the pass did not reach the resources) the resource conditions stay as they are.
	conditions.Set(obj, metav1.Condition{Type: "VNetReady", Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason})
	SetConditions(obj, Facts{})
	g.Expect(conditions.Get(obj, "VNetReady")).NotTo(BeNil())
}
