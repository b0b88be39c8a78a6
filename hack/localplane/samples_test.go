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

package main

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestRenderSample_ASOClientSecret: with --azure fake-arm, the aks-aso sample's ASO credential Secret gets a client
// secret (ASO's own controllers then use a service principal, which the fake Azure accepts); otherwise the Secret is
// the template's, with workload identity.
func TestRenderSample_ASOClientSecret(t *testing.T) {
	for _, tt := range []struct {
		name, clientSecret string
		want               map[string]any
	}{
		{name: "template's workload identity", want: map[string]any{
			"AUTH_MODE": "workloadidentity", "AZURE_CLIENT_ID": "00000000-0000-0000-0000-00000000000b",
			"AZURE_SUBSCRIPTION_ID": simulatedSubscriptionID, "AZURE_TENANT_ID": "00000000-0000-0000-0000-00000000000a",
		}},
		{name: "service principal for a fake Azure", clientSecret: "any", want: map[string]any{
			"AUTH_MODE": "workloadidentity", "AZURE_CLIENT_ID": "00000000-0000-0000-0000-00000000000b", "AZURE_CLIENT_SECRET": "any",
			"AZURE_SUBSCRIPTION_ID": simulatedSubscriptionID, "AZURE_TENANT_ID": "00000000-0000-0000-0000-00000000000a",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			settings := sampleSettings{
				kubernetesVersion: "v1.34.1", controlPlaneMachines: 1, workerMachines: 1, location: "eastus",
				subscriptionID: simulatedSubscriptionID, templatesDir: filepath.Join("..", "..", "templates"), asoClientSecret: tt.clientSecret,
			}
			smp, err := settings.renderSample("aks-aso")
			g.Expect(err).NotTo(HaveOccurred())
			var secrets []map[string]any
			for _, obj := range smp.objects {
				if obj.GetKind() == "Secret" {
					data, _, _ := unstructured.NestedMap(obj.Object, "stringData")
					secrets = append(secrets, data)
				}
			}
			g.Expect(secrets).To(ConsistOf(tt.want))
		})
	}
}

// TestRenderSample_EveryFlavor: every flavor of templates/ renders with the plane's variables, so --flavors takes any
// of them.
func TestRenderSample_EveryFlavor(t *testing.T) {
	settings := sampleSettings{
		kubernetesVersion: "v1.34.1", controlPlaneMachines: 1, workerMachines: 1, location: "eastus",
		subscriptionID: simulatedSubscriptionID, templatesDir: filepath.Join("..", "..", "templates"),
	}
	all := flavors(settings.templatesDir)
	if len(all) < 20 {
		t.Fatalf("found %d flavors in %s", len(all), settings.templatesDir)
	}
	for _, flavor := range all {
		t.Run(flavor, func(t *testing.T) {
			g := NewWithT(t)
			smp, err := settings.renderSample(flavor)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(smp.objects).NotTo(BeEmpty())
		})
	}
}
