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

package parity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/jsonsubset"
)

// UpgradeVersion is the Kubernetes version the lifecycle (make parity, and the switch once the provider runs the
// flavors) upgrades the flavors to.
const UpgradeVersion = "v1.34.2"

// scalable are the kinds a user scales, with their API versions.
var scalable = map[string]string{
	"MachineDeployment": clusterv1.GroupVersion.String(),
	"MachinePool":       clusterv1.GroupVersion.String(),
}

// versioned are the kinds whose Kubernetes version an upgrade changes, with the path of the version in each.
var versioned = []struct {
	apiVersion, kind string
	path             []string
}{
	{"controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane", []string{"spec", "version"}},
	{clusterv1.GroupVersion.String(), "MachineDeployment", []string{"spec", "template", "spec", "version"}},
	{clusterv1.GroupVersion.String(), "MachinePool", []string{"spec", "template", "spec", "version"}},
	{"infrastructure.cluster.x-k8s.io/v1beta1", "AzureManagedControlPlane", []string{"spec", "version"}},
	{"infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedControlPlane", []string{"spec", "version"}},
}

// scale changes the replicas of every MachineDeployment and MachinePool of a flavor by delta: those of a Cluster's
// topology there, where the topology controller reads them.
func (s *side) scale(ctx context.Context, f Flavor, delta int64) error {
	return s.editAll(ctx, f, scaleEdit(delta))
}

// scaleEdit is scale's change of one object.
func scaleEdit(delta int64) func(*unstructured.Unstructured) (bool, error) {
	return func(o *unstructured.Unstructured) (bool, error) {
		if o.GetKind() == "Cluster" {
			changed := false
			for _, pools := range []string{"machineDeployments", "machinePools"} {
				list, _, err := unstructured.NestedSlice(o.Object, "spec", "topology", "workers", pools)
				if err != nil {
					return false, err
				}
				for i := range list {
					item, ok := list[i].(map[string]any)
					if !ok {
						continue
					}
					if err := addReplicas(item, delta); err != nil {
						return false, err
					}
					changed = true
				}
				if len(list) > 0 {
					if err := unstructured.SetNestedSlice(o.Object, list, "spec", "topology", "workers", pools); err != nil {
						return false, err
					}
				}
			}
			return changed, nil
		}
		if _, ok := scalable[o.GetKind()]; !ok {
			return false, nil
		}
		spec, ok := o.Object["spec"].(map[string]any)
		if !ok {
			return false, fmt.Errorf("%s %s has no spec", o.GetKind(), o.GetName())
		}
		return true, addReplicas(spec, delta)
	}
}

// addReplicas changes the replicas of an object's spec (or of a topology's item) by delta; unset is one.
func addReplicas(spec map[string]any, delta int64) error {
	replicas, found, err := unstructured.NestedInt64(spec, "replicas")
	if err != nil {
		return err
	}
	if !found {
		replicas = 1
	}
	return unstructured.SetNestedField(spec, replicas+delta, "replicas")
}

// upgrade sets the Kubernetes version of a flavor's control plane and machines to version: a Cluster's topology's
// when it has one.
func (s *side) upgrade(ctx context.Context, f Flavor, version string) error {
	return s.editAll(ctx, f, upgradeEdit(version))
}

// upgradeEdit is upgrade's change of one object.
func upgradeEdit(version string) func(*unstructured.Unstructured) (bool, error) {
	return func(o *unstructured.Unstructured) (bool, error) {
		if o.GetKind() == "Cluster" {
			if _, topology, _ := unstructured.NestedMap(o.Object, "spec", "topology"); !topology {
				return false, nil
			}
			return true, unstructured.SetNestedField(o.Object, version, "spec", "topology", "version")
		}
		for _, v := range versioned {
			if v.kind == o.GetKind() {
				return true, unstructured.SetNestedField(o.Object, version, v.path...)
			}
		}
		return false, nil
	}
}

// editAll edits the Clusters and the objects of the scalable and versioned kinds in a flavor's namespace, each with
// a merge patch of what edit changed (edit returns whether it changes the object). The objects the topology
// controller made (ClusterTopologyOwnedLabel, which it puts on the Cluster too) are left to it: it makes them as their
// Cluster's topology says.
func (s *side) editAll(ctx context.Context, f Flavor, edit func(*unstructured.Unstructured) (bool, error)) error {
	kinds := map[string]string{"Cluster": clusterv1.GroupVersion.String()}
	for k, v := range scalable {
		kinds[k] = v
	}
	for _, v := range versioned {
		kinds[v.kind] = v.apiVersion
	}
	for kind, apiVersion := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(apiVersion)
		list.SetKind(kind + "List")
		// A read is retried: a dropped connection to a loaded API server once failed a whole phase of a flavor.
		read := func() error { return s.reader.List(ctx, list, client.InNamespace(f.Namespace())) }
		if err := retry.OnError(retry.DefaultBackoff, func(error) bool { return ctx.Err() == nil }, read); err != nil {
			return fmt.Errorf("failed to list %s of %s: %w", kind, f.Name, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if _, topology := o.GetLabels()[clusterv1.ClusterTopologyOwnedLabel]; topology && kind != "Cluster" {
				continue
			}
			before := o.DeepCopy()
			changed, err := edit(o)
			if err != nil || !changed {
				if err != nil {
					return err
				}
				continue
			}
			if err := s.client.Patch(ctx, o, client.MergeFrom(before)); err != nil {
				return fmt.Errorf("failed to change %s %s/%s: %w", kind, o.GetNamespace(), o.GetName(), err)
			}
		}
	}
	return nil
}

// rolledOut tells what a flavor's control plane, MachineDeployments and MachinePools still wait for after a
// change: each has observed its spec and has as many replicas as it asks for, and the control plane and
// MachineDeployments have them all up to date (Cluster API counts no up-to-date replica of a pool without
// Machines); "" once none waits. Without poolInstances, a self-managed flavor's MachinePools are only awaited to observe
// their spec: the switch's way back waits so, since it was written when the fake ARM made no instances of CAPZ's
// scale sets and no run has counted them under CAPZ after a switch since (make parity's lifecycle does, on both
// sides).
func (s *side) rolledOut(ctx context.Context, f Flavor, poolInstances bool) string {
	var waiting []string
	kinds := []struct{ apiVersion, kind string }{
		{"controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane"},
		{clusterv1.GroupVersion.String(), "MachineDeployment"},
		{clusterv1.GroupVersion.String(), "MachinePool"},
	}
	for _, k := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(k.apiVersion)
		list.SetKind(k.kind + "List")
		if err := s.reader.List(ctx, list, client.InNamespace(f.Namespace())); err != nil {
			return fmt.Sprintf("cannot list %s: %v", k.kind, err)
		}
		for _, o := range list.Items {
			want, found, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
			if !found {
				want = 1
			}
			observed, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
			have, _, _ := unstructured.NestedInt64(o.Object, "status", "replicas")
			upToDate, _, _ := unstructured.NestedInt64(o.Object, "status", "upToDateReplicas")
			counted := poolInstances || k.kind != "MachinePool" || !f.SelfManaged
			if observed < o.GetGeneration() || (counted && have != want) || (k.kind != "MachinePool" && upToDate != want) {
				waiting = append(waiting, fmt.Sprintf("%s %s: %d of %d replicas (%d up to date)", k.kind, o.GetName(), have, want, upToDate))
			}
		}
	}
	if len(waiting) == 0 {
		return ""
	}
	return "rolling out: " + strings.Join(waiting, ", ")
}

// deleteCluster deletes a flavor's Cluster and waits until it is gone, or the timeout.
func (s *side) deleteCluster(ctx context.Context, f Flavor, timeout time.Duration) error {
	cluster := &clusterv1.Cluster{}
	cluster.Namespace, cluster.Name = f.Namespace(), f.Cluster
	if err := s.client.Delete(ctx, cluster); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete the Cluster of %s: %w", f.Name, err)
	}
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		err := s.reader.Get(ctx, client.ObjectKeyFromObject(cluster), cluster)
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the Cluster of %s was not deleted in %s", f.Name, timeout)
	}
	return nil
}

// leftovers are the resources of a flavor's subscription in the fake ARM other than those that existed before it
// (Flavor.existing and Flavor.Brought).
func (s *side) leftovers(f Flavor) []string {
	prefix := strings.ToLower("/subscriptions/" + f.Subscription + "/")
	var existing []string
	brought, _ := f.brought()
	for _, id := range append(f.existing(), brought...) {
		existing = append(existing, strings.ToLower(id))
	}
	var out []string
	for _, id := range s.arm.Resources() {
		lower := strings.ToLower(id)
		if strings.HasPrefix(lower, prefix) && !slices.Contains(existing, lower) {
			out = append(out, id)
		}
	}
	return out
}

// lost are the resources the user brought to a flavor (Flavor.Brought) that are no longer in the fake ARM as the
// user made them: gone, or with a field the user set changed or removed (a route, a rule, a tag, an address).
func (s *side) lost(f Flavor) []string {
	ids, bodies := f.brought()
	var out []string
	for i, id := range ids {
		current, ok := s.arm.Resource(id)
		switch {
		case !ok:
			out = append(out, id)
		case !jsonsubset.Contains(current, bodies[i]):
			out = append(out, id+" (changed)")
		}
	}
	return out
}
