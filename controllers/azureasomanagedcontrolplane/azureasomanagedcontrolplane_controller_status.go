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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// Conditions and reasons of the control plane.
const (
	// KubeconfigReadyCondition is True once Cluster API's kubeconfig secret is written from ASO's.
	KubeconfigReadyCondition = "KubeconfigReady"
	// WaitingForMachinePoolsReason means the managed cluster waits for its system pool.
	WaitingForMachinePoolsReason = "WaitingForMachinePools"
)

// updateStatus turns what the phases learned, and the pass's error, into the control plane's status and
// conditions.
func updateStatus(s *scope, err error) {
	cp := s.controlPlane
	cp.Status.ExternalManagedControlPlane = ptr.To(true)
	kubeconfig := metav1.Condition{Type: KubeconfigReadyCondition, Status: metav1.ConditionFalse, Reason: infrav1.ProvisioningReason,
		Message: "waiting for ASO to write the managed cluster's kubeconfig"}
	switch {
	case s.kubeconfigWritten:
		kubeconfig.Status, kubeconfig.Reason, kubeconfig.Message = metav1.ConditionTrue, infrav1.ReadyReason, ""
	case s.kubeconfigMissing != "":
		kubeconfig.Reason, kubeconfig.Message = "NoKubeconfig", s.kubeconfigMissing
	}
	if s.Deleting == "" && s.Result != nil {
		conditions.Set(cp, kubeconfig)
	}

	facts := s.Facts(err)
	if !s.kubeconfigWritten {
		facts.Pending = lifecycle.Wait{Reason: kubeconfig.Reason, Message: kubeconfig.Message}
	}
	lifecycle.SetConditions(cp, facts)
	if conditions.IsTrue(cp, clusterv1.ReadyCondition) {
		cp.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	}
}
