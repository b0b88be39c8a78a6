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

package kubeletsim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// controlPlaneComponents are the static pods kubeadm writes on a control plane node; kubelet reports each as a
// mirror pod named <component>-<node> in kube-system, where the kubeadm control plane provider looks for them.
var controlPlaneComponents = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// staticPodName is the name of a component's mirror pod on a node.
func staticPodName(component, node string) string {
	return component + "-" + node
}

// runStaticPods reports the control plane components of a node running and ready, as its kubelet does with the
// mirror pods of kubeadm's static pods. It is idempotent.
func runStaticPods(ctx context.Context, c client.Client, node string) error {
	for _, component := range controlPlaneComponents {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: metav1.NamespaceSystem,
				Name:      staticPodName(component, node),
				Labels:    map[string]string{"component": component, "tier": "control-plane"},
				// A mirror pod: the API server's admission treats it as kubelet's (no service account).
				Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "simulated", "kubernetes.io/config.source": "file"},
			},
			Spec: corev1.PodSpec{
				NodeName:    node,
				HostNetwork: true,
				Containers:  []corev1.Container{{Name: component, Image: "registry.k8s.io/" + component}},
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			},
		}
		if err := c.Create(ctx, pod); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("failed to create Pod %s: %w", pod.Name, err)
			}
			if err := c.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
				return fmt.Errorf("failed to read Pod %s: %w", pod.Name, err)
			}
		}
		now := metav1.Now()
		pod.Status = corev1.PodStatus{
			Phase:     corev1.PodRunning,
			HostIP:    "127.0.0.1",
			PodIP:     "127.0.0.1",
			StartTime: &now,
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: component, Image: pod.Spec.Containers[0].Image, Ready: true, Started: ptr.To(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			}},
		}
		for _, t := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
		}
		if err := c.Status().Update(ctx, pod); err != nil {
			return fmt.Errorf("failed to report Pod %s running: %w", pod.Name, err)
		}
	}
	return nil
}

// deleteStaticPods deletes the mirror pods of a node's control plane components, if it has them.
func deleteStaticPods(ctx context.Context, c client.Client, node string) []error {
	var errs []error
	for _, component := range controlPlaneComponents {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: staticPodName(component, node)}}
		if err := c.Delete(ctx, pod); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("failed to delete Pod %s: %w", pod.Name, err))
		}
	}
	return errs
}
