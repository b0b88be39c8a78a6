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

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedclustertemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclustertemplates,versions=v1beta1,name=validation.azureasomanagedclustertemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedClusterTemplateWebhookWithManager registers the validating webhook of
// AzureASOManagedClusterTemplate.
func SetupAzureASOManagedClusterTemplateWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedClusterTemplate{}).WithValidator(azureASOManagedClusterTemplateWebhook{}).Complete()
}

type azureASOManagedClusterTemplateWebhook struct{}

// ValidateCreate validates a new AzureASOManagedClusterTemplate.
func (azureASOManagedClusterTemplateWebhook) ValidateCreate(_ context.Context, t *AzureASOManagedClusterTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedClusterTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (azureASOManagedClusterTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureASOManagedClusterTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, old.Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureASOManagedClusterTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureASOManagedClusterTemplateWebhook) ValidateDelete(context.Context, *AzureASOManagedClusterTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureASOManagedClusterTemplate) validate() field.ErrorList {
	_, errs := validateASOResources(field.NewPath("spec", "template", "spec", "resources"), t.Spec.Template.Spec.Resources, t.Namespace)
	return append(errs, ValidateImplementedFields("AzureASOManagedClusterTemplate", &t.Spec)...)
}
