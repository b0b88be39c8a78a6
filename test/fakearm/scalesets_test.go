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

package fakearm

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func scaleSetBody(capacity int, image string, rules ...string) map[string]any {
	props := map[string]any{
		"orchestrationMode": "Uniform",
		"virtualMachineProfile": map[string]any{
			"osProfile":      map[string]any{"computerNamePrefix": "pool"},
			"storageProfile": map[string]any{"imageReference": map[string]any{"communityGalleryImageId": image}},
			"networkProfile": map[string]any{"networkInterfaceConfigurations": []any{map[string]any{"name": "pool-nic-0"}}},
		},
	}
	if len(rules) > 0 {
		props["scaleInPolicy"] = map[string]any{"rules": rules}
	}
	return map[string]any{"location": "eastus", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": capacity}, "properties": props}
}

// instanceView is what a list of a scale set's instances shows: each instance's number and whether it runs the
// latest model, in order.
func instanceView(t *testing.T, c armClient, vmss string) []string {
	t.Helper()
	status, body := c.get(vmss + "/virtualMachines")
	if status != http.StatusOK {
		t.Fatalf("list the instances: %d %v", status, body)
	}
	var out []string
	for _, v := range body["value"].([]any) {
		out = append(out, fmt.Sprintf("%v:%v", at(v, "instanceId"), at(v, "properties", "latestModelApplied")))
	}
	return out
}

// TestScaleSetInstances: a Uniform scale set has as many instances as its capacity, numbered upwards and named after
// its computer name prefix; a sparse PUT keeps the model (an instance stays up to date); a model change outdates the
// instances made before it; scale-in follows the scale-in policy; deleting an instance lowers the capacity.
func TestScaleSetInstances(t *testing.T) {
	s, c := startInGroup(t, Options{})
	vmss := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/pool"
	c.create(vmss, scaleSetBody(2, "v1", "OldestVM"))
	if got, want := instanceView(t, c, vmss), []string{"0:true", "1:true"}; !slices.Equal(got, want) {
		t.Fatalf("after the creation: %v, want %v", got, want)
	}
	status, body := c.get(vmss + "/virtualMachines/1")
	if status != http.StatusOK || at(body, "name") != "pool_1" || at(body, "properties", "osProfile", "computerName") != "pool000001" {
		t.Errorf("GET instance 1: %d name %v computer name %v", status, at(body, "name"), at(body, "properties", "osProfile", "computerName"))
	}

	// CAPZ's scale-out: only the capacity, no model.
	c.create(vmss, map[string]any{"location": "eastus", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": 3},
		"properties": map[string]any{"orchestrationMode": "Uniform"}})
	if got, want := instanceView(t, c, vmss), []string{"0:true", "1:true", "2:true"}; !slices.Equal(got, want) {
		t.Errorf("a PUT without a model keeps it: %v, want %v", got, want)
	}
	_, body = c.get(vmss)
	if at(body, "properties", "virtualMachineProfile", "networkProfile") == nil {
		t.Errorf("the network profile was lost: %v", at(body, "properties", "virtualMachineProfile"))
	}

	// A new image, the capacity surged by one: the new instance alone is up to date.
	c.create(vmss, scaleSetBody(4, "v2", "OldestVM"))
	if got, want := instanceView(t, c, vmss), []string{"0:false", "1:false", "2:false", "3:true"}; !slices.Equal(got, want) {
		t.Errorf("after the model change: %v, want %v", got, want)
	}
	// OldestVM scales in from the lowest numbers; Default from the highest.
	c.create(vmss, scaleSetBody(2, "v2", "OldestVM"))
	if got, want := instanceView(t, c, vmss), []string{"2:false", "3:true"}; !slices.Equal(got, want) {
		t.Errorf("after scale-in with OldestVM: %v, want %v", got, want)
	}
	c.create(vmss, scaleSetBody(3, "v2"))
	c.create(vmss, scaleSetBody(2, "v2"))
	if got, want := instanceView(t, c, vmss), []string{"2:false", "3:true"}; !slices.Equal(got, want) {
		t.Errorf("after scale-out and scale-in by default: %v, want %v", got, want)
	}

	// Deleting an instance (CAPZ's scale-in) lowers the capacity; a write of the same capacity makes none again.
	c.remove(vmss + "/virtualMachines/2")
	_, body = c.get(vmss)
	if got := fmt.Sprint(at(body, "sku", "capacity")); got != "1" {
		t.Errorf("the capacity after deleting an instance: %s, want 1", got)
	}
	c.create(vmss, scaleSetBody(1, "v2"))
	if got, want := instanceView(t, c, vmss), []string{"3:true"}; !slices.Equal(got, want) {
		t.Errorf("after deleting instance 2: %v, want %v", got, want)
	}

	instances := s.ScaleSetInstances(testSubscription)
	if len(instances) != 1 || instances[0].ComputerName != "pool000003" ||
		!strings.HasSuffix(instances[0].ProviderID, "/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3") ||
		!strings.HasPrefix(instances[0].ProviderID, "azure:///subscriptions/") {
		t.Errorf("ScaleSetInstances: %+v", instances)
	}

	// A Flexible scale set has no instances of the fake's making.
	flex := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/flex"
	c.create(flex, map[string]any{"location": "eastus", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": 2},
		"properties": map[string]any{"orchestrationMode": "Flexible"}})
	if got := instanceView(t, c, flex); len(got) != 0 {
		t.Errorf("a Flexible scale set's instances: %v, want none", got)
	}
	c.remove(vmss)
	if got := s.ScaleSetInstances(testSubscription); len(got) != 0 {
		t.Errorf("the instances go with their scale set: %+v", got)
	}
}
