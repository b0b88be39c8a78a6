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
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureclusteridentity,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureclusteridentities,versions=v1beta1,name=validation.azureclusteridentity.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureClusterIdentityWebhookWithManager registers the validating webhook of AzureClusterIdentity.
func SetupAzureClusterIdentityWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureClusterIdentity{}).WithValidator(azureClusterIdentityWebhook{}).Complete()
}

type azureClusterIdentityWebhook struct{}

// ValidateCreate validates a new AzureClusterIdentity.
func (azureClusterIdentityWebhook) ValidateCreate(_ context.Context, i *AzureClusterIdentity) (admission.Warnings, error) {
	return i.warnings(), Invalid("AzureClusterIdentity", i.Name, i.validate())
}

// ValidateUpdate validates a changed AzureClusterIdentity; its type cannot change.
func (azureClusterIdentityWebhook) ValidateUpdate(_ context.Context, old, i *AzureClusterIdentity) (admission.Warnings, error) {
	errs := i.validate()
	errs = append(errs, ValidateImmutable(field.NewPath("spec", "type"), old.Spec.Type, i.Spec.Type)...)
	errs = ValidateImplementedFieldsUpdate("AzureClusterIdentity", &old.Spec, &i.Spec, errs)
	return i.warnings(), Invalid("AzureClusterIdentity", i.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureClusterIdentityWebhook) ValidateDelete(context.Context, *AzureClusterIdentity) (admission.Warnings, error) {
	return nil, nil
}

func (i *AzureClusterIdentity) validate() field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateGUID(spec.Child("tenantID"), i.Spec.TenantID)
	errs = append(errs, validateGUID(spec.Child("clientID"), i.Spec.ClientID)...)
	switch i.Spec.Type {
	case ServicePrincipal, ManualServicePrincipal:
		if i.Spec.ClientSecret.Name == "" {
			errs = append(errs, field.Required(spec.Child("clientSecret", "name"), "a Secret holding the client secret under the key clientSecret"))
		}
	case ServicePrincipalCertificate:
		if i.Spec.ClientSecret.Name == "" && i.Spec.CertPath == "" {
			errs = append(errs, field.Required(spec.Child("clientSecret", "name"), "a Secret holding the certificate, or certPath"))
		}
	case UserAssignedIdentityCredential:
		if i.Spec.UserAssignedIdentityCredentialsPath == "" {
			errs = append(errs, field.Required(spec.Child("userAssignedIdentityCredentialsPath"), "the path of the credentials file"))
		}
	}
	if p := i.Spec.CertPath; p != "" && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
		errs = append(errs, field.Invalid(spec.Child("certPath"), p, "must be an absolute path without . or .. elements"))
	}
	if i.Spec.Type != ServicePrincipalCertificate && i.Spec.CertPath != "" {
		errs = append(errs, field.Forbidden(spec.Child("certPath"), "only for type ServicePrincipalCertificate"))
	}
	if i.Spec.Type != UserAssignedIdentityCredential && i.Spec.UserAssignedIdentityCredentialsPath != "" {
		errs = append(errs, field.Forbidden(spec.Child("userAssignedIdentityCredentialsPath"), "only for type UserAssignedIdentityCredential"))
	}
	switch i.Spec.UserAssignedIdentityCredentialsCloudType {
	case "", "public", "usgovernment", "china":
	default:
		errs = append(errs, field.NotSupported(spec.Child("userAssignedIdentityCredentialsCloudType"), i.Spec.UserAssignedIdentityCredentialsCloudType, []string{"public", "usgovernment", "china"}))
	}
	return append(errs, ValidateImplementedFields("AzureClusterIdentity", &i.Spec)...)
}

// warnings tells the user about settings that have no effect.
func (i *AzureClusterIdentity) warnings() admission.Warnings {
	var w admission.Warnings
	if i.Spec.ResourceID != "" {
		w = append(w, "spec.resourceID is deprecated and has no effect")
	}
	if i.Spec.AllowedNamespaces == nil {
		w = append(w, "spec.allowedNamespaces is unset: no namespace may use this identity; set it to {} to allow all")
	}
	return w
}
