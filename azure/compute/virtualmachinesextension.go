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
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// The extension that reports bootstrap success: CAPZ's clone of the Custom Script extension, which runs a command
// that waits for the Cluster API bootstrap sentinel file.
const (
	// BootstrapExtensionPublisher publishes the bootstrap extensions.
	BootstrapExtensionPublisher = "Microsoft.Azure.ContainerUpstream"
	// LinuxBootstrapExtension is the bootstrap extension of Linux VMs: its name and its type.
	LinuxBootstrapExtension = infrav1.BootstrapExtensionName
	// WindowsBootstrapExtension is the bootstrap extension of Windows VMs: its name and its type.
	WindowsBootstrapExtension = "CAPZ.Windows.Bootstrapping"
	// BootstrapExtensionVersion is the handler version of the bootstrap extensions.
	BootstrapExtensionVersion = "1.0"
	// Arm64BootstrapExtensionVersion is the handler version of the Linux bootstrap extension on Arm64 VMs, as
	// CAPZ has it: the 1.0 handler does not run there.
	Arm64BootstrapExtensionVersion = "1.1"

	// bootstrapSentinelFile is written by bootstrap providers once a machine has bootstrapped (Cluster API's
	// bootstrap provider contract).
	bootstrapSentinelFile = "/run/cluster-api/bootstrap-success.complete"
	// bootstrapRetries and bootstrapSleepSeconds bound the wait for the sentinel file: 60 × 5 s.
	bootstrapRetries      = 60
	bootstrapSleepSeconds = 5
	// commandToExecute is the setting of the Custom Script extension that holds the command it runs.
	commandToExecute = "commandToExecute"
)

// LinuxBootstrapCommand waits for the sentinel file and fails when it never appears.
var LinuxBootstrapCommand = fmt.Sprintf(
	"for i in $(seq 1 %d); do test -f %s && break; if [ $i -eq %d ]; then exit 1; else sleep %d; fi; done",
	bootstrapRetries, bootstrapSentinelFile, bootstrapRetries, bootstrapSleepSeconds)

// WindowsBootstrapCommand waits for the sentinel file and fails with ERROR_FILE_NOT_FOUND (-2) when it never
// appears.
var WindowsBootstrapCommand = fmt.Sprintf(
	`powershell.exe -Command "for ($i = 0; $i -lt %d; $i++) {if (Test-Path '%s') {exit 0} else {Start-Sleep -Seconds %d}} exit -2"`,
	bootstrapRetries, bootstrapSentinelFile, bootstrapSleepSeconds)

// VirtualMachinesExtensions returns the VM's extensions and the Secrets holding their protected settings: each
// of spec.vmExtensions (type = name, typeHandlerVersion = version, as in CAPZ), then the bootstrap extension
// (see bootstrapExtensionOf). Protected settings never enter an extension's spec: the
// extension references its Secret, which ASO reads as a whole. There are no extensions at all when
// disableExtensionOperations. Extensions carry no tags: CAPZ sends none.
func VirtualMachinesExtensions(in MachineInput) ([]*asocompute.VirtualMachinesExtension, []*corev1.Secret) {
	spec := in.Spec
	if ptr.Deref(spec.DisableExtensionOperations, false) {
		return nil, nil
	}
	var extensions []*asocompute.VirtualMachinesExtension
	var secrets []*corev1.Secret
	for _, e := range spec.VMExtensions {
		ext := vmExtension(in, e.Name, e.Publisher, e.Version, e.Settings)
		if len(e.ProtectedSettings) > 0 {
			secret := protectedSettingsSecret(in.Name, e.Name, e.ProtectedSettings)
			ext.Spec.ProtectedSettings = &genruntime.SecretMapReference{Name: secret.Name}
			secrets = append(secrets, secret)
		}
		extensions = append(extensions, ext)
	}
	if b, ok := bootstrapExtensionOf(in.Cluster, spec.OSDisk.OSType, spec.VMSize, spec.DisableVMBootstrapExtension); ok {
		// CAPZ sends the command as a protected setting.
		ext := vmExtension(in, b.name, BootstrapExtensionPublisher, b.version, nil)
		secret := protectedSettingsSecret(in.Name, b.name, b.protectedSettings())
		ext.Spec.ProtectedSettings = &genruntime.SecretMapReference{Name: secret.Name}
		extensions = append(extensions, ext)
		secrets = append(secrets, secret)
	}
	return extensions, secrets
}

// bootstrapExtension is the bootstrap extension of a VM.
type bootstrapExtension struct {
	name, version, command string
}

// protectedSettings are the extension's protected settings: the command it runs.
func (b bootstrapExtension) protectedSettings() map[string]string {
	return map[string]string{commandToExecute: b.command}
}

// bootstrapExtensionOf returns the bootstrap extension of a VM of the OS and size, as CAPZ (since v1.25) installs
// it: only when disableVMBootstrapExtension is explicitly false, and only in Azure's public cloud, where its
// publisher publishes it; the Arm64 handler on Arm64 sizes.
func bootstrapExtensionOf(c azure.Cluster, osType, vmSize string, disabled *bool) (bootstrapExtension, bool) {
	if ptr.Deref(disabled, true) || (c.AzureEnvironment != "" && c.AzureEnvironment != infrav1.DefaultAzureCloud) {
		return bootstrapExtension{}, false
	}
	if osType == azure.WindowsOS {
		return bootstrapExtension{name: WindowsBootstrapExtension, version: BootstrapExtensionVersion, command: WindowsBootstrapCommand}, true
	}
	version := BootstrapExtensionVersion
	if IsArm64Size(vmSize) {
		version = Arm64BootstrapExtensionVersion
	}
	return bootstrapExtension{name: LinuxBootstrapExtension, version: version, command: LinuxBootstrapCommand}, true
}

// sizeFeatures matches an Azure VM size name and captures its additive features, the lower-case letters after the
// vCPU count (and the constrained count): "ps" in Standard_D4ps_v5, "ms" in Standard_M416-208ms_v2.
var sizeFeatures = regexp.MustCompile(`(?i)^standard_[a-z]+[0-9]+(?:-[0-9]+)?([a-z]*)(?:_|$)`)

// IsArm64Size tells whether a VM size has Arm64 processors: Azure's size names mark them with the feature "p"
// (Standard_D4ps_v5, Standard_E8pds_v5, Standard_B2pts_v2).
func IsArm64Size(size string) bool {
	m := sizeFeatures.FindStringSubmatch(size)
	return m != nil && strings.Contains(strings.ToLower(m[1]), "p")
}

// vmExtension returns an extension of the machine's VM.
func vmExtension(in MachineInput, name, publisher, version string, settings map[string]string) *asocompute.VirtualMachinesExtension {
	ext := &asocompute.VirtualMachinesExtension{
		ObjectMeta: metav1.ObjectMeta{Name: azure.ObjectName(in.Name, name)},
		Spec: asocompute.VirtualMachinesExtension_Spec{
			AzureName:          name,
			Owner:              &genruntime.KnownResourceReference{Name: azure.ObjectName(in.Name)},
			Location:           ptr.To(in.Cluster.Location),
			Publisher:          ptr.To(publisher),
			Type:               ptr.To(name),
			TypeHandlerVersion: ptr.To(version),
		},
	}
	ext.Spec.Settings = extensionSettings(settings)
	return ext
}

// extensionSettings turns an extension's settings into the JSON values ASO takes; nil for none.
func extensionSettings(settings map[string]string) map[string]apiextensionsv1.JSON {
	if len(settings) == 0 {
		return nil
	}
	out := make(map[string]apiextensionsv1.JSON, len(settings))
	for k, v := range settings {
		raw, _ := json.Marshal(v) // a string always marshals
		out[k] = apiextensionsv1.JSON{Raw: raw}
	}
	return out
}
