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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const (
	scaleSetType         = "microsoft.compute/virtualmachinescalesets"
	scaleSetInstanceType = "microsoft.compute/virtualmachinescalesets/virtualmachines"
)

// keepScaleSetModel plays Azure's rule for a PUT of an existing scale set: a body without a virtualMachineProfile
// keeps the scale set's model, and a profile without a networkProfile keeps its network profile. CAPZ relies on it:
// it sends neither when only the capacity changes, and never the network profile of an existing scale set
// (azure/services/scalesets/spec.go existingParameters).
func keepScaleSetModel(existing *resource, body map[string]any) {
	if existing == nil || !strings.EqualFold(existing.id.fullType(), scaleSetType) {
		return
	}
	had := lookupMap(existing.body, "properties", "virtualMachineProfile")
	if had == nil {
		return
	}
	sent := lookupMap(body, "properties", "virtualMachineProfile")
	if sent == nil {
		ensureMap(body, "properties")["virtualMachineProfile"] = copyMap(had)
		return
	}
	if _, ok := sent["networkProfile"]; !ok && had["networkProfile"] != nil {
		sent["networkProfile"] = copyValue(had["networkProfile"])
	}
}

// isUniformScaleSet reports whether a resource is a scale set whose instances Azure makes from its model: one not
// in Flexible orchestration mode (Uniform is the default), which the fake plays. A Flexible scale set's VMs are
// written one by one.
func isUniformScaleSet(r *resource) bool {
	return strings.EqualFold(r.id.fullType(), scaleSetType) && !isFlexible(r)
}

// isFlexible reports whether a resource is a scale set in Flexible orchestration mode.
func isFlexible(r *resource) bool {
	return strings.EqualFold(r.id.fullType(), scaleSetType) &&
		strings.EqualFold(str(lookupMap(r.body, "properties"), "orchestrationMode"), "Flexible")
}

// isFlexibleWithModel reports whether a resource is a Flexible scale set with a VM model, from which Azure makes
// VMs up to its capacity (CAPZ's way). A Flexible scale set without one only groups the VMs written to it.
func isFlexibleWithModel(r *resource) bool {
	return isFlexible(r) && lookupMap(r.body, "properties", "virtualMachineProfile") != nil
}

// syncInstances plays the instances Azure makes from a scale set's model after a write: a Uniform scale set's, and
// the VMs of a Flexible one with a model (newFlexibleInstance). It makes instances of the current model up to
// sku.capacity, numbering them upwards, each in the zone with the fewest (leastUsedZone), and removes the excess as
// the scale-in policy says (scaleInVictims). Existing instances keep the model they were made from (upgrade policy
// Manual): the instance reports latestModelApplied false once the model changes. The lock is held.
func (s *Server) syncInstances(vmss *resource) {
	var instances []*resource
	var newInstance func(zone string) *resource
	number := instanceNumber
	switch {
	case isFlexibleWithModel(vmss):
		instances = s.flexibleInstancesOf(vmss)
		newInstance = func(zone string) *resource { return s.newFlexibleInstance(vmss, zone) }
		number = func(r *resource) int { return r.number }
	case isUniformScaleSet(vmss):
		instances = s.instancesOf(vmss)
		newInstance = func(zone string) *resource { return s.newInstance(vmss, zone) }
	default:
		return
	}
	capacity, ok := intField(lookupMap(vmss.body, "sku"), "capacity")
	if !ok {
		return
	}
	for len(instances) < capacity {
		instances = append(instances, newInstance(leastUsedZone(vmss, instances)))
	}
	for _, r := range scaleInVictims(instances, len(instances)-capacity, scaleInRule(vmss), number) {
		s.remove(r.id.key())
	}
}

// instancesOf lists a scale set's instances, lowest number first. The lock is held.
func (s *Server) instancesOf(vmss *resource) []*resource {
	out := s.childrenOf(vmss.id.key(), "virtualMachines")
	sort.SliceStable(out, func(i, j int) bool { return instanceNumber(out[i]) < instanceNumber(out[j]) })
	return out
}

// newInstance makes the next instance of a scale set from its current model, in zone (none: ""). The lock is held.
func (s *Server) newInstance(vmss *resource, zone string) *resource {
	number := vmss.nextInstance
	vmss.nextInstance++
	profile := lookupMap(vmss.body, "properties", "virtualMachineProfile")
	body := map[string]any{
		"location":   vmss.body["location"],
		"instanceId": strconv.Itoa(number),
		"properties": map[string]any{
			"osProfile": map[string]any{"computerName": computerName(str(lookupMap(profile, "osProfile"), "computerNamePrefix"), number)},
		},
	}
	if image := lookupMap(profile, "storageProfile", "imageReference"); image != nil {
		ensureMap(body, "properties", "storageProfile")["imageReference"] = copyMap(image)
	}
	if zone != "" {
		body["zones"] = []any{zone}
	}
	if sku := lookupMap(vmss.body, "sku"); sku != nil {
		body["sku"] = map[string]any{"name": sku["name"], "tier": sku["tier"]}
	}
	r, _ := s.upsert(parseID(vmss.id.raw+"/virtualMachines/"+strconv.Itoa(number)), body, vmss.tenant)
	r.state = stateSucceeded
	r.model = modelHash(vmss)
	return r
}

// instanceRemoved lowers a scale set's capacity when one of its instances (a Uniform one's, or a VM the fake made
// from a Flexible one's model) is deleted by a request, as Azure does. The lock is held.
func (s *Server) instanceRemoved(instance *resource) {
	parent := instance.flexibleScaleSet
	if strings.EqualFold(instance.id.fullType(), scaleSetInstanceType) {
		parent = parseID(instance.id.parent).key()
	}
	vmss, ok := s.resources[parent]
	if parent == "" || !ok {
		return
	}
	sku := lookupMap(vmss.body, "sku")
	if capacity, ok := intField(sku, "capacity"); ok && capacity > 0 {
		sku["capacity"] = json.Number(strconv.Itoa(capacity - 1))
	}
}

// computeInstance adds what Azure reports of a scale set's instance: its name (<scale set>_<number>) and whether
// it runs the scale set's current model. The lock is held.
func (s *Server) computeInstance(out, props map[string]any, r *resource) {
	parent := parseID(r.id.parent)
	out["name"] = parent.name + "_" + r.id.name
	vmss, ok := s.resources[parent.key()]
	props["latestModelApplied"] = ok && r.model == modelHash(vmss)
}

// leastUsedZone is the zone of a zonal scale set where Azure puts a new instance: the one with the fewest, the first
// in the scale set's list between those with as many; "" for a scale set without zones.
func leastUsedZone(vmss *resource, instances []*resource) string {
	zones, _ := vmss.body["zones"].([]any)
	best, fewest := "", -1
	for _, z := range zones {
		zone := fmt.Sprint(z)
		n := 0
		for _, r := range instances {
			if instanceZone(r) == zone {
				n++
			}
		}
		if fewest < 0 || n < fewest {
			best, fewest = zone, n
		}
	}
	return best
}

// instanceZone is the zone of a scale set's instance; "" for none.
func instanceZone(r *resource) string {
	if zones, ok := r.body["zones"].([]any); ok && len(zones) > 0 {
		return fmt.Sprint(zones[0])
	}
	return ""
}

// scaleInVictims chooses the excess instances a scale-in removes, as Azure documents its scale-in policies: it
// balances the zones first (it removes from the zone with the most instances), then takes the oldest instance
// (OldestVM) or the newest (NewestVM, and Default); between zones with as many instances, the one whose candidate
// the policy prefers. number orders the instances by age. The fake's instances have no fault domains, so Default's
// balancing of fault domains plays no part.
func scaleInVictims(instances []*resource, excess int, rule string, number func(*resource) int) []*resource {
	oldestFirst := strings.EqualFold(rule, "OldestVM")
	prefer := func(a, b *resource) bool {
		if oldestFirst {
			return number(a) < number(b)
		}
		return number(a) > number(b)
	}
	byZone := map[string][]*resource{}
	for _, r := range instances {
		byZone[instanceZone(r)] = append(byZone[instanceZone(r)], r)
	}
	for _, members := range byZone {
		sort.SliceStable(members, func(i, j int) bool { return prefer(members[i], members[j]) })
	}
	var victims []*resource
	for range excess {
		best := ""
		for zone, members := range byZone {
			if len(members) == 0 {
				continue
			}
			if current := byZone[best]; len(current) == 0 || len(members) > len(current) ||
				(len(members) == len(current) && prefer(members[0], current[0])) {
				best = zone
			}
		}
		if len(byZone[best]) == 0 {
			break
		}
		victims = append(victims, byZone[best][0])
		byZone[best] = byZone[best][1:]
	}
	return victims
}

// flexibleInstancesOf lists the VMs the fake made from a Flexible scale set's model, oldest first. The lock is held.
func (s *Server) flexibleInstancesOf(vmss *resource) []*resource {
	var out []*resource
	for _, r := range s.resources {
		if r.flexibleScaleSet == vmss.id.key() {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

// newFlexibleInstance makes the next VM of a Flexible scale set from its current model, in zone (none: ""), as Azure
// makes one: a standalone VM in the scale set's resource group named <scale set>_<eight characters>, with
// properties.virtualMachineScaleSet. The fake makes the VM only, not its network interface and disks. The lock is
// held.
func (s *Server) newFlexibleInstance(vmss *resource, zone string) *resource {
	number := vmss.nextInstance
	vmss.nextInstance++
	suffix := strings.ReplaceAll(stableGUID(vmss.id.raw, instancePurpose("flexible", number)), "-", "")[:8]
	name := vmss.id.name + "_" + suffix
	group := "/subscriptions/" + vmss.id.subscription + "/resourceGroups/" + vmss.id.resourceGroup
	profile := lookupMap(vmss.body, "properties", "virtualMachineProfile")
	props := map[string]any{
		"virtualMachineScaleSet": map[string]any{"id": vmss.id.raw},
		"osProfile":              map[string]any{"computerName": computerName(str(lookupMap(profile, "osProfile"), "computerNamePrefix"), number)},
	}
	if size := str(lookupMap(vmss.body, "sku"), "name"); size != "" {
		props["hardwareProfile"] = map[string]any{"vmSize": size}
	}
	if image := lookupMap(profile, "storageProfile", "imageReference"); image != nil {
		ensureMap(props, "storageProfile")["imageReference"] = copyMap(image)
	}
	body := map[string]any{"location": vmss.body["location"], "properties": props}
	if zone != "" {
		body["zones"] = []any{zone}
	}
	r, _ := s.upsert(parseID(group+"/providers/Microsoft.Compute/virtualMachines/"+name), body, vmss.tenant)
	r.state = stateSucceeded
	r.model = modelHash(vmss)
	r.flexibleScaleSet, r.number = vmss.id.key(), number
	return r
}

// renderFlexibleInstances is Azure's list of a Flexible scale set's instances: its VMs (those made from its model
// and those written with properties.virtualMachineScaleSet), each under the scale set's ID
// (.../virtualMachineScaleSets/<scale set>/virtualMachines/<VM>, which CAPZ turns back into the VM's) with the VM's
// name as instanceId. The lock is held.
func (s *Server) renderFlexibleInstances(vmss *resource) []any {
	var joined []*resource
	for _, r := range s.resources {
		if r.flexibleScaleSet == "" && strings.EqualFold(r.id.fullType(), "Microsoft.Compute/virtualMachines") &&
			strings.EqualFold(str(lookupMap(r.body, "properties", "virtualMachineScaleSet"), "id"), vmss.id.raw) {
			joined = append(joined, r)
		}
	}
	sort.Slice(joined, func(i, j int) bool { return joined[i].id.key() < joined[j].id.key() })
	// Those Azure made first, oldest first, then those written to the scale set.
	members := append(s.flexibleInstancesOf(vmss), joined...)
	out := []any{}
	for _, vm := range members {
		item := s.render(vm)
		item["id"] = vmss.id.raw + "/virtualMachines/" + vm.id.name
		item["type"] = "Microsoft.Compute/virtualMachineScaleSets/virtualMachines"
		item["instanceId"] = vm.id.name
		item["properties"].(map[string]any)["latestModelApplied"] = vm.model == modelHash(vmss)
		out = append(out, item)
	}
	return out
}

// ScaleSetInstance is an instance of a scale set of Azure's making (a Uniform one's, or a VM of a Flexible one's
// model), as its kubelet registers its Node.
type ScaleSetInstance struct {
	// ProviderID is the Node's provider ID: azure:// and the instance's ID, its resource group in lower case as
	// cloud-provider-azure writes it.
	ProviderID string
	// ComputerName is the instance's host name: the scale set's computerNamePrefix and its number in base 36.
	ComputerName string
}

// ScaleSetInstances lists the instances of Azure's making of the scale sets of a subscription, by provider ID.
func (s *Server) ScaleSetInstances(subscription string) []ScaleSetInstance {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ScaleSetInstance
	for _, r := range s.resources {
		instance := strings.EqualFold(r.id.fullType(), scaleSetInstanceType) || r.flexibleScaleSet != ""
		if !instance || !strings.EqualFold(r.id.subscription, subscription) {
			continue
		}
		id := r.id.raw
		if rg := "/resourceGroups/" + r.id.resourceGroup + "/"; strings.Contains(id, rg) {
			id = strings.Replace(id, rg, "/resourceGroups/"+strings.ToLower(r.id.resourceGroup)+"/", 1)
		}
		out = append(out, ScaleSetInstance{
			ProviderID:   "azure://" + id,
			ComputerName: str(lookupMap(r.body, "properties", "osProfile"), "computerName"),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProviderID < out[j].ProviderID })
	return out
}

// computerName is Azure's host name of a scale set's instance: the prefix and the instance number in base 36 on six
// characters.
func computerName(prefix string, number int) string {
	return fmt.Sprintf("%s%06s", prefix, strconv.FormatInt(int64(number), 36))
}

// modelHash identifies a scale set's model: its VM profile as stored (the extensions are children of their own).
func modelHash(vmss *resource) string {
	raw, _ := json.Marshal(lookupMap(vmss.body, "properties", "virtualMachineProfile"))
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:8])
}

// scaleInRule is the first rule of a scale set's scale-in policy ("" for Azure's default).
func scaleInRule(vmss *resource) string {
	rules, _ := lookupMap(vmss.body, "properties", "scaleInPolicy")["rules"].([]any)
	if len(rules) == 0 {
		return ""
	}
	rule, _ := rules[0].(string)
	return rule
}

func instanceNumber(r *resource) int {
	n, _ := strconv.Atoi(r.id.name)
	return n
}
