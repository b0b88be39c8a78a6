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

	c.remove(vmss)
	if got := s.ScaleSetInstances(testSubscription); len(got) != 0 {
		t.Errorf("the instances go with their scale set: %+v", got)
	}
}

// flexibleScaleSetBody is a Flexible scale set with a model, as CAPZ writes one.
func flexibleScaleSetBody(capacity int, image string) map[string]any {
	body := scaleSetBody(capacity, image)
	body["properties"].(map[string]any)["orchestrationMode"] = "Flexible"
	body["zones"] = []any{"1", "2"}
	return body
}

// TestFlexibleScaleSetInstances: a Flexible scale set with a model has as many VMs of Azure's making as its capacity
// (standalone VMs of the scale set, named <scale set>_<suffix>, one zone after another), listed among its instances
// under the scale set's ID; a model change outdates the VMs made before it; scale-in removes the newest; deleting a
// VM lowers the capacity; the VMs go with the scale set. A Flexible scale set without a model has none.
func TestFlexibleScaleSetInstances(t *testing.T) {
	s, c := startInGroup(t, Options{})
	empty := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/empty"
	c.create(empty, map[string]any{"location": "eastus", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": 2},
		"properties": map[string]any{"orchestrationMode": "Flexible"}})
	if got := instanceView(t, c, empty); len(got) != 0 {
		t.Errorf("the instances of a Flexible scale set without a model: %v, want none", got)
	}
	// A VM written to it is one of its instances, and counts for nothing else.
	c.create(testRG+"/providers/Microsoft.Compute/virtualMachines/joined", map[string]any{"location": "eastus",
		"properties": map[string]any{"virtualMachineScaleSet": map[string]any{"id": empty}}})
	if got := instanceView(t, c, empty); !slices.Equal(got, []string{"joined:false"}) {
		t.Errorf("the instances of a Flexible scale set with a VM written to it: %v, want the VM", got)
	}
	if got := s.ScaleSetInstances(testSubscription); len(got) != 0 {
		t.Errorf("a VM written to a scale set is no instance of Azure's making: %+v", got)
	}

	flex := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/flex"
	c.create(flex, flexibleScaleSetBody(2, "v1"))
	view := instanceView(t, c, flex)
	if len(view) != 2 || !strings.HasPrefix(view[0], "flex_") || !strings.HasSuffix(view[0], ":true") {
		t.Fatalf("after the creation: %v, want two up-to-date VMs flex_<suffix>", view)
	}
	first := strings.TrimSuffix(view[0], ":true")
	_, list := c.get(flex + "/virtualMachines")
	if items, _ := list["value"].([]any); len(items) == 0 || at(items[0], "id") != flex+"/virtualMachines/"+first {
		t.Errorf("the instances' list: %v, want the first under the scale set's ID", list)
	}
	status, vm := c.get(testRG + "/providers/Microsoft.Compute/virtualMachines/" + first)
	if status != http.StatusOK || at(vm, "properties", "virtualMachineScaleSet", "id") != flex || fmt.Sprint(at(vm, "zones")) != "[1]" ||
		at(vm, "properties", "hardwareProfile", "vmSize") != "Standard_D2s_v3" || at(vm, "properties", "osProfile", "computerName") != "pool000000" {
		t.Errorf("GET the first VM: %d %v", status, vm)
	}
	instances := s.ScaleSetInstances(testSubscription)
	named := func(i ScaleSetInstance) bool {
		return strings.HasSuffix(i.ProviderID, "/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"+first) && i.ComputerName == "pool000000"
	}
	if len(instances) != 2 || !slices.ContainsFunc(instances, named) {
		t.Errorf("ScaleSetInstances: %+v", instances)
	}

	// A new image, the capacity surged by one: the new VM alone is up to date; scale-in removes it, the newest.
	c.create(flex, flexibleScaleSetBody(3, "v2"))
	if got := instanceView(t, c, flex); len(got) != 3 || got[0] != first+":false" || !strings.HasSuffix(got[2], ":true") {
		t.Errorf("after the model change: %v, want two outdated VMs and a new one", got)
	}
	c.create(flex, flexibleScaleSetBody(2, "v2"))
	if got := instanceView(t, c, flex); len(got) != 2 || got[0] != first+":false" || !strings.HasSuffix(got[1], ":false") {
		t.Errorf("after scale-in: %v, want the two outdated VMs", got)
	}

	// Deleting a VM (CAPZ's deletion of an instance) lowers the capacity; the others go with the scale set.
	c.remove(testRG + "/providers/Microsoft.Compute/virtualMachines/" + first)
	_, body := c.get(flex)
	if got := fmt.Sprint(at(body, "sku", "capacity")); got != "1" {
		t.Errorf("the capacity after deleting a VM: %s, want 1", got)
	}
	if got := instanceView(t, c, flex); len(got) != 1 || got[0] == first+":false" {
		t.Errorf("after deleting a VM: %v", got)
	}
	c.remove(flex)
	if got := s.ScaleSetInstances(testSubscription); len(got) != 0 {
		t.Errorf("the VMs go with their scale set: %+v", got)
	}
}

// TestScaleSetZones: a zonal scale set puts a new instance in the zone with the fewest, and its scale-in balances
// the zones before the policy's age rule: OldestVM removes the oldest of the larger zone, not the oldest overall.
func TestScaleSetZones(t *testing.T) {
	_, c := startInGroup(t, Options{})
	vmss := testRG + "/providers/Microsoft.Compute/virtualMachineScaleSets/zonal"
	zonal := func(capacity int) map[string]any {
		body := scaleSetBody(capacity, "v1", "OldestVM")
		body["zones"] = []any{"1", "2"}
		return body
	}
	zones := func() []string {
		_, body := c.get(vmss + "/virtualMachines")
		var out []string
		for _, v := range body["value"].([]any) {
			out = append(out, fmt.Sprintf("%v:%v", at(v, "instanceId"), at(v, "zones")))
		}
		return out
	}
	c.create(vmss, zonal(6))
	if got, want := zones(), []string{"0:[1]", "1:[2]", "2:[1]", "3:[2]", "4:[1]", "5:[2]"}; !slices.Equal(got, want) {
		t.Fatalf("after the creation: %v, want %v", got, want)
	}
	c.remove(vmss + "/virtualMachines/4")
	c.create(vmss, zonal(4))
	if got, want := zones(), []string{"0:[1]", "2:[1]", "3:[2]", "5:[2]"}; !slices.Equal(got, want) {
		t.Errorf("after scale-in with one zone larger: %v, want %v (instance 1 of zone 2 removed)", got, want)
	}
	c.remove(vmss + "/virtualMachines/0")
	c.create(vmss, zonal(4))
	if got, want := zones(), []string{"2:[1]", "3:[2]", "5:[2]", "6:[1]"}; !slices.Equal(got, want) {
		t.Errorf("after scale-out with one zone smaller: %v, want %v", got, want)
	}
}
