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

package plane

import (
	"bytes"
	"context"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
)

// testdata holds the cluster manifests fixtures apply.
//
//go:embed testdata
var testdata embed.FS

// Fixture is what a test's cluster lives in: a namespace, a unique cluster name (the workload cluster and the
// simulated Azure are shared by the package), the manifest variables, and the recorded bootstrap data.
type Fixture struct {
	Namespace   string
	ClusterName string
	Vars        map[string]string
	CustomData  *CustomDataRecorder
	// objects are what the test applied, deleted when it ends.
	objects []*unstructured.Unstructured
}

// NewFixture prepares a namespace for a cluster named prefix plus a random suffix: its kubeconfig Secret
// pointing at the workload cluster, the kubelets that register its Nodes, and a recorder of its VMs' bootstrap
// data. Everything is removed when the test ends.
func (p *Plane) NewFixture(t *testing.T, g *WithT, prefix string) *Fixture {
	t.Helper()
	ctx := t.Context()
	cp, workloadClient := p.Workload.Get(t)
	ns, err := env.Env.CreateNamespace(ctx, prefix)
	g.Expect(err).NotTo(HaveOccurred())
	f := &Fixture{Namespace: ns.Name, ClusterName: prefix + "-" + utilrand.String(5)}
	f.Vars = map[string]string{
		"NAMESPACE":             f.Namespace,
		"CLUSTER_NAME":          f.ClusterName,
		"AZURE_LOCATION":        Location,
		"AZURE_SUBSCRIPTION_ID": p.SubscriptionID(),
		"KUBERNETES_VERSION":    KubernetesVersion,
	}
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), ns) })
	t.Cleanup(func() { f.cleanup(t) })

	WriteKubeconfig(ctx, g, f.Namespace, f.ClusterName, cp.KubeConfig)
	p.StartKubelets(t, f.Namespace, workloadClient)
	f.CustomData = RecordCustomData(t, f.Namespace)
	return f
}

// NewAKSFixture prepares a namespace for an AKS cluster named prefix plus a random suffix, in a resource group of
// the cluster's name: the nodes AKS would register for its agent pools. The provider writes the kubeconfig Secret
// from the one ASO writes, which points at the workload cluster (see the simulator's options in TestMain).
func (p *Plane) NewAKSFixture(t *testing.T, g *WithT, prefix string) *Fixture {
	t.Helper()
	ctx := t.Context()
	_, workloadClient := p.Workload.Get(t)
	ns, err := env.Env.CreateNamespace(ctx, prefix)
	g.Expect(err).NotTo(HaveOccurred())
	f := &Fixture{Namespace: ns.Name, ClusterName: prefix + "-" + utilrand.String(5)}
	f.Vars = map[string]string{
		"NAMESPACE":             f.Namespace,
		"CLUSTER_NAME":          f.ClusterName,
		"RESOURCE_GROUP":        f.ClusterName + "-rg",
		"AZURE_LOCATION":        Location,
		"AZURE_SUBSCRIPTION_ID": p.SubscriptionID(),
		"KUBERNETES_VERSION":    KubernetesVersion,
	}
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), ns) })
	t.Cleanup(func() { f.cleanup(t) })
	p.StartKubelets(t, f.Namespace, workloadClient)
	return f
}

// cleanup deletes what the test applied that is still there (everything, if the test failed before deleting
// its Cluster), and the kubeconfig Secret.
func (f *Fixture) cleanup(t *testing.T) {
	ctx := context.Background()
	for i := len(f.objects) - 1; i >= 0; i-- {
		if err := env.Env.Delete(ctx, f.objects[i]); err != nil && !apierrors.IsNotFound(err) {
			t.Logf("Failed to delete %s %s: %v", f.objects[i].GetKind(), f.objects[i].GetName(), err)
		}
	}
	kubeconfig := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: secret.Name(f.ClusterName, secret.Kubeconfig)}}
	_ = env.Env.Cleanup(ctx, kubeconfig)
}

// Apply creates the objects of a testdata manifest, in file order.
func (f *Fixture) Apply(ctx context.Context, g *WithT, file string) {
	for _, obj := range ReadManifests(g, file, f.Vars) {
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
		f.objects = append(f.objects, obj)
	}
}

// Key is the key of an object of the test's namespace.
func (f *Fixture) Key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: f.Namespace, Name: name}
}

// ReadManifests reads a multi-document YAML file from testdata and substitutes its ${VARIABLES} as clusterctl
// does; a variable without a value fails the test.
func ReadManifests(g *WithT, file string, vars map[string]string) []*unstructured.Unstructured {
	raw, err := testdata.ReadFile(path.Join("testdata", file))
	g.Expect(err).NotTo(HaveOccurred())
	var missing []string
	expanded := os.Expand(string(raw), func(name string) string {
		value, ok := vars[name]
		if !ok {
			missing = append(missing, name)
		}
		return value
	})
	g.Expect(missing).To(BeEmpty(), "variables without a value in %s", file)

	var out []*unstructured.Unstructured
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(expanded)), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return out
		}
		g.Expect(err).NotTo(HaveOccurred(), "decoding %s", file)
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// WriteKubeconfig writes the <cluster>-kubeconfig Secret through which Cluster API reaches the workload cluster,
// as a control plane provider would. Written before the Cluster exists, it is there for the ClusterCache's first
// connection, and the Cluster controller, which generates one for clusters without a control plane provider
// (pointing at the Azure load balancer, unreachable here), leaves it alone. It is a user-provided kubeconfig (not of
// Cluster API's Secret type), so that a KubeadmControlPlane neither adopts nor rotates it either: its cluster entry
// is the test workload cluster's, not the Cluster's.
func WriteKubeconfig(ctx context.Context, g *WithT, namespace, clusterName string, kubeconfig []byte) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      secret.Name(clusterName, secret.Kubeconfig),
			Namespace: namespace,
			Labels:    map[string]string{clusterv1.ClusterNameLabel: clusterName},
		},
		Data: map[string][]byte{secret.KubeconfigDataName: kubeconfig},
	}
	g.Expect(env.Env.Create(ctx, s)).To(Succeed())
}

// StartKubelets plays the kubelets of a namespace's machines and the nodes of its AKS agent pools in the workload
// cluster (test/kubeletsim); the Nodes are deleted when the test ends.
func (p *Plane) StartKubelets(t *testing.T, namespace string, workloadClient client.Client) {
	t.Helper()
	kubelets := kubeletsim.Start(kubeletsim.Options{
		Management: env.Env.GetAPIReader(), Workload: workloadClient, Namespace: namespace,
		SubscriptionID: p.SubscriptionID(), Interval: Interval, Logf: t.Logf,
	})
	t.Cleanup(func() {
		if err := kubelets.DeleteNodes(context.Background()); err != nil {
			t.Logf("Failed to delete the simulated Nodes: %v", err)
		}
	})
}

// CustomDataRecorder watches a namespace's VirtualMachines and keeps, per VM, the bootstrap data it carried
// (its decoded osProfile.customData) while ASO had not reported it created yet.
type CustomDataRecorder struct {
	mu   sync.Mutex
	data map[string][]byte
}

// RecordCustomData starts a recorder; it stops when the test ends.
func RecordCustomData(t *testing.T, namespace string) *CustomDataRecorder {
	t.Helper()
	wc, err := client.NewWithWatch(env.Env.Config, client.Options{Scheme: env.Env.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	r := &CustomDataRecorder{data: map[string][]byte{}}
	ctx, cancel := context.WithCancel(context.Background())
	watchFrom := func(resourceVersion string) (watch.Interface, error) {
		return wc.Watch(ctx, &asocompute.VirtualMachineList{},
			&client.ListOptions{Namespace: namespace, Raw: &metav1.ListOptions{ResourceVersion: resourceVersion}})
	}
	// The first watch runs before the test creates anything.
	first, err := watchFrom("")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, resourceVersion := first, ""
		for ctx.Err() == nil {
			if w == nil {
				var err error
				if w, err = watchFrom(resourceVersion); err != nil {
					time.Sleep(Interval)
					continue
				}
			}
			for event := range w.ResultChan() {
				if event.Type == watch.Error {
					resourceVersion = "" // expired: start over from the current state
					continue
				}
				if vm, ok := event.Object.(*asocompute.VirtualMachine); ok {
					resourceVersion = vm.ResourceVersion
					r.observe(vm)
				}
			}
			w.Stop()
			w = nil
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r
}

func (r *CustomDataRecorder) observe(vm *asocompute.VirtualMachine) {
	if vm.Spec.OsProfile == nil || ptr.Deref(vm.Spec.OsProfile.CustomData, "") == "" {
		return
	}
	if ready := genruntime.GetReadyCondition(vm); ready != nil && ready.Status == metav1.ConditionTrue {
		return
	}
	data, err := base64.StdEncoding.DecodeString(*vm.Spec.OsProfile.CustomData)
	if err != nil {
		data = []byte("invalid base64: " + err.Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.data[vm.Name]; !seen {
		r.data[vm.Name] = data
	}
}

// Get returns the bootstrap data a VM carried while it was being created.
func (r *CustomDataRecorder) Get(vm string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, ok := r.data[vm]
	return data, ok
}

// ASOObject is an ASO object found in a namespace.
type ASOObject struct {
	Kind   string
	Object client.Object
}

func (o ASOObject) String() string { return o.Kind + " " + o.Object.GetName() }

// ListASOObjects lists the objects of every ASO kind the provider produces in a namespace, from the API server.
func ListASOObjects(ctx context.Context, g Gomega, namespace string) []ASOObject {
	return ListASOObjectsFrom(ctx, g, env.Env.GetAPIReader(), namespace)
}

// ListASOObjectsFrom lists the objects of every ASO kind the provider produces in a namespace of the API server
// reader reads from, which may be another management cluster's.
func ListASOObjectsFrom(ctx context.Context, g Gomega, reader client.Reader, namespace string) []ASOObject {
	var out []ASOObject
	for _, kind := range asosim.Kinds() {
		gvk, err := apiutil.GVKForObject(kind, env.Env.Scheme())
		g.Expect(err).NotTo(HaveOccurred())
		list, err := env.Env.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(reader.List(ctx, list.(client.ObjectList), client.InNamespace(namespace))).To(Succeed())
		items, err := meta.ExtractList(list)
		g.Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			out = append(out, ASOObject{Kind: gvk.Kind, Object: item.(client.Object)})
		}
	}
	return out
}

// CountByKind summarises ASO objects as "Kind×n" entries, sorted by kind.
func CountByKind(objs []ASOObject) string {
	counts := map[string]int{}
	for _, o := range objs {
		counts[o.Kind]++
	}
	kinds := make([]string, 0, len(counts))
	for kind := range counts {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, kind := range kinds {
		parts = append(parts, fmt.Sprintf("%s×%d", kind, counts[kind]))
	}
	return strings.Join(parts, ", ")
}

// UpdateObject reads obj fresh from the API server, changes it and updates it, as a user does; a conflict with the
// controllers' own writes is retried.
func UpdateObject(ctx context.Context, g *WithT, key client.ObjectKey, obj client.Object, change func()) {
	g.Eventually(func() error {
		if err := env.Env.GetAPIReader().Get(ctx, key, obj); err != nil {
			return err
		}
		change()
		return env.Env.Update(ctx, obj)
	}, Timeout, Interval).Should(Succeed())
}

// DeleteCluster deletes a Cluster, as a user does, and waits until Cluster API and the provider have deleted
// everything it owns and released it.
func DeleteCluster(ctx context.Context, g *WithT, key client.ObjectKey) {
	g.Expect(env.Env.Delete(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.GetAPIReader().Get(ctx, key, &clusterv1.Cluster{}))
	}, Timeout, Interval).Should(BeTrue(), "the Cluster is deleted")
}

// MachinesOf lists the Machines of a cluster.
func MachinesOf(ctx context.Context, g Gomega, namespace, clusterName string) []clusterv1.Machine {
	machines := &clusterv1.MachineList{}
	g.Expect(env.Env.List(ctx, machines, client.InNamespace(namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: clusterName})).To(Succeed())
	return machines.Items
}

// ProviderID is the provider ID of a VM as cloud-provider-azure writes it on the Node.
func (p *Plane) ProviderID(resourceGroup, vm string) string {
	return fmt.Sprintf("azure:///subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachines/%s", p.SubscriptionID(), resourceGroup, vm)
}

// ResourceGroupID is the ARM ID of a resource group in the simulated subscription.
func (p *Plane) ResourceGroupID(resourceGroup string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", p.SubscriptionID(), resourceGroup)
}

// ProviderIDToARMID is the ARM ID in a provider ID.
func ProviderIDToARMID(providerID string) string {
	return strings.TrimPrefix(providerID, "azure://")
}
