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
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// benchMachineInput is a typical worker of a MachineDeployment before its VM exists: the defaulted spec of
// CAPZ's default flavor and bootstrap data of the size kubeadm's cloud-config has (about 10 KB).
func benchMachineInput(b *testing.B) MachineInput {
	b.Helper()
	name := "my-cluster-md-0-4gq8r-zt5vn"
	m := &infrav1.AzureMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: infrav1.AzureMachineSpec{
			VMSize: "Standard_D2s_v3", SSHPublicKey: testSSHKey,
			OSDisk: infrav1.OSDisk{OSType: "Linux", DiskSizeGB: new(int32(128))},
		},
	}
	if err := m.SetDefaults(); err != nil {
		b.Fatal(err)
	}
	return MachineInput{
		Cluster: testCluster, Name: name, Spec: m.Spec, Role: azure.RoleNode, Zone: "2",
		VNet:              VNetRef{Name: "my-cluster-vnet"},
		DefaultSubnet:     "my-cluster-node-subnet",
		BackendPools:      []BackendPoolRef{{LoadBalancer: "my-cluster", Pool: "my-cluster-outboundBackendPool"}},
		BootstrapData:     []byte(testBootstrapData + strings.Repeat("# kubeadm join configuration and files\n", 256)),
		KubernetesVersion: "v1.34.1",
	}
}

// BenchmarkMachineResources measures the translation of one AzureMachine into its ASO objects, the pure part of
// a pass of the AzureMachine controller (test/bench reports it; the goal is under 50 µs): "translate" while the VM
// does not exist (the bootstrap data is encoded into it), "translate-created" afterwards (every later pass). The
// "encode" variant adds what every pass does next with each object before comparing or applying it: the
// conversion to unstructured content, its JSON encoding and a hash.
func BenchmarkMachineResources(b *testing.B) {
	in := benchMachineInput(b)
	created := in
	created.BootstrapData = nil
	for _, c := range []struct {
		name string
		in   MachineInput
	}{{"translate", in}, {"translate-created", created}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(MachineResources(c.in)) == 0 {
					b.Fatal("no resources")
				}
			}
		})
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range MachineResources(in) {
				content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r.Object)
				if err != nil {
					b.Fatal(err)
				}
				data, err := json.Marshal(content)
				if err != nil {
					b.Fatal(err)
				}
				_ = sha256.Sum256(data)
			}
		}
	})
}
