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

package switchcheck

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// readinessKinds are the provider's kinds whose readiness Cluster API reads: infrastructure clusters, machines and
// machine pools, and the AKS control planes. Templates, identities and AzureMachinePoolMachines (their
// MachinePool's replicas tell) have none.
var readinessKinds = []string{
	"AzureCluster", "AzureMachine", "AzureMachinePool",
	"AzureManagedCluster", "AzureManagedControlPlane", "AzureManagedMachinePool",
	"AzureASOManagedCluster", "AzureASOManagedControlPlane", "AzureASOManagedMachinePool",
}

// switching are the Clusters whose infrastructure is of the provider's kinds, by namespace/name: the clusters the
// switch hands over. Clusters of other infrastructure providers on the same management cluster are not.
type switching map[string]*clusterv1.Cluster

func (s switching) has(namespace, name string) bool {
	_, ok := s[namespace+"/"+name]
	return ok
}

// switchingClusters lists the Clusters whose spec.infrastructureRef names one of the provider's kinds.
func switchingClusters(ctx context.Context, c client.Reader, opts Options) (switching, error) {
	clusters := &clusterv1.ClusterList{}
	if _, err := list(ctx, c, opts, clusters); err != nil {
		return nil, err
	}
	s := switching{}
	for i := range clusters.Items {
		cl := &clusters.Items[i]
		ref := cl.Spec.InfrastructureRef
		if isProviderKind(ref.APIGroup, ref.Kind) {
			s[cl.Namespace+"/"+cl.Name] = cl
		}
	}
	return s, nil
}

// checkReadiness reports what is not provisioned, or still changing, in the switching clusters
// (docs/migrating-from-capz.md, "Before you start", step 3): the provider takes over what CAPZ finished, and a
// machine CAPZ was making or deleting could be left half made.
func checkReadiness(ctx context.Context, c client.Reader, opts Options) ([]Finding, error) {
	clusters, err := switchingClusters(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	var findings []Finding
	add := func(kind string, obj client.Object, msg string, args ...any) {
		findings = append(findings, Finding{Severity: Block, Check: CheckReadiness, Object: objectName(kind, obj), Message: fmt.Sprintf(msg, args...)})
	}
	wait := "wait until it is done, or fix it under CAPZ, then run the dry run again"

	for _, cl := range clusters {
		if !cl.DeletionTimestamp.IsZero() {
			add("Cluster", cl, "is being deleted: let CAPZ finish the deletion before the switch")
		}
	}

	machines := &clusterv1.MachineList{}
	if _, err := list(ctx, c, opts, machines); err != nil {
		return nil, err
	}
	for i := range machines.Items {
		m := &machines.Items[i]
		if !clusters.has(m.Namespace, m.Spec.ClusterName) {
			continue
		}
		switch {
		case !m.DeletionTimestamp.IsZero():
			add("Machine", m, "is being deleted: CAPZ is deleting its VM; %s", wait)
		case m.Spec.ProviderID == "":
			add("Machine", m, "has no spec.providerID: CAPZ has not finished making its VM; %s", wait)
		}
	}

	mds := &clusterv1.MachineDeploymentList{}
	if _, err := list(ctx, c, opts, mds); err != nil {
		return nil, err
	}
	for i := range mds.Items {
		md := &mds.Items[i]
		if !clusters.has(md.Namespace, md.Spec.ClusterName) {
			continue
		}
		s := md.Status
		if why := rollingOut(md.Spec.Replicas, s.Replicas, s.ReadyReplicas, s.UpToDateReplicas, md.Generation, s.ObservedGeneration, true); why != "" {
			add("MachineDeployment", md, "is rolling out or scaling (%s); %s", why, wait)
		}
	}

	machineSets := &clusterv1.MachineSetList{}
	if _, err := list(ctx, c, opts, machineSets); err != nil {
		return nil, err
	}
	for i := range machineSets.Items {
		ms := &machineSets.Items[i]
		if !clusters.has(ms.Namespace, ms.Spec.ClusterName) {
			continue
		}
		s := ms.Status
		// Cluster API tells whether a Machine is up to date only for the Machines of a MachineDeployment.
		ofDeployment := false
		for _, ref := range ms.OwnerReferences {
			ofDeployment = ofDeployment || ref.Kind == "MachineDeployment"
		}
		if why := rollingOut(ms.Spec.Replicas, s.Replicas, s.ReadyReplicas, s.UpToDateReplicas, ms.Generation, s.ObservedGeneration, ofDeployment); why != "" {
			add("MachineSet", ms, "is rolling out or scaling (%s); %s", why, wait)
		}
	}

	pools := &clusterv1.MachinePoolList{}
	if _, err := list(ctx, c, opts, pools); err != nil {
		return nil, err
	}
	for i := range pools.Items {
		mp := &pools.Items[i]
		if !clusters.has(mp.Namespace, mp.Spec.ClusterName) {
			continue
		}
		s := mp.Status
		// A pool's Machines (AzureMachinePoolMachines) are never up to date for Cluster API: they have no UpToDate
		// condition, so a settled pool counts none.
		if why := rollingOut(mp.Spec.Replicas, s.Replicas, s.ReadyReplicas, s.UpToDateReplicas, mp.Generation, s.ObservedGeneration, false); why != "" {
			add("MachinePool", mp, "is rolling out or scaling (%s); %s", why, wait)
		}
	}

	for _, cl := range clusters {
		ref := cl.Spec.ControlPlaneRef
		if ref.APIGroup != controlplanev1.GroupVersion.Group || ref.Kind != "KubeadmControlPlane" {
			continue
		}
		kcp := &controlplanev1.KubeadmControlPlane{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: cl.Namespace, Name: ref.Name}, kcp); err != nil {
			if client.IgnoreNotFound(err) == nil {
				add("Cluster", cl, "names KubeadmControlPlane %s, which does not exist; %s", ref.Name, wait)
				continue
			}
			return nil, fmt.Errorf("failed to read the KubeadmControlPlane of Cluster %s/%s: %w", cl.Namespace, cl.Name, err)
		}
		s := kcp.Status
		if why := rollingOut(kcp.Spec.Replicas, s.Replicas, s.ReadyReplicas, s.UpToDateReplicas, kcp.Generation, s.ObservedGeneration, true); why != "" {
			add("KubeadmControlPlane", kcp, "is rolling out or scaling (%s); %s", why, wait)
		}
	}

	for _, kind := range readinessKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(infrav1.GroupVersion.WithKind(kind + "List"))
		found, err := list(ctx, c, opts, l)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		for i := range l.Items {
			obj := &l.Items[i]
			if !obj.GetDeletionTimestamp().IsZero() {
				add(kind, obj, "is being deleted; %s", wait)
				continue
			}
			if ok, why := ready(obj); !ok {
				add(kind, obj, "is not Ready (%s); %s", why, wait)
			}
		}
	}
	return findings, nil
}

// rollingOut says why a replicated object is not settled, or "" when every desired replica exists, is ready and,
// when Cluster API counts it (upToDateCounted), is up to date, and its controller has seen its latest spec. A nil
// spec.replicas (the autoscaler's or the defaulting's to set) is compared as the current replicas.
func rollingOut(desired, replicas, ready, upToDate *int32, generation, observed int64, upToDateCounted bool) string {
	want := ptr.Deref(desired, ptr.Deref(replicas, 0))
	var why []string
	if observed < generation {
		why = append(why, fmt.Sprintf("status.observedGeneration %d is behind generation %d", observed, generation))
	}
	for _, n := range []struct {
		name  string
		value *int32
	}{{"replicas", replicas}, {"readyReplicas", ready}, {"upToDateReplicas", upToDate}} {
		if n.name == "upToDateReplicas" && !upToDateCounted {
			continue
		}
		if got := ptr.Deref(n.value, 0); got != want {
			why = append(why, fmt.Sprintf("%s %d of %d", n.name, got, want))
		}
	}
	return strings.Join(why, ", ")
}

// ready reads the readiness of an infrastructure object in either contract: CAPZ's (Cluster API v1beta1:
// status.ready, and v1beta1 conditions) and the provider's (v1beta2: the Ready condition). It is not ready when its
// Ready condition is not True, when status.ready is false, or when it reports neither.
func ready(obj *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var readyCondition map[string]any
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			readyCondition = m
		}
	}
	readyField, hasReadyField, _ := unstructured.NestedBool(obj.Object, "status", "ready")
	switch {
	case readyCondition != nil && readyCondition["status"] != "True":
		why := fmt.Sprintf("its Ready condition is %v", readyCondition["status"])
		if reason, _ := readyCondition["reason"].(string); reason != "" {
			why += ", reason " + reason
		}
		if message, _ := readyCondition["message"].(string); message != "" {
			why += ": " + message
		}
		return false, why
	case hasReadyField && !readyField:
		return false, "status.ready is false"
	case readyCondition == nil && !hasReadyField:
		return false, "it reports no readiness yet"
	}
	return true, ""
}
