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
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
)

// ClusterPlaceholder replaces a flavor's cluster name in the report, so that documented fields (tag keys) read the
// same for every flavor.
const ClusterPlaceholder = "${CLUSTER_NAME}"

// InfrastructurePlaceholder replaces the name of a Cluster's infrastructure object (its AzureCluster) where it is not
// the Cluster's: the topology controller names it at random.
const InfrastructurePlaceholder = "${CLUSTER_NAME}-<infrastructure>"

// ControlPlanePlaceholder replaces the name of a Cluster's control plane object where it is not the Cluster's: the
// topology controller names it at random, and the providers name a managed cluster (AKS) and its network after it.
const ControlPlanePlaceholder = "${CLUSTER_NAME}-<control-plane>"

// DNSLabelPlaceholder replaces the default DNS label of the API server of a Cluster whose AzureCluster is named at
// random: it hashes that name.
const DNSLabelPlaceholder = "${CLUSTER_NAME}-<dns-label>"

// progress is how far a flavor got on a side.
type progress struct {
	// settled: every machine has its provider ID (self-managed), and Azure received no write for the quiet period.
	settled bool
	// state says what is awaited, for the log and for the report when it never settles.
	state string
	// writing is set while Azure receives writes (state then changes with every write).
	writing bool
}

// lastWrite is when the fake last received a write (PUT, PATCH, DELETE) of a subscription, and how many it
// received.
func (s *side) lastWrite(subscription string) (time.Time, int) {
	prefix := strings.ToLower("/subscriptions/" + subscription + "/")
	var last time.Time
	n := 0
	for _, r := range s.arm.Requests() {
		if r.Method == "GET" || r.Method == "HEAD" || !strings.HasPrefix(strings.ToLower(r.Path), prefix) {
			continue
		}
		n++
		if r.Time.After(last) {
			last = r.Time
		}
	}
	return last, n
}

// progressOf tells whether a flavor has settled on a side: for a self-managed flavor, as many Machines as its
// KubeadmControlPlane and MachineDeployments ask for, each with a provider ID (its VM exists); for every flavor, each
// MachinePool's instances in its provider ID list (Azure has the scale set's instances, or the agent pool's nodes)
// and writes to Azure, the last one quiet ago or longer. Without the pools, a side that goes quiet for the quiet
// period between its control plane and its scale set (CAPZ creates the scale set once the control plane is
// initialized) would settle the creation before it sent the scale set.
func (s *side) progressOf(ctx context.Context, f Flavor, quiet time.Duration) progress {
	if f.SelfManaged {
		machines := &clusterv1.MachineList{}
		if err := s.reader.List(ctx, machines, client.InNamespace(f.Namespace())); err != nil {
			return progress{state: "cannot list Machines: " + err.Error()}
		}
		want := 0
		for _, kind := range []string{"KubeadmControlPlane", "MachineDeployment"} {
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(map[string]string{"KubeadmControlPlane": "controlplane.cluster.x-k8s.io/v1beta2", "MachineDeployment": clusterv1.GroupVersion.String()}[kind])
			list.SetKind(kind + "List")
			if err := s.reader.List(ctx, list, client.InNamespace(f.Namespace())); err != nil {
				return progress{state: fmt.Sprintf("cannot list %s: %v", kind, err)}
			}
			for _, o := range list.Items {
				replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
				want += int(replicas)
			}
		}
		withID := 0
		for _, m := range machines.Items {
			if m.Spec.ProviderID != "" && m.Spec.InfrastructureRef.Kind != "AzureMachinePoolMachine" {
				withID++
			}
		}
		if want == 0 || withID < want {
			return progress{state: fmt.Sprintf("%d of %d machines have a VM", withID, want)}
		}
	}
	pools := &clusterv1.MachinePoolList{}
	if err := s.reader.List(ctx, pools, client.InNamespace(f.Namespace())); err != nil {
		return progress{state: "cannot list MachinePools: " + err.Error()}
	}
	want, have := 0, 0
	for _, p := range pools.Items {
		replicas := 1
		if p.Spec.Replicas != nil {
			replicas = int(*p.Spec.Replicas)
		}
		want += replicas
		have += min(replicas, len(p.Spec.ProviderIDList))
	}
	if (!f.SelfManaged && want == 0) || have < want {
		return progress{state: fmt.Sprintf("%d of %d pool instances have a provider ID", have, want)}
	}
	last, n := s.lastWrite(f.Subscription)
	switch {
	case n == 0:
		return progress{state: "no write to Azure yet"}
	case time.Since(last) < quiet:
		return progress{state: fmt.Sprintf("%d writes to Azure, the last %s ago", n, time.Since(last).Round(time.Second)), writing: true}
	}
	return progress{settled: true, state: fmt.Sprintf("settled: %d writes to Azure", n)}
}

// names are the generated names of a flavor's side and their placeholders: the cluster's name, each machine's (see
// machineNames), and the names the topology controller gives the Cluster's infrastructure and control plane, so
// that what both sides make alike but name at random compares.
func (s *side) names(ctx context.Context, f Flavor) (map[string]string, error) {
	machines := &clusterv1.MachineList{}
	if err := s.reader.List(ctx, machines, client.InNamespace(f.Namespace())); err != nil {
		return nil, fmt.Errorf("failed to list the Machines of %s on the %s side: %w", f.Namespace(), s.name, err)
	}
	groups := map[string]string{}
	for _, m := range machines.Items {
		groups[m.Name] = machineGroup(m.Labels, f.Cluster)
	}
	out := machineNames(groups, s.requests(f.Subscription), f.Cluster)
	out[f.Cluster] = ClusterPlaceholder
	// The topology controller names a Cluster's AzureCluster at random (<cluster>-<random>), and both providers name
	// the cluster's resources after it.
	cluster := &clusterv1.Cluster{}
	if err := s.reader.Get(ctx, client.ObjectKey{Namespace: f.Namespace(), Name: f.Cluster}, cluster); client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("failed to read the Cluster of %s on the %s side: %w", f.Name, s.name, err)
	}
	if infra := cluster.Spec.InfrastructureRef.Name; infra != "" && infra != f.Cluster {
		out[infra] = InfrastructurePlaceholder
		// The API server's default DNS label is the Cluster's name and a hash of the names of the resource group and
		// public IP, both the AzureCluster's (CAPZ's ClusterScope.GenerateFQDN): alike on both sides but for that name.
		out[infrav1.APIServerDNSLabel(f.Subscription, infra, infrav1.APIServerPublicIPName(infra), f.Cluster)] = DNSLabelPlaceholder
	}
	if cp := cluster.Spec.ControlPlaneRef.Name; cp != "" && cp != f.Cluster {
		out[cp] = ControlPlanePlaceholder
	}
	return out, nil
}

// machineGroup is the group a Machine belongs to, by its labels: its cluster's control plane
// (<cluster>-control-plane, whatever the KubeadmControlPlane's name), or its deployment or pool. The topology
// controller names a Cluster's control plane and deployments at random (<cluster>-<random>,
// <cluster>-md-0-<random>); a deployment's machines are grouped by its name in the topology instead:
// <cluster>-<name>, as those of a Cluster written whole.
func machineGroup(labels map[string]string, cluster string) string {
	if _, controlPlane := labels[clusterv1.MachineControlPlaneLabel]; controlPlane {
		return cluster + "-control-plane"
	}
	if name := labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]; name != "" {
		return cluster + "-" + name
	}
	for _, label := range []string{clusterv1.MachineDeploymentNameLabel, clusterv1.MachinePoolNameLabel} {
		if v := labels[label]; v != "" {
			return v
		}
	}
	return "machine"
}

// machineNames gives each machine the placeholder of its group, <its control plane, deployment or pool>-*: the
// machines of a group are made alike and named at random, so their writes compare as one set, whatever their
// number (Cluster API may replace a machine on one side and not the other). A VM named after a Machine in another
// way gets its Machine's placeholder: one whose name ends in a Machine's random suffix (CAPZ shortens Windows VM
// names to <first nine characters>-<suffix>), and one of a group whose Machine is gone (a replaced control plane
// machine). groups are the Machines' groups by name; requests are the side's ARM requests.
func machineNames(groups map[string]string, requests []Request, cluster string) map[string]string {
	placeholder := func(group string) string { return strings.ReplaceAll(group, cluster, ClusterPlaceholder) + "-*" }
	out := map[string]string{}
	bySuffix := map[string]string{}
	var known []string
	for name, group := range groups {
		out[name] = placeholder(group)
		if i := strings.LastIndex(name, "-"); i >= 0 {
			bySuffix[name[i:]] = group
		}
		if !slices.Contains(known, group) {
			known = append(known, group)
		}
	}
	// The longest group first: md-0 must not take the VMs of md-0-windows.
	sort.Slice(known, func(i, j int) bool { return len(known[i]) > len(known[j]) })
	for _, r := range requests {
		if r.Method != "PUT" || !strings.EqualFold(armnorm.ResourceType(r.Path), "Microsoft.Compute/virtualMachines") {
			continue
		}
		vm := strings.ToLower(r.Path[strings.LastIndex(r.Path, "/")+1:])
		if _, ok := out[vm]; ok {
			continue
		}
		if i := strings.LastIndex(vm, "-"); i >= 0 && bySuffix[vm[i:]] != "" {
			out[vm] = placeholder(bySuffix[vm[i:]])
			continue
		}
		for _, g := range known {
			if strings.HasPrefix(vm, g+"-") {
				out[vm] = placeholder(g)
				break
			}
		}
	}
	return out
}
