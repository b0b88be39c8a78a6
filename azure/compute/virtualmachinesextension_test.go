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

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestVirtualMachinesExtensions(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*infrav1.AzureMachineSpec)
	}{
		{name: "linux-bootstrap", mutate: func(s *infrav1.AzureMachineSpec) { s.DisableVMBootstrapExtension = ptr.To(false) }},
		{name: "windows-bootstrap", mutate: func(s *infrav1.AzureMachineSpec) {
			s.OSDisk.OSType = "Windows"
			s.DisableVMBootstrapExtension = ptr.To(false)
		}},
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

// TestVirtualMachinesExtensions_BootstrapOnlyWhenEnabled: as in CAPZ since v1.25, the bootstrap extension is
// installed only when disableVMBootstrapExtension is explicitly false; unset or true installs none.
func TestVirtualMachinesExtensions_BootstrapOnlyWhenEnabled(t *testing.T) {
	for _, tt := range []struct {
		name     string
		disabled *bool
		want     int
	}{
		{name: "unset", disabled: nil, want: 0},
		{name: "true", disabled: ptr.To(true), want: 0},
		{name: "false", disabled: ptr.To(false), want: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := workerInput(t, "m", func(s *infrav1.AzureMachineSpec) { s.DisableVMBootstrapExtension = tt.disabled })
			extensions, secrets := VirtualMachinesExtensions(in)
			g.Expect(extensions).To(HaveLen(tt.want))
			g.Expect(secrets).To(HaveLen(tt.want), "the command is a protected setting")

			pool := poolInput(t, "p", func(s *infrav1exp.AzureMachinePoolSpec) { s.Template.DisableVMBootstrapExtension = tt.disabled })
			var got int
			if profile := VirtualMachineScaleSet(pool).Spec.VirtualMachineProfile.ExtensionProfile; profile != nil {
				got = len(profile.Extensions)
			}
			g.Expect(got).To(Equal(tt.want))
			g.Expect(ScaleSetSecrets(pool)).To(HaveLen(tt.want))
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

// TestBootstrapExtension_CloudsAndArchitectures: the bootstrap extension is installed as CAPZ installs it, on VMs
// and on scale sets alike: its handler 1.1 on Arm64 sizes, 1.0 elsewhere, and none outside Azure's public cloud,
// where its publisher does not publish it.
func TestBootstrapExtension_CloudsAndArchitectures(t *testing.T) {
	tests := []struct {
		name, cloud, os, size string
		want                  []string // name and handler version; nil for no bootstrap extension
	}{
		{name: "linux, public cloud by default", size: "Standard_D2s_v3", want: []string{LinuxBootstrapExtension, "1.0"}},
		{name: "linux, public cloud named", cloud: "AzurePublicCloud", size: "Standard_D2s_v3", want: []string{LinuxBootstrapExtension, "1.0"}},
		{name: "linux on Arm64", size: "Standard_D4ps_v5", want: []string{LinuxBootstrapExtension, "1.1"}},
		{name: "linux on Arm64 with local disk", size: "Standard_E8pds_v5", want: []string{LinuxBootstrapExtension, "1.1"}},
		{name: "windows", os: "Windows", size: "Standard_D4s_v3", want: []string{WindowsBootstrapExtension, "1.0"}},
		{name: "china cloud", cloud: "AzureChinaCloud", size: "Standard_D2s_v3"},
		{name: "US government cloud, windows", cloud: "AzureUSGovernmentCloud", os: "Windows", size: "Standard_D2s_v3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			in := workerInput(t, "m", func(s *infrav1.AzureMachineSpec) {
				s.VMSize = tt.size
				s.DisableVMBootstrapExtension = ptr.To(false)
				if tt.os != "" {
					s.OSDisk.OSType = tt.os
				}
			})
			in.Cluster.AzureEnvironment = tt.cloud
			var got []string
			for _, e := range func() []*asocompute.VirtualMachinesExtension { e, _ := VirtualMachinesExtensions(in); return e }() {
				got = append(got, *e.Spec.Type, *e.Spec.TypeHandlerVersion)
			}
			g.Expect(got).To(Equal(tt.want))

			pool := poolInput(t, "p", func(s *infrav1exp.AzureMachinePoolSpec) {
				s.Template.VMSize = tt.size
				s.Template.DisableVMBootstrapExtension = ptr.To(false)
				if tt.os != "" {
					s.Template.OSDisk.OSType = tt.os
				}
			})
			pool.Cluster.AzureEnvironment = tt.cloud
			got = nil
			if profile := VirtualMachineScaleSet(pool).Spec.VirtualMachineProfile.ExtensionProfile; profile != nil {
				for _, e := range profile.Extensions {
					got = append(got, *e.Type, *e.TypeHandlerVersion)
				}
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestIsArm64Size(t *testing.T) {
	g := NewWithT(t)
	for size, want := range map[string]bool{
		"Standard_D4ps_v5": true, "Standard_D2plds_v5": true, "Standard_B2pts_v2": true, "Standard_E8pds_v5": true,
		"standard_d4ps_v6": true, "Standard_D2s_v3": false, "Standard_DC2s_v3": false, "Standard_NP10s": false,
		"Standard_M416-208ms_v2": false, "Standard_NC24ads_A100_v4": false, "Standard_A2": false, "": false, "p": false,
	} {
		g.Expect(IsArm64Size(size)).To(Equal(want), size)
	}
}
