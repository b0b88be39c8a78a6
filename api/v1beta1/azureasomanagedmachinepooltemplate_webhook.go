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

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedmachinepooltemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepooltemplates,versions=v1beta1,name=validation.azureasomanagedmachinepooltemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedMachinePoolTemplateWebhookWithManager registers the validating webhook of
// AzureASOManagedMachinePoolTemplate.
func SetupAzureASOManagedMachinePoolTemplateWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedMachinePoolTemplate{}).WithValidator(azureASOManagedMachinePoolTemplateWebhook{}).Complete()
}

type azureASOManagedMachinePoolTemplateWebhook struct{}

// ValidateCreate validates a new AzureASOManagedMachinePoolTemplate.
func (azureASOManagedMachinePoolTemplateWebhook) ValidateCreate(_ context.Context, t *AzureASOManagedMachinePoolTemplate) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedMachinePoolTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (azureASOManagedMachinePoolTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureASOManagedMachinePoolTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, old.Spec.Template.Spec, t.Spec.Template.Spec)...)
	return nil, Invalid("AzureASOManagedMachinePoolTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureASOManagedMachinePoolTemplateWebhook) ValidateDelete(context.Context, *AzureASOManagedMachinePoolTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureASOManagedMachinePoolTemplate) validate() field.ErrorList {
	path := field.NewPath("spec", "template", "spec")
	s := &t.Spec.Template.Spec
	var errs field.ErrorList
	if s.Version != "" {
		errs = append(errs, field.Forbidden(path.Child("version"),
			"must be empty: the field exists only because CAPZ's schema has it (CAPZ gave this template the control plane "+
				"template's shape); an agent pool's version comes from its MachinePool's spec.template.spec.version"))
	}
	errs = append(errs, validateASOMachinePoolResources(path.Child("resources"), s.Resources, t.Namespace, true)...)
	// version is refused above with the reason; the generic "field not supported yet" would only repeat it.
	for _, err := range ValidateImplementedFields("AzureASOManagedMachinePoolTemplate", &t.Spec) {
		if err.Field != path.Child("version").String() {
			errs = append(errs, err)
		}
	}
	return errs
}
