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

package aks

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/fuzzing"
)

// admit decodes data into obj, labels it with its Cluster as Cluster API does, and runs its webhooks; it reports
// whether the API would store it.
func admit(obj client.Object, structured bool, data []byte) bool {
	if !fuzzing.Decode(obj, structured, data) || len(validation.IsDNS1123Subdomain(obj.GetName())) > 0 {
		return false
	}
	obj.SetNamespace("default")
	labels := obj.GetLabels()
	if labels[infrav1.ClusterNameLabel] == "" {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[infrav1.ClusterNameLabel] = "my-cluster"
		obj.SetLabels(labels)
	}
	return infrav1.AdmissionFor(obj).Create(context.Background(), obj) == nil
}

// FuzzAKSResources translates every AzureManagedControlPlane and AzureManagedMachinePool the webhooks admit, as
// the controllers do: the control plane with the pool as its system pool while AKS creates the cluster, and the
// pool as its own agent pool. The translation does not panic and yields valid ASO objects (see
// fuzzing.CheckResources).
func FuzzAKSResources(f *testing.F) {
	manifests := fuzzing.Manifests(f)
	newCP := func() client.Object { return &infrav1.AzureManagedControlPlane{} }
	newPool := func() client.Object { return &infrav1.AzureManagedMachinePool{} }
	full, err := json.Marshal(fullControlPlane())
	if err != nil {
		f.Fatal(err)
	}
	cps := fuzzing.Admitted(f, infrav1.AdmissionFor(newCP()), newCP, append(manifests["AzureManagedControlPlane"], full))
	pools := fuzzing.Admitted(f, infrav1.AdmissionFor(newPool()), newPool, manifests["AzureManagedMachinePool"])
	for i, cp := range cps {
		for j, pool := range pools {
			f.Add(cp, pool, false, uint8(i+j))
		}
	}

	f.Fuzz(func(t *testing.T, controlPlaneData, poolData []byte, structured bool, replicas uint8) {
		cp, pool := &infrav1.AzureManagedControlPlane{}, &infrav1.AzureManagedMachinePool{}
		if !admit(cp, structured, controlPlaneData) || !admit(pool, structured, poolData) {
			return
		}
		if cp.Spec.SubscriptionID == "" {
			cp.Spec.SubscriptionID = testSubscription // as ASO reports it for the resource group
		}
		agentPool := poolInput(cp, pool, ptr.To(int32(replicas)))
		in := controlPlaneInput(cp)
		in.InitialPools = []AgentPoolInput{agentPool}
		resources := append(ControlPlaneResources(in), MachinePoolResources(agentPool)...)
		if err := fuzzing.CheckResources(resources); err != nil {
			t.Fatalf("AzureManagedControlPlane %s with AzureManagedMachinePool %s: %v", controlPlaneData, poolData, err)
		}
	})
}
