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

package realaso

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/armgolden"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// readyInAzure tells whether ASO reports obj Ready for its current generation, and the Azure resource ASO recorded
// for it exists in the fake Azure.
func readyInAzure(obj client.Object) bool {
	ready := genruntime.GetReadyCondition(obj.(genruntime.MetaObject))
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != obj.GetGeneration() {
		return false
	}
	id := obj.GetAnnotations()[genruntime.ResourceIDAnnotation]
	_, exists := p.ARM.Resource(id)
	return id != "" && exists
}

// assertARMGoldens compares the first PUT fakearm received for each ASO object of a flavor's cluster with the
// flavor's ARM golden files (templates/testdata/arm/<flavor>, test/armgolden): the templates tests render the same
// files in process with ASO's own conversion, so this keeps that rendering equal to what ASO's controller sends.
// The files are written by make goldens UPDATE_GOLDENS=1, never here.
func assertARMGoldens(t *testing.T, f *plane.Fixture, flavor string) {
	t.Helper()
	ctx := context.Background()
	var objects []client.Object
	for _, o := range plane.ListASOObjects(ctx, NewWithT(t), f.Namespace) {
		objects = append(objects, o.Object)
	}
	names := armgolden.Names{Subscription: p.SubscriptionID(), Cluster: f.ClusterName, Namespace: f.Namespace}
	set, err := armgolden.FromFakeARM(ctx, env.Env.GetAPIReader(), p.ARM.Requests(), objects, names)
	if err != nil {
		t.Fatal(err)
	}
	if err := armgolden.Compare(filepath.Join(plane.TemplatesDir(), "testdata", "arm", flavor), set); err != nil {
		t.Error(err)
	}
}
