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

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedmachinepooltemplate,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepooltemplates,versions=v1beta1,name=default.azuremanagedmachinepooltemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedmachinepooltemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedmachinepooltemplates,versions=v1beta1,name=validation.azuremanagedmachinepooltemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedMachinePoolTemplateWebhookWithManager registers the defaulting and validating webhooks of
// AzureManagedMachinePoolTemplate.
func SetupAzureManagedMachinePoolTemplateWebhookWithManager(mgr ctrl.Manager) error {
	w := azureManagedMachinePoolTemplateWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedMachinePoolTemplate{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureManagedMachinePoolTemplateWebhook struct{}

// Default fills in the defaults that do not depend on a machine pool's name; the agent pool name is defaulted on
// each AzureManagedMachinePool.
func (azureManagedMachinePoolTemplateWebhook) Default(_ context.Context, t *AzureManagedMachinePoolTemplate) error {
	t.Spec.Template.Spec.setDefaults()
	return nil
}

// ValidateCreate validates a new AzureManagedMachinePoolTemplate.
func (azureManagedMachinePoolTemplateWebhook) ValidateCreate(_ context.Context, t *AzureManagedMachinePoolTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureManagedMachinePoolTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (w azureManagedMachinePoolTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureManagedMachinePoolTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, defaultedOld(ctx, w, old).Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureManagedMachinePoolTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureManagedMachinePoolTemplateWebhook) ValidateDelete(context.Context, *AzureManagedMachinePoolTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureManagedMachinePoolTemplate) validate() field.ErrorList {
	path := field.NewPath("spec", "template", "spec")
	errs := validateManagedMachinePoolClassSpec(path, &t.Spec.Template.Spec.AzureManagedMachinePoolClassSpec)
	return append(errs, ValidateImplementedFields("AzureManagedMachinePoolTemplate", &t.Spec)...)
}
