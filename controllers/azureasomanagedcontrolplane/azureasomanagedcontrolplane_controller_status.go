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

package azureasomanagedcontrolplane

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// Conditions and reasons of the control plane.
const (
	// KubeconfigReadyCondition is True once Cluster API's kubeconfig secret is written from ASO's.
	KubeconfigReadyCondition = "KubeconfigReady"
	// InvalidResourcesReason means spec.resources cannot be applied as given.
	InvalidResourcesReason = "InvalidResources"
	// WaitingForMachinePoolsReason means the managed cluster waits for its system pool.
	WaitingForMachinePoolsReason = "WaitingForMachinePools"
)

func ownedConditions() []string {
	return []string{clusterv1.ReadyCondition, clusterv1.PausedCondition, infrav1.ResourcesReadyCondition,
		infrav1.PatchesAppliedCondition, managed.ResourcesFamily + "Ready", KubeconfigReadyCondition}
}

// updateStatus turns what the phases learned into the control plane's status and conditions.
func updateStatus(s *scope) {
	cp := s.controlPlane
	cp.Status.ExternalManagedControlPlane = ptr.To(true)
	if s.result != nil {
		cp.Status.Resources = s.result.Statuses()
		for _, c := range s.result.Conditions() {
			conditions.Set(cp, c)
		}
	}
	kubeconfig := metav1.Condition{Type: KubeconfigReadyCondition, Status: metav1.ConditionFalse, Reason: infrav1.ProvisioningReason,
		Message: "waiting for ASO to write the managed cluster's kubeconfig"}
	switch {
	case s.kubeconfigWritten:
		kubeconfig.Status, kubeconfig.Reason, kubeconfig.Message = metav1.ConditionTrue, infrav1.ReadyReason, ""
	case s.kubeconfigMissing != "":
		kubeconfig.Reason, kubeconfig.Message = "NoKubeconfig", s.kubeconfigMissing
	}
	if !s.deleting {
		conditions.Set(cp, kubeconfig)
	}

	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	var first *infrav1.ResourceStatus
	if s.result != nil {
		first = s.result.FirstNotReady()
	}
	switch {
	case s.deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the control plane's Azure resources"
	case s.invalid != "":
		ready.Reason, ready.Message = InvalidResourcesReason, s.invalid
	case s.waiting != "":
		ready.Reason, ready.Message = WaitingForMachinePoolsReason, s.waiting
	case s.result == nil:
		return
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case !s.kubeconfigWritten:
		ready.Reason, ready.Message = kubeconfig.Reason, kubeconfig.Message
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(cp, ready)
	if ready.Status == metav1.ConditionTrue {
		cp.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	}
}
