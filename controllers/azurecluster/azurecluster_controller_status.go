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
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// families are the resource families the engine reports for a cluster's resources, one <Family>Ready condition each.
var families = []string{
	"ResourceGroup", "VNet", "Subnets", "SecurityGroups", "RouteTables", "NATGateways",
	"PublicIPs", "LoadBalancers", "BastionHost", "PrivateDNS", "PrivateEndpoints", "VNetPeerings", "AvailabilitySets",
}

// WaitingForControlPlaneEndpointReason means the control plane endpoint is not known yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// updateStatus turns what the phases learned, and the pass's error, into the AzureCluster's conditions and
// status.initialization; it returns the conditions it owns.
func updateStatus(s *scope, err error) []string {
	ac := s.azureCluster
	facts := lifecycle.Facts{Credentials: &s.credentials, Err: err, Result: s.result, Families: families}
	if s.deleting {
		facts.Deleting = "the cluster's Azure resources"
	}
	if s.endpointPending != "" {
		facts.Pending = lifecycle.Wait{Reason: WaitingForControlPlaneEndpointReason, Message: s.endpointPending}
	}
	owned := lifecycle.SetConditions(ac, facts)
	if conditions.IsTrue(ac, clusterv1.ReadyCondition) {
		ac.Status.Initialization.Provisioned = ptr.To(true)
	}
	return owned
}
