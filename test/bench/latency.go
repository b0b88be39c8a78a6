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

package bench

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// latencyTracker measures how long an ASO object's Ready transition takes to reach its owner's status: from the
// moment the benchmark sees ASO (the simulator) report the object Ready for its generation, to the moment it
// sees the owner's status.resources report it ready. Both are seen through the same watch connection kind (the
// benchmark's cache), so the watch delays mostly cancel out.
type latencyTracker struct {
	mu sync.Mutex
	// ready is the last Ready state seen per ASO object.
	ready map[objectID]bool
	// ownerReady is the last state of each ASO object in its owner's status.resources.
	ownerReady map[objectID]bool
	// pending are the objects ASO reported Ready whose owner does not show it yet, since when.
	pending map[objectID]time.Time
	samples []latencySample
	// seen and readyAt are when each owner was first seen and first seen Ready: how long the provider took per
	// unit, apart from how long Cluster API took to create the units.
	seen, readyAt map[objectID]time.Time
}

// objectID names an ASO object.
type objectID struct {
	group, kind, namespace, name string
}

type latencySample struct {
	// at is when ASO reported the object Ready; took is how long until its owner showed it.
	at   time.Time
	took time.Duration
}

// ownerKinds are the provider's kinds that own ASO objects and report them in status.resources.
func ownerKinds() []client.Object {
	return []client.Object{
		&infrav1.AzureCluster{}, &infrav1.AzureMachine{}, &infrav1.AzureManagedControlPlane{}, &infrav1.AzureManagedMachinePool{},
		&infrav1.AzureASOManagedCluster{}, &infrav1.AzureASOManagedControlPlane{}, &infrav1.AzureASOManagedMachinePool{},
		&infrav1exp.AzureMachinePool{}, &infrav1exp.AzureMachinePoolMachine{},
	}
}

// resourcesOf returns an owner's status.resources.
func resourcesOf(obj any) []infrav1.ResourceStatus {
	switch o := obj.(type) {
	case *infrav1.AzureCluster:
		return o.Status.Resources
	case *infrav1.AzureMachine:
		return o.Status.Resources
	case *infrav1.AzureManagedControlPlane:
		return o.Status.Resources
	case *infrav1.AzureManagedMachinePool:
		return o.Status.Resources
	case *infrav1.AzureASOManagedCluster:
		return o.Status.Resources
	case *infrav1.AzureASOManagedControlPlane:
		return o.Status.Resources
	case *infrav1.AzureASOManagedMachinePool:
		return o.Status.Resources
	case *infrav1exp.AzureMachinePool:
		return o.Status.Resources
	case *infrav1exp.AzureMachinePoolMachine:
		return o.Status.Resources
	}
	return nil
}

func newLatencyTracker() *latencyTracker {
	return &latencyTracker{
		ready: map[objectID]bool{}, ownerReady: map[objectID]bool{}, pending: map[objectID]time.Time{},
		seen: map[objectID]time.Time{}, readyAt: map[objectID]time.Time{},
	}
}

// startLatencyTracker registers the tracker's handlers with the observer's informers.
func startLatencyTracker(ctx context.Context, c cache.Cache, s *runtime.Scheme) (*latencyTracker, error) {
	t := newLatencyTracker()
	for _, obj := range aso.Kinds() {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil {
			return nil, err
		}
		informer, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, fmt.Errorf("failed to watch %s: %w", gvk.Kind, err)
		}
		onASO := func(o any) { t.observeASO(gvk.Group, gvk.Kind, o) }
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: onASO, UpdateFunc: func(_, o any) { onASO(o) },
		}); err != nil {
			return nil, err
		}
	}
	for _, obj := range ownerKinds() {
		informer, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, fmt.Errorf("failed to watch %T: %w", obj, err)
		}
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: t.observeOwner, UpdateFunc: func(_, o any) { t.observeOwner(o) },
		}); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// observeASO records an ASO object turning Ready for its current generation.
func (t *latencyTracker) observeASO(group, kind string, o any) {
	obj, ok := o.(genruntime.ARMMetaObject)
	if !ok {
		return
	}
	now := time.Now()
	ready := false
	if c := genruntime.GetReadyCondition(obj); c != nil {
		ready = c.Status == metav1.ConditionTrue && c.ObservedGeneration >= obj.GetGeneration()
	}
	id := objectID{group, kind, obj.GetNamespace(), obj.GetName()}
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.ready[id]
	t.ready[id] = ready
	switch {
	case ready && !was && !t.ownerReady[id]:
		t.pending[id] = now
	case !ready:
		delete(t.pending, id)
	}
}

// observeOwner resolves the pending objects its status now reports ready.
func (t *latencyTracker) observeOwner(o any) {
	owner, ok := o.(client.Object)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	self := objectID{kind: fmt.Sprintf("%T", o), namespace: owner.GetNamespace(), name: owner.GetName()}
	if _, ok := t.seen[self]; !ok {
		t.seen[self] = now
	}
	if getter, ok := o.(conditions.Getter); ok && conditions.IsTrue(getter, clusterv1.ReadyCondition) {
		if _, ok := t.readyAt[self]; !ok {
			t.readyAt[self] = now
		}
	}
	for _, r := range resourcesOf(o) {
		id := objectID{r.Resource.Group, r.Resource.Kind, owner.GetNamespace(), r.Resource.Name}
		t.ownerReady[id] = r.Ready
		if !r.Ready {
			continue
		}
		if since, ok := t.pending[id]; ok {
			t.samples = append(t.samples, latencySample{at: since, took: now.Sub(since)})
			delete(t.pending, id)
		}
	}
}

// Provisioning summarises, for the units of a kind first seen in a phase, when the last of them appeared
// (Cluster API creates them) and how long each took from appearing to Ready (the provider and ASO).
type Provisioning struct {
	Units int `json:"units"`
	// LastCreatedSeconds is when the last unit appeared, from the phase's start.
	LastCreatedSeconds float64 `json:"lastCreatedSeconds"`
	// Ready* are from a unit's appearance to its Ready condition; NotReady counts those never Ready.
	ReadyP50Seconds float64 `json:"readyP50Seconds"`
	ReadyP99Seconds float64 `json:"readyP99Seconds"`
	NotReady        int     `json:"notReady,omitempty"`
}

// provisioning summarises the owners of a kind (as fmt's %T names it) first seen in [from, to).
func (t *latencyTracker) provisioning(kind string, from, to time.Time) *Provisioning {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &Provisioning{}
	var took []time.Duration
	for id, seen := range t.seen {
		if id.kind != kind || seen.Before(from) || !seen.Before(to) {
			continue
		}
		p.Units++
		p.LastCreatedSeconds = max(p.LastCreatedSeconds, seen.Sub(from).Seconds())
		if ready, ok := t.readyAt[id]; ok {
			took = append(took, ready.Sub(seen))
		} else {
			p.NotReady++
		}
	}
	if p.Units == 0 {
		return nil
	}
	if len(took) > 0 {
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		p.ReadyP50Seconds, p.ReadyP99Seconds = quantile(took, 0.5).Seconds(), quantile(took, 0.99).Seconds()
	}
	return p
}

// quantile is the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// Latency summarises the ASO Ready → owner status latencies of a phase.
type Latency struct {
	Samples int     `json:"samples"`
	P50MS   float64 `json:"p50ms"`
	P90MS   float64 `json:"p90ms"`
	P99MS   float64 `json:"p99ms"`
	MaxMS   float64 `json:"maxms"`
}

// between summarises the samples whose Ready transition fell in [from, to).
func (t *latencyTracker) between(from, to time.Time) *Latency {
	t.mu.Lock()
	var took []time.Duration
	for _, s := range t.samples {
		if !s.at.Before(from) && s.at.Before(to) {
			took = append(took, s.took)
		}
	}
	t.mu.Unlock()
	if len(took) == 0 {
		return nil
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	ms := func(q float64) float64 { return float64(quantile(took, q).Microseconds()) / 1000 }
	return &Latency{Samples: len(took), P50MS: ms(0.50), P90MS: ms(0.90), P99MS: ms(0.99), MaxMS: ms(1)}
}
