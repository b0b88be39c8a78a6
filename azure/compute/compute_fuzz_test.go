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

package compute_test

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

const (
	fuzzSubscription = "00000000-0000-0000-0000-000000000001"
	fuzzVersion      = "v1.33.2"
	fuzzBootstrap    = "#cloud-config\nruncmd:\n- kubeadm join\n"
	fuzzPassword     = "Fuzz-Passw0rd!"
)

// admit decodes data into obj and runs its webhooks; it reports whether the API would store it.
func admit(obj client.Object, structured bool, data []byte, adm infrav1.Admission) bool {
	if !fuzzing.Decode(obj, structured, data) || len(validation.IsDNS1123Subdomain(obj.GetName())) > 0 {
		return false
	}
	obj.SetNamespace("default")
	return adm.Create(context.Background(), obj) == nil
}

// clusterInfra is the infrastructure an admitted AzureCluster gives its machines, read as the machine controllers
// read it (clusterinfra.From), with the subscription ASO reports when the AzureCluster names none; nil when the
// AzureCluster is not admitted or lacks what machines need.
func clusterInfra(t *testing.T, data []byte) *clusterinfra.Infrastructure {
	ac := &infrav1.AzureCluster{}
	if !admit(ac, false, data, infrav1.AdmissionFor(ac)) {
		return nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))
	infra, err := clusterinfra.From(u)
	if err != nil {
		t.Fatalf("admitted AzureCluster %s: %v", data, err)
	}
	if infra.Missing() != "" {
		return nil
	}
	if infra.SubscriptionID == "" {
		infra.SubscriptionID = fuzzSubscription
	}
	return infra
}

// admittedClusters are the AzureClusters of the samples and flavors that the webhooks admit.
func admittedClusters(tb testing.TB, manifests map[string][][]byte) [][]byte {
	return fuzzing.Admitted(tb, infrav1.AdmissionFor(&infrav1.AzureCluster{}), func() client.Object { return &infrav1.AzureCluster{} },
		manifests["AzureCluster"])
}

func backendPools(pools []clusterinfra.BackendPool) []compute.BackendPoolRef {
	var out []compute.BackendPoolRef
	for _, p := range pools {
		out = append(out, compute.BackendPoolRef{LoadBalancer: p.LoadBalancer, Pool: p.Pool})
	}
	return out
}

// machineSeeds are AzureMachines from the samples and from the templates of the flavors.
func machineSeeds(tb testing.TB, manifests map[string][][]byte) [][]byte {
	seeds := manifests["AzureMachine"]
	for _, m := range manifests["AzureMachineTemplate"] {
		t := &infrav1.AzureMachineTemplate{}
		if err := json.Unmarshal(m, t); err != nil {
			tb.Fatal(err)
		}
		data, err := json.Marshal(&infrav1.AzureMachine{ObjectMeta: t.ObjectMeta, Spec: t.Spec.Template.Spec})
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return seeds
}

// FuzzMachineResources translates every AzureMachine the webhooks admit, in a cluster whose AzureCluster they
// admit, as the AzureMachine controller does (control plane or worker, before and after its VM exists): the
// translation does not panic and yields valid ASO objects (see fuzzing.CheckResources).
func FuzzMachineResources(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	adm := infrav1.AdmissionFor(&infrav1.AzureMachine{})
	clusters := admittedClusters(f, manifests)
	machines := fuzzing.Admitted(f, adm, func() client.Object { return &infrav1.AzureMachine{} }, machineSeeds(f, manifests))
	for i, machine := range machines {
		f.Add(clusters[i%len(clusters)], machine, false, i%2 == 0, i%3 != 0)
	}

	f.Fuzz(func(t *testing.T, cluster, machine []byte, structured, controlPlane, bootstrap bool) {
		infra := clusterInfra(t, cluster)
		am := &infrav1.AzureMachine{}
		if infra == nil || !admit(am, structured, machine, adm) {
			return
		}
		in := compute.MachineInput{
			Cluster: infra.AzureCluster("fuzz"), Name: am.Name, Spec: am.Spec, Role: azure.RoleNode,
			VNet: infra.VNet(), DefaultSubnet: infra.SubnetFor(infrav1.SubnetNode), KubernetesVersion: fuzzVersion,
			BackendPools: backendPools(infra.LBPools(controlPlane, am.Spec.AllocatePublicIP, false)),
		}
		if am.Spec.FailureDomain != nil {
			in.Zone = *am.Spec.FailureDomain
		}
		if controlPlane {
			in.Role, in.DefaultSubnet = azure.RoleControlPlane, infra.SubnetFor(infrav1.SubnetControlPlane)
		}
		if bootstrap {
			in.BootstrapData = []byte(fuzzBootstrap)
		}
		if am.Spec.OSDisk.OSType == "Windows" {
			in.WindowsAdminPassword = fuzzPassword
		}
		if err := fuzzing.CheckResources(compute.MachineResources(in)); err != nil {
			t.Fatalf("AzureMachine %s in AzureCluster %s: %v", machine, cluster, err)
		}
	})
}

// FuzzMachinePoolResources translates every AzureMachinePool the webhooks admit, in a cluster whose AzureCluster
// they admit, as the AzureMachinePool controllers do: a Uniform pool's scale set, or a Flexible pool's scale set
// and one instance made from the pool's model. The translation does not panic and yields valid ASO objects.
func FuzzMachinePoolResources(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	adm := infrav1exp.AdmissionFor(&infrav1exp.AzureMachinePool{})
	clusters := admittedClusters(f, manifests)
	for i, pool := range fuzzing.Admitted(f, adm, func() client.Object { return &infrav1exp.AzureMachinePool{} }, manifests["AzureMachinePool"]) {
		f.Add(clusters[i%len(clusters)], pool, false, uint8(i%4))
	}

	f.Fuzz(func(t *testing.T, cluster, machinePool []byte, structured bool, replicas uint8) {
		infra := clusterInfra(t, cluster)
		pool := &infrav1exp.AzureMachinePool{}
		if infra == nil || !admit(pool, structured, machinePool, adm) {
			return
		}
		c := infra.AzureCluster("fuzz")
		pools := backendPools(infra.LBPools(false, false, false))
		in := compute.ScaleSetInput{
			Cluster: c, Name: pool.Name, Spec: pool.Spec, Capacity: int32(replicas), Zones: []string{"1", "2"},
			VNet: infra.VNet(), DefaultSubnet: infra.SubnetFor(infrav1.SubnetNode), BackendPools: pools,
			BootstrapData: []byte(fuzzBootstrap), KubernetesVersion: fuzzVersion,
		}
		if pool.Spec.Template.OSDisk.OSType == "Windows" {
			in.WindowsAdminPassword = fuzzPassword
		}
		resources := compute.MachinePoolResources(in)
		if pool.Spec.OrchestrationMode == infrav1exp.FlexibleOrchestrationMode {
			if pool.Spec.Location != "" {
				c.Location = pool.Spec.Location
			}
			resources = append(resources, compute.ReplicaResources(compute.ReplicaInput{
				Cluster: c, ScaleSet: pool.Name, Name: pool.Name + "-0", Model: pool.Model(fuzzVersion, "1"),
				VNet: infra.VNet(), DefaultSubnet: infra.SubnetFor(infrav1.SubnetNode), BackendPools: pools,
				BootstrapData: []byte(fuzzBootstrap), WindowsAdminPassword: in.WindowsAdminPassword,
			})...)
		}
		if err := fuzzing.CheckResources(resources); err != nil {
			t.Fatalf("AzureMachinePool %s in AzureCluster %s: %v", machinePool, cluster, err)
		}
	})
}
