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

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedclustertemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedclustertemplates,versions=v1beta1,name=validation.azuremanagedclustertemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedClusterTemplateWebhookWithManager registers the validating webhook of
// AzureManagedClusterTemplate. It has no defaulting webhook: the template's spec has no fields.
func SetupAzureManagedClusterTemplateWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedClusterTemplate{}).WithValidator(azureManagedClusterTemplateWebhook{}).Complete()
}

type azureManagedClusterTemplateWebhook struct{}

// ValidateCreate validates a new AzureManagedClusterTemplate.
func (azureManagedClusterTemplateWebhook) ValidateCreate(_ context.Context, t *AzureManagedClusterTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureManagedClusterTemplate", t.Name, ValidateImplementedFields("AzureManagedClusterTemplate", &t.Spec))
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (azureManagedClusterTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureManagedClusterTemplate) (admission.Warnings, error) {
	errs := ValidateImplementedFields("AzureManagedClusterTemplate", &t.Spec)
	errs = append(errs, validateTemplateUpdate(ctx, t, old.Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureManagedClusterTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureManagedClusterTemplateWebhook) ValidateDelete(context.Context, *AzureManagedClusterTemplate) (admission.Warnings, error) {
	return nil, nil
}
