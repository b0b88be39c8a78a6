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
	"path"
	"reflect"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// +kubebuilder:webhook:verbs=create;update,path=/validate-infrastructure-cluster-x-k8s-io-v1beta1-azuremachinepoolmachine,mutating=false,failurePolicy=fail,matchPolicy=Equivalent,groups=infrastructure.cluster.x-k8s.io,resources=azuremachinepoolmachines,versions=v1beta1,name=validation.azuremachinepoolmachine.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// SetupAzureMachinePoolMachineWebhookWithManager registers the validating webhook of AzureMachinePoolMachine. It
// has no defaulting webhook: the AzureMachinePool controller writes the whole spec.
func SetupAzureMachinePoolMachineWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &AzureMachinePoolMachine{}).WithValidator(azureMachinePoolMachineWebhook{}).Complete()
}

type azureMachinePoolMachineWebhook struct{}

// ValidateCreate validates a new AzureMachinePoolMachine.
func (azureMachinePoolMachineWebhook) ValidateCreate(_ context.Context, m *AzureMachinePoolMachine) (admission.Warnings, error) {
	return nil, infrav1.Invalid("AzureMachinePoolMachine", m.Name, m.validate())
}

// ValidateUpdate validates a changed AzureMachinePoolMachine: it stays the same instance.
func (azureMachinePoolMachineWebhook) ValidateUpdate(_ context.Context, old, m *AzureMachinePoolMachine) (admission.Warnings, error) {
	if !m.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	spec := field.NewPath("spec")
	errs := m.validate()
	if old.Spec.ProviderID != "" {
		errs = append(errs, infrav1.ValidateImmutable(spec.Child("providerID"), old.Spec.ProviderID, m.Spec.ProviderID)...)
	}
	if old.Spec.InstanceID != "" {
		errs = append(errs, infrav1.ValidateImmutable(spec.Child("instanceID"), old.Spec.InstanceID, m.Spec.InstanceID)...)
	}
	if old.Spec.Model != nil && !reflect.DeepEqual(old.Spec.Model, m.Spec.Model) {
		errs = append(errs, field.Forbidden(spec.Child("model"), "field is immutable"))
	}
	errs = infrav1.ValidateImplementedFieldsUpdate("AzureMachinePoolMachine", &old.Spec, &m.Spec, errs)
	return nil, infrav1.Invalid("AzureMachinePoolMachine", m.Name, errs)
}

// ValidateDelete allows every deletion.
func (azureMachinePoolMachineWebhook) ValidateDelete(context.Context, *AzureMachinePoolMachine) (admission.Warnings, error) {
	return nil, nil
}

func (m *AzureMachinePoolMachine) validate() field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "providerID")
	switch {
	case m.Spec.ProviderID == "":
		errs = append(errs, field.Required(p, "the provider ID of the scale set instance, as on its Node"))
	case !strings.HasPrefix(m.Spec.ProviderID, "azure://"):
		errs = append(errs, field.Invalid(p, m.Spec.ProviderID, "must start with azure://"))
	}
	if id := m.Spec.InstanceID; id != "" && strings.HasPrefix(m.Spec.ProviderID, "azure://") {
		// CAPZ's record of an instance: the instance ID Azure gave it, the last segment of its provider ID: a
		// Uniform scale set's instance (.../virtualMachineScaleSets/<scale set>/virtualMachines/<instance ID>), or
		// the VM of a Flexible scale set's instance (.../virtualMachines/<VM>), whose instance ID is the VM's name.
		pid := m.Spec.ProviderID
		instance := uniformInstance.MatchString(pid) || flexibleInstance.MatchString(pid)
		if !instance || !strings.EqualFold(path.Base(pid), id) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "instanceID"), id,
				"must be the instance ID of the scale set instance spec.providerID names: <instance ID> of "+
					".../virtualMachineScaleSets/<name>/virtualMachines/<instance ID> (Uniform) or <VM> of .../virtualMachines/<VM> (Flexible)"))
		}
	}
	return append(errs, infrav1.ValidateImplementedFields("AzureMachinePoolMachine", &m.Spec)...)
}

var (
	// uniformInstance matches the provider ID of an instance of a Uniform scale set.
	uniformInstance = regexp.MustCompile(`(?i)^azure:///subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/virtualMachineScaleSets/[^/]+/virtualMachines/[^/]+$`)
	// flexibleInstance matches the provider ID of a VM, such as an instance of a Flexible scale set.
	flexibleInstance = regexp.MustCompile(`(?i)^azure:///subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/virtualMachines/[^/]+$`)
)
