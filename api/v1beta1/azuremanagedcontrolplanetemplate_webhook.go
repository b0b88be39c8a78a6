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

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedcontrolplanetemplate,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanetemplates,versions=v1beta1,name=default.azuremanagedcontrolplanetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremanagedcontrolplanetemplate,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanetemplates,versions=v1beta1,name=validation.azuremanagedcontrolplanetemplate.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureManagedControlPlaneTemplateWebhookWithManager registers the defaulting and validating webhooks of
// AzureManagedControlPlaneTemplate.
func SetupAzureManagedControlPlaneTemplateWebhookWithManager(mgr ctrl.Manager) error {
	w := azureManagedControlPlaneTemplateWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureManagedControlPlaneTemplate{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureManagedControlPlaneTemplateWebhook struct{}

// Default fills in the defaults that do not depend on a control plane's name, and the subnet's name: the
// template's, as CAPZ's template webhook names it, so that every cluster of a ClusterClass gets the subnet CAPZ would
// give it. The other names (virtual network, DNS prefix, node resource group) are each AzureManagedControlPlane's.
func (azureManagedControlPlaneTemplateWebhook) Default(_ context.Context, t *AzureManagedControlPlaneTemplate) error {
	s := &t.Spec.Template.Spec
	s.setDefaults()
	if s.VirtualNetwork.Subnet.Name == "" {
		s.VirtualNetwork.Subnet.Name = t.Name
	}
	if s.FleetsMember != nil && s.FleetsMember.Group == "" {
		s.FleetsMember.Group = DefaultFleetsMemberGroup
	}
	return nil
}

// ValidateCreate validates a new AzureManagedControlPlaneTemplate.
func (azureManagedControlPlaneTemplateWebhook) ValidateCreate(_ context.Context, t *AzureManagedControlPlaneTemplate) (admission.Warnings, error) {
	return t.warnings(), Invalid("AzureManagedControlPlaneTemplate", t.Name, t.validate())
}

// ValidateUpdate rejects changes to the template spec, except Cluster API topology dry-runs.
func (w azureManagedControlPlaneTemplateWebhook) ValidateUpdate(ctx context.Context, old, t *AzureManagedControlPlaneTemplate) (admission.Warnings, error) {
	errs := t.validate()
	errs = append(errs, validateTemplateUpdate(ctx, t, defaultedOld(ctx, w, old).Spec.Template.Spec, t.Spec.Template.Spec)...)
	errs = ValidateImplementedFieldsUpdate("AzureManagedControlPlaneTemplate", &old.Spec, &t.Spec, errs)
	return t.warnings(), Invalid("AzureManagedControlPlaneTemplate", t.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureManagedControlPlaneTemplateWebhook) ValidateDelete(context.Context, *AzureManagedControlPlaneTemplate) (admission.Warnings, error) {
	return nil, nil
}

func (t *AzureManagedControlPlaneTemplate) validate() field.ErrorList {
	path := field.NewPath("spec", "template", "spec")
	s := &t.Spec.Template.Spec
	errs := validateManagedControlPlaneClassSpec(path, &s.AzureManagedControlPlaneClassSpec)
	if s.FleetsMember != nil {
		errs = append(errs, validateFleetsMemberClass(path.Child("fleetsMember"), s.FleetsMember)...)
	}
	return append(errs, ValidateImplementedFields("AzureManagedControlPlaneTemplate", &t.Spec)...)
}

func (t *AzureManagedControlPlaneTemplate) warnings() admission.Warnings {
	return managedControlPlaneWarnings(field.NewPath("spec", "template", "spec"), &t.Spec.Template.Spec.AzureManagedControlPlaneClassSpec)
}
