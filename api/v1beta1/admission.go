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
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Admission runs a kind's webhooks in memory, in the order the API server calls them: defaulting, then
// validation. Translator tests and fuzzers use it to build only specs the API would store; it does not run the
// CRD's schema checks.
// +kubebuilder:object:generate=false
type Admission interface {
	// Create defaults a new object in place and validates it; the error is the API error a create would return.
	Create(ctx context.Context, obj runtime.Object) error
	// Update defaults the changed object in place and validates the change from old (a stored, defaulted object).
	Update(ctx context.Context, old, obj runtime.Object) error
}

// NewAdmission makes the Admission of a kind from its webhook; defaulter is nil for a kind without defaulting.
func NewAdmission[T runtime.Object](defaulter admission.Defaulter[T], validator admission.Validator[T]) Admission {
	return typedAdmission[T]{defaulter: defaulter, validator: validator}
}

// inMemoryOptions are the settings of the webhooks AdmissionFor runs: a cluster without spec.identityRef is admitted,
// as a manager run with --allow-aso-default-credential admits it. Which credential ASO uses is no input of the
// translators, and fuzzers would otherwise rarely reach an admitted AzureCluster.
var inMemoryOptions = WebhookOptions{AllowASODefaultCredential: true}

// AdmissionFor returns the Admission of the kind of obj, or nil for an object of another package. It admits clusters
// without spec.identityRef (see inMemoryOptions).
func AdmissionFor(obj runtime.Object) Admission {
	switch obj.(type) {
	case *AzureASOManagedCluster:
		return NewAdmission[*AzureASOManagedCluster](nil, azureASOManagedClusterWebhook{})
	case *AzureASOManagedClusterTemplate:
		return NewAdmission[*AzureASOManagedClusterTemplate](nil, azureASOManagedClusterTemplateWebhook{})
	case *AzureASOManagedControlPlane:
		w := azureASOManagedControlPlaneWebhook{}
		return NewAdmission[*AzureASOManagedControlPlane](w, w)
	case *AzureASOManagedControlPlaneTemplate:
		w := azureASOManagedControlPlaneTemplateWebhook{}
		return NewAdmission[*AzureASOManagedControlPlaneTemplate](w, w)
	case *AzureASOManagedMachinePool:
		return NewAdmission[*AzureASOManagedMachinePool](nil, azureASOManagedMachinePoolWebhook{})
	case *AzureASOManagedMachinePoolTemplate:
		return NewAdmission[*AzureASOManagedMachinePoolTemplate](nil, azureASOManagedMachinePoolTemplateWebhook{})
	case *AzureCluster:
		w := azureClusterWebhook{opts: inMemoryOptions}
		return NewAdmission[*AzureCluster](w, w)
	case *AzureClusterIdentity:
		return NewAdmission[*AzureClusterIdentity](nil, azureClusterIdentityWebhook{})
	case *AzureClusterTemplate:
		w := azureClusterTemplateWebhook{}
		return NewAdmission[*AzureClusterTemplate](w, w)
	case *AzureMachine:
		w := azureMachineWebhook{}
		return NewAdmission[*AzureMachine](w, w)
	case *AzureMachineTemplate:
		w := azureMachineTemplateWebhook{}
		return NewAdmission[*AzureMachineTemplate](w, w)
	case *AzureManagedCluster:
		return NewAdmission[*AzureManagedCluster](nil, azureManagedClusterWebhook{})
	case *AzureManagedClusterTemplate:
		return NewAdmission[*AzureManagedClusterTemplate](nil, azureManagedClusterTemplateWebhook{})
	case *AzureManagedControlPlane:
		w := azureManagedControlPlaneWebhook{opts: inMemoryOptions}
		return NewAdmission[*AzureManagedControlPlane](w, w)
	case *AzureManagedControlPlaneTemplate:
		w := azureManagedControlPlaneTemplateWebhook{}
		return NewAdmission[*AzureManagedControlPlaneTemplate](w, w)
	case *AzureManagedMachinePool:
		w := azureManagedMachinePoolWebhook{}
		return NewAdmission[*AzureManagedMachinePool](w, w)
	case *AzureManagedMachinePoolTemplate:
		w := azureManagedMachinePoolTemplateWebhook{}
		return NewAdmission[*AzureManagedMachinePoolTemplate](w, w)
	}
	return nil
}

// +kubebuilder:object:generate=false
type typedAdmission[T runtime.Object] struct {
	defaulter admission.Defaulter[T]
	validator admission.Validator[T]
}

func (a typedAdmission[T]) Create(ctx context.Context, obj runtime.Object) error {
	o, err := a.typed(obj)
	if err != nil {
		return err
	}
	if err := a.defaults(ctx, o); err != nil {
		return err
	}
	_, err = a.validator.ValidateCreate(ctx, o)
	return err
}

func (a typedAdmission[T]) Update(ctx context.Context, old, obj runtime.Object) error {
	o, err := a.typed(obj)
	if err != nil {
		return err
	}
	oldTyped, err := a.typed(old)
	if err != nil {
		return err
	}
	if err := a.defaults(ctx, o); err != nil {
		return err
	}
	_, err = a.validator.ValidateUpdate(ctx, oldTyped, o)
	return err
}

func (a typedAdmission[T]) defaults(ctx context.Context, obj T) error {
	if a.defaulter == nil {
		return nil
	}
	return a.defaulter.Default(ctx, obj)
}

func (a typedAdmission[T]) typed(obj runtime.Object) (T, error) {
	o, ok := obj.(T)
	if !ok {
		var want T
		return want, fmt.Errorf("admission of %T cannot take a %T", want, obj)
	}
	return o, nil
}
