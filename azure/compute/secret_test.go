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

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/golden"
)

func TestWindowsPasswordSecret(t *testing.T) {
	in := workerInput(t, "my-cluster-md-win-8c7d9-kq4lz", func(s *infrav1.AzureMachineSpec) { s.OSDisk.OSType = "Windows" })
	in.WindowsAdminPassword = "Aa1!not-a-real-password"
	golden.Assert(t, "secret-windows-password", WindowsPasswordSecret(in))
}

func TestWindowsPasswordSecret_Linux(t *testing.T) {
	g := NewWithT(t)
	in := workerInput(t, "my-cluster-md-0-4gq8r-zt5vn", nil)
	in.WindowsAdminPassword = "ignored"
	g.Expect(WindowsPasswordSecret(in)).To(BeNil())
	g.Expect(VirtualMachine(in).Spec.OsProfile.AdminPassword).To(BeNil())
}

func TestSecretNames(t *testing.T) {
	g := NewWithT(t)
	g.Expect(WindowsPasswordSecretName("my-machine")).To(Equal("my-machine-windows-password"))
	g.Expect(ProtectedSettingsSecretName("my-machine", "custom-script")).To(Equal("my-machine-custom-script-protected"))
	// Extension names may hold characters Kubernetes names may not.
	g.Expect(ProtectedSettingsSecretName("my-machine", "CustomScript")).To(MatchRegexp(`^my-machine-customscript-protected-[0-9a-f]{8}$`))
}
