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

package move_test

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctlclient "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	logf "sigs.k8s.io/cluster-api/cmd/clusterctl/log"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/asocrd"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	timeout     = 60 * time.Second
	clusterName = "mover"
	machineName = "mover-cp-0"
)

// managementPlane is one side of the move.
type managementPlane struct {
	env        *env.Environment
	sim        *asosim.Simulator
	kubeconfig string
	// proxy is clusterctl's connection to the API server.
	proxy cluster.Proxy
}

// reusedProxy is clusterctl's proxy with one client for all calls. clusterctl builds a new client (a connection
// and a full API discovery) for every call, hundreds in one move; reusing it keeps the test fast and changes
// nothing clusterctl decides.
type reusedProxy struct {
	cluster.Proxy
	once   sync.Once
	client client.Client
	err    error
}

func (p *reusedProxy) NewClient(ctx context.Context) (client.Client, error) {
	p.once.Do(func() { p.client, p.err = p.Proxy.NewClient(ctx) })
	return p.client, p.err
}

// TestMove_ProvisionedCluster moves a provisioned AzureCluster-based cluster with clusterctl and checks that
// nothing happens in Azure: the source's ASO objects are skipped before clusterctl deletes them, every one of
// them arrives on the target, and the target resumes them without changing a spec.
func TestMove_ProvisionedCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	logf.SetLogger(klog.Background().WithName("clusterctl"))

	<-targetStarted
	g.Expect(targetErr).NotTo(HaveOccurred(), "failed to start the target management cluster")

	dir := t.TempDir()
	source := &managementPlane{env: env.Env, sim: sourceSim, kubeconfig: filepath.Join(dir, "source")}
	target := &managementPlane{env: targetEnv, sim: targetSim, kubeconfig: filepath.Join(dir, "target")}
	proxies := map[string]cluster.Proxy{}
	for _, side := range []*managementPlane{source, target} {
		side.proxy = &reusedProxy{Proxy: cluster.NewProxy(cluster.Kubeconfig{Path: side.kubeconfig})}
		proxies[side.kubeconfig] = side.proxy
	}
	for _, side := range []*managementPlane{source, target} {
		prepare(ctx, t, side)
	}

	ns, err := source.env.CreateNamespace(ctx, "move")
	g.Expect(err).NotTo(HaveOccurred())
	provision(ctx, t, source, ns.Name)

	before := asoObjects(ctx, g, source.env.GetAPIReader(), ns.Name)
	g.Expect(countByKind(before)).To(SatisfyAll(
		HaveKey("ResourceGroup"), HaveKey("VirtualNetwork"), HaveKey("VirtualNetworksSubnet"), HaveKey("LoadBalancer"),
		HaveKey("NetworkInterface"), HaveKey("VirtualMachine")))
	for key, obj := range before {
		g.Expect(obj.ready).To(BeTrue(), "%s is not Ready on the source", key)
		g.Expect(obj.annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "manage"), "%s is managed before the move", key)
	}
	history := watchSource(ctx, t, source.env, ns.Name)
	eventsBefore := len(source.sim.Events())

	cfg := clusterctlConfig(ctx, g)
	c, err := clusterctlclient.New(ctx, "", clusterctlclient.InjectConfig(cfg),
		clusterctlclient.InjectClusterClientFactory(func(in clusterctlclient.ClusterClientFactoryInput) (cluster.Client, error) {
			return cluster.New(cluster.Kubeconfig(in.Kubeconfig), cfg, cluster.InjectProxy(proxies[in.Kubeconfig.Path])), nil
		}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Move(ctx, clusterctlclient.MoveOptions{
		FromKubeconfig: clusterctlclient.Kubeconfig{Path: source.kubeconfig},
		ToKubeconfig:   clusterctlclient.Kubeconfig{Path: target.kubeconfig},
		Namespace:      ns.Name,
	})).To(Succeed())

	// clusterctl paused the Cluster and waited for block-move to go: by then the controllers had skipped every ASO
	// object (Pause). clusterctl then replaces an object's annotations with delete-for-move before deleting it; the
	// provider's webhook keeps the skip, so that deleting it on the source deletes nothing in Azure.
	g.Eventually(history.deleted, 10*time.Second).Should(HaveLen(len(before)))
	beforeDelete, atDelete := history.snapshot()
	for key := range before {
		g.Expect(beforeDelete[key]).To(SatisfyAll(
			HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)),
			HaveKey(aso.PrePauseAnnotation)), "%s was not paused when clusterctl moved it", key)
		g.Expect(atDelete[key]).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, string(asoannotations.ReconcilePolicySkip)),
			"%s was deleted on the source without reconcile-policy skip", key)
	}
	g.Expect(asoObjects(ctx, g, source.env.GetAPIReader(), ns.Name)).To(BeEmpty(), "clusterctl left ASO objects behind")

	moved := asoObjects(ctx, g, target.env.GetAPIReader(), ns.Name)
	g.Expect(countByKind(moved)).To(Equal(countByKind(before)))
	g.Expect(keys(moved)).To(Equal(keys(before)))

	targetCluster := &clusterv1.Cluster{}
	g.Expect(target.env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: clusterName}, targetCluster)).To(Succeed())
	g.Expect(ptr.Deref(targetCluster.Spec.Paused, false)).To(BeFalse(), "clusterctl unpauses the Cluster on the target")

	// Status does not move. Cluster API's core controllers on the target would report the infrastructure
	// provisioned again once the AzureCluster is Ready, after ASO there has read every resource back.
	g.Eventually(func(g Gomega) {
		for key, obj := range asoObjects(ctx, g, target.env.GetAPIReader(), ns.Name) {
			g.Expect(obj.ready).To(BeTrue(), "%s is not Ready on the target", key)
		}
		g.Expect(isReady(ctx, g, target.env, &infrav1.AzureCluster{}, ns.Name, clusterName)).To(BeTrue())
	}, timeout).Should(Succeed())
	markClusterProvisioned(ctx, g, target.env, targetCluster)

	// The controllers on the target lift the skip they set on the source, and change nothing else.
	g.Eventually(func(g Gomega) {
		for key, obj := range asoObjects(ctx, g, target.env.GetAPIReader(), ns.Name) {
			g.Expect(obj.annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "manage"), key)
			g.Expect(obj.annotations).NotTo(HaveKey(aso.PrePauseAnnotation), key)
			g.Expect(obj.ready).To(BeTrue(), key)
		}
		g.Expect(isReady(ctx, g, target.env, &infrav1.AzureCluster{}, ns.Name, clusterName)).To(BeTrue())
		g.Expect(isReady(ctx, g, target.env, &infrav1.AzureMachine{}, ns.Name, machineName)).To(BeTrue())
	}, timeout).Should(Succeed())
	unchanged := func(g Gomega) {
		after := asoObjects(ctx, g, target.env.GetAPIReader(), ns.Name)
		g.Expect(keys(after)).To(Equal(keys(before)))
		for key, obj := range after {
			g.Expect(obj.generation).To(BeEquivalentTo(1), "the spec of %s changed on the target", key)
			g.Expect(cmp.Diff(before[key].spec, obj.spec)).To(BeEmpty(), "the spec of %s changed in the move", key)
		}
	}
	unchanged(g)
	g.Consistently(unchanged, 3*time.Second, 500*time.Millisecond).Should(Succeed())

	g.Expect(source.sim.Deleted()).To(BeEmpty(), "nothing was deleted in Azure")
	g.Expect(source.sim.Events()[eventsBefore:]).To(BeEmpty(), "nothing was created or updated in Azure by the move")
}

// prepare makes a management cluster what clusterctl init leaves: a kubeconfig, the Cluster API and provider CRDs
// labelled for clusterctl, and the provider inventory. The ASO CRDs are left to the provider's asocrd controller.
func prepare(ctx context.Context, t *testing.T, side *managementPlane) {
	t.Helper()
	g := NewWithT(t)
	g.Expect(side.env.ControlPlane.WriteKubeconfig(side.kubeconfig)).To(Succeed())

	// clusterctl init labels every CRD of the providers it installs; move lists the objects of each labelled kind,
	// so the test labels only the kinds it creates.
	for name, provider := range map[string]string{
		"clusters.cluster.x-k8s.io":                     "cluster-api",
		"machines.cluster.x-k8s.io":                     "cluster-api",
		"azureclusters.infrastructure.cluster.x-k8s.io": asocrd.ProviderName,
		"azuremachines.infrastructure.cluster.x-k8s.io": asocrd.ProviderName,
	} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(side.env.GetAPIReader().Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
		base := crd.DeepCopy()
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels[clusterctlv1.ClusterctlLabel] = ""
		crd.Labels[clusterv1.ProviderNameLabel] = provider
		g.Expect(side.env.Patch(ctx, crd, client.MergeFrom(base))).To(Succeed())
	}

	inventory := cluster.New(cluster.Kubeconfig{Path: side.kubeconfig}, clusterctlConfig(ctx, g), cluster.InjectProxy(side.proxy)).ProviderInventory()
	g.Expect(inventory.EnsureCustomResourceDefinitions(ctx)).To(Succeed())
	for _, p := range []clusterctlv1.Provider{
		provider("cluster-api", "cluster-api", "capi-system", clusterctlv1.CoreProviderType, "v1.14.2"),
		provider(asocrd.ProviderName, "azure", "capz-system", clusterctlv1.InfrastructureProviderType, "v0.1.0"),
	} {
		err := side.env.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}})
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
		g.Expect(inventory.Create(ctx, p)).To(Succeed())
	}

	// The manager's role allows it to label the CRDs of the kinds the provider produces (asocrd.CRDNames).
	names, err := asocrd.CRDNames(side.env.Scheme())
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		for name := range names {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(side.env.GetAPIReader().Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
			g.Expect(crd.Labels).To(HaveKeyWithValue(clusterctlv1.ClusterctlLabel, ""), crd.Name)
		}
	}, timeout).Should(Succeed())
}

func provider(name, providerName, namespace string, typ clusterctlv1.ProviderType, version string) clusterctlv1.Provider {
	return clusterctlv1.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
			clusterctlv1.ClusterctlLabel: "", clusterv1.ProviderNameLabel: name,
		}},
		ProviderName: providerName,
		Type:         string(typ),
		Version:      version,
	}
}

// clusterctlConfig is an empty clusterctl configuration: no file, no environment, no repository.
func clusterctlConfig(ctx context.Context, g Gomega) config.Client {
	cfg, err := config.New(ctx, "", config.InjectReader(config.NewMemoryReader()))
	g.Expect(err).NotTo(HaveOccurred())
	return cfg
}

// provision creates a Cluster with an AzureCluster and a control plane Machine with its AzureMachine and bootstrap
// data, and sets what Cluster API's core controllers and a control plane provider would once they are ready.
func provision(ctx context.Context, t *testing.T, side *managementPlane, namespace string) {
	t.Helper()
	g := NewWithT(t)
	c := side.env
	cl := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: namespace},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: clusterName,
		}},
	}
	g.Expect(c.Create(ctx, cl)).To(Succeed())
	labels := map[string]string{clusterv1.ClusterNameLabel: clusterName}
	azureCluster := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: clusterName, Namespace: namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: clusterName, UID: cl.UID}},
		},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
			Location: "eastus", SubscriptionID: side.sim.SubscriptionID(),
		}},
	}
	g.Expect(c.Create(ctx, azureCluster)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(isReady(ctx, g, c, &infrav1.AzureCluster{}, namespace, clusterName)).To(BeTrue())
	}, timeout).Should(Succeed())
	markClusterProvisioned(ctx, g, c, cl)

	machineLabels := map[string]string{clusterv1.ClusterNameLabel: clusterName, clusterv1.MachineControlPlaneLabel: ""}
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name: machineName, Namespace: namespace, Labels: machineLabels,
			// Core's Machine controller makes the Cluster the owner of a Machine that has none.
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: clusterName, UID: cl.UID}},
		},
		Spec: clusterv1.MachineSpec{
			ClusterName:       clusterName,
			Version:           "v1.34.1",
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(machineName + "-bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureMachine", Name: machineName},
		},
	}
	g.Expect(c.Create(ctx, machine)).To(Succeed())
	machineOwner := []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: machineName, UID: machine.UID, Controller: ptr.To(true)}}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: machineName + "-bootstrap", Namespace: namespace, Labels: labels, OwnerReferences: machineOwner},
		Data:       map[string][]byte{"value": []byte("#cloud-config\nruncmd: [kubeadm init]\n"), "format": []byte("cloud-config")},
	}
	g.Expect(c.Create(ctx, secret)).To(Succeed())
	azureMachine := &infrav1.AzureMachine{
		ObjectMeta: metav1.ObjectMeta{Name: machineName, Namespace: namespace, Labels: machineLabels, OwnerReferences: machineOwner},
		Spec:       infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"},
	}
	g.Expect(c.Create(ctx, azureMachine)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(isReady(ctx, g, c, &infrav1.AzureMachine{}, namespace, machineName)).To(BeTrue())
	}, timeout).Should(Succeed())

	// The Node joined: clusterctl moves only Machines with a nodeRef.
	base := machine.DeepCopy()
	machine.Status.NodeRef = clusterv1.MachineNodeReference{Name: machineName}
	machine.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	machine.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
	g.Expect(c.Status().Patch(ctx, machine, client.MergeFrom(base))).To(Succeed())
}

// markClusterProvisioned sets what core's Cluster controller reports once the infrastructure is provisioned and
// the control plane initialized; clusterctl moves only such Clusters.
func markClusterProvisioned(ctx context.Context, g Gomega, c client.Client, cl *clusterv1.Cluster) {
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(cl), cl)).To(Succeed())
	base := cl.DeepCopy()
	cl.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	conditions.Set(cl, metav1.Condition{
		Type: clusterv1.ClusterControlPlaneInitializedCondition, Status: metav1.ConditionTrue, Reason: clusterv1.ClusterControlPlaneInitializedReason,
	})
	g.Expect(c.Status().Patch(ctx, cl, client.MergeFrom(base))).To(Succeed())
}

// isReady reads an AzureCluster or AzureMachine and tells whether it is Ready and not paused.
func isReady[T interface {
	client.Object
	conditions.Getter
}](ctx context.Context, g Gomega, c *env.Environment, obj T, namespace, name string) bool {
	g.Expect(c.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
	return conditions.IsTrue(obj, clusterv1.ReadyCondition) && conditions.IsFalse(obj, clusterv1.PausedCondition)
}

// asoObject is what the test compares of an ASO object.
type asoObject struct {
	spec        any
	generation  int64
	annotations map[string]string
	// ready is ASO's Ready condition, for the object's current generation.
	ready bool
}

// asoObjects reads the ASO objects of a namespace, by kind/name.
func asoObjects(ctx context.Context, g Gomega, c client.Reader, namespace string) map[string]asoObject {
	out := map[string]asoObject{}
	for _, gvk := range asoGVKs(g) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		g.Expect(c.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		for _, item := range list.Items {
			out[gvk.Kind+"/"+item.GetName()] = asoObject{
				spec:        item.Object["spec"],
				generation:  item.GetGeneration(),
				annotations: item.GetAnnotations(),
				ready:       asoReady(&item),
			}
		}
	}
	return out
}

func asoGVKs(g Gomega) []schema.GroupVersionKind {
	gvks, err := aso.GVKs(env.Env.Scheme(), aso.Kinds()...)
	g.Expect(err).NotTo(HaveOccurred())
	return gvks
}

// asoReady tells whether ASO reports the object Ready at its current generation.
func asoReady(u *unstructured.Unstructured) bool {
	items, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, item := range items {
		c, _ := item.(map[string]any)
		observed, _, _ := unstructured.NestedInt64(c, "observedGeneration")
		if c["type"] == "Ready" {
			return c["status"] == string(metav1.ConditionTrue) && observed == u.GetGeneration()
		}
	}
	return false
}

func countByKind(objs map[string]asoObject) map[string]int {
	out := map[string]int{}
	for key := range objs {
		kind, _, _ := strings.Cut(key, "/")
		out[kind]++
	}
	return out
}

func keys(objs map[string]asoObject) []string {
	return slices.Sorted(maps.Keys(objs))
}

// sourceHistory records, for every ASO object of a namespace, its annotations as clusterctl found them (the last
// state before clusterctl marked it delete-for-move) and as the API server first reported its deletion.
type sourceHistory struct {
	mu sync.Mutex
	// beforeDelete and atDelete map kind/name to annotations.
	beforeDelete, atDelete map[string]map[string]string
}

func (h *sourceHistory) snapshot() (beforeDelete, atDelete map[string]map[string]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.beforeDelete), maps.Clone(h.atDelete)
}

func (h *sourceHistory) deleted() map[string]map[string]string {
	_, atDelete := h.snapshot()
	return atDelete
}

// watchSource watches the metadata of the ASO objects of a namespace until the test ends.
func watchSource(ctx context.Context, t *testing.T, c *env.Environment, namespace string) *sourceHistory {
	t.Helper()
	g := NewWithT(t)
	wc, err := client.NewWithWatch(c.Config, client.Options{Scheme: c.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	h := &sourceHistory{beforeDelete: map[string]map[string]string{}, atDelete: map[string]map[string]string{}}
	for _, gvk := range asoGVKs(g) {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		w, err := wc.Watch(ctx, list, client.InNamespace(namespace))
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(w.Stop)
		go func() {
			for event := range w.ResultChan() {
				obj, ok := event.Object.(*metav1.PartialObjectMetadata)
				if !ok {
					continue
				}
				key := gvk.Kind + "/" + obj.Name
				_, marked := obj.Annotations[clusterctlv1.DeleteForMoveAnnotation]
				h.mu.Lock()
				switch _, deleted := h.atDelete[key]; {
				case event.Type == watch.Deleted || obj.DeletionTimestamp != nil:
					if !deleted {
						h.atDelete[key] = obj.Annotations
					}
				case !marked:
					h.beforeDelete[key] = obj.Annotations
				}
				h.mu.Unlock()
			}
		}()
	}
	return h
}
