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

package azuremanagedcontrolplane

import (
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

func TestVersions(t *testing.T) {
	controlPlane := func(spec, autoUpgrade string, channel *infrav1.UpgradeChannel) *infrav1.AzureManagedControlPlane {
		cp := &infrav1.AzureManagedControlPlane{}
		cp.Spec.Version, cp.Status.AutoUpgradeVersion = spec, autoUpgrade
		if channel != nil {
			cp.Spec.AutoUpgradeProfile = &infrav1.ManagedClusterAutoUpgradeProfile{UpgradeChannel: channel}
		}
		return cp
	}
	stable := ptr.To(infrav1.UpgradeChannelStable)
	tests := []struct {
		name               string
		cp                 *infrav1.AzureManagedControlPlane
		current            string
		wantDesired        string
		wantAutoUpgradeVer string
	}{
		{name: "no channel: spec wins", cp: controlPlane("v1.32.0", "", nil), current: "v1.32.5", wantDesired: "v1.32.0"},
		{name: "channel none reports nothing", cp: controlPlane("v1.32.0", "", ptr.To(infrav1.UpgradeChannelNone)), current: "v1.33.0", wantDesired: "v1.32.0"},
		{name: "AKS moved ahead: keep its version", cp: controlPlane("v1.32.0", "v1.33.1", stable), current: "v1.33.1", wantDesired: "v1.33.1", wantAutoUpgradeVer: "v1.33.1"},
		{name: "user upgraded past AKS", cp: controlPlane("v1.34.0", "v1.33.1", stable), current: "v1.33.1", wantDesired: "v1.34.0"},
		{name: "same version", cp: controlPlane("v1.33.1", "", stable), current: "v1.33.1", wantDesired: "v1.33.1"},
		{name: "unparsable spec", cp: controlPlane("latest", "v1.33.1", stable), current: "v1.33.1", wantDesired: "latest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(desiredVersion(tc.cp)).To(Equal(tc.wantDesired))
			g.Expect(autoUpgradeVersion(tc.cp, tc.current)).To(Equal(tc.wantAutoUpgradeVer))
		})
	}
}
