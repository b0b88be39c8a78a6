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

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedcontrolplanetemplate,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanetemplates,versions=v1beta1,name=default.azureasomanagedcontrolplanetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedcontrolplanetemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanetemplates,versions=v1beta1,name=validation.azureasomanagedcontrolplanetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedControlPlaneTemplateWebhookWithManager registers the defaulting and validating webhooks of
// AzureASOManagedControlPlaneTemplate.
func SetupAzureASOManagedControlPlaneTemplateWebhookWithManager(mgr ctrl.Manager) error {
	w := azureASOManagedControlPlaneTemplateWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedControlPlaneTemplate{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureASOManagedControlPlaneTemplateWebhook struct{}

// Default writes the version with a leading v.
func (azureASOManagedControlPlaneTemplateWebhook) Default(_ context.Context, t *AzureASOManagedControlPlaneTemplate) error {
	t.Spec.Template.Spec.setDefaults()
	return nil
}

// ValidateCreate validates a new AzureASOManagedControlPlaneTemplate.
func (azureASOManagedControlPlaneTemplateWebhook) ValidateCreate(_ context.Context, t *AzureASOManagedControlPlaneTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedControlPlaneTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (w azureASOManagedControlPlaneTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureASOManagedControlPlaneTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, defaultedOld(ctx, w, old).Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureASOManagedControlPlaneTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureASOManagedControlPlaneTemplateWebhook) ValidateDelete(context.Context, *AzureASOManagedControlPlaneTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureASOManagedControlPlaneTemplate) validate() field.ErrorList {
	errs := validateASOManagedControlPlaneSpec(field.NewPath("spec", "template", "spec"), &t.Spec.Template.Spec, t.Namespace, true)
	return append(errs, ValidateImplementedFields("AzureASOManagedControlPlaneTemplate", &t.Spec)...)
}
