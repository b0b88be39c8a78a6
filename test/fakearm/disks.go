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

import "strings"

// vmDisks plays Azure's managed disks of a virtual machine: a PUT of a VM makes the managed disk of its OS disk
// (unless ephemeral) and of each data disk it creates, in the VM's resource group, named as the VM's storage profile
// names them, and reports their IDs in the VM (managedDisk.id). The lock is held.
func (s *Server) vmDisks(vm *resource) {
	if !strings.EqualFold(vm.id.fullType(), "Microsoft.Compute/virtualMachines") || vm.id.resourceGroup == "" {
		return
	}
	profile := lookupMap(vm.body, "properties", "storageProfile")
	if profile == nil {
		return
	}
	disks := []map[string]any{}
	if os := lookupMap(profile, "osDisk"); os != nil && lookupMap(os, "diffDiskSettings") == nil {
		disks = append(disks, os)
	}
	if list, ok := profile["dataDisks"].([]any); ok {
		for _, d := range list {
			if disk, ok := d.(map[string]any); ok {
				disks = append(disks, disk)
			}
		}
	}
	for _, disk := range disks {
		name := str(disk, "name")
		if name == "" {
			continue
		}
		id := parseID("/subscriptions/" + vm.id.subscription + "/resourceGroups/" + vm.id.resourceGroup + "/providers/Microsoft.Compute/disks/" + name)
		if _, ok := s.resources[id.key()]; !ok {
			body := map[string]any{"location": vm.body["location"], "properties": map[string]any{"diskState": "Attached"}}
			if size, ok := disk["diskSizeGB"]; ok {
				body["properties"].(map[string]any)["diskSizeGB"] = size
			}
			r, _ := s.upsert(id, body, vm.tenant)
			r.state = stateSucceeded
		}
		ensureMap(disk, "managedDisk")["id"] = s.resources[id.key()].id.raw
	}
}

// disksDeletedWithVM lists the keys of the managed disks Azure deletes with a virtual machine: those whose delete
// option is Delete. The others (no delete option: Azure's default, Detach) stay, detached. The lock is held.
func (s *Server) disksDeletedWithVM(key string) []string {
	vm, ok := s.resources[key]
	if !ok || !strings.EqualFold(vm.id.fullType(), "Microsoft.Compute/virtualMachines") {
		return nil
	}
	profile := lookupMap(vm.body, "properties", "storageProfile")
	disks := []map[string]any{lookupMap(profile, "osDisk")}
	if list, ok := profile["dataDisks"].([]any); ok {
		for _, d := range list {
			if disk, ok := d.(map[string]any); ok {
				disks = append(disks, disk)
			}
		}
	}
	var out []string
	for _, disk := range disks {
		id := str(lookupMap(disk, "managedDisk"), "id")
		if id == "" {
			continue
		}
		if strings.EqualFold(str(disk, "deleteOption"), "Delete") {
			out = append(out, parseID(id).key())
		} else if d, ok := s.resources[parseID(id).key()]; ok {
			ensureMap(d.body, "properties")["diskState"] = "Unattached"
		}
	}
	return out
}
