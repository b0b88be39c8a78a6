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

package azuremanagedcontrolplane

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
)

const (
	// KubeconfigReadyCondition is True once Cluster API's kubeconfig secret is written from the one ASO writes.
	KubeconfigReadyCondition = "KubeconfigReady"
	// LocalAccountsDisabledReason means AKS has no admin kubeconfig (spec.disableLocalAccounts) for Cluster API.
	LocalAccountsDisabledReason = "LocalAccountsDisabled"
	// WaitingForMachinePoolsReason means AKS cannot create the cluster yet: it has no pool of mode System.
	WaitingForMachinePoolsReason = "WaitingForMachinePools"
)

// familyConditions are the conditions of the control plane's resource families.
var familyConditions = []string{
	aks.FamilyResourceGroup + "Ready", aks.FamilyVNet + "Ready", aks.FamilySubnets + "Ready",
	aks.FamilyPrivateEndpoints + "Ready", aks.FamilyManagedCluster + "Ready",
}

// ownedConditions are the conditions this controller owns on the AzureManagedControlPlane, for the patch helper.
func ownedConditions() []string {
	return append([]string{clusterv1.ReadyCondition, clusterv1.PausedCondition, infrav1.CredentialsReadyCondition,
		infrav1.ResourcesReadyCondition, infrav1.PatchesAppliedCondition, KubeconfigReadyCondition}, familyConditions...)
}

// updateStatus turns what the phases learned into conditions, status.initialization and externalManagedControlPlane.
func updateStatus(s *scope) {
	cp := s.controlPlane
	cp.Status.ExternalManagedControlPlane = ptr.To(true)
	if s.credentials.Reason != "" {
		c := metav1.Condition{Type: infrav1.CredentialsReadyCondition, Status: metav1.ConditionTrue, Reason: s.credentials.Reason}
		if !s.credentials.Ready {
			c.Status, c.Message = metav1.ConditionFalse, s.credentials.Message
		}
		conditions.Set(cp, c)
	}
	var first *infrav1.ResourceStatus
	if s.result != nil {
		cp.Status.Resources = s.result.Statuses()
		seen := map[string]bool{}
		for _, c := range s.result.Conditions() {
			conditions.Set(cp, c)
			seen[c.Type] = true
		}
		for _, family := range familyConditions {
			if !seen[family] {
				conditions.Delete(cp, family)
			}
		}
		first = s.result.FirstNotReady()
	}

	kubeconfig := metav1.Condition{Type: KubeconfigReadyCondition, Status: metav1.ConditionFalse, Reason: infrav1.ProvisioningReason,
		Message: "waiting for ASO to write the AKS cluster's kubeconfig"}
	switch {
	case s.localAccountsDisabled:
		kubeconfig.Reason = LocalAccountsDisabledReason
		kubeconfig.Message = "spec.disableLocalAccounts: AKS has no admin kubeconfig; Cluster API's kubeconfig secret holds the Microsoft Entra ID " +
			"user kubeconfig, which needs an exec credential plugin (kubelogin) and a token the provider does not mint, so " +
			"Cluster API's controllers cannot reach the cluster with it"
		if !s.kubeconfigWritten {
			kubeconfig.Message = "waiting for ASO to write the Microsoft Entra ID user kubeconfig; " + kubeconfig.Message
		}
	case s.kubeconfigWritten:
		kubeconfig.Status, kubeconfig.Reason, kubeconfig.Message = metav1.ConditionTrue, infrav1.ReadyReason, ""
	}
	if !s.deleting && s.result != nil {
		conditions.Set(cp, kubeconfig)
	}

	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	switch {
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the control plane's Azure resources"
		if first != nil {
			ready.Message += fmt.Sprintf("; %s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
		}
	case s.credentials.Reason != "" && !s.credentials.Ready:
		ready.Reason, ready.Message = s.credentials.Reason, s.credentials.Message
	case s.waiting != "":
		ready.Reason, ready.Message = s.waitingReason, s.waiting
	case s.result == nil:
		return // the pass ended before the resources were reconciled (an error): keep the last condition
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case !s.kubeconfigWritten:
		ready.Reason, ready.Message = kubeconfig.Reason, kubeconfig.Message
	// With local accounts disabled the AKS cluster is ready although Cluster API cannot reach it: KubeconfigReady
	// says why.
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(cp, ready)
	if ready.Status == metav1.ConditionTrue {
		cp.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	}
}
