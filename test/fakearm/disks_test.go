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
	"net/http"
	"strings"
	"testing"
)

// TestVMDisks: a VM's PUT makes its OS disk and data disks (not an ephemeral OS disk) and reports their IDs; its
// DELETE deletes those whose deleteOption is Delete and leaves the others, detached, as Azure does.
func TestVMDisks(t *testing.T) {
	_, c := startInGroup(t, Options{})
	vm := testRG + "/providers/Microsoft.Compute/virtualMachines/vm-0"
	disk := func(name string) string { return testRG + "/providers/Microsoft.Compute/disks/" + name }
	c.create(vm, map[string]any{"location": "eastus", "properties": map[string]any{"storageProfile": map[string]any{
		"osDisk": map[string]any{"name": "vm-0_OSDisk", "createOption": "FromImage", "managedDisk": map[string]any{"storageAccountType": "Premium_LRS"}},
		"dataDisks": []any{
			map[string]any{"name": "vm-0_etcddisk", "lun": 0, "createOption": "Empty", "diskSizeGB": 256, "deleteOption": "Delete"},
		},
	}}})
	_, body := c.get(vm)
	if id, _ := at(body, "properties", "storageProfile", "osDisk", "managedDisk", "id").(string); !strings.EqualFold(id, disk("vm-0_OSDisk")) {
		t.Errorf("the OS disk's ID: got %q", id)
	}
	for _, name := range []string{"vm-0_OSDisk", "vm-0_etcddisk"} {
		if status, _ := c.get(disk(name)); status != http.StatusOK {
			t.Errorf("GET disk %s: %d, want 200", name, status)
		}
	}

	c.remove(vm)
	if status, _ := c.get(disk("vm-0_etcddisk")); status != http.StatusNotFound {
		t.Errorf("the data disk with deleteOption Delete goes with the VM: GET %d", status)
	}
	status, body := c.get(disk("vm-0_OSDisk"))
	if status != http.StatusOK {
		t.Fatalf("the OS disk without deleteOption stays: GET %d", status)
	}
	if state := at(body, "properties", "diskState"); state != "Unattached" {
		t.Errorf("the OS disk left is detached: diskState %v", state)
	}

	// An ephemeral OS disk is no managed disk.
	ephemeral := testRG + "/providers/Microsoft.Compute/virtualMachines/vm-1"
	c.create(ephemeral, map[string]any{"location": "eastus", "properties": map[string]any{"storageProfile": map[string]any{
		"osDisk": map[string]any{"name": "vm-1_OSDisk", "diffDiskSettings": map[string]any{"option": "Local"}},
	}}})
	if status, _ := c.get(disk("vm-1_OSDisk")); status != http.StatusNotFound {
		t.Errorf("an ephemeral OS disk is no managed disk: GET %d", status)
	}
}
