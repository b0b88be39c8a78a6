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

package azurecluster

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// familyConditions are the per-family conditions the engine reports for a cluster's resources.
var familyConditions = []string{
	"ResourceGroupReady", "VNetReady", "SubnetsReady", "SecurityGroupsReady", "RouteTablesReady", "NATGatewaysReady",
	"PublicIPsReady", "LoadBalancersReady", "BastionHostReady", "PrivateDNSReady", "PrivateEndpointsReady", "VNetPeeringsReady",
}

// WaitingForControlPlaneEndpointReason means the control plane endpoint is not known yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// ownedConditions are the conditions this controller writes, so that the patch helper resolves conflicts in its favour.
func ownedConditions(_ *scope) []string {
	return append([]string{clusterv1.ReadyCondition, clusterv1.PausedCondition, infrav1.CredentialsReadyCondition,
		infrav1.ResourcesReadyCondition, infrav1.PatchesAppliedCondition}, familyConditions...)
}

// updateStatus turns what the phases learned into the AzureCluster's status and conditions.
func updateStatus(s *scope) {
	ac := s.azureCluster
	setCredentialsReadyCondition(ac, s)
	setResourceConditions(ac, s)
	setReadyCondition(ac, s)
	if conditions.IsTrue(ac, clusterv1.ReadyCondition) {
		ac.Status.Initialization.Provisioned = ptr.To(true)
	}
}

func setCredentialsReadyCondition(ac *infrav1.AzureCluster, s *scope) {
	if s.credentials.Reason == "" {
		return // not resolved in this pass (deleting)
	}
	c := metav1.Condition{Type: infrav1.CredentialsReadyCondition, Status: metav1.ConditionTrue, Reason: s.credentials.Reason}
	if !s.credentials.Ready {
		c.Status, c.Message = metav1.ConditionFalse, s.credentials.Message
	}
	conditions.Set(ac, c)
}

// setResourceConditions sets one condition per resource family, ResourcesReady and PatchesApplied, and removes the
// conditions of families the cluster no longer has.
func setResourceConditions(ac *infrav1.AzureCluster, s *scope) {
	if s.result == nil {
		return
	}
	ac.Status.Resources = s.result.Statuses()
	seen := map[string]bool{}
	for _, c := range s.result.Conditions() {
		conditions.Set(ac, c)
		seen[c.Type] = true
	}
	for _, family := range familyConditions {
		if !seen[family] {
			conditions.Delete(ac, family)
		}
	}
}

// setReadyCondition summarises: deleting, credentials, then resources, then the endpoint.
func setReadyCondition(ac *infrav1.AzureCluster, s *scope) {
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	switch first := firstNotReady(s); {
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the cluster's Azure resources"
		if first != nil {
			ready.Message = fmt.Sprintf("deleting the cluster's Azure resources; %s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
		}
	case s.credentials.Reason != "" && !s.credentials.Ready:
		ready.Reason, ready.Message = s.credentials.Reason, s.credentials.Message
	case s.result == nil:
		return // the pass ended before the resources were reconciled (an error): keep the last condition
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case s.endpointPending != "":
		ready.Reason, ready.Message = WaitingForControlPlaneEndpointReason, s.endpointPending
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(ac, ready)
}

func firstNotReady(s *scope) *infrav1.ResourceStatus {
	if s.result == nil {
		return nil
	}
	return s.result.FirstNotReady()
}
