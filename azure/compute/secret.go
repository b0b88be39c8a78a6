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

package compute

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// WindowsPasswordKey is the key of the admin password in a Windows machine's password Secret.
const WindowsPasswordKey = "password"

// WindowsPasswordSecretName is the Secret holding the admin password of a Windows machine.
func WindowsPasswordSecretName(machine string) string {
	return azure.ObjectName(machine, "windows-password")
}

// ProtectedSettingsSecretName is the Secret holding the protected settings of a machine's VM extension.
func ProtectedSettingsSecretName(machine, extension string) string {
	return azure.ObjectName(machine, extension, "protected")
}

// WindowsPasswordSecret returns the Secret the VM of a Windows machine reads its admin password from; nil for
// Linux machines. The value sits in data, not stringData, so that the live Secret shows every field the provider
// set and an unchanged Secret is never written again.
func WindowsPasswordSecret(in MachineInput) *corev1.Secret {
	if in.Spec.OSDisk.OSType != azure.WindowsOS {
		return nil
	}
	return opaqueSecret(WindowsPasswordSecretName(in.Name), map[string]string{WindowsPasswordKey: in.WindowsAdminPassword})
}

// protectedSettingsSecret returns the Secret that ASO hands, as a whole, to an extension as its protected settings.
func protectedSettingsSecret(machine, extension string, settings map[string]string) *corev1.Secret {
	return opaqueSecret(ProtectedSettingsSecretName(machine, extension), settings)
}

// opaqueSecret returns an Opaque Secret with the given values.
func opaqueSecret(name string, values map[string]string) *corev1.Secret {
	data := make(map[string][]byte, len(values))
	for k, v := range values {
		data[k] = []byte(v)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
}
