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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

const (
	// DrainStartedAnnotation is set on the Node of a Uniform pool's instance when the provider starts draining it
	// before a scale-in: the time the drain started (RFC 3339), against the MachinePool's node drain timeout.
	DrainStartedAnnotation = "infrastructure.cluster.x-k8s.io/scale-in-drain-started"
	// CordonedAnnotation is set beside DrainStartedAnnotation when the provider cordoned the Node (it was
	// schedulable), so that a Node whose instance survives the scale-in is uncordoned, and one that somebody else
	// cordoned is not.
	CordonedAnnotation = "infrastructure.cluster.x-k8s.io/scale-in-cordoned"

	// DrainingReason means the pool waits for the Nodes of the instances a scale-in removes to be drained.
	DrainingReason = "Draining"

	// drainPollInterval is how often a pass checks the pods of the Nodes being drained: pods leaving a Node do not
	// trigger a pass (only Nodes are watched).
	drainPollInterval = 5 * time.Second
	// unreachableSkipAfter is how long a pass waits for a pod that is being deleted on a Node that is not ready:
	// no kubelet confirms its deletion there, as Cluster API's drain does for unreachable Nodes.
	unreachableSkipAfter = time.Minute

	zoneLabel = corev1.LabelTopologyZone
)

// scaleInVictims predicts the n instances Azure removes when a Uniform scale set's capacity goes down by n, as
// Azure documents its scale-in policies: it balances the groups first (it removes from the group with the most
// instances), then takes the oldest instances (OldestVM) or the newest (NewestVM, and Default). Instance numbers
// grow with age. The groups are the zones of a zonal scale set; Default balances fault domains as well, which
// cloud-provider-azure reports as the zone label of an instance without a zone. A wrong prediction costs a
// needless drain of a Node that stays (and is uncordoned), not a missed one: the instances Azure may remove are
// exactly the Nodes' when every instance has registered one.
func scaleInVictims(nodes []nodeInfo, n int, policy infrav1exp.AzureMachinePoolDeletePolicyType, zonal bool) []nodeInfo {
	oldestFirst := policy == infrav1exp.OldestDeletePolicyType
	byGroup := map[string][]nodeInfo{}
	for _, node := range nodes {
		group := ""
		if zonal || policy == infrav1exp.RandomDeletePolicyType {
			group = node.zone
		}
		byGroup[group] = append(byGroup[group], node)
	}
	order := func(a, b nodeInfo) int {
		if oldestFirst {
			return cmp.Compare(a.instanceID, b.instanceID)
		}
		return cmp.Compare(b.instanceID, a.instanceID)
	}
	for _, group := range byGroup {
		slices.SortFunc(group, order)
	}
	var victims []nodeInfo
	for range n {
		best := ""
		found := false
		for group, members := range byGroup {
			if len(members) == 0 {
				continue
			}
			if !found || len(members) > len(byGroup[best]) ||
				(len(members) == len(byGroup[best]) && order(members[0], byGroup[best][0]) < 0) {
				best, found = group, true
			}
		}
		if !found {
			break
		}
		victims = append(victims, byGroup[best][0])
		byGroup[best] = byGroup[best][1:]
	}
	return victims
}

// drainBeforeScaleIn drains the Nodes of the instances Azure will remove when the scale set's capacity goes from
// current down to next, and returns the capacity to apply: current until those Nodes are drained (or the
// MachinePool's nodeDrainTimeoutSeconds has passed), then next. ASO cannot delete a given instance of a Uniform
// scale set, so the provider drains the ones the scale-in policy will choose (see scaleInVictims), as Cluster API
// drains a Machine's Node before deleting it. Nodes it drained whose instance is still there once the scale-in is
// over (the scale set has no more instances than Nodes) are uncordoned.
func (r *Reconciler) drainBeforeScaleIn(ctx context.Context, s *scope, current, next int, policy infrav1exp.AzureMachinePoolDeletePolicyType, zonal bool) (int, error) {
	var victims []nodeInfo
	if next < current {
		victims = scaleInVictims(s.nodes, current-next, policy, zonal)
	}
	isVictim := func(n nodeInfo) bool {
		return slices.ContainsFunc(victims, func(v nodeInfo) bool { return v.name == n.name })
	}
	var survivors []nodeInfo
	if len(s.nodes) <= current {
		for _, n := range s.nodes {
			if n.drainStarted != nil && !isVictim(n) {
				survivors = append(survivors, n)
			}
		}
	}
	if len(victims) == 0 && len(survivors) == 0 {
		return next, nil
	}
	// Uncached: the pods of a few Nodes, listed by field, are not worth a cache of every pod of the cluster.
	c, err := r.ClusterCache.GetUncachedClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if err != nil {
		return current, ignoreNotConnected(err)
	}
	for _, n := range survivors {
		if err := endDrain(ctx, c, n); err != nil {
			return current, err
		}
	}
	timeout := time.Duration(ptr.Deref(s.machinePool.Spec.Template.Spec.Deletion.NodeDrainTimeoutSeconds, 0)) * time.Second
	var waiting []string
	for _, v := range victims {
		left, err := drainNode(ctx, c, v)
		if err != nil {
			return current, err
		}
		if left == "" {
			continue
		}
		if timeout > 0 && v.drainStarted != nil && time.Since(*v.drainStarted) > timeout {
			ctrl.LoggerFrom(ctx).Info("The drain of a Node before scale-in timed out: scaling in anyway", "node", v.name, "left", left)
			continue
		}
		waiting = append(waiting, fmt.Sprintf("Node %s: %s", v.name, left))
	}
	if len(waiting) == 0 {
		return next, nil
	}
	s.draining = fmt.Sprintf("draining before removing %d instances: %s", len(victims), strings.Join(waiting, "; "))
	s.RequeueAfter = drainPollInterval
	return current, nil
}

// drainNode cordons a Node (recording when its drain started) and evicts its pods but DaemonSets' and static
// ones, as kubectl drain does. It returns what is left to wait for, or "" once the Node is drained.
func drainNode(ctx context.Context, c client.Client, n nodeInfo) (string, error) {
	if n.drainStarted == nil || !n.unschedulable {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}
		annotations := map[string]any{DrainStartedAnnotation: time.Now().UTC().Format(time.RFC3339)}
		if n.drainStarted != nil {
			annotations[DrainStartedAnnotation] = n.drainStarted.UTC().Format(time.RFC3339)
		}
		if !n.unschedulable {
			annotations[CordonedAnnotation] = "true"
		}
		patch := map[string]any{"metadata": map[string]any{"annotations": annotations}, "spec": map[string]any{"unschedulable": true}}
		if err := c.Patch(ctx, node, mergePatch(patch)); err != nil {
			return "", fmt.Errorf("failed to cordon Node %s before scale-in: %w", n.name, err)
		}
		ctrl.LoggerFrom(ctx).Info("Draining a Node before scale-in", "node", n.name, "instanceID", n.instanceID)
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.MatchingFields{"spec.nodeName": n.name}); err != nil {
		return "", fmt.Errorf("failed to list the pods of Node %s: %w", n.name, err)
	}
	var left []string
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !mustEvict(pod) {
			continue
		}
		if !pod.DeletionTimestamp.IsZero() {
			if !n.ready && time.Since(pod.DeletionTimestamp.Time) > unreachableSkipAfter {
				continue
			}
			left = append(left, klog.KObj(pod).String()+" is terminating")
			continue
		}
		eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
		err := c.SubResource("eviction").Create(ctx, pod, eviction)
		switch {
		case err == nil, apierrors.IsNotFound(err):
			left = append(left, klog.KObj(pod).String()+" is evicted")
		case apierrors.IsTooManyRequests(err):
			left = append(left, klog.KObj(pod).String()+": "+err.Error())
		default:
			return "", fmt.Errorf("failed to evict pod %s from Node %s: %w", klog.KObj(pod), n.name, err)
		}
	}
	if len(left) > 3 {
		left = append(left[:3], fmt.Sprintf("and %d more pods", len(left)-3))
	}
	return strings.Join(left, ", "), nil
}

// mustEvict says whether a drain evicts a pod: not a static pod, not a DaemonSet's (its controller would put it
// back, and it goes with the Node), and not one that has finished.
func mustEvict(pod *corev1.Pod) bool {
	if _, static := pod.Annotations[corev1.MirrorPodAnnotationKey]; static {
		return false
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" && strings.HasPrefix(ref.APIVersion, "apps/") {
		return false
	}
	return pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// endDrain forgets the drain of a Node whose instance survived: it drops the annotations and uncordons the Node
// if the provider cordoned it.
func endDrain(ctx context.Context, c client.Client, n nodeInfo) error {
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{DrainStartedAnnotation: nil, CordonedAnnotation: nil}}}
	if n.cordonedByUs {
		patch["spec"] = map[string]any{"unschedulable": nil}
	}
	if err := c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}, mergePatch(patch)); err != nil {
		return fmt.Errorf("failed to uncordon Node %s, whose instance stays: %w", n.name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Uncordoned a drained Node whose instance stays", "node", n.name, "instanceID", n.instanceID)
	return nil
}

// mergePatch is a JSON merge patch; null deletes a field.
func mergePatch(patch map[string]any) client.Patch {
	data, err := json.Marshal(patch)
	if err != nil {
		panic(err) // maps of strings, bools and nils always marshal
	}
	return client.RawPatch(types.MergePatchType, data)
}
