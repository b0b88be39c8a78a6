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

package v1beta1

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedcluster,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedclusters,versions=v1beta1,name=validation.azuremanagedcluster.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedClusterWebhookWithManager registers the validating webhook of AzureManagedCluster. It has no
// defaulting webhook: an AzureManagedCluster has nothing to default.
func SetupAzureManagedClusterWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedCluster{}).WithValidator(azureManagedClusterWebhook{}).Complete()
}

type azureManagedClusterWebhook struct{}

// ValidateCreate validates a new AzureManagedCluster.
func (azureManagedClusterWebhook) ValidateCreate(_ context.Context, c *AzureManagedCluster) (admission.Warnings, error) {
	return nil, Invalid("AzureManagedCluster", c.Name, ValidateImplementedFields("AzureManagedCluster", &c.Spec))
}

// ValidateUpdate validates a changed AzureManagedCluster: its control plane endpoint is set once.
func (azureManagedClusterWebhook) ValidateUpdate(_ context.Context, old, c *AzureManagedCluster) (admission.Warnings, error) {
	if !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := ValidateImplementedFields("AzureManagedCluster", &c.Spec)
	if old.Spec.ControlPlaneEndpoint.IsValid() {
		errs = append(errs, ValidateImmutable(field.NewPath("spec", "controlPlaneEndpoint"), old.Spec.ControlPlaneEndpoint, c.Spec.ControlPlaneEndpoint)...)
	}
	return nil, Invalid("AzureManagedCluster", c.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureManagedClusterWebhook) ValidateDelete(context.Context, *AzureManagedCluster) (admission.Warnings, error) {
	return nil, nil
}
