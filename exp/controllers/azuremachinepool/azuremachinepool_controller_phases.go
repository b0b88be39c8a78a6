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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/cluster-api/util/labels/format"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/azurejson"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/machinesecrets"
	"github.com/capzaso/cluster-api-provider-azure/internal/takeover"
)

const (
	// ImageUnknownReason means the pool has neither an image nor a Kubernetes version to pick the default image.
	ImageUnknownReason = "ImageUnknown"

	// ModelAnnotation records, on a Uniform pool, the hash of the model its scale set was last rolled to and the
	// highest instance number of the scale set before that: "<hash>/<instance>". Instances up to that number run
	// an older model. It is metadata, not status, so that it survives clusterctl move.
	ModelAnnotation = "infrastructure.cluster.x-k8s.io/scale-set-model"

	// cacheTimeout bounds the wait for the cache to show the instances a pass created or deleted, so that the next
	// pass counts them (as Cluster API's MachineSet controller waits).
	cacheTimeout = 10 * time.Second
)

// reconcileClusterInfrastructure waits for the cluster's infrastructure and reads what the pool needs from it.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil || waiting != "" {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return err
	}
	if s.pool.Spec.Template.Image == nil && s.machinePool.Spec.Template.Spec.Version == "" {
		s.Waiting = lifecycle.Wait{Reason: ImageUnknownReason, Message: "the MachinePool has no spec.template.spec.version to choose the default image for, and the AzureMachinePool no spec.template.image"}
		return nil
	}
	s.infra = infra
	creds, err := infra.Credentials(ctx, r.Engine, s.pool, s.cluster.Name, s.Kinds)
	s.Credentials = &creds
	return err
}

// revokeWhilePaused checks, while the Cluster is paused, that the cluster's identity may still be used, and when it
// may not, revokes the pool's credentials and removes them from its azure.json Secret.
func (r *Reconciler) revokeWhilePaused(ctx context.Context, s *scope) error {
	infra, creds, err := clusterinfra.PausedCredentials(ctx, r.APIReader, r.Client, r.Engine, s.cluster, s.pool, s.Kinds)
	s.Credentials = &creds
	if err != nil || infra == nil || creds.Ready {
		return err
	}
	s.infra = infra
	return r.reconcileAzureJSON(ctx, s)
}

// reconcileAzureJSON writes the pool's <pool>-azure-json Secret, cloud-provider-azure's configuration that the
// MachinePool's KubeadmConfig hands to its instances. The pool is the Secret's only writer and owner. It runs also
// when the cluster's identity may not be used (and the pool waits for it afterwards), so that the Secret loses the
// identity's credentials.
func (r *Reconciler) reconcileAzureJSON(ctx context.Context, s *scope) error {
	in, write, waiting, err := azurejson.Input(ctx, r.APIReader, s.cluster, s.infra, azurejson.Machines{
		Identity: s.pool.Spec.Identity, UserAssignedIdentities: s.pool.Spec.UserAssignedIdentities,
	}, *s.Credentials)
	if err != nil {
		return err
	}
	if !write {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return nil
	}
	return r.azureJSON.Ensure(ctx, s.pool, s.cluster.Name, in)
}

// requireCredentials stops the pass while the cluster's identity may not be used for the pool.
func (r *Reconciler) requireCredentials(_ context.Context, s *scope) error {
	if !s.Credentials.Ready {
		s.Waiting = lifecycle.Wait{Reason: s.Credentials.Reason, Message: s.Credentials.Message}
	}
	return nil
}

// reconcileScaleSet translates the pool (for a Uniform pool with the MachinePool's bootstrap data and the
// capacity of its rollout) and hands the scale set's objects to the engine.
func (r *Reconciler) reconcileScaleSet(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
	in := compute.ScaleSetInput{
		Cluster:           s.infra.AzureCluster(s.cluster.Name),
		Name:              s.scaleSetName,
		Spec:              pool.Spec,
		Zones:             mp.Spec.FailureDomains,
		VNet:              s.infra.VNet(),
		DefaultSubnet:     s.infra.SubnetFor(infrav1.SubnetNode),
		KubernetesVersion: mp.Spec.Template.Spec.Version,
	}
	for _, p := range s.infra.LBPools(false, false, false) {
		in.BackendPools = append(in.BackendPools, compute.BackendPoolRef{LoadBalancer: p.LoadBalancer, Pool: p.Pool})
	}
	live, exists := compute.ReadScaleSet(s.scaleSet)
	taken := s.taken
	if profile, known := s.azureMakesInstances(); profile && known {
		in.FlexibleWithProfile = isFlexible(pool)
		data, waiting, err := r.scaleSetBootstrapData(ctx, s)
		if err != nil || waiting {
			return err
		}
		in.BootstrapData = data
		if pool.Spec.Template.OSDisk.OSType == azure.WindowsOS {
			// The password's Secret is named after the scale set (compute.MachinePoolResources), which may not be the pool.
			if in.WindowsAdminPassword, err = machinesecrets.WindowsPassword(ctx, r.APIReader, pool.Namespace, s.scaleSetName); err != nil {
				return err
			}
		}
		desired := int(desiredReplicas(mp))
		current := desired
		if live.Capacity != nil {
			current = *live.Capacity
		}
		var nodes []uniformNode
		for _, n := range s.nodes {
			nodes = append(nodes, uniformNode{instanceID: n.instanceID, ready: n.ready})
			in.RollingOut = in.RollingOut || n.instanceID <= s.watermark
		}
		capacity := uniformCapacity(desired, current, pool.Spec.Strategy.RollingUpdate, nodes, s.watermark)
		if taken != nil {
			taken.RollingOut = in.RollingOut
		}
		if s.nodesKnown {
			policy := compute.ScaleInPolicy(pool.Spec.Strategy, in.RollingOut)
			if taken != nil {
				policy = taken.DeletePolicy(policy)
			}
			if capacity, err = r.drainBeforeScaleIn(ctx, s, current, capacity, policy, len(in.Zones) > 0); err != nil {
				return err
			}
		}
		in.Capacity = int32(capacity)
		if azureCapacity, ok := compute.AzureCapacity(s.scaleSet); ok && s.deleting && taken != nil {
			// A pool taken over as it is deleted keeps the capacity Azure has: it scales nothing before its deletion.
			in.Capacity = azureCapacity
		}
		s.capacity = live.ReportedCapacity
	}
	s.provisioningState = live.ProvisioningState
	resources := compute.MachinePoolResources(in)
	if taken == nil {
		// An existing scale set keeps the accelerated networking the VM size gave it (CAPZ never changes its
		// network profile); a taken-over one keeps CAPZ's below.
		compute.KeepScaleSetAcceleratedNetworking(resources, s.scaleSet, pool.Spec)
	}
	if taken != nil {
		compute.AdoptScaleSet(resources)
		if s.deleting {
			// A scale set Azure no longer has is not made again for a pool being deleted.
			for i := range resources {
				resources[i].MustExist = resources[i].Adoptable
			}
		}
		s.capzDifferences = taken.Keep(resources)
		takeover.Announce(r.Engine.Events, pool, s.capzDifferences)
	}
	result, err := r.Engine.Reconcile(ctx, pool, resources, aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.Credentials.SecretName,
		Kinds: s.Kinds, Patches: aso.UserPatches(pool.Spec.ASOPatches), PatchTargets: r.instanceKinds,
	})
	s.Result = result
	if err != nil {
		return err
	}
	if exists && live.ID != "" && pool.Spec.ProviderID == "" {
		pool.Spec.ProviderID = azure.ProviderID(live.ID)
	}
	return nil
}

// scaleSetBootstrapData reads the MachinePool's bootstrap data for the scale set's VM profile; waiting (and
// s.Waiting set) while the MachinePool names no Secret yet. A pool being deleted does without it once Cluster API
// has removed it (the bootstrap config goes with the MachinePool): its scale set makes no instance any more.
func (r *Reconciler) scaleSetBootstrapData(ctx context.Context, s *scope) (data []byte, waiting bool, err error) {
	mp := s.machinePool
	name := mp.Spec.Template.Spec.Bootstrap.DataSecretName
	if name == nil {
		if s.deleting {
			return nil, false, nil
		}
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForBootstrapDataReason, Message: "waiting for the MachinePool's bootstrap data secret"}
		return nil, true, nil
	}
	data, err = machinesecrets.BootstrapData(ctx, r.APIReader, mp.Namespace, *name)
	if s.deleting && apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	return data, false, err
}

// desiredReplicas is the MachinePool's replica count; Cluster API's webhook defaults it to 1.
func desiredReplicas(mp *clusterv1.MachinePool) int32 {
	return ptr.Deref(mp.Spec.Replicas, 1)
}

// reconcileReplicas scales and rolls the instances of a Flexible pool whose instances the provider makes: it creates
// and deletes AzureMachinePoolMachines (through their Machines) as planRollout says.
func (r *Reconciler) reconcileReplicas(ctx context.Context, s *scope) error {
	pool, mp := s.pool, s.machinePool
	if byAzure, known := s.azureMakesInstances(); byAzure || !known {
		return nil
	}
	replicas, machines, err := r.listReplicas(ctx, s)
	if err != nil {
		return err
	}
	version := mp.Spec.Template.Spec.Version
	infos := make([]replica, 0, len(replicas))
	for i := range replicas {
		m := &replicas[i]
		machine := machines[m.Name]
		_, marked := machineAnnotations(machine)[clusterv1.DeleteMachineAnnotation]
		infos = append(infos, replica{
			name:     m.Name,
			created:  m.CreationTimestamp.Time,
			upToDate: m.Spec.Model != nil && m.Spec.Model.UpToDate(pool, version),
			ready:    conditions.IsTrue(m, clusterv1.ReadyCondition),
			deleting: !m.DeletionTimestamp.IsZero() || (machine != nil && !machine.DeletionTimestamp.IsZero()),
			marked:   marked,
		})
	}
	p := planRollout(int(desiredReplicas(mp)), pool.Spec.Strategy, infos)
	log := ctrl.LoggerFrom(ctx)
	var created, deleted []client.Object
	zones := zoneUse(mp.Spec.FailureDomains, replicas)
	for range p.create {
		m := r.newReplica(s, zones.next())
		if err := r.Client.Create(ctx, m); err != nil {
			// The plan's deletions counted on this instance: none happens in this pass.
			s.replicas = replicas
			return kerrors.NewAggregate([]error{fmt.Errorf("failed to create AzureMachinePoolMachine %s: %w", klog.KObj(m), err),
				r.waitForCache(ctx, created, nil)})
		}
		log.Info("Created an instance", "AzureMachinePoolMachine", klog.KObj(m), "zone", m.Spec.Model.FailureDomain)
		replicas = append(replicas, *m)
		created = append(created, m)
	}
	var errs []error
	for _, name := range p.delete {
		log.Info("Deleting an instance", "AzureMachinePoolMachine", klog.KRef(pool.Namespace, name))
		obj, err := r.deleteReplica(ctx, pool.Namespace, name, machines[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		deleted = append(deleted, obj)
	}
	s.replicas = replicas
	if err := kerrors.NewAggregate(errs); err != nil {
		return err
	}
	return r.waitForCache(ctx, created, deleted)
}

// listReplicas lists the pool's AzureMachinePoolMachines (labelled as Cluster API's MachinePool Machines and
// owned by the pool) and their Machines by name.
func (r *Reconciler) listReplicas(ctx context.Context, s *scope) ([]infrav1exp.AzureMachinePoolMachine, map[string]*clusterv1.Machine, error) {
	selector := client.MatchingLabels{
		clusterv1.ClusterNameLabel:     s.cluster.Name,
		clusterv1.MachinePoolNameLabel: format.MustFormatValue(s.machinePool.Name),
	}
	list := &infrav1exp.AzureMachinePoolMachineList{}
	if err := r.Client.List(ctx, list, client.InNamespace(s.pool.Namespace), selector); err != nil {
		return nil, nil, fmt.Errorf("failed to list the AzureMachinePoolMachines of %s: %w", klog.KObj(s.pool), err)
	}
	var replicas []infrav1exp.AzureMachinePoolMachine
	for _, m := range list.Items {
		for _, ref := range m.OwnerReferences {
			if ref.UID == s.pool.UID {
				replicas = append(replicas, m)
				break
			}
		}
	}
	machineList := &clusterv1.MachineList{}
	if err := r.Client.List(ctx, machineList, client.InNamespace(s.pool.Namespace), selector); err != nil {
		return nil, nil, fmt.Errorf("failed to list the Machines of %s: %w", klog.KObj(s.machinePool), err)
	}
	machines := map[string]*clusterv1.Machine{}
	for i := range machineList.Items {
		machines[machineList.Items[i].Name] = &machineList.Items[i]
	}
	return replicas, machines, nil
}

func machineAnnotations(m *clusterv1.Machine) map[string]string {
	if m == nil {
		return nil
	}
	return m.Annotations
}

// newReplica returns a new instance of the pool's current model: an AzureMachinePoolMachine named after the pool
// with a random suffix (Cluster API names its Machine the same), labelled as a MachinePool Machine, owned by the
// pool (not as controller: the Machine becomes its controller), with the provider ID its VM will have.
func (r *Reconciler) newReplica(s *scope, zone string) *infrav1exp.AzureMachinePoolMachine {
	pool := s.pool
	// apimachinery's rand is safe for concurrent reconciles; Cluster API's util.RandomString is not.
	name := pool.Name + "-" + utilrand.String(5)
	vmID := azure.ResourceID(s.infra.SubscriptionID, s.infra.ResourceGroup, azure.TypeVirtualMachine, name)
	model := pool.Model(s.machinePool.Spec.Template.Spec.Version, zone)
	return &infrav1exp.AzureMachinePoolMachine{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: pool.Namespace,
			Labels: map[string]string{
				clusterv1.ClusterNameLabel:     s.cluster.Name,
				clusterv1.MachinePoolNameLabel: format.MustFormatValue(s.machinePool.Name),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: infrav1exp.GroupVersion.String(), Kind: "AzureMachinePool", Name: pool.Name, UID: pool.UID,
			}},
		},
		Spec: infrav1exp.AzureMachinePoolMachineSpec{ProviderID: azure.ProviderID(vmID), Model: &model},
	}
}

// deleteReplica deletes an instance through its Machine, so that Cluster API drains its Node first, or directly
// while Cluster API has not made its Machine yet. It returns the object it deleted.
func (r *Reconciler) deleteReplica(ctx context.Context, namespace, name string, machine *clusterv1.Machine) (client.Object, error) {
	var obj client.Object = &infrav1exp.AzureMachinePoolMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if machine != nil {
		obj = machine
	}
	if err := r.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("failed to delete the instance %s: %w", klog.KRef(namespace, name), err)
	}
	return obj, nil
}

// waitForCache waits until the cache shows the objects created in this pass and the deletion of those deleted,
// so that the next pass counts them.
func (r *Reconciler) waitForCache(ctx context.Context, created, deleted []client.Object) error {
	await := func(obj client.Object, seen func(cached client.Object, err error) bool) error {
		key := client.ObjectKeyFromObject(obj)
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, cacheTimeout, true, func(ctx context.Context) (bool, error) {
			cached := obj.DeepCopyObject().(client.Object)
			err := r.Client.Get(ctx, key, cached)
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			return seen(cached, err), nil
		})
		if err != nil {
			return fmt.Errorf("failed to wait for the cache to show %T %s: %w", obj, key, err)
		}
		return nil
	}
	for _, obj := range created {
		if err := await(obj, func(_ client.Object, err error) bool { return err == nil }); err != nil {
			return err
		}
	}
	for _, obj := range deleted {
		if err := await(obj, func(cached client.Object, err error) bool {
			return err != nil || !cached.GetDeletionTimestamp().IsZero()
		}); err != nil {
			return err
		}
	}
	return nil
}

// zones hands out the MachinePool's failure domains to new instances, least used first.
type zones struct {
	names []string
	used  map[string]int
}

// zoneUse counts the zones of the active instances.
func zoneUse(failureDomains []string, replicas []infrav1exp.AzureMachinePoolMachine) *zones {
	z := &zones{names: failureDomains, used: map[string]int{}}
	for _, m := range replicas {
		if m.DeletionTimestamp.IsZero() && m.Spec.Model != nil {
			z.used[m.Spec.Model.FailureDomain]++
		}
	}
	return z
}

// next returns the least used zone (the first of them on a tie), or "" when the MachinePool names none.
func (z *zones) next() string {
	if len(z.names) == 0 {
		return ""
	}
	best := z.names[0]
	for _, name := range z.names[1:] {
		if z.used[name] < z.used[best] {
			best = name
		}
	}
	z.used[best]++
	return best
}

// nodeInfo is a Node of an instance Azure made from the scale set's profile (azureMakesInstances).
type nodeInfo struct {
	name       string
	providerID string
	// instanceID orders the instances as Azure made them (instanceOrder).
	instanceID int
	ready      bool
	// zone is the Node's topology.kubernetes.io/zone label.
	zone          string
	unschedulable bool
	// drainStarted is when the provider started draining the Node before a scale-in (DrainStartedAnnotation).
	drainStarted *time.Time
	// cordonedByUs is true when the provider cordoned the Node for that drain (CordonedAnnotation).
	cordonedByUs bool
}

// reconcileNodes reads the Nodes of a scale set whose instances Azure makes (azureMakesInstances) from the workload
// cluster, and records when the pool's model changes which instances are outdated (ModelAnnotation). Until the
// workload cluster is reachable its Nodes are unknown; the cluster cache's source requeues the pool once it
// connects.
func (r *Reconciler) reconcileNodes(ctx context.Context, s *scope) error {
	pool := s.pool
	if byAzure, known := s.azureMakesInstances(); !byAzure || !known {
		return nil
	}
	s.watermark = -1
	if err := r.watchNodes(ctx, s.cluster); err != nil {
		return ignoreNotConnected(err)
	}
	reader, err := r.ClusterCache.GetReader(ctx, client.ObjectKeyFromObject(s.cluster))
	if err != nil {
		return ignoreNotConnected(err)
	}
	nodes := &corev1.NodeList{}
	if err := reader.List(ctx, nodes); err != nil {
		return fmt.Errorf("failed to list the Nodes of Cluster %s: %w", klog.KObj(s.cluster), err)
	}
	for _, n := range nodes.Items {
		id, ok := instanceOrder(&n, s.infra.SubscriptionID, s.infra.ResourceGroup, s.scaleSetName, isFlexible(pool))
		if !ok {
			continue
		}
		info := nodeInfo{
			name: n.Name, providerID: n.Spec.ProviderID, instanceID: id, ready: nodeReady(&n), zone: n.Labels[zoneLabel],
			unschedulable: n.Spec.Unschedulable, cordonedByUs: n.Annotations[CordonedAnnotation] == "true",
		}
		if started, ok := n.Annotations[DrainStartedAnnotation]; ok {
			// A value that does not parse counts as a drain that starts now: it only delays its timeout.
			t, err := time.Parse(time.RFC3339, started)
			if err != nil {
				t = time.Now()
			}
			info.drainStarted = &t
		}
		s.nodes = append(s.nodes, info)
	}
	sort.Slice(s.nodes, func(i, j int) bool { return s.nodes[i].instanceID < s.nodes[j].instanceID })
	s.nodesKnown = true

	hash, err := modelHash(pool, s.machinePool.Spec.Template.Spec.Version)
	if err != nil {
		return err
	}
	recorded, watermark, ok := parseModelAnnotation(pool.Annotations[ModelAnnotation])
	switch {
	case !ok:
		// A new pool (or one whose record was lost): its instances are taken as up to date.
		watermark = -1
	case recorded != hash:
		watermark = -1
		for _, n := range s.nodes {
			watermark = max(watermark, n.instanceID)
		}
		ctrl.LoggerFrom(ctx).Info("The pool's model changed: rolling its instances", "outdatedUpTo", watermark)
	}
	if pool.Annotations == nil {
		pool.Annotations = map[string]string{}
	}
	pool.Annotations[ModelAnnotation] = fmt.Sprintf("%s/%d", hash, watermark)
	s.watermark = watermark
	return nil
}

// instanceOrder tells whether a Node is an instance of the pool's scale set, and its place in the order in which
// Azure made the instances: a Uniform instance's number (the last segment of its provider ID), or the creation
// time of the Node of a Flexible instance, a VM that Azure names <scale set>_<8 characters>.
func instanceOrder(n *corev1.Node, subscription, group, scaleSet string, flexible bool) (int, bool) {
	// cloud-provider-azure may write the resource group in another case.
	providerID := strings.ToLower(n.Spec.ProviderID)
	if flexible {
		vm := strings.ToLower(azure.ProviderID(azure.ResourceID(subscription, group, azure.TypeVirtualMachine, scaleSet+"_")))
		return int(n.CreationTimestamp.Unix()), strings.HasPrefix(providerID, vm)
	}
	rest, ok := strings.CutPrefix(providerID, strings.ToLower(azure.ProviderID(azure.ResourceID(subscription, group, azure.TypeScaleSet, scaleSet))+"/virtualMachines/"))
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(rest)
	return id, err == nil
}

// modelHash hashes what a Uniform pool's instances are made of, without the bootstrap data, which Cluster API
// rotates and which only new instances read.
func modelHash(pool *infrav1exp.AzureMachinePool, version string) (string, error) {
	data, err := json.Marshal(pool.Model(version, ""))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]), nil
}

func parseModelAnnotation(value string) (hash string, watermark int, ok bool) {
	hash, n, found := strings.Cut(value, "/")
	if !found || hash == "" {
		return "", 0, false
	}
	watermark, err := strconv.Atoi(n)
	return hash, watermark, err == nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// watchNodes makes the controller reconcile a cluster's pools when the Nodes of its workload cluster change, so
// that providerIDList and rollouts follow the Nodes without polling; the cluster cache sets it up once.
func (r *Reconciler) watchNodes(ctx context.Context, cluster *clusterv1.Cluster) error {
	return r.ClusterCache.Watch(ctx, client.ObjectKeyFromObject(cluster), clustercache.NewWatcher(clustercache.WatcherOptions{
		Name:    "azuremachinepool-watch-nodes",
		Watcher: r.controller,
		Kind:    &corev1.Node{},
		EventHandler: handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
			return r.poolsOfCluster(ctx, cluster)
		}),
	}))
}

// ignoreNotConnected drops the cluster cache's error for a workload cluster it has not connected to yet.
func ignoreNotConnected(err error) error {
	if errors.Is(err, clustercache.ErrClusterNotConnected) {
		return nil
	}
	return err
}

// deleteReplicas deletes the pool's instances (through their Machines); done once none is left, and the scale set
// can go.
func (r *Reconciler) deleteReplicas(ctx context.Context, s *scope) (bool, error) {
	replicas, machines, err := r.listReplicas(ctx, s)
	if err != nil {
		return false, err
	}
	s.replicas = replicas
	var errs []error
	var deleted []client.Object
	for _, m := range replicas {
		machine := machines[m.Name]
		if !m.DeletionTimestamp.IsZero() || (machine != nil && !machine.DeletionTimestamp.IsZero()) {
			continue
		}
		obj, err := r.deleteReplica(ctx, m.Namespace, m.Name, machine)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		deleted = append(deleted, obj)
	}
	if len(replicas) > 0 {
		// A Flexible scale set cannot go before its VMs; each deleted instance requeues the pool.
		errs = append(errs, r.waitForCache(ctx, nil, deleted))
		return false, kerrors.NewAggregate(errs)
	}
	return true, nil
}

// readScaleSet names the pool's scale set (compute.ScaleSetName, from the scale sets the pool has), reads its live
// ASO object and, for one the provider did not make, what Azure has of it (takenOver): the phases after it depend on
// who makes the instances (azureMakesInstances).
func (r *Reconciler) readScaleSet(ctx context.Context, s *scope) error {
	scaleSets, err := r.Engine.List(ctx, s.pool.Namespace, compute.ScaleSets())
	if err != nil {
		return err
	}
	s.scaleSetName = compute.ScaleSetName(s.pool, scaleSets)
	obj, err := r.Engine.Read(ctx, s.pool.Namespace, compute.ScaleSetRef(s.scaleSetName))
	if err != nil {
		return err
	}
	s.scaleSet, s.taken = obj, r.takenOver(s, obj)
	return nil
}

// takenOver reads what Azure has of a scale set the provider did not make: one CAPZ made, before a switch from CAPZ
// (docs/migrating-from-capz.md), which the pool's provider ID names while the provider has no object for it. It
// returns nil for a scale set the provider made.
func (r *Reconciler) takenOver(s *scope, obj azure.Object) *compute.TakenOverScaleSet {
	if s.pool.Spec.ProviderID == "" || (obj != nil && !aso.AdoptionRecorded(obj)) {
		return nil
	}
	taken := compute.TakenOverScaleSetFrom(obj)
	taken.ApplyDifferences = takeover.OptedIn(s.pool)
	return taken
}
