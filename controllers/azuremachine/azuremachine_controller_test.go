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

package azuremachine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
)

const timeout = 60 * time.Second

// fixture is a provisioned cluster the test's machines belong to.
type fixture struct {
	ctx       context.Context
	namespace string
	cluster   *clusterv1.Cluster
	// bootstrapData is the value of the bootstrap data Secrets newMachine makes; a kubeadm join cloud-config
	// when nil.
	bootstrapData []byte
	// failureDomain is the failure domain of the Machines newMachine makes: "2" unless changed.
	failureDomain string
}

// newFixture creates a namespace, a Cluster whose infrastructure is provisioned, and that infrastructure: an
// AzureCluster managed by someone else (so only the machines are reconciled), or infra when given.
func newFixture(t *testing.T, g *WithT, infra *unstructured.Unstructured) *fixture {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "azuremachine")
	g.Expect(err).NotTo(HaveOccurred())
	if infra == nil {
		ac := &infrav1.AzureCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: ns.Name, Annotations: map[string]string{clusterv1.ManagedByAnnotation: "test"}},
			Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
				Location: "eastus", SubscriptionID: sim.SubscriptionID(), AdditionalTags: map[string]string{"team": "platform"},
			}},
		}
		g.Expect(env.Env.Create(ctx, ac)).To(Succeed())
		infra = &unstructured.Unstructured{}
		infra.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))
		infra.SetName(ac.Name)
	} else {
		infra.SetNamespace(ns.Name)
		g.Expect(env.Env.Create(ctx, infra)).To(Succeed())
	}
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infra.GroupVersionKind().Group, Kind: infra.GetKind(), Name: infra.GetName(),
		}},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	g.Expect(env.Env.Status().Update(ctx, cluster)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), cluster, ns) })
	return &fixture{ctx: ctx, namespace: ns.Name, cluster: cluster, failureDomain: "2"}
}

// newMachine creates a Machine with bootstrap data and its AzureMachine, as Cluster API would.
func (f *fixture) newMachine(t *testing.T, g *WithT, name string, controlPlane bool, spec infrav1.AzureMachineSpec) *infrav1.AzureMachine {
	t.Helper()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-bootstrap", Namespace: f.namespace, Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}},
		Data:       map[string][]byte{"value": []byte("#cloud-config\nruncmd: [kubeadm join]\n"), "format": []byte("cloud-config")},
	}
	if f.bootstrapData != nil {
		secret.Data["value"] = f.bootstrapData
	}
	g.Expect(env.Env.Create(f.ctx, secret)).To(Succeed())
	labels := map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}
	if controlPlane {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace, Labels: labels},
		Spec: clusterv1.MachineSpec{
			ClusterName:       f.cluster.Name,
			Version:           "v1.34.1",
			FailureDomain:     f.failureDomain,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(secret.Name)},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureMachine", Name: name},
		},
	}
	g.Expect(env.Env.Create(f.ctx, machine)).To(Succeed())
	am := &infrav1.AzureMachine{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: f.namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: name, UID: machine.UID, Controller: ptr.To(true)}},
		},
		Spec: spec,
	}
	g.Expect(env.Env.Create(f.ctx, am)).To(Succeed())
	t.Cleanup(func() { _ = env.Env.Delete(context.Background(), am) })
	return am
}

func waitProvisioned(ctx context.Context, g *WithT, am *infrav1.AzureMachine) *infrav1.AzureMachine {
	live := &infrav1.AzureMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
	}, timeout).Should(Succeed())
	return live
}

func TestReconcile_ControlPlaneMachine(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	am := f.newMachine(t, g, "cp-0", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", AllocatePublicIP: true, DisableVMBootstrapExtension: ptr.To(false)})
	live := waitProvisioned(f.ctx, g, am)

	vmID := fmt.Sprintf("/subscriptions/%s/resourceGroups/workload/providers/Microsoft.Compute/virtualMachines/cp-0", sim.SubscriptionID())
	g.Expect(live.Spec.ProviderID).To(HaveValue(Equal("azure://" + vmID)))
	g.Expect(live.Status.Addresses).To(ContainElements(
		clusterv1.MachineAddress{Type: clusterv1.MachineHostName, Address: "cp-0"},
		HaveField("Type", clusterv1.MachineInternalIP), HaveField("Type", clusterv1.MachineExternalIP)))
	g.Expect(live.Status.FailureDomain).To(Equal("2"))
	for _, c := range []string{"NetworkInterfacesReady", "PublicIPsReady", "VirtualMachineReady", "VMExtensionsReady"} {
		g.Expect(conditions.IsTrue(live, c)).To(BeTrue(), c)
	}

	nic := &asonetwork.NetworkInterface{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "cp-0-nic"}, nic)).To(Succeed())
	pools := nic.Spec.IpConfigurations[0].LoadBalancerBackendAddressPools
	g.Expect(pools).To(HaveLen(1))
	g.Expect(pools[0].Reference.ARMID).To(HaveSuffix("/loadBalancers/workload-public-lb/backendAddressPools/workload-public-lb-backendPool"))
	g.Expect(nic.Spec.IpConfigurations[0].Subnet.Reference.ARMID).To(HaveSuffix("/virtualNetworks/workload-vnet/subnets/workload-controlplane-subnet"))

	// The bootstrap data went to the VM only until ASO created it.
	vm := &asocompute.VirtualMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "cp-0"}, vm)).To(Succeed())
		g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil())
	}, timeout).Should(Succeed())
	g.Expect(vm.Spec.Zones).To(Equal([]string{"2"}))
	g.Expect(vm.Spec.Tags).To(HaveKeyWithValue("team", "platform"))
	created := false
	for _, e := range sim.Events() {
		created = created || (e.Op == "Create" && e.ID == vmID)
	}
	g.Expect(created).To(BeTrue())
}

// TestReconcile_BootstrapExtensionOnlyWhenEnabled: as in CAPZ since v1.25, a machine gets the bootstrap extension
// only when disableVMBootstrapExtension is false, its command in a Secret that ASO hands over as protected
// settings; without it the machine is Ready without any extension.
func TestReconcile_BootstrapExtensionOnlyWhenEnabled(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	plain := f.newMachine(t, g, "worker-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	enabled := f.newMachine(t, g, "worker-1", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", DisableVMBootstrapExtension: ptr.To(false)})
	live := waitProvisioned(f.ctx, g, plain)
	g.Expect(conditions.Has(live, "VMExtensionsReady")).To(BeFalse())
	live = waitProvisioned(f.ctx, g, enabled)
	g.Expect(conditions.IsTrue(live, "VMExtensionsReady")).To(BeTrue())

	extensions := &asocompute.VirtualMachinesExtensionList{}
	g.Expect(env.Env.List(f.ctx, extensions, client.InNamespace(f.namespace))).To(Succeed())
	g.Expect(extensions.Items).To(HaveLen(1))
	ext := extensions.Items[0]
	g.Expect(ext.Spec.Owner.Name).To(Equal("worker-1"))
	g.Expect(ext.Spec.Type).To(HaveValue(Equal(compute.LinuxBootstrapExtension)))
	g.Expect(ext.Spec.Settings).To(BeEmpty())
	g.Expect(ext.Spec.ProtectedSettings).NotTo(BeNil())
	protected := &corev1.Secret{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: ext.Spec.ProtectedSettings.Name}, protected)).To(Succeed())
	g.Expect(string(protected.Data["commandToExecute"])).To(Equal(compute.LinuxBootstrapCommand))
}

func TestReconcile_BootstrapDataOnlyUntilTheVMExists(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	sim.Lag("VirtualMachine", f.namespace, "worker-0", time.Hour)
	am := f.newMachine(t, g, "worker-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	vm := &asocompute.VirtualMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "worker-0"}, vm)).To(Succeed())
		g.Expect(vm.Spec.OsProfile.CustomData).To(HaveValue(Equal(base64.StdEncoding.EncodeToString([]byte("#cloud-config\nruncmd: [kubeadm join]\n")))))
	}, timeout).Should(Succeed())
	live := &infrav1.AzureMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
	g.Expect(live.Status.Initialization.Provisioned).To(BeNil())

	g.Expect(sim.Heal(f.ctx, "VirtualMachine", f.namespace, "worker-0")).To(Succeed())
	waitProvisioned(f.ctx, g, am)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "worker-0"}, vm)).To(Succeed())
		g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil())
	}, timeout).Should(Succeed())
}

func TestReconcile_FailingVMSurfacesOnReady(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	sim.Fail("VirtualMachine", f.namespace, "quota", "OperationNotAllowed", "Operation could not be completed as it results in exceeding approved standardDSv3Family Cores quota")
	am := f.newMachine(t, g, "quota", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureMachine{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		ready := conditions.Get(live, clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal("OperationNotAllowed"), "ASO retries a quota error: a Warning, with Azure's code as reason")
		g.Expect(ready.Message).To(ContainSubstring("VirtualMachine quota: Operation could not be completed"))
	}, timeout).Should(Succeed())
}

func TestReconcile_AnyAzureClusterShapedInfrastructure(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "exampleclusters.infrastructure.cluster.x-k8s.io", Labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1alpha1"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "infrastructure.cluster.x-k8s.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "ExampleCluster", ListKind: "ExampleClusterList", Plural: "exampleclusters", Singular: "examplecluster"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}}}},
		},
	}
	if err := env.Env.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	infra := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "ExampleCluster",
		"metadata": map[string]any{"name": "example"},
		"spec": map[string]any{
			"location": "westeurope", "resourceGroup": "example-rg", "subscriptionID": sim.SubscriptionID(),
			"somethingElse": map[string]any{"ignored": true},
			"networkSpec": map[string]any{
				"vnet":    map[string]any{"name": "example-vnet", "resourceGroup": "network-rg"},
				"subnets": []any{map[string]any{"name": "nodes", "role": "node"}},
			},
		},
	}}
	// Wait until the API server serves the new kind.
	g.Eventually(func() error {
		return env.Env.List(ctx, &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "ExampleClusterList"}})
	}, timeout).Should(Succeed())
	// The manager's role names our kinds only: the user grants it read access to another provider's infrastructure
	// kind (docs/security.md, RBAC).
	reader := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "capz-read-exampleclusters"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"infrastructure.cluster.x-k8s.io"}, Resources: []string{"exampleclusters"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: env.ProviderNamespace, Name: env.ProviderServiceAccount}},
	}
	for _, obj := range []client.Object{reader, binding} {
		if err := env.Env.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	f := newFixture(t, g, infra)
	am := f.newMachine(t, g, "example-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, am)

	vm := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "example-0"}, vm)).To(Succeed())
	g.Expect(vm.Spec.Location).To(HaveValue(Equal("westeurope")))
	g.Expect(vm.Spec.Owner.ARMID).To(Equal(fmt.Sprintf("/subscriptions/%s/resourceGroups/example-rg", sim.SubscriptionID())))
	nic := &asonetwork.NetworkInterface{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "example-0-nic"}, nic)).To(Succeed())
	g.Expect(nic.Spec.IpConfigurations[0].Subnet.Reference.ARMID).To(Equal(fmt.Sprintf(
		"/subscriptions/%s/resourceGroups/network-rg/providers/Microsoft.Network/virtualNetworks/example-vnet/subnets/nodes", sim.SubscriptionID())))
}

func TestReconcile_DeleteReleasesEverything(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	am := f.newMachine(t, g, "gone", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", AllocatePublicIP: true})
	waitProvisioned(f.ctx, g, am)

	g.Expect(env.Env.Delete(f.ctx, am)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), &infrav1.AzureMachine{}))
	}, timeout).Should(BeTrue())
	vms := &asocompute.VirtualMachineList{}
	g.Expect(env.Env.List(f.ctx, vms, client.InNamespace(f.namespace))).To(Succeed())
	g.Expect(vms.Items).To(BeEmpty())
	nics := &asonetwork.NetworkInterfaceList{}
	g.Expect(env.Env.List(f.ctx, nics, client.InNamespace(f.namespace))).To(Succeed())
	g.Expect(nics.Items).To(BeEmpty())
	pips := &asonetwork.PublicIPAddressList{}
	g.Expect(env.Env.List(f.ctx, pips, client.InNamespace(f.namespace))).To(Succeed())
	g.Expect(pips.Items).To(BeEmpty())
	g.Expect(sim.Deleted()).To(ContainElement(fmt.Sprintf("/subscriptions/%s/resourceGroups/workload/providers/Microsoft.Compute/virtualMachines/gone", sim.SubscriptionID())))
}

// TestReconcile_DeleteLeavesExtensionsToTheVM: a deleted machine's bootstrap extension goes with its VM, as CAPZ's
// does: no DELETE of the extension reaches Azure, the VM's does, and the extension's object is left to the VM's
// (its only owner reference, which Kubernetes' garbage collector follows, and reconcile-policy detach-on-delete, so
// that ASO sends no DELETE of an extension already gone).
func TestReconcile_DeleteLeavesExtensionsToTheVM(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	am := f.newMachine(t, g, "extended", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", DisableVMBootstrapExtension: ptr.To(false)})
	waitProvisioned(f.ctx, g, am)
	vmObject := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "extended"}, vmObject)).To(Succeed())

	g.Expect(env.Env.Delete(f.ctx, am)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), &infrav1.AzureMachine{}))
	}, timeout).Should(BeTrue())
	vm := fmt.Sprintf("/subscriptions/%s/resourceGroups/workload/providers/Microsoft.Compute/virtualMachines/extended", sim.SubscriptionID())
	g.Expect(sim.Deleted()).To(ContainElement(vm))
	g.Expect(sim.Deleted()).NotTo(ContainElement(HavePrefix(vm+"/extensions/")), "the extension goes with the VM")
	extensions := &asocompute.VirtualMachinesExtensionList{}
	g.Expect(env.Env.List(f.ctx, extensions, client.InNamespace(f.namespace))).To(Succeed())
	g.Expect(extensions.Items).To(HaveLen(1))
	ext := extensions.Items[0]
	g.Expect(ext.OwnerReferences).To(ConsistOf(HaveField("UID", vmObject.UID)), "left to the VM's object alone")
	g.Expect(ext.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "detach-on-delete"))
}

// TestReconcile_SecretsNeverLogged creates a Linux and a Windows machine, with the manager logging at every
// verbosity, and checks that neither their bootstrap data nor the Windows admin password ever reached the logs,
// while an uncapped logger did see the bootstrap data (in client-go's request and response bodies).
func TestReconcile_SecretsNeverLogged(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	marker := []byte("bootstrap-marker-" + util.RandomString(32))
	f.bootstrapData = []byte("#cloud-config\nwrite_files:\n- path: /etc/marker\n  content: " + string(marker) + "\nruncmd: [kubeadm join]\n")
	logs.Watch(marker)
	logs.Watch(f.bootstrapData)

	linux := f.newMachine(t, g, "linux-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	windows := f.newMachine(t, g, "windows-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3", OSDisk: infrav1.OSDisk{OSType: "Windows"}})
	waitProvisioned(f.ctx, g, linux)
	waitProvisioned(f.ctx, g, windows)
	// The VMs were made with the bootstrap data, and it left their specs once ASO created them.
	g.Eventually(func(g Gomega) {
		for _, name := range []string{"linux-0", "windows-0"} {
			vm := &asocompute.VirtualMachine{}
			g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: name}, vm)).To(Succeed())
			g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil(), name)
		}
	}, timeout).Should(Succeed())
	password := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: compute.WindowsPasswordSecretName("windows-0")}, password)).To(Succeed())
	g.Expect(password.Data[compute.WindowsPasswordKey]).NotTo(BeEmpty())

	logged := logs.Logged()
	g.Expect(logged).To(ContainSubstring(`"AzureMachine"`), "the capture holds the controller's logs")
	for name, secret := range map[string][]byte{"bootstrap marker": marker, "bootstrap data": f.bootstrapData, "Windows admin password": password.Data[compute.WindowsPasswordKey]} {
		g.Expect(logcapture.Leaks(logged, secret)).To(BeEmpty(), "the %s was logged", name)
	}
	g.Expect(logs.SeenUncapped(f.bootstrapData)).To(BeTrue(), "without the cap, the bootstrap data would have been logged")
}

// In a region without availability zones, a machine's VM goes into its node group's availability set, which the
// cluster's AzureCluster creates once the group has a machine.
func TestReconcile_AvailabilitySet(t *testing.T) {
	g := NewWithT(t)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload"},
		Spec: infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{
			Location: "northcentralus", SubscriptionID: sim.SubscriptionID(),
		}},
	})
	g.Expect(err).NotTo(HaveOccurred())
	infra := &unstructured.Unstructured{Object: content}
	infra.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))
	f := newFixture(t, g, infra)
	f.failureDomain = ""
	// The AzureCluster is the Cluster's, so that its controller reconciles it.
	ac := &infrav1.AzureCluster{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload"}, ac)).To(Succeed())
	ac.OwnerReferences = []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: f.cluster.Name, UID: f.cluster.UID}}
	g.Expect(env.Env.Update(f.ctx, ac)).To(Succeed())

	am := f.newMachine(t, g, "workload-cp-0", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, am)

	set := &asocomputeavset.AvailabilitySet{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: azure.ObjectName("workload_control-plane-as")}, set)).To(Succeed())
	g.Expect(set.Spec.AzureName).To(Equal("workload_control-plane-as"))
	vm := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload-cp-0"}, vm)).To(Succeed())
	g.Expect(vm.Spec.Zones).To(BeEmpty())
	g.Expect(vm.Spec.AvailabilitySet).NotTo(BeNil())
	g.Expect(vm.Spec.AvailabilitySet.Reference).To(HaveValue(And(
		HaveField("Kind", "AvailabilitySet"), HaveField("Name", set.Name))))
}

// Each control-plane machine behind a public API server load balancer gets an SSH rule on it, as in CAPZ: the
// first port 22, the next 2201; a port freed by a machine that is gone goes to the next new machine.
func TestReconcile_ControlPlaneSSHRules(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	rule := func(machine string) *asonetwork.LoadBalancersInboundNatRule {
		r := &asonetwork.LoadBalancersInboundNatRule{}
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload-public-lb-" + machine}, r)).To(Succeed())
		return r
	}
	first := f.newMachine(t, g, "ssh-cp-0", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	live := waitProvisioned(f.ctx, g, first)
	g.Expect(conditions.IsTrue(live, "InboundNATRulesReady")).To(BeTrue())
	g.Expect(rule("ssh-cp-0").Spec.FrontendPort).To(HaveValue(Equal(22)))
	g.Expect(rule("ssh-cp-0").Spec.BackendPort).To(HaveValue(Equal(22)))
	g.Expect(rule("ssh-cp-0").Spec.FrontendIPConfiguration.Reference.ARMID).To(HaveSuffix("/loadBalancers/workload-public-lb/frontendIPConfigurations/workload-public-lb-frontEnd"))
	nic := &asonetwork.NetworkInterface{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "ssh-cp-0-nic"}, nic)).To(Succeed())
	g.Expect(nic.Spec.IpConfigurations[0].LoadBalancerInboundNatRules).To(ConsistOf(
		HaveField("Reference", HaveValue(HaveField("Name", "workload-public-lb-ssh-cp-0")))))

	second := f.newMachine(t, g, "ssh-cp-1", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, second)
	g.Expect(rule("ssh-cp-1").Spec.FrontendPort).To(HaveValue(Equal(2201)))

	// A worker gets none.
	worker := f.newMachine(t, g, "ssh-md-0", false, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, worker)
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload-public-lb-ssh-md-0"}, &asonetwork.LoadBalancersInboundNatRule{})).
		To(Satisfy(apierrors.IsNotFound))

	// The first machine goes, with its rule; the next one takes port 22 again, and the second keeps 2201.
	g.Expect(env.Env.Delete(f.ctx, first)).To(Succeed())
	g.Eventually(func() bool {
		err := env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload-public-lb-ssh-cp-0"}, &asonetwork.LoadBalancersInboundNatRule{})
		return apierrors.IsNotFound(err)
	}, timeout).Should(BeTrue())
	third := f.newMachine(t, g, "ssh-cp-2", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, third)
	g.Expect(rule("ssh-cp-2").Spec.FrontendPort).To(HaveValue(Equal(22)))
	g.Expect(rule("ssh-cp-1").Spec.FrontendPort).To(HaveValue(Equal(2201)))
}

// TestReconcile_SSHRuleOnInternalLoadBalancer: as CAPZ does, a control-plane machine of a cluster with an internal
// API server load balancer gets an SSH rule on it too, which its network interface does not use.
func TestReconcile_SSHRuleOnInternalLoadBalancer(t *testing.T) {
	g := NewWithT(t)
	ac := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Annotations: map[string]string{clusterv1.ManagedByAnnotation: "test"}},
		Spec:       infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus", SubscriptionID: sim.SubscriptionID()}},
	}
	ac.Spec.NetworkSpec.APIServerLB = &infrav1.LoadBalancerSpec{LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Internal}}
	ac.SetGroupVersionKind(infrav1.GroupVersion.WithKind("AzureCluster"))
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ac)
	g.Expect(err).NotTo(HaveOccurred())
	f := newFixture(t, g, &unstructured.Unstructured{Object: raw})
	am := f.newMachine(t, g, "private-cp-0", true, infrav1.AzureMachineSpec{VMSize: "Standard_D2s_v3"})
	waitProvisioned(f.ctx, g, am)
	rule := &asonetwork.LoadBalancersInboundNatRule{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "workload-internal-lb-private-cp-0"}, rule)).To(Succeed())
	g.Expect(rule.Spec.FrontendPort).To(HaveValue(Equal(22)))
	g.Expect(rule.Spec.FrontendIPConfiguration.Reference.ARMID).To(HaveSuffix("/loadBalancers/workload-internal-lb/frontendIPConfigurations/workload-internal-lb-frontEnd"))
	nic := &asonetwork.NetworkInterface{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "private-cp-0-nic"}, nic)).To(Succeed())
	g.Expect(nic.Spec.IpConfigurations[0].LoadBalancerInboundNatRules).To(BeEmpty())
}

// TestReconcile_WindowsVMName: as CAPZ names it, the VM of a Windows machine with a name longer than Windows
// allows is named after the machine's first 9 and last 5 characters, and so are its interface and provider ID.
func TestReconcile_WindowsVMName(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	spec := infrav1.AzureMachineSpec{VMSize: "Standard_D4s_v3"}
	spec.OSDisk.OSType = "Windows"
	am := f.newMachine(t, g, "win-md-0-abcde-xyz12", false, spec)
	live := waitProvisioned(f.ctx, g, am)
	g.Expect(live.Spec.ProviderID).To(HaveValue(HaveSuffix("/virtualMachines/win-md-0-xyz12")))
	g.Expect(live.Status.Addresses).To(ContainElement(clusterv1.MachineAddress{Type: clusterv1.MachineHostName, Address: "win-md-0-xyz12"}))
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "win-md-0-xyz12"}, &asocompute.VirtualMachine{})).To(Succeed())
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "win-md-0-xyz12-nic"}, &asonetwork.NetworkInterface{})).To(Succeed())
}

// TestReconcile_TakesOverCAPZMachine: a machine CAPZ made (its VM and interface exist in Azure with the cluster's
// owned tag, the AzureMachine has its provider ID, there is no ASO object) is looked up before anything is written,
// taken over, and keeps the disks' delete options CAPZ left until the user opts into the provider's.
func TestReconcile_TakesOverCAPZMachine(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, g, nil)
	rg := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/workload/providers/"
	owned := map[string]string{azure.ClusterTagKey(f.cluster.Name): string(infrav1.ResourceLifecycleOwned)}
	sim.SeedAzure("VirtualMachine", rg+"Microsoft.Compute/virtualMachines/capz-0", owned)
	sim.SeedAzure("NetworkInterface", rg+"Microsoft.Network/networkInterfaces/capz-0-nic", owned)
	am := f.newMachine(t, g, "capz-0", false, infrav1.AzureMachineSpec{
		VMSize: "Standard_D2s_v3", ProviderID: ptr.To("azure://" + rg + "Microsoft.Compute/virtualMachines/capz-0"),
	})

	live := &infrav1.AzureMachine{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		c := conditions.Get(live, infrav1.CAPZDifferencesAppliedCondition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Reason).To(Equal(infrav1.AwaitingOptInReason))
		g.Expect(c.Message).To(ContainSubstring("the OS disk: deleteOption unset, the provider's Delete"))
	}, timeout).Should(Succeed())
	waitProvisioned(f.ctx, g, am)
	vm := &asocompute.VirtualMachine{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-0"}, vm)).To(Succeed())
	g.Expect(vm.Annotations).To(HaveKeyWithValue(aso.AdoptionAnnotation, "taken-over"))
	g.Expect(vm.Annotations).To(HaveKeyWithValue("serviceoperator.azure.com/reconcile-policy", "manage"), "taken over, the VM is managed")
	g.Expect(vm.Spec.StorageProfile.OsDisk.DeleteOption).To(BeNil(), "CAPZ's delete option is kept")
	g.Expect(vm.Spec.OsProfile.CustomData).To(BeNil(), "custom data is never sent to an existing VM")
	nic := &asonetwork.NetworkInterface{}
	g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-0-nic"}, nic)).To(Succeed())
	g.Expect(nic.Annotations).To(HaveKeyWithValue(aso.AdoptionAnnotation, "taken-over"))
	g.Expect(sim.Events()).NotTo(ContainElement(And(HaveField("Op", "Create"), HaveField("ID", ContainSubstring("/capz-0")))),
		"the machine's resources are not created again in Azure")

	// The user opts in: the provider's delete options are applied.
	before := live.DeepCopy()
	live.Annotations = map[string]string{infrav1.ApplyCAPZDifferencesAnnotation: "true"}
	g.Expect(env.Env.Patch(f.ctx, live, client.MergeFrom(before))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(f.ctx, client.ObjectKeyFromObject(am), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, infrav1.CAPZDifferencesAppliedCondition)).To(BeTrue())
		g.Expect(env.Env.Get(f.ctx, client.ObjectKey{Namespace: f.namespace, Name: "capz-0"}, vm)).To(Succeed())
		g.Expect(vm.Spec.StorageProfile.OsDisk.DeleteOption).To(HaveValue(Equal(asocompute.DeleteOption_Delete)))
	}, timeout).Should(Succeed())
}
