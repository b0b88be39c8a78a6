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

package switchcheck_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/switchcheck"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// k8s is an admin client of a real API server with Cluster API's CRDs and the provider's, and no webhook: objects
// are stored as CAPZ wrote them, whatever the provider's webhooks would say.
var k8s client.Client

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctx := context.Background()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Scheme: scheme.New(), WithoutASO: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed to start the control plane: %v\n", err)
		os.Exit(1)
	}
	code := func() int {
		if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme.New()}); err != nil {
			fmt.Fprintf(os.Stderr, "failed to create a client: %v\n", err)
			return 1
		}
		return m.Run()
	}()
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "failed to stop the control plane: %v\n", err)
	}
	os.Exit(code)
}

// namespace makes a namespace of its own for a test.
func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "switch-check-"}}
	NewWithT(t).Expect(k8s.Create(t.Context(), ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	return ns.Name
}

// findings runs the dry run on a namespace and returns the findings of one check (all with check "").
func findings(t *testing.T, ns, check string) []switchcheck.Finding {
	t.Helper()
	all, err := switchcheck.Run(t.Context(), k8s, switchcheck.Options{Namespace: ns})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	var out []switchcheck.Finding
	for _, f := range all {
		if check == "" || f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// finding matches a finding of an object whose message holds each of the substrings.
func finding(severity switchcheck.Severity, object string, substrings ...string) OmegaMatcher {
	message := make([]OmegaMatcher, 0, len(substrings))
	for _, s := range substrings {
		message = append(message, ContainSubstring(s))
	}
	return And(
		HaveField("Severity", severity),
		HaveField("Object", object),
		HaveField("Message", And(message...)),
	)
}

// samples are the provider's samples of every kind (config/samples), which its webhooks admit, and the other objects
// they need (the identity's Secret).
func samples(t *testing.T) (ours map[string]*unstructured.Unstructured, others []*unstructured.Unstructured) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	ours = map[string]*unstructured.Unstructured{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil || len(u.Object) == 0 {
				continue
			}
			if u.GroupVersionKind().Group == "infrastructure.cluster.x-k8s.io" {
				ours[u.GetKind()] = u
			} else {
				others = append(others, u)
			}
		}
	}
	return ours, others
}

// readyKinds are the sample kinds that report readiness.
var readyKinds = map[string]bool{
	"AzureCluster": true, "AzureMachine": true, "AzureMachinePool": true,
	"AzureManagedCluster": true, "AzureManagedControlPlane": true, "AzureManagedMachinePool": true,
	"AzureASOManagedCluster": true, "AzureASOManagedControlPlane": true, "AzureASOManagedMachinePool": true,
}

// create creates an object in ns; status, when set, is then written as its status.
func create(t *testing.T, ns string, obj client.Object) {
	t.Helper()
	g := NewWithT(t)
	obj.SetNamespace(ns)
	var status any
	if u, ok := obj.(*unstructured.Unstructured); ok {
		status = u.Object["status"]
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind().Group == infrav1.GroupVersion.Group {
		defaults(t, u)
	}
	g.Expect(k8s.Create(t.Context(), obj)).To(Succeed(), "%T %s", obj, obj.GetName())
	if u, ok := obj.(*unstructured.Unstructured); ok && status != nil {
		u.Object["status"] = status
		g.Expect(k8s.Status().Update(t.Context(), u)).To(Succeed(), "status of %s %s", u.GetKind(), u.GetName())
	}
}

// defaults gives one of the provider's objects its defaults, as they are stored once a webhook defaulted them (CAPZ's
// webhooks default CAPZ's objects as the provider's do): the dry run judges an update of the stored object.
func defaults(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	g := NewWithT(t)
	s := scheme.New()
	obj, err := s.New(u.GroupVersionKind())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj)).To(Succeed())
	admission := infrav1.AdmissionFor(obj)
	if admission == nil {
		admission = infrav1exp.AdmissionFor(obj)
	}
	// Create defaults the object in place before it validates it; an object the provider refuses is stored as CAPZ
	// wrote it all the same.
	_ = admission.Create(t.Context(), obj)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	g.Expect(err).NotTo(HaveOccurred())
	delete(content, "status")
	if status, ok := u.Object["status"]; ok {
		content["status"] = status
	}
	u.Object = content
}

// setStatus writes a typed object's status.
func setStatus(t *testing.T, obj client.Object, set func()) {
	t.Helper()
	set()
	NewWithT(t).Expect(k8s.Status().Update(t.Context(), obj)).To(Succeed(), "status of %T %s", obj, obj.GetName())
}

// readyStatus is the provider's status of a Ready infrastructure object.
func readyStatus(status string) map[string]any {
	return map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": status, "reason": "Test", "message": "", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}}}
}

const clusterName = "sample"

// cleanCluster makes, in ns, a switching cluster that is ready to switch: every kind of the provider from its sample,
// Ready; a paused Cluster of the AzureCluster with a KubeadmControlPlane, a MachineDeployment, a MachineSet and a
// MachinePool that are settled, a Machine with its provider ID, and a paused MachineHealthCheck.
func cleanCluster(t *testing.T, ns string) {
	t.Helper()
	ours, others := samples(t)
	for _, o := range others {
		create(t, ns, o.DeepCopy())
	}
	for kind, o := range ours {
		o = o.DeepCopy()
		if readyKinds[kind] {
			o.Object["status"] = readyStatus("True")
		}
		create(t, ns, o)
	}
	one := ptr.To[int32](1)

	kcp := &controlplanev1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName},
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: one, Version: "v1.34.1",
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureMachineTemplate", Name: ours["AzureMachineTemplate"].GetName()},
			}},
		},
	}
	create(t, ns, kcp)
	setStatus(t, kcp, func() {
		kcp.Status = controlplanev1.KubeadmControlPlaneStatus{Replicas: one, ReadyReplicas: one, UpToDateReplicas: one, ObservedGeneration: kcp.Generation}
	})

	create(t, ns, &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName},
		Spec: clusterv1.ClusterSpec{
			Paused:            ptr.To(true),
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureCluster", Name: ours["AzureCluster"].GetName()},
			ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: clusterName},
		},
	})

	md := machineDeployment("workers")
	create(t, ns, md)
	setStatus(t, md, func() {
		md.Status = clusterv1.MachineDeploymentStatus{Replicas: one, ReadyReplicas: one, UpToDateReplicas: one, ObservedGeneration: md.Generation}
	})
	ms := machineSet("workers-abcde")
	create(t, ns, ms)
	setStatus(t, ms, func() {
		ms.Status = clusterv1.MachineSetStatus{Replicas: one, ReadyReplicas: one, UpToDateReplicas: one, ObservedGeneration: ms.Generation}
	})
	mp := machinePool("pool")
	create(t, ns, mp)
	setStatus(t, mp, func() {
		mp.Status = clusterv1.MachinePoolStatus{Replicas: one, ReadyReplicas: one, UpToDateReplicas: one, ObservedGeneration: mp.Generation}
	})
	create(t, ns, machine("workers-abcde-xyz12", clusterName, "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/sample-rg/providers/Microsoft.Compute/virtualMachines/workers-abcde-xyz12"))
	check := machineHealthCheck("workers")
	check.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	create(t, ns, check)
}

func machineTemplate() clusterv1.MachineTemplateSpec {
	return clusterv1.MachineTemplateSpec{
		ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"pool": "workers"}},
		Spec: clusterv1.MachineSpec{
			ClusterName:       clusterName,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureMachineTemplate", Name: "sample"},
		},
	}
}

func machineDeployment(name string) *clusterv1.MachineDeployment {
	return &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: clusterName, Replicas: ptr.To[int32](1),
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Template: machineTemplate(),
		},
	}
}

func machineSet(name string) *clusterv1.MachineSet {
	return &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: clusterName, Replicas: ptr.To[int32](1),
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Template: machineTemplate(),
		},
	}
}

func machinePool(name string) *clusterv1.MachinePool {
	template := machineTemplate()
	template.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "AzureMachinePool", Name: "sample"}
	return &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       clusterv1.MachinePoolSpec{ClusterName: clusterName, Replicas: ptr.To[int32](1), Template: template},
	}
}

func machine(name, cluster, providerID string) *clusterv1.Machine {
	spec := machineTemplate().Spec
	spec.ClusterName = cluster
	spec.ProviderID = providerID
	return &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

func machineHealthCheck(name string) *clusterv1.MachineHealthCheck {
	return &clusterv1.MachineHealthCheck{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1.MachineHealthCheckSpec{
			ClusterName: clusterName,
			Selector:    metav1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Checks: clusterv1.MachineHealthCheckChecks{UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To[int32](300)},
			}},
		},
	}
}

// get reads an object of the namespace again.
func get[T client.Object](t *testing.T, ns, name string, obj T) T {
	t.Helper()
	NewWithT(t).Expect(k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, obj)).To(Succeed())
	return obj
}
