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

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedcluster,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters,versions=v1beta1,name=validation.azureasomanagedcluster.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedClusterWebhookWithManager registers the validating webhook of AzureASOManagedCluster. It
// has no defaulting webhook: its resources are applied as written.
func SetupAzureASOManagedClusterWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedCluster{}).WithValidator(azureASOManagedClusterWebhook{}).Complete()
}

type azureASOManagedClusterWebhook struct{}

// ValidateCreate validates a new AzureASOManagedCluster.
func (azureASOManagedClusterWebhook) ValidateCreate(_ context.Context, c *AzureASOManagedCluster) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedCluster", c.Name, c.validate())
}

// ValidateUpdate validates a changed AzureASOManagedCluster; its control plane endpoint is set once.
func (azureASOManagedClusterWebhook) ValidateUpdate(_ context.Context, old, c *AzureASOManagedCluster) (admission.Warnings, error) {
	if !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := c.validate()
	if old.Spec.ControlPlaneEndpoint.IsValid() {
		errs = append(errs, ValidateImmutable(field.NewPath("spec", "controlPlaneEndpoint"), old.Spec.ControlPlaneEndpoint, c.Spec.ControlPlaneEndpoint)...)
	}
	return nil, Invalid("AzureASOManagedCluster", c.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureASOManagedClusterWebhook) ValidateDelete(context.Context, *AzureASOManagedCluster) (admission.Warnings, error) {
	return nil, nil
}

func (c *AzureASOManagedCluster) validate() field.ErrorList {
	_, errs := validateASOResources(field.NewPath("spec", "resources"), c.Spec.Resources, c.Namespace)
	return append(errs, ValidateImplementedFields("AzureASOManagedCluster", &c.Spec)...)
}
