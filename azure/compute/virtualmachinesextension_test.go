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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestVirtualMachinesExtensions(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*infrav1.AzureMachineSpec)
	}{
		{name: "linux-bootstrap"},
		{name: "windows-bootstrap", mutate: func(s *infrav1.AzureMachineSpec) { s.OSDisk.OSType = "Windows" }},
		{name: "custom-without-bootstrap", mutate: func(s *infrav1.AzureMachineSpec) {
			s.DisableVMBootstrapExtension = ptr.To(true)
			s.VMExtensions = []infrav1.VMExtension{{
				Name: "KeyVaultForLinux", Publisher: "Microsoft.Azure.KeyVault", Version: "3.0",
				Settings: infrav1.Tags{"secretsManagementSettings": `{"pollingIntervalInS":"3600"}`},
				ProtectedSettings: infrav1.Tags{
					"clientSecret": "not-a-real-secret",
					"tenantId":     "11111111-2222-3333-4444-555555555555",
				},
			}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := workerInput(t, "my-cluster-md-0-4gq8r-ext02", tt.mutate)
			extensions, secrets := VirtualMachinesExtensions(in)
			golden.Assert(t, "virtualmachinesextension-"+tt.name, extensions)
			if len(secrets) > 0 {
				golden.Assert(t, "secret-"+tt.name, secrets)
			}
		})
	}
}

func TestVirtualMachinesExtensions_ExtensionOperationsDisabled(t *testing.T) {
	g := NewWithT(t)
	in := workerInput(t, "m", func(s *infrav1.AzureMachineSpec) {
		s.DisableExtensionOperations = ptr.To(true)
		s.VMExtensions = []infrav1.VMExtension{{Name: "e", Publisher: "p", Version: "1", ProtectedSettings: infrav1.Tags{"k": "v"}}}
	})
	extensions, secrets := VirtualMachinesExtensions(in)
	g.Expect(extensions).To(BeEmpty())
	g.Expect(secrets).To(BeEmpty())
}

func TestBootstrapCommands(t *testing.T) {
	g := NewWithT(t)
	g.Expect(LinuxBootstrapCommand).To(Equal(
		"for i in $(seq 1 60); do test -f /run/cluster-api/bootstrap-success.complete && break; if [ $i -eq 60 ]; then exit 1; else sleep 5; fi; done"))
	g.Expect(WindowsBootstrapCommand).To(Equal(
		`powershell.exe -Command "for ($i = 0; $i -lt 60; $i++) {if (Test-Path '/run/cluster-api/bootstrap-success.complete') {exit 0} else {Start-Sleep -Seconds 5}} exit -2"`))
}
