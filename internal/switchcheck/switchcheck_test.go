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
	"io"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlconfig "sigs.k8s.io/cluster-api/cmd/clusterctl/config"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/internal/switchcheck"
)

// TestRun_CleanClusterReportsNothing: a cluster ready to switch (every kind of the provider as its sample, Ready; a
// paused Cluster whose control plane, MachineDeployment, MachineSet and MachinePool are settled, whose Machine has
// its provider ID and whose MachineHealthCheck is paused) gives no finding, so the dry run exits 0.
func TestRun_CleanClusterReportsNothing(t *testing.T) {
	ns := namespace(t)
	cleanCluster(t, ns)
	f := findings(t, ns, "")
	NewWithT(t).Expect(f).To(BeEmpty())
	NewWithT(t).Expect(switchcheck.Blocks(f)).To(BeFalse())
}

// TestCRDVersions_OtherStoredVersionBlocks: a CRD of the provider's kinds whose status.storedVersions lists v1alpha1
// (CAPZ's old AzureASOManaged* version) blocks the switch.
func TestCRDVersions_OtherStoredVersionBlocks(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns := namespace(t)
	g.Expect(findings(t, ns, switchcheck.CheckCRDVersions)).To(BeEmpty(), "the provider's CRDs store v1beta1 only")

	const name = "azureasomanagedclusters.infrastructure.cluster.x-k8s.io"
	crd := &apiextensionsv1.CustomResourceDefinition{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
	// As CAPZ's CRD of a cluster made by an old CAPZ release: v1alpha1 is still served and has stored objects.
	alpha := *crd.Spec.Versions[0].DeepCopy()
	alpha.Name, alpha.Storage = "v1alpha1", false
	crd.Spec.Versions = append(crd.Spec.Versions, alpha)
	g.Expect(k8s.Update(ctx, crd)).To(Succeed())
	crd.Status.StoredVersions = []string{"v1alpha1", "v1beta1"}
	g.Expect(k8s.Status().Update(ctx, crd)).To(Succeed())
	t.Cleanup(func() {
		ctx := context.Background()
		g := NewWithT(t)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
		crd.Status.StoredVersions = []string{"v1beta1"}
		g.Expect(k8s.Status().Update(ctx, crd)).To(Succeed())
		crd.Spec.Versions = crd.Spec.Versions[:1]
		g.Expect(k8s.Update(ctx, crd)).To(Succeed())
	})

	f := findings(t, ns, switchcheck.CheckCRDVersions)
	g.Expect(f).To(ConsistOf(finding(switchcheck.Block, "CustomResourceDefinition "+name, "v1alpha1", "storedVersions", "Before you start, step 2")))
	g.Expect(switchcheck.Blocks(f)).To(BeTrue())
}

// TestFields_RefusedObjectsBlock: objects CAPZ wrote (stored here without the provider's webhooks) that use fields
// the provider does not implement are reported, by field, as the provider's own admission judges them; an object its
// webhooks refuse for another reason (an AzureMachinePoolMachine whose instance ID is not its provider ID's) too.
// The samples beside them, which the webhooks admit, are not.
func TestFields_RefusedObjectsBlock(t *testing.T) {
	g := NewWithT(t)
	ns := namespace(t)
	ours, others := samples(t)
	for _, o := range others {
		create(t, ns, o.DeepCopy())
	}
	for _, o := range ours {
		create(t, ns, o.DeepCopy())
	}
	// A template as CAPZ's webhooks store it, without the provider's defaults (boot diagnostics, OS disk caching):
	// the provider's webhooks default the old version too before they compare, so its metadata updates pass.
	capzTemplate := ours["AzureMachineTemplate"].DeepCopy()
	capzTemplate.SetName("capz-defaults")
	capzTemplate.SetNamespace(ns)
	g.Expect(k8s.Create(t.Context(), capzTemplate)).To(Succeed())
	g.Expect(findings(t, ns, switchcheck.CheckFields)).To(BeEmpty(), "the samples and CAPZ's template are admitted")

	cp := ours["AzureManagedControlPlane"].DeepCopy()
	cp.SetName("fleet")
	g.Expect(unstructured.SetNestedField(cp.Object, map[string]any{"name": "member", "managerName": "fleet", "managerResourceGroup": "fleet-rg"}, "spec", "fleetsMember")).To(Succeed())
	g.Expect(unstructured.SetNestedField(cp.Object, true, "spec", "enablePreviewFeatures")).To(Succeed())
	create(t, ns, cp)

	cluster := ours["AzureCluster"].DeepCopy()
	cluster.SetName("lb-by-id")
	g.Expect(unstructured.SetNestedField(cluster.Object, "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb", "spec", "networkSpec", "apiServerLB", "id")).To(Succeed())
	create(t, ns, cluster)

	identity := ours["AzureClusterIdentity"].DeepCopy()
	identity.SetName("cloud-type")
	g.Expect(unstructured.SetNestedField(identity.Object, "public", "spec", "userAssignedIdentityCredentialsCloudType")).To(Succeed())
	create(t, ns, identity)

	template := ours["AzureManagedControlPlaneTemplate"].DeepCopy()
	template.SetName("template-fleet")
	g.Expect(unstructured.SetNestedField(template.Object, map[string]any{"managerName": "fleet", "managerResourceGroup": "fleet-rg"}, "spec", "template", "spec", "fleetsMember")).To(Succeed())
	create(t, ns, template)

	instance := ours["AzureMachinePoolMachine"].DeepCopy()
	instance.SetName("instance-mismatch")
	g.Expect(unstructured.SetNestedField(instance.Object, "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3", "spec", "providerID")).To(Succeed())
	g.Expect(unstructured.SetNestedField(instance.Object, "4", "spec", "instanceID")).To(Succeed())
	unstructured.RemoveNestedField(instance.Object, "spec", "model")
	create(t, ns, instance)

	f := findings(t, ns, switchcheck.CheckFields)
	g.Expect(f).To(ConsistOf(
		finding(switchcheck.Block, "AzureManagedControlPlane "+ns+"/fleet", "spec.enablePreviewFeatures, spec.fleetsMember", "field not supported yet", "What blocks a switch"),
		finding(switchcheck.Block, "AzureCluster "+ns+"/lb-by-id", "spec.networkSpec.apiServerLB.id", "field not supported yet"),
		finding(switchcheck.Block, "AzureClusterIdentity "+ns+"/cloud-type", "spec.userAssignedIdentityCredentialsCloudType", "field not supported yet"),
		finding(switchcheck.Block, "AzureManagedControlPlaneTemplate "+ns+"/template-fleet", "spec.template.spec.fleetsMember", "field not supported yet"),
		finding(switchcheck.Block, "AzureMachinePoolMachine "+ns+"/instance-mismatch", "spec.instanceID", "refuse every update", "take it over"),
	))
	g.Expect(switchcheck.Blocks(f)).To(BeTrue())
}

// TestReadiness_UnsettledClustersBlock: in a cluster that is otherwise ready to switch, a Machine without a provider
// ID, a MachineDeployment, MachineSet, MachinePool and KubeadmControlPlane with a replica not ready or not up to date,
// and an AzureMachine whose Ready condition is False each block the switch. A Machine without a provider ID of a
// cluster of another infrastructure provider does not.
func TestReadiness_UnsettledClustersBlock(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns := namespace(t)
	cleanCluster(t, ns)
	g.Expect(findings(t, ns, switchcheck.CheckReadiness)).To(BeEmpty())

	create(t, ns, machine("new-machine", clusterName, ""))
	create(t, ns, &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "docker"},
		Spec: clusterv1.ClusterSpec{
			Paused:            ptr.To(true),
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerCluster", Name: "docker"},
		},
	})
	create(t, ns, machine("docker-machine", "docker", ""))

	md := get(t, ns, "workers", &clusterv1.MachineDeployment{})
	setStatus(t, md, func() { md.Status.UpToDateReplicas = ptr.To[int32](0) })
	// A MachineSet of no MachineDeployment and a MachinePool count no up-to-date replica (Cluster API tells only of
	// the Machines of a MachineDeployment): that is no rollout.
	ms := get(t, ns, "workers-abcde", &clusterv1.MachineSet{})
	setStatus(t, ms, func() { ms.Status.ReadyReplicas, ms.Status.UpToDateReplicas = ptr.To[int32](0), ptr.To[int32](0) })
	mp := get(t, ns, "pool", &clusterv1.MachinePool{})
	setStatus(t, mp, func() { mp.Status.UpToDateReplicas = ptr.To[int32](0) })
	mp.Spec.Replicas = ptr.To[int32](2)
	g.Expect(k8s.Update(ctx, mp)).To(Succeed())
	kcp := get(t, ns, clusterName, &controlplanev1.KubeadmControlPlane{})
	setStatus(t, kcp, func() { kcp.Status.UpToDateReplicas = ptr.To[int32](0) })

	azureMachine := &unstructured.Unstructured{}
	azureMachine.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta1")
	azureMachine.SetKind("AzureMachine")
	ours, _ := samples(t)
	azureMachine = get(t, ns, ours["AzureMachine"].GetName(), azureMachine)
	azureMachine.Object["status"] = readyStatus("False")
	g.Expect(k8s.Status().Update(ctx, azureMachine)).To(Succeed())

	f := findings(t, ns, switchcheck.CheckReadiness)
	g.Expect(f).To(ConsistOf(
		finding(switchcheck.Block, "Machine "+ns+"/new-machine", "no spec.providerID"),
		finding(switchcheck.Block, "MachineDeployment "+ns+"/workers", "upToDateReplicas 0 of 1"),
		finding(switchcheck.Block, "MachineSet "+ns+"/workers-abcde", "readyReplicas 0 of 1"),
		finding(switchcheck.Block, "MachinePool "+ns+"/pool", "observedGeneration", "replicas 1 of 2"),
		finding(switchcheck.Block, "KubeadmControlPlane "+ns+"/"+clusterName, "upToDateReplicas 0 of 1"),
		finding(switchcheck.Block, "AzureMachine "+ns+"/"+ours["AzureMachine"].GetName(), "not Ready", "Ready condition is False"),
	))
	for _, x := range f {
		if x.Object == "MachineSet "+ns+"/workers-abcde" || x.Object == "MachinePool "+ns+"/pool" {
			g.Expect(x.Message).NotTo(ContainSubstring("upToDateReplicas"), "Cluster API counts no up-to-date replica of %s", x.Object)
		}
	}
	g.Expect(switchcheck.Blocks(f)).To(BeTrue())
}

// TestRemediation_WhatCouldDeleteMachines: a Cluster that is not paused and a MachineHealthCheck without the paused
// annotation block the switch; a MachineDeployment and a MachinePool that are node groups of the cluster-autoscaler
// are warnings, which alone do not block.
func TestRemediation_WhatCouldDeleteMachines(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns := namespace(t)
	cleanCluster(t, ns)
	g.Expect(findings(t, ns, switchcheck.CheckRemediation)).To(BeEmpty())

	autoscaled := map[string]string{clusterv1.AutoscalerMinSizeAnnotation: "1", clusterv1.AutoscalerMaxSizeAnnotation: "5"}
	md := get(t, ns, "workers", &clusterv1.MachineDeployment{})
	md.Annotations = autoscaled
	g.Expect(k8s.Update(ctx, md)).To(Succeed())
	mp := get(t, ns, "pool", &clusterv1.MachinePool{})
	mp.Annotations = autoscaled
	g.Expect(k8s.Update(ctx, mp)).To(Succeed())

	f := findings(t, ns, switchcheck.CheckRemediation)
	g.Expect(f).To(ConsistOf(
		finding(switchcheck.Warn, "MachineDeployment "+ns+"/workers", "cluster-autoscaler", "scale its Deployment to 0"),
		finding(switchcheck.Warn, "MachinePool "+ns+"/pool", "cluster-autoscaler"),
	))
	g.Expect(switchcheck.Blocks(f)).To(BeFalse(), "warnings do not block")

	cluster := get(t, ns, clusterName, &clusterv1.Cluster{})
	cluster.Spec.Paused = ptr.To(false)
	g.Expect(k8s.Update(ctx, cluster)).To(Succeed())
	create(t, ns, machineHealthCheck("remediating"))

	f = findings(t, ns, switchcheck.CheckRemediation)
	g.Expect(f).To(ContainElements(
		finding(switchcheck.Block, "Cluster "+ns+"/"+clusterName, "is not paused", `{"spec":{"paused":true}}`),
		finding(switchcheck.Block, "MachineHealthCheck "+ns+"/remediating", "cluster.x-k8s.io/paused"),
	))
	g.Expect(f).To(HaveLen(4))
	g.Expect(switchcheck.Blocks(f)).To(BeTrue())

	only, err := switchcheck.Run(ctx, k8s, switchcheck.Options{Namespace: ns, Checks: []string{switchcheck.CheckReadiness}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(only).To(BeEmpty(), "Options.Checks leaves the remediation check out")
}

// TestCAPZVersion_OtherReleaseBlocks: clusterctl's inventory recording the infrastructure provider azure at another
// release than CAPZ v1.26.0 blocks the switch; v1.26.0 does not.
func TestCAPZVersion_OtherReleaseBlocks(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	ns := namespace(t)
	g.Expect(findings(t, ns, switchcheck.CheckCAPZVersion)).To(BeEmpty(), "no clusterctl inventory: nothing to say")

	// clusterctl's inventory, as clusterctl init installs it.
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(clusterctlconfig.ClusterctlAPIManifest)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil || len(u.Object) == 0 {
			continue
		}
		g.Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, u))).To(Succeed())
	}
	provider := func(version string) *unstructured.Unstructured {
		p := &unstructured.Unstructured{Object: map[string]any{
			"providerName": "azure", "type": "InfrastructureProvider", "version": version,
		}}
		p.SetAPIVersion("clusterctl.cluster.x-k8s.io/v1alpha3")
		p.SetKind("Provider")
		p.SetNamespace(ns)
		p.SetName("infrastructure-azure")
		return p
	}
	p := provider("v1.26.0")
	g.Eventually(func() error { return k8s.Create(ctx, p) }, time.Minute).Should(Succeed(), "the Provider CRD is served")
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), p) })
	g.Expect(findings(t, ns, switchcheck.CheckCAPZVersion)).To(BeEmpty())

	g.Expect(unstructured.SetNestedField(p.Object, "v1.25.2", "version")).To(Succeed())
	g.Expect(k8s.Update(ctx, p)).To(Succeed())
	f := findings(t, ns, switchcheck.CheckCAPZVersion)
	g.Expect(f).To(ConsistOf(finding(switchcheck.Block, "Provider "+ns+"/infrastructure-azure", "v1.25.2", "CAPZ v1.26.0", "clusterctl upgrade apply")))
}
