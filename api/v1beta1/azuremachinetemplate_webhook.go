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

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachinetemplate,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachinetemplates,versions=v1beta1,name=default.azuremachinetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachinetemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachinetemplates,versions=v1beta1,name=validation.azuremachinetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureMachineTemplateWebhookWithManager registers the defaulting and validating webhooks of AzureMachineTemplate.
func SetupAzureMachineTemplateWebhookWithManager(mgr ctrl.Manager) error {
	w := azureMachineTemplateWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureMachineTemplate{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureMachineTemplateWebhook struct{}

// Default fills in the machine defaults that do not depend on a machine's name; the SSH key and role assignment
// name are defaulted on each AzureMachine.
func (azureMachineTemplateWebhook) Default(_ context.Context, t *AzureMachineTemplate) error {
	t.Spec.Template.Spec.setDefaults()
	return nil
}

// ValidateCreate validates a new AzureMachineTemplate.
func (azureMachineTemplateWebhook) ValidateCreate(_ context.Context, t *AzureMachineTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureMachineTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (w azureMachineTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureMachineTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, defaultedOld(ctx, w, old).Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureMachineTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureMachineTemplateWebhook) ValidateDelete(context.Context, *AzureMachineTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureMachineTemplate) validate() field.ErrorList {
	path := field.NewPath("spec", "template", "spec")
	errs := validateAzureMachineSpec(path, &t.Spec.Template.Spec)
	if ptrValue(t.Spec.Template.Spec.ProviderID) != "" {
		errs = append(errs, field.Forbidden(path.Child("providerID"), "each machine gets its own provider ID; a template cannot set one"))
	}
	if t.Spec.Template.Spec.SystemAssignedIdentityRole != nil && t.Spec.Template.Spec.SystemAssignedIdentityRole.Name != "" {
		errs = append(errs, field.Forbidden(path.Child("systemAssignedIdentityRole", "name"), "each machine needs its own role assignment name; leave it empty to have one derived per machine"))
	}
	return append(errs, ValidateImplementedFields("AzureMachineTemplate", t.Spec)...)
}
