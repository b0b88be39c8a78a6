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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// templateWebhook is the defaulting and validating webhook of a template kind.
type templateWebhook[T client.Object] interface {
	Default(ctx context.Context, obj T) error
	ValidateUpdate(ctx context.Context, old, obj T) (admission.Warnings, error)
}

// updateStored updates a stored template as the API server does: the change, then the defaulting webhook on the new
// version, then the validating webhook with the stored version as it is.
func updateStored[T client.Object](w templateWebhook[T], stored T, change func(T)) error {
	updated, _ := stored.DeepCopyObject().(T)
	change(updated)
	if err := w.Default(context.Background(), updated); err != nil {
		return err
	}
	_, err := w.ValidateUpdate(context.Background(), stored, updated)
	return err
}

// addLabel is the kind of update Cluster API, clusterctl and the provider make to a template: metadata only.
func addLabel(obj client.Object) {
	obj.SetLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "c"})
}

// TestTemplates_StoredWithoutDefaultsTakeMetadataUpdates: a template stored without the provider's defaults (as CAPZ
// v1.26.0's webhooks store it: they default fewer fields, e.g. no boot diagnostics or OS disk caching type on an
// AzureMachineTemplate) takes a metadata update, which the defaulting webhook turns into a spec with defaults; a
// change of its spec is still refused.
func TestTemplates_StoredWithoutDefaultsTakeMetadataUpdates(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "t", Namespace: "default"}
	tests := []struct {
		name           string
		metadataUpdate func() error
		specChange     func() error
	}{{
		name: "AzureMachineTemplate",
		metadataUpdate: func() error {
			return updateStored(azureMachineTemplateWebhook{}, capzMachineTemplate(meta), func(t *AzureMachineTemplate) { addLabel(t) })
		},
		specChange: func() error {
			return updateStored(azureMachineTemplateWebhook{}, capzMachineTemplate(meta), func(t *AzureMachineTemplate) { t.Spec.Template.Spec.VMSize = "Standard_D4s_v3" })
		},
	}, {
		name: "AzureClusterTemplate",
		metadataUpdate: func() error {
			return updateStored(azureClusterTemplateWebhook{}, &AzureClusterTemplate{ObjectMeta: meta}, func(t *AzureClusterTemplate) { addLabel(t) })
		},
		specChange: func() error {
			return updateStored(azureClusterTemplateWebhook{}, &AzureClusterTemplate{ObjectMeta: meta}, func(t *AzureClusterTemplate) { t.Spec.Template.Spec.Location = "westus" })
		},
	}, {
		name: "AzureManagedControlPlaneTemplate",
		metadataUpdate: func() error {
			return updateStored(azureManagedControlPlaneTemplateWebhook{}, managedControlPlaneTemplate(meta), func(t *AzureManagedControlPlaneTemplate) { addLabel(t) })
		},
		specChange: func() error {
			return updateStored(azureManagedControlPlaneTemplateWebhook{}, managedControlPlaneTemplate(meta), func(t *AzureManagedControlPlaneTemplate) { t.Spec.Template.Spec.Location = "eastus" })
		},
	}, {
		name: "AzureManagedMachinePoolTemplate",
		metadataUpdate: func() error {
			return updateStored(azureManagedMachinePoolTemplateWebhook{}, managedMachinePoolTemplate(meta), func(t *AzureManagedMachinePoolTemplate) { addLabel(t) })
		},
		specChange: func() error {
			return updateStored(azureManagedMachinePoolTemplateWebhook{}, managedMachinePoolTemplate(meta), func(t *AzureManagedMachinePoolTemplate) { t.Spec.Template.Spec.SKU = "Standard_D4s_v3" })
		},
	}, {
		name: "AzureASOManagedControlPlaneTemplate",
		metadataUpdate: func() error {
			return updateStored(azureASOManagedControlPlaneTemplateWebhook{}, asoControlPlaneTemplate(meta), func(t *AzureASOManagedControlPlaneTemplate) { addLabel(t) })
		},
		specChange: func() error {
			return updateStored(azureASOManagedControlPlaneTemplateWebhook{}, asoControlPlaneTemplate(meta), func(t *AzureASOManagedControlPlaneTemplate) { t.Spec.Template.Spec.Version = "v1.34.2" })
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(tc.metadataUpdate()).To(Succeed())
			err := tc.specChange()
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("the spec of a template is immutable"))
		})
	}
}

// capzMachineTemplate is an AzureMachineTemplate as CAPZ v1.26.0 stores its default flavor's control-plane
// template: CAPZ's webhook gave it an SSH key and a network interface; nothing else was defaulted.
func capzMachineTemplate(meta metav1.ObjectMeta) *AzureMachineTemplate {
	t := &AzureMachineTemplate{ObjectMeta: meta}
	s := &t.Spec.Template.Spec
	s.VMSize = "Standard_D2s_v3"
	s.Identity = VMIdentityNone
	s.OSDisk = OSDisk{OSType: "Linux", DiskSizeGB: ptr.To[int32](128)}
	s.SSHPublicKey = capzSSHKey
	s.NetworkInterfaces = []NetworkInterface{{PrivateIPConfigs: 1}}
	return t
}

// capzSSHKey is the key CAPZ's webhook generated for the template.
var capzSSHKey, _ = GenerateSSHPublicKey()

func managedControlPlaneTemplate(meta metav1.ObjectMeta) *AzureManagedControlPlaneTemplate {
	t := &AzureManagedControlPlaneTemplate{ObjectMeta: meta}
	t.Spec.Template.Spec.Location = "westus2"
	t.Spec.Template.Spec.Version = "v1.34.1"
	return t
}

func managedMachinePoolTemplate(meta metav1.ObjectMeta) *AzureManagedMachinePoolTemplate {
	t := &AzureManagedMachinePoolTemplate{ObjectMeta: meta}
	t.Spec.Template.Spec.Mode = "System"
	t.Spec.Template.Spec.SKU = "Standard_D2s_v3"
	return t
}

func asoControlPlaneTemplate(meta metav1.ObjectMeta) *AzureASOManagedControlPlaneTemplate {
	t := &AzureASOManagedControlPlaneTemplate{ObjectMeta: meta}
	t.Spec.Template.Spec.Version = "1.34.1"
	return t
}
