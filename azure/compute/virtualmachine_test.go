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

// TestVirtualMachine covers what the machine golden files (TestMachineResources) do not: the other kinds of
// image, boot diagnostics, Edge Zones, capacity reservations and scale sets.
func TestVirtualMachine(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*MachineInput)
	}{
		{name: "community-gallery-image-with-plan", mutate: func(in *MachineInput) {
			in.Spec.Image = &infrav1.Image{ComputeGallery: &infrav1.AzureComputeGalleryImage{
				Gallery: "Partner-1a2b3c4d", Name: "hardened-ubuntu", Version: "2026.1.0",
				Plan: &infrav1.ImagePlan{Publisher: "partner", Offer: "hardened", SKU: "ubuntu-2404"},
			}}
		}},
		{name: "shared-gallery-image-with-plan", mutate: func(in *MachineInput) {
			in.Spec.Image = &infrav1.Image{SharedGallery: &infrav1.AzureSharedGalleryImage{
				SubscriptionID: "00000000-0000-0000-0000-0000000000aa", ResourceGroup: "images-rg", Gallery: "sig",
				Name: "capi-ubuntu", Version: "1.34.1",
				Publisher: ptr.To("partner"), Offer: ptr.To("hardened"), SKU: ptr.To("ubuntu-2404"),
			}}
		}},
		{name: "image-id-user-managed-diagnostics", mutate: func(in *MachineInput) {
			in.Spec.Image = &infrav1.Image{ID: ptr.To("/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/images-rg/providers/Microsoft.Compute/images/capi-ubuntu")}
			in.Spec.Diagnostics = &infrav1.Diagnostics{Boot: &infrav1.BootDiagnostics{
				StorageAccountType: infrav1.UserManagedDiagnosticsStorage,
				UserManaged:        &infrav1.UserManagedBootDiagnostics{StorageAccountURI: "https://mydiag.blob.core.windows.net/"},
			}}
		}},
		{name: "diagnostics-disabled-spot-on-demand-price", mutate: func(in *MachineInput) {
			in.Spec.Diagnostics = &infrav1.Diagnostics{Boot: &infrav1.BootDiagnostics{StorageAccountType: infrav1.DisabledDiagnosticsStorage}}
			in.Spec.SpotVMOptions = &infrav1.SpotVMOptions{EvictionPolicy: ptr.To(infrav1.SpotEvictionPolicyDeallocate)}
			in.Spec.SecurityProfile = &infrav1.SecurityProfile{EncryptionAtHost: ptr.To(true)}
		}},
		{name: "edgezone-capacity-reservation-scale-set", mutate: func(in *MachineInput) {
			in.Cluster.ExtendedLocation = &infrav1.ExtendedLocationSpec{Name: "microsoftlosangeles1", Type: "EdgeZone"}
			in.Zone = ""
			in.Spec.CapacityReservationGroupID = ptr.To("/subscriptions/" + testSubscription + "/resourceGroups/capacity-rg/providers/Microsoft.Compute/capacityReservationGroups/crg")
			in.Spec.VirtualMachineScaleSetID = "/subscriptions/" + testSubscription + "/resourceGroups/my-cluster-rg/providers/Microsoft.Compute/virtualMachineScaleSets/flex"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := workerInput(t, "my-cluster-md-0-4gq8r-vm001", nil)
			in.BootstrapData = nil
			tt.mutate(&in)
			golden.Assert(t, "virtualmachine-"+tt.name, VirtualMachine(in))
		})
	}
}

func TestComputerName(t *testing.T) {
	tests := []struct {
		name, osType, want string
	}{
		{name: "my-cluster-md-0-4gq8r-zt5vn", osType: "Linux", want: "my-cluster-md-0-4gq8r-zt5vn"},
		{name: "win-4gq8r-zt5vn", osType: "Windows", want: "win-4gq8r-zt5vn"},
		{name: "my-cluster-md-win-8c7d9-kq4lz", osType: "Windows", want: "my-cluste-kq4lz"},
		// The 9-character prefix loses its trailing dash.
		{name: "capz-win-md-0-abcde", osType: "Windows", want: "capz-win-abcde"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := ComputerName(tt.name, tt.osType)
			g.Expect(got).To(Equal(tt.want))
			if tt.osType == "Windows" {
				g.Expect(len(got)).To(BeNumerically("<=", 15))
			}
		})
	}
}

func TestDefaultImage(t *testing.T) {
	g := NewWithT(t)
	g.Expect(DefaultImage("Linux", "v1.34.1").ComputeGallery).To(Equal(&infrav1.AzureComputeGalleryImage{
		Gallery: "ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019", Name: "capi-ubun2-2404", Version: "1.34.1",
	}))
	g.Expect(DefaultImage("Windows", "1.33.5").ComputeGallery).To(Equal(&infrav1.AzureComputeGalleryImage{
		Gallery: "ClusterAPI-f72ceb4f-5159-4c26-a0fe-2ea738f0d019", Name: "capi-win-2022-containerd", Version: "1.33.5",
	}))
}

func TestVirtualMachine_UltraSSD(t *testing.T) {
	ultra := []infrav1.DataDisk{{NameSuffix: "u", DiskSizeGB: 8, ManagedDisk: &infrav1.ManagedDiskParameters{StorageAccountType: "UltraSSD_LRS"}}}
	tests := []struct {
		name  string
		disks []infrav1.DataDisk
		caps  *infrav1.AdditionalCapabilities
		want  *bool
	}{
		{name: "no Ultra disk"},
		{name: "an Ultra disk enables Ultra SSDs", disks: ultra, want: ptr.To(true)},
		{name: "the spec wins", disks: ultra, caps: &infrav1.AdditionalCapabilities{UltraSSDEnabled: ptr.To(false)}, want: ptr.To(false)},
		{name: "without Ultra disks", caps: &infrav1.AdditionalCapabilities{UltraSSDEnabled: ptr.To(true)}, want: ptr.To(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			caps := additionalCapabilities(infrav1.AzureMachineSpec{DataDisks: tt.disks, AdditionalCapabilities: tt.caps})
			if tt.want == nil {
				g.Expect(caps).To(BeNil())
				return
			}
			g.Expect(caps.UltraSSDEnabled).To(Equal(tt.want))
		})
	}
}
