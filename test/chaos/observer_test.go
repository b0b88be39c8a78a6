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

package chaos

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// broughtLabel marks an ASO object a test brought as a user does: the provider must never modify or delete it.
const broughtLabel = "chaos.capzaso.io/brought"

// onePerOwner are the ASO kinds of which an owner controls at most one: a machine's VM, a pool's scale set, a
// control plane's managed cluster, a machine pool's agent pool. A second one is a duplicate.
var onePerOwner = map[string]bool{"VirtualMachine": true, "VirtualMachineScaleSet": true, "ManagedCluster": true, "ManagedClustersAgentPool": true}

// observer records what happens to the ASO objects of some namespaces that the invariants speak of. It watches
// every ASO kind in them, whatever the objects' labels, through informers of its own, and records:
//   - every deletion (a deletion timestamp appearing, the object disappearing, or a new UID under the same name: a
//     delete and a recreate seen across a relist), with the object's controlling owner then;
//   - every loss of reconcile-policy skip;
//   - every duplicate: two live objects for one Azure resource ID, or two of a onePerOwner kind for one owner;
//   - every change of an object the test brought (its generation, labels, annotations or owners), and every write
//     of the provider to one (seen by the plane's audit webhook).
type observer struct {
	namespaces []string

	mu        sync.Mutex
	deletions []deletion
	unskipped []string
	modified  []string
	// dups are the duplicates seen since the last report; dupSeen those ever reported.
	dups    []string
	dupSeen map[string]bool
	// live indexes the live objects by Azure resource ID and by (kind, controlling owner): the descriptions of the
	// objects under each key, by UID.
	live map[string]map[types.UID]string
	// brought are the brought objects, with how the provider's writes to them were counted when they were made.
	brought map[plane.ObjectWrite]int
}

// deletion is an ASO object that was deleted, and its controlling owner then.
type deletion struct {
	object string
	// owners are what its deletion may follow from: its controller, or, without one, every owner the garbage
	// collector waits for (an AKS agent pool left to go with its managed cluster keeps only ASO's reference).
	owners []metav1.OwnerReference
	// recreated tells that a new object took its name (seen as a new UID).
	recreated bool
}

// observe starts an observer of namespaces; it stops when the test ends.
func observe(t *testing.T, namespaces ...string) *observer {
	t.Helper()
	o := &observer{namespaces: namespaces, dupSeen: map[string]bool{}, live: map[string]map[types.UID]string{}, brought: map[plane.ObjectWrite]int{}}
	byNamespace := map[string]cache.Config{}
	for _, ns := range namespaces {
		byNamespace[ns] = cache.Config{}
	}
	c, err := cache.New(env.Env.Config, cache.Options{
		Scheme: env.Env.Scheme(), DefaultNamespaces: byNamespace, DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for _, kind := range aso.Kinds() {
		informer, err := c.GetInformer(ctx, kind)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.added(obj) },
			UpdateFunc: func(before, after any) { o.updated(before, after) },
			DeleteFunc: func(obj any) { o.removed(obj) },
		}); err != nil {
			cancel()
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Start(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if !c.WaitForCacheSync(t.Context()) {
		t.Fatal("the observer's caches did not sync")
	}
	return o
}

func (o *observer) added(obj any) {
	a, ok := obj.(client.Object)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.index(a)
}

func (o *observer) updated(before, after any) {
	b, ok1 := before.(client.Object)
	a, ok2 := after.(client.Object)
	if !ok1 || !ok2 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if b.GetUID() != a.GetUID() {
		// Deleted and created again while the informer was not watching: it relisted and found a new object.
		o.unindex(b)
		if b.GetDeletionTimestamp().IsZero() {
			o.deletions = append(o.deletions, deletion{object: describe(b), owners: deletedWith(b), recreated: true})
		}
		o.index(a)
		return
	}
	if b.GetDeletionTimestamp().IsZero() && !a.GetDeletionTimestamp().IsZero() {
		o.deletions = append(o.deletions, deletion{object: describe(a), owners: deletedWith(a)})
	}
	if lostSkip(b, a) {
		o.unskipped = append(o.unskipped, describe(a))
	}
	if change := broughtChange(b, a); change != "" {
		o.modified = append(o.modified, fmt.Sprintf("brought %s: %s", describe(a), change))
	}
	o.index(a)
}

func (o *observer) removed(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	gone, ok := obj.(client.Object)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unindex(gone)
	if gone.GetDeletionTimestamp().IsZero() {
		// Its deletion was recorded when it got its timestamp, unless the informer missed that.
		o.deletions = append(o.deletions, deletion{object: describe(gone), owners: deletedWith(gone)})
	}
}

// keys are the index keys of an object: its Azure resource ID, once ASO reported it, and for a onePerOwner kind
// its kind and controlling owner.
func keys(obj client.Object) []string {
	var out []string
	if content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil {
		if id, _, _ := unstructured.NestedString(content, "status", "id"); id != "" {
			out = append(out, "the Azure resource "+strings.ToLower(id))
		}
	}
	kind := kindOf(obj)
	if owner := metav1.GetControllerOf(obj); owner != nil && onePerOwner[kind] {
		out = append(out, fmt.Sprintf("%s %s (%s)", owner.Kind, owner.Name, owner.UID))
	}
	return out
}

// index records a live object under its keys, and a duplicate when another object is there.
func (o *observer) index(obj client.Object) {
	o.unindex(obj)
	for _, key := range keys(obj) {
		objs := o.live[key]
		if objs == nil {
			objs = map[types.UID]string{}
			o.live[key] = objs
		}
		objs[obj.GetUID()] = describe(obj)
		if len(objs) > 1 {
			names := slices.Sorted(maps.Values(objs))
			report := fmt.Sprintf("%s has %s", key, strings.Join(names, " and "))
			if !o.dupSeen[report] {
				o.dupSeen[report] = true
				o.dups = append(o.dups, report)
			}
		}
	}
}

// unindex forgets an object under every key.
func (o *observer) unindex(obj client.Object) {
	for key, objs := range o.live {
		delete(objs, obj.GetUID())
		if len(objs) == 0 {
			delete(o.live, key)
		}
	}
}

// lostSkip reports an object that ASO was told to leave alone and now is not: neither the end of a pause (the
// object remembers its policy from before) nor an adoption probe that found the resource is the cluster's own.
func lostSkip(before, after client.Object) bool {
	skip := string(asoannotations.ReconcilePolicySkip)
	if before.GetAnnotations()[asoannotations.ReconcilePolicy] != skip || after.GetAnnotations()[asoannotations.ReconcilePolicy] == skip {
		return false
	}
	if _, paused := before.GetAnnotations()[aso.PrePauseAnnotation]; paused {
		return false
	}
	return before.GetAnnotations()[aso.AdoptionAnnotation] != "probing" || after.GetAnnotations()[aso.AdoptionAnnotation] != "created"
}

// asoAnnotations are the annotations ASO itself writes on the objects it reconciles (and the simulator's poke).
var asoAnnotations = []string{
	"serviceoperator.azure.com/resource-id", "serviceoperator.azure.com/poller-resume-token",
	"serviceoperator.azure.com/poller-resume-id", "serviceoperator.azure.com/latest-reconciled-generation",
	"serviceoperator.azure.com/last-reconciled-version", "serviceoperator.azure.com/operator-namespace",
	"serviceoperator.azure.com/version", "asosim.test/poked",
}

// broughtChange describes how a brought object changed in what its user decides: its spec (generation), labels,
// annotations (but ASO's own) and owners. ASO's finalizer, annotations and status are ASO's.
func broughtChange(before, after client.Object) string {
	if before.GetLabels()[broughtLabel] != "true" {
		return ""
	}
	userAnnotations := func(obj client.Object) map[string]string {
		out := maps.Clone(obj.GetAnnotations())
		for _, key := range asoAnnotations {
			delete(out, key)
		}
		return out
	}
	switch {
	case before.GetGeneration() != after.GetGeneration():
		return fmt.Sprintf("generation %d → %d", before.GetGeneration(), after.GetGeneration())
	case !maps.Equal(before.GetLabels(), after.GetLabels()):
		return fmt.Sprintf("labels %v → %v", before.GetLabels(), after.GetLabels())
	case !maps.Equal(userAnnotations(before), userAnnotations(after)):
		return fmt.Sprintf("annotations %v → %v", userAnnotations(before), userAnnotations(after))
	case len(before.GetOwnerReferences()) != len(after.GetOwnerReferences()):
		return fmt.Sprintf("owners %v → %v", before.GetOwnerReferences(), after.GetOwnerReferences())
	}
	return ""
}

func kindOf(obj client.Object) string {
	if gvk, err := apiutil.GVKForObject(obj, env.Env.Scheme()); err == nil {
		return gvk.Kind
	}
	return obj.GetObjectKind().GroupVersionKind().Kind
}

func describe(obj client.Object) string {
	return kindOf(obj) + " " + obj.GetNamespace() + "/" + obj.GetName()
}

// bring creates, in a fixture's namespace, an ASO resource group that a user brought: it carries the cluster's
// labels, the provider's ownership label included (so that the provider's cache holds it and its lists of owned
// objects meet it), but no owner. The provider must never modify or delete it; the observer watches that it does
// not. It is deleted with the namespace.
func (o *observer) bring(ctx context.Context, g *WithT, f *plane.Fixture) {
	name := f.ClusterName + "-brought"
	rg := &asoresources.ResourceGroup{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: f.Namespace, Name: name,
			Labels: map[string]string{broughtLabel: "true", clusterv1.ClusterNameLabel: f.ClusterName, infrav1.OwnedByLabel: f.ClusterName},
		},
		Spec: asoresources.ResourceGroup_Spec{AzureName: name, Location: ptr.To(plane.Location)},
	}
	g.Expect(env.Env.Create(ctx, rg)).To(Succeed())
	o.mu.Lock()
	defer o.mu.Unlock()
	key := plane.ObjectWrite{Group: "resources.azure.com", Resource: "resourcegroups", Namespace: f.Namespace, Name: name}
	o.brought[key] = p.Writes.WritesOf(key)
}

// violations returns, and forgets, what broke the invariants since the last call: deletions of objects whose owner
// is neither deleted nor being deleted (a failure, not an intent, deleted them), lost reconcile-policy skips,
// changes to brought objects and the provider's writes to them. Duplicates are reported by duplicates.
func (o *observer) violations(ctx context.Context) []string {
	o.mu.Lock()
	deletions, unskipped, modified := o.deletions, o.unskipped, o.modified
	o.deletions, o.unskipped, o.modified = nil, nil, nil
	var out []string
	for key, before := range o.brought {
		if n := p.Writes.WritesOf(key); n != before {
			out = append(out, fmt.Sprintf("the provider wrote %d times to brought %s %s/%s", n-before, key.Resource, key.Namespace, key.Name))
			o.brought[key] = n
		}
	}
	o.mu.Unlock()
	for _, d := range deletions {
		if ownersGoing(ctx, d.object, d.owners) {
			continue
		}
		how := "was deleted"
		if d.recreated {
			how = "was deleted and created again"
		}
		out = append(out, fmt.Sprintf("%s %s while its owner %s lives", d.object, how, ownerNames(d.owners)))
	}
	for _, name := range unskipped {
		out = append(out, name+" lost reconcile-policy skip")
	}
	out = append(out, modified...)
	sort.Strings(out)
	return out
}

// duplicates returns, and forgets, the duplicates seen since the last call.
func (o *observer) duplicates() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.dups
	o.dups = nil
	sort.Strings(out)
	return out
}

// expectNoViolations checks that neither the invariants were broken nor anything was duplicated since the last
// check.
func (o *observer) expectNoViolations(ctx context.Context, g Gomega, when string) {
	v, d := o.violations(ctx), o.duplicates()
	g.Expect(v).To(BeEmpty(), "invariant violations %s", when)
	g.Expect(d).To(BeEmpty(), "duplicates %s", when)
}

// ownerGoing reports whether an owner is deleted or being deleted. object is "Kind namespace/name".
// deletedWith are the owners an object's deletion may follow from: its controller, or every owner without one.
func deletedWith(obj client.Object) []metav1.OwnerReference {
	if controller := metav1.GetControllerOf(obj); controller != nil {
		return []metav1.OwnerReference{*controller}
	}
	return obj.GetOwnerReferences()
}

// ownersGoing reports whether every owner is gone or being deleted; false without owners.
func ownersGoing(ctx context.Context, object string, refs []metav1.OwnerReference) bool {
	for i := range refs {
		if !ownerGoing(ctx, object, &refs[i]) {
			return false
		}
	}
	return len(refs) > 0
}

func ownerGoing(ctx context.Context, object string, ref *metav1.OwnerReference) bool {
	namespace, _, _ := strings.Cut(strings.SplitN(object, " ", 2)[1], "/")
	owner := &unstructured.Unstructured{}
	owner.SetAPIVersion(ref.APIVersion)
	owner.SetKind(ref.Kind)
	err := env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, owner)
	if apierrors.IsNotFound(err) {
		return true
	}
	return err == nil && (owner.GetUID() != ref.UID || !owner.GetDeletionTimestamp().IsZero())
}

func ownerNames(refs []metav1.OwnerReference) string {
	if len(refs) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(refs))
	for _, ref := range refs {
		names = append(names, ref.Kind+" "+ref.Name)
	}
	return strings.Join(names, ", ")
}
