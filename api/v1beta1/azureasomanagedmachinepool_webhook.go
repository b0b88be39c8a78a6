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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azureasomanagedmachinepool,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools,versions=v1beta1,name=validation.azureasomanagedmachinepool.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureASOManagedMachinePoolWebhookWithManager registers the validating webhook of
// AzureASOManagedMachinePool. It has no defaulting webhook: its resources are applied as written.
func SetupAzureASOManagedMachinePoolWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureASOManagedMachinePool{}).WithValidator(azureASOManagedMachinePoolWebhook{}).Complete()
}

type azureASOManagedMachinePoolWebhook struct{}

// agentPoolKind is the ASO kind of an AKS agent pool; an AzureASOManagedMachinePool holds exactly one.
var agentPoolKind = schema.GroupKind{Group: containerServiceGroup, Kind: "ManagedClustersAgentPool"}

// ValidateCreate validates a new AzureASOManagedMachinePool.
func (azureASOManagedMachinePoolWebhook) ValidateCreate(_ context.Context, p *AzureASOManagedMachinePool) (admission.Warnings, error) {
	return nil, Invalid("AzureASOManagedMachinePool", p.Name, p.validate())
}

// ValidateUpdate validates a changed AzureASOManagedMachinePool.
func (azureASOManagedMachinePoolWebhook) ValidateUpdate(_ context.Context, _, p *AzureASOManagedMachinePool) (admission.Warnings, error) {
	if !p.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	return nil, Invalid("AzureASOManagedMachinePool", p.Name, p.validate())
}

// ValidateDelete allows every deletion.
func (azureASOManagedMachinePoolWebhook) ValidateDelete(context.Context, *AzureASOManagedMachinePool) (admission.Warnings, error) {
	return nil, nil
}

func (p *AzureASOManagedMachinePool) validate() field.ErrorList {
	errs := validateASOMachinePoolResources(field.NewPath("spec", "resources"), p.Spec.Resources, p.Namespace, false)
	return append(errs, ValidateImplementedFields("AzureASOManagedMachinePool", &p.Spec)...)
}

// validateASOMachinePoolResources requires exactly one ManagedClustersAgentPool among valid resources (at most one
// in a template, whose ClusterClass patches may add it).
func validateASOMachinePoolResources(path *field.Path, raw []runtime.RawExtension, namespace string, template bool) field.ErrorList {
	resources, errs := validateASOResources(path, raw, namespace)
	if len(errs) > 0 {
		return errs
	}
	return validateOneOfKind(path, resources, agentPoolKind, "AzureASOManagedMachinePool", template)
}
