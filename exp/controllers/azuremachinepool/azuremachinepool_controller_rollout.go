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

package azuremachinepool

import (
	"hash/fnv"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// replica is what the rollout of a Flexible pool needs to know about one instance.
type replica struct {
	name    string
	created time.Time
	// upToDate is true when the instance's model is the pool's current one.
	upToDate bool
	// ready is true when the instance's Ready condition is true.
	ready bool
	// deleting is true once the instance or its Machine is being deleted; it still counts towards the surge.
	deleting bool
	// marked is true when its Machine carries Cluster API's delete-machine annotation: it goes first on scale-down.
	marked bool
}

// plan is what one pass of the rollout does: create that many instances of the current model, delete those.
type plan struct {
	create int
	delete []string
}

// limits are the rolling update's bounds for a number of desired instances: at most desired+maxSurge instances
// exist, at least desired-maxUnavailable are ready.
func limits(ru *infrav1exp.MachineRollingUpdateDeployment, desired int) (maxSurge, maxUnavailable int) {
	maxSurge, maxUnavailable = 1, 0
	if ru != nil {
		if ru.MaxSurge != nil {
			// The webhook validated both values; a bad one falls back to the default.
			if n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true); err == nil {
				maxSurge = n
			}
		}
		if ru.MaxUnavailable != nil {
			if n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, false); err == nil {
				maxUnavailable = n
			}
		}
	}
	if maxSurge == 0 && maxUnavailable == 0 {
		// Percentages may round both down to 0; the rollout would never move (as Deployments do).
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable
}

// planRollout decides how a Flexible pool gets from its instances to desired instances of the current model,
// as a MachineDeployment does between its MachineSets:
//   - it creates missing instances of the current model while fewer than desired+maxSurge instances exist
//     (deleting ones included, as they still hold their resources);
//   - without outdated instances it deletes the excess ones: those marked for deletion first, then those not
//     ready, then in the delete policy's order;
//   - with outdated instances it deletes them (those not ready first) while at least desired-maxUnavailable
//     instances stay ready.
func planRollout(desired int, strategy infrav1exp.AzureMachinePoolDeploymentStrategy, replicas []replica) plan {
	ru := strategy.RollingUpdate
	policy := infrav1exp.OldestDeletePolicyType
	if ru != nil && ru.DeletePolicy != "" {
		policy = ru.DeletePolicy
	}
	var active, current, outdated []replica
	for _, r := range replicas {
		if r.deleting {
			continue
		}
		active = append(active, r)
		if r.upToDate {
			current = append(current, r)
		} else {
			outdated = append(outdated, r)
		}
	}
	var p plan
	maxSurge, maxUnavailable := limits(ru, desired)
	// Instances being deleted still hold their resources: new ones wait while they would exceed the surge (at the
	// end of a rollout, or when a deleted Machine is replaced).
	if room := desired + maxSurge - len(replicas); len(current) < desired && room > 0 {
		p.create = min(desired-len(current), room)
	}
	if len(outdated) == 0 {
		for _, r := range deletionOrder(current, policy)[:max(len(current)-desired, 0)] {
			p.delete = append(p.delete, r.name)
		}
		return p
	}

	minAvailable := desired - maxUnavailable
	available, currentUnavailable := 0, 0
	for _, r := range active {
		if r.ready {
			available++
		} else if r.upToDate {
			currentUnavailable++
		}
	}
	// Outdated instances may go while the rest (the new ones once ready) keep minAvailable instances ready.
	budget := len(active) - minAvailable - currentUnavailable
	for _, r := range deletionOrder(outdated, policy) {
		if budget <= 0 {
			break
		}
		if r.ready {
			if available-1 < minAvailable {
				continue
			}
			available--
		}
		p.delete = append(p.delete, r.name)
		budget--
	}
	// The pool may also have shrunk during the rollout.
	for _, r := range deletionOrder(current, policy)[:max(len(current)-desired, 0)] {
		p.delete = append(p.delete, r.name)
	}
	return p
}

// deletionOrder sorts instances in the order they should go: marked for deletion first, then not ready, then by
// the delete policy (oldest or newest first, or in an order that is random but stable across passes).
func deletionOrder(replicas []replica, policy infrav1exp.AzureMachinePoolDeletePolicyType) []replica {
	out := append([]replica(nil), replicas...)
	rank := func(r replica) int {
		switch {
		case r.marked:
			return 0
		case !r.ready:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		switch policy {
		case infrav1exp.NewestDeletePolicyType:
			if !a.created.Equal(b.created) {
				return a.created.After(b.created)
			}
			return a.name > b.name
		case infrav1exp.RandomDeletePolicyType:
			return nameHash(a.name) < nameHash(b.name)
		}
		if !a.created.Equal(b.created) {
			return a.created.Before(b.created)
		}
		return a.name < b.name
	})
	return out
}

func nameHash(name string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return h.Sum32()
}

// uniformNode is a Node of a Uniform scale set's instance.
type uniformNode struct {
	// instanceID is the instance's number in the scale set; Azure numbers new instances upwards.
	instanceID int
	ready      bool
}

// uniformCapacity decides the capacity of a Uniform scale set. ASO cannot replace a given instance, so a rolling
// update goes by capacity: Azure creates new instances from the current model, and scales in by deleting the
// oldest ones (scale-in policy OldestVM while the pool rolls out, see compute.ScaleInPolicy). Instances numbered up to
// watermark were created before the model changed and are outdated. In a steady state (current == desired, every
// instance ready) a batch starts: surge by min(maxSurge, outdated) instances, or without surge shrink by
// min(maxUnavailable, outdated); once the new instances are ready (or the old ones gone) the capacity returns to
// desired. Without outdated instances the capacity is desired.
func uniformCapacity(desired, current int, ru *infrav1exp.MachineRollingUpdateDeployment, nodes []uniformNode, watermark int) int {
	outdated, ready := 0, 0
	for _, n := range nodes {
		if n.instanceID <= watermark {
			outdated++
		}
		if n.ready {
			ready++
		}
	}
	if outdated == 0 || desired == 0 {
		return desired
	}
	maxSurge, maxUnavailable := limits(ru, desired)
	switch {
	case current > desired:
		if len(nodes) >= current && ready == len(nodes) {
			return desired // the surge is up: let Azure remove the oldest instances
		}
		return min(current, desired+maxSurge)
	case current < desired:
		if len(nodes) <= current {
			return desired // the old instances are gone: let Azure add new ones
		}
		return max(current, desired-maxUnavailable)
	case len(nodes) != desired || ready != len(nodes):
		return desired // not steady yet
	case maxSurge > 0:
		return desired + min(maxSurge, outdated)
	}
	return desired - min(maxUnavailable, outdated)
}
