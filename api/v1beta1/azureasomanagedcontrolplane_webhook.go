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
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/mutate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedcontrolplane,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,versions=v1beta1,name=default.azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1
// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedcontrolplane,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,versions=v1beta1,name=validation.azureasomanagedcontrolplane.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedControlPlaneWebhookWithManager registers the defaulting and validating webhooks of
// AzureASOManagedControlPlane.
func SetupAzureASOManagedControlPlaneWebhookWithManager(mgr ctrl.Manager) error {
	w := azureASOManagedControlPlaneWebhook{}
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedControlPlane{}).WithDefaulter(w).WithValidator(w).Complete()
}

type azureASOManagedControlPlaneWebhook struct{}

// managedClusterKind is the ASO kind of an AKS cluster; an AzureASOManagedControlPlane holds exactly one.
var managedClusterKind = schema.GroupKind{Group: containerServiceGroup, Kind: "ManagedCluster"}

// Default writes the version with a leading v, as Cluster API does.
func (azureASOManagedControlPlaneWebhook) Default(_ context.Context, c *AzureASOManagedControlPlane) error {
	c.Spec.setDefaults()
	return nil
}

// ValidateCreate validates a new AzureASOManagedControlPlane.
func (azureASOManagedControlPlaneWebhook) ValidateCreate(_ context.Context, c *AzureASOManagedControlPlane) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedControlPlane", c.Name, c.validate())
}

// ValidateUpdate validates a changed AzureASOManagedControlPlane: its version only moves forward, one minor
// version at a time.
func (azureASOManagedControlPlaneWebhook) ValidateUpdate(_ context.Context, old, c *AzureASOManagedControlPlane) (admission.Warnings, error) {
	if !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	errs := c.validate()
	// status.version is what AKS runs; it is ahead of spec.version only after an automatic upgrade.
	errs = append(errs, validateVersionUpgrade(field.NewPath("spec", "version"), old.Spec.Version, c.Spec.Version, old.Status.Version)...)
	return nil, Invalid("AzureASOManagedControlPlane", c.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureASOManagedControlPlaneWebhook) ValidateDelete(context.Context, *AzureASOManagedControlPlane) (admission.Warnings, error) {
	return nil, nil
}

func (c *AzureASOManagedControlPlane) validate() field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateASOManagedControlPlaneSpec(spec, &c.Spec.AzureASOManagedControlPlaneTemplateResourceSpec, c.Namespace, false)
	return append(errs, ValidateImplementedFields("AzureASOManagedControlPlane", &c.Spec)...)
}

// setDefaults gives the version a leading v; templates share it.
func (s *AzureASOManagedControlPlaneTemplateResourceSpec) setDefaults() {
	if s.Version != "" && !strings.HasPrefix(s.Version, "v") {
		s.Version = "v" + s.Version
	}
}

// validateASOManagedControlPlaneSpec checks what an AzureASOManagedControlPlane shares with its template: a valid
// version and exactly one ManagedCluster among valid resources (at most one in a template, whose ClusterClass
// patches may add it).
func validateASOManagedControlPlaneSpec(path *field.Path, s *AzureASOManagedControlPlaneTemplateResourceSpec, namespace string, template bool) field.ErrorList {
	errs := validateKubernetesVersion(path.Child("version"), s.Version)
	resources, resourceErrs := validateASOResources(path.Child("resources"), s.Resources, namespace)
	errs = append(errs, resourceErrs...)
	if len(resourceErrs) == 0 {
		errs = append(errs, validateOneOfKind(path.Child("resources"), resources, managedClusterKind, "AzureASOManagedControlPlane", template)...)
	}
	return errs
}
