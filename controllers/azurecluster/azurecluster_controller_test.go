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

package azurecluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	asocomputeavset "github.com/Azure/azure-service-operator/v2/api/compute/v1api20241101"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	asonetworkdns "github.com/Azure/azure-service-operator/v2/api/network/v1api20240601"
	asoresources "github.com/Azure/azure-service-operator/v2/api/resources/v1api20200601"
	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/logcapture"
)

const timeout = 60 * time.Second

// newCluster creates a namespace, a Cluster and its AzureCluster owned by it, as Cluster API would.
func newCluster(t *testing.T, g *WithT, name string, spec infrav1.AzureClusterSpec, annotations map[string]string) (context.Context, *clusterv1.Cluster, *infrav1.AzureCluster) {
	t.Helper()
	return newClusterWithNetwork(t, g, name, clusterv1.ClusterNetwork{}, spec, annotations)
}

// newClusterWithNetwork is newCluster with the Cluster's spec.clusterNetwork.
func newClusterWithNetwork(t *testing.T, g *WithT, name string, clusterNetwork clusterv1.ClusterNetwork, spec infrav1.AzureClusterSpec, annotations map[string]string) (context.Context, *clusterv1.Cluster, *infrav1.AzureCluster) {
	t.Helper()
	ctx := t.Context()
	ns, err := env.Env.CreateNamespace(ctx, "azurecluster")
	g.Expect(err).NotTo(HaveOccurred())
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterNetwork,
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infrav1.GroupVersion.Group, Kind: "AzureCluster", Name: name,
			},
		},
	}
	g.Expect(env.Env.Create(ctx, cluster)).To(Succeed())
	azureCluster := &infrav1.AzureCluster{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns.Name, Annotations: annotations,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: name, UID: cluster.UID}},
		},
		Spec: spec,
	}
	g.Expect(env.Env.Create(ctx, azureCluster)).To(Succeed())
	t.Cleanup(func() {
		ctx := context.Background()
		_ = env.Env.Delete(ctx, azureCluster)
		_ = env.Env.Cleanup(ctx, cluster, ns)
	})
	return ctx, cluster, azureCluster
}

func baseSpec() infrav1.AzureClusterSpec {
	return infrav1.AzureClusterSpec{AzureClusterClassSpec: infrav1.AzureClusterClassSpec{Location: "eastus"}}
}

// waitReady waits until the AzureCluster's Ready condition is True and returns the AzureCluster.
func waitReady(ctx context.Context, g *WithT, obj *infrav1.AzureCluster) *infrav1.AzureCluster {
	live := &infrav1.AzureCluster{}
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(obj), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.ReadyCondition)).To(BeTrue(), "Ready: %+v", conditions.Get(live, clusterv1.ReadyCondition))
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
	}, timeout).Should(Succeed())
	return live
}

func TestReconcile_DefaultCluster(t *testing.T) {
	g := NewWithT(t)
	ctx, _, ac := newCluster(t, g, "default", baseSpec(), nil)
	live := waitReady(ctx, g, ac)

	g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()))
	g.Expect(live.Spec.ControlPlaneEndpoint.Host).To(Equal(infrav1.APIServerFQDN(live.Spec.SubscriptionID, live.Spec.ResourceGroup, infrav1.APIServerPublicIPName("default"), "default", "eastus", infrav1.DefaultAzureCloud)))
	g.Expect(live.Spec.ControlPlaneEndpoint.Port).To(BeEquivalentTo(6443))
	g.Expect(live.Status.FailureDomains).To(HaveLen(3))
	g.Expect(live.Annotations).To(HaveKey("clusterctl.cluster.x-k8s.io/block-move"))
	for _, c := range []string{"ResourceGroupReady", "VNetReady", "SubnetsReady", "SecurityGroupsReady", "RouteTablesReady",
		"NATGatewaysReady", "PublicIPsReady", "LoadBalancersReady", infrav1.ResourcesReadyCondition} {
		g.Expect(conditions.IsTrue(live, c)).To(BeTrue(), c)
	}
	g.Expect(live.Status.Resources).To(ContainElement(And(
		HaveField("Resource.Kind", "LoadBalancer"), HaveField("Resource.Name", "default-public-lb"), HaveField("Ready", true))))

	// The subscription came from ASO's ID of the resource group: the user gave none.
	lb := &asonetwork.LoadBalancer{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "default-public-lb"}, lb)).To(Succeed())
	g.Expect(lb.Spec.LoadBalancingRules[0].FrontendIPConfiguration.Reference.ARMID).To(HavePrefix("/subscriptions/" + sim.SubscriptionID()))
	g.Expect(lb.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabel, "default"))
}

// TestReconcile_APIServerPort: as in CAPZ, the API server load balancer forwards to and probes the Cluster's
// spec.clusterNetwork.apiServerPort, allow_apiserver lets that port in, and an empty controlPlaneEndpoint.port
// becomes it; a port the user set in controlPlaneEndpoint stays, and is the load balancer's frontend port.
func TestReconcile_APIServerPort(t *testing.T) {
	tests := []struct {
		name                                    string
		apiServerPort, endpointPort             int32
		wantFrontend, wantBackend, wantEndpoint int
	}{
		{name: "apiport", apiServerPort: 443, wantFrontend: 443, wantBackend: 443, wantEndpoint: 443},
		{name: "endpointport", endpointPort: 443, wantFrontend: 443, wantBackend: 6443, wantEndpoint: 443},
		{name: "bothports", apiServerPort: 8443, endpointPort: 443, wantFrontend: 443, wantBackend: 8443, wantEndpoint: 443},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			spec := baseSpec()
			spec.ControlPlaneEndpoint.Port = tt.endpointPort
			ctx, _, ac := newClusterWithNetwork(t, g, tt.name, clusterv1.ClusterNetwork{APIServerPort: tt.apiServerPort}, spec, nil)
			live := waitReady(ctx, g, ac)
			g.Expect(live.Spec.ControlPlaneEndpoint.Host).To(Equal(infrav1.APIServerFQDN(live.Spec.SubscriptionID, live.Spec.ResourceGroup, infrav1.APIServerPublicIPName(tt.name), tt.name, "eastus", infrav1.DefaultAzureCloud)))
			g.Expect(live.Spec.ControlPlaneEndpoint.Port).To(BeEquivalentTo(tt.wantEndpoint))

			lb := &asonetwork.LoadBalancer{}
			g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: tt.name + "-public-lb"}, lb)).To(Succeed())
			g.Expect(lb.Spec.LoadBalancingRules).To(HaveLen(1))
			g.Expect(lb.Spec.LoadBalancingRules[0].FrontendPort).To(HaveValue(Equal(tt.wantFrontend)))
			g.Expect(lb.Spec.LoadBalancingRules[0].BackendPort).To(HaveValue(Equal(tt.wantBackend)))
			g.Expect(lb.Spec.Probes).To(HaveLen(1))
			g.Expect(lb.Spec.Probes[0].Port).To(HaveValue(Equal(tt.wantBackend)))
			rule := &asonetwork.NetworkSecurityGroupsSecurityRule{}
			g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: azure.ObjectName(tt.name+"-controlplane-nsg", "allow_apiserver")}, rule)).To(Succeed())
			g.Expect(rule.Spec.DestinationPortRange).To(HaveValue(Equal(fmt.Sprint(tt.wantBackend))))
		})
	}
}

func TestReconcile_PrivateCluster(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.NetworkSpec.APIServerLB = &infrav1.LoadBalancerSpec{LoadBalancerClassSpec: infrav1.LoadBalancerClassSpec{Type: infrav1.Internal}}
	spec.NetworkSpec.ControlPlaneOutboundLB = &infrav1.LoadBalancerSpec{}
	ctx, _, ac := newCluster(t, g, "private", spec, nil)
	live := waitReady(ctx, g, ac)

	g.Expect(live.Spec.ControlPlaneEndpoint.Host).To(Equal("apiserver.private.capz.io"))
	g.Expect(conditions.IsTrue(live, "PrivateDNSReady")).To(BeTrue())
	record := &asonetworkdns.PrivateDnsZonesARecord{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: azure.ObjectName("private.capz.io", "apiserver")}, record)).To(Succeed())
	g.Expect(*record.Spec.ARecords[0].Ipv4Address).To(Equal(infrav1.DefaultInternalLBIPAddress))
	outbound := &asonetwork.LoadBalancer{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "private-outbound-lb"}, outbound)).To(Succeed())
}

func TestReconcile_BastionCluster(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.BastionSpec.AzureBastion = &infrav1.AzureBastion{}
	ctx, _, ac := newCluster(t, g, "bastion", spec, nil)
	live := waitReady(ctx, g, ac)
	g.Expect(conditions.IsTrue(live, "BastionHostReady")).To(BeTrue())
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "bastion-azure-bastion"}, &asonetwork.BastionHost{})).To(Succeed())
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: azure.ObjectName("bastion-vnet", "AzureBastionSubnet")}, &asonetwork.VirtualNetworksSubnet{})).To(Succeed())
}

func TestReconcile_BringYourOwnNetwork(t *testing.T) {
	g := NewWithT(t)
	vnetID := fmt.Sprintf("/subscriptions/%s/resourceGroups/network-rg/providers/Microsoft.Network/virtualNetworks/shared-vnet", sim.SubscriptionID())
	groupID := fmt.Sprintf("/subscriptions/%s/resourceGroups/byo-rg", sim.SubscriptionID())
	sim.SeedAzure("ResourceGroup", groupID, map[string]string{"owner": "platform-team"})
	sim.SeedAzure("ResourceGroup", fmt.Sprintf("/subscriptions/%s/resourceGroups/network-rg", sim.SubscriptionID()), nil)
	sim.SeedAzure("VirtualNetwork", vnetID, map[string]string{"owner": "network-team"})
	for _, subnet := range []string{"cp", "nodes"} {
		sim.SeedAzure("VirtualNetworksSubnet", vnetID+"/subnets/"+subnet, nil)
	}
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.ResourceGroup = "byo-rg"
	spec.NetworkSpec.Vnet = infrav1.VnetSpec{ID: vnetID, Name: "shared-vnet", ResourceGroup: "network-rg", VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/16"}}}
	spec.NetworkSpec.Subnets = infrav1.Subnets{
		{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "cp", Role: infrav1.SubnetControlPlane, CIDRBlocks: []string{"10.0.0.0/24"}}},
		{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "nodes", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.0.1.0/24"}}},
	}
	ctx, _, ac := newCluster(t, g, "byo", spec, nil)
	live := waitReady(ctx, g, ac)

	managementOf := func(kind, name string) infrav1.ResourceManagement {
		for _, r := range live.Status.Resources {
			if r.Resource.Kind == kind && r.Resource.Name == name {
				return r.Management
			}
		}
		return ""
	}
	g.Expect(managementOf("ResourceGroup", "byo-rg")).To(Equal(infrav1.ResourceReferenced))
	g.Expect(managementOf("VirtualNetwork", "shared-vnet")).To(Equal(infrav1.ResourceReferenced))
	g.Expect(managementOf("VirtualNetworksSubnet", azure.ObjectName("shared-vnet", "nodes"))).To(Equal(infrav1.ResourceReferenced))
	vnet := &asonetwork.VirtualNetwork{}
	g.Expect(env.Env.Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "shared-vnet"}, vnet)).To(Succeed())
	g.Expect(vnet.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"))

	// Deleting the cluster deletes what it created and none of what it was given.
	before := len(sim.Events())
	g.Expect(env.Env.Delete(ctx, ac)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), &infrav1.AzureCluster{}))
	}, timeout).Should(BeTrue())
	for _, id := range []string{groupID, vnetID, vnetID + "/subnets/cp", vnetID + "/subnets/nodes"} {
		g.Expect(sim.ExistsInAzure(id)).To(BeTrue(), id)
	}
	deleted := sim.Deleted()
	g.Expect(deleted).To(ContainElement(groupID + "/providers/Microsoft.Network/loadBalancers/byo-public-lb"))
	for _, e := range sim.Events()[before:] {
		g.Expect(e.ID).NotTo(HavePrefix(vnetID), "nothing in the brought network was touched")
	}
}

func TestReconcile_ExternallyManaged(t *testing.T) {
	g := NewWithT(t)
	ctx, _, ac := newCluster(t, g, "external", baseSpec(), map[string]string{clusterv1.ManagedByAnnotation: "terraform"})
	g.Consistently(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		// From the API server: the manager's cache may not have the new object yet.
		g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(live.Finalizers).To(BeEmpty())
		g.Expect(live.Status.Conditions).To(BeEmpty())
		rgs := &asoresources.ResourceGroupList{}
		g.Expect(env.Env.GetAPIReader().List(ctx, rgs, client.InNamespace(ac.Namespace))).To(Succeed())
		g.Expect(rgs.Items).To(BeEmpty())
	}, 3*time.Second).Should(Succeed())
}

func TestReconcile_FailureSurfacesOnReady(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	ctx, _, ac := newCluster(t, g, "failing", spec, nil)
	waitReady(ctx, g, ac)

	sim.Fail("LoadBalancer", ac.Namespace, "failing-public-lb", "PublicIPAndLBSkuDoNotMatch", "Standard sku load balancer cannot reference Basic sku publicIP")
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		ready := conditions.Get(live, clusterv1.ReadyCondition)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal("PublicIPAndLBSkuDoNotMatch"), "ASO retries the code: a Warning, with Azure's code as reason")
		g.Expect(ready.Message).To(Equal("LoadBalancer failing-public-lb: Standard sku load balancer cannot reference Basic sku publicIP"))
		g.Expect(conditions.IsFalse(live, "LoadBalancersReady")).To(BeTrue())
		g.Expect(live.Status.Initialization.Provisioned).To(HaveValue(BeTrue()), "provisioned never goes back to false")
	}, timeout).Should(Succeed())
	g.Expect(sim.Heal(ctx, "LoadBalancer", ac.Namespace, "failing-public-lb")).To(Succeed())
	waitReady(ctx, g, ac)
}

func TestReconcile_PauseAndResume(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	ctx, cluster, ac := newCluster(t, g, "paused", spec, nil)
	waitReady(ctx, g, ac)

	setPaused := func(paused bool) {
		g.Eventually(func() error {
			c := &clusterv1.Cluster{}
			if err := env.Env.Get(ctx, client.ObjectKeyFromObject(cluster), c); err != nil {
				return err
			}
			c.Spec.Paused = ptr.To(paused)
			return env.Env.Update(ctx, c)
		}, timeout).Should(Succeed())
	}
	setPaused(true)
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, clusterv1.PausedCondition)).To(BeTrue())
		g.Expect(live.Annotations).NotTo(HaveKey("clusterctl.cluster.x-k8s.io/block-move"), "move may start once everything is paused")
		nsgs := &asonetwork.NetworkSecurityGroupList{}
		g.Expect(env.Env.List(ctx, nsgs, client.InNamespace(ac.Namespace))).To(Succeed())
		g.Expect(nsgs.Items).NotTo(BeEmpty())
		for _, nsg := range nsgs.Items {
			g.Expect(nsg.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "skip"))
		}
	}, timeout).Should(Succeed())

	setPaused(false)
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.IsFalse(live, clusterv1.PausedCondition)).To(BeTrue())
		g.Expect(live.Annotations).To(HaveKey("clusterctl.cluster.x-k8s.io/block-move"))
		nsgs := &asonetwork.NetworkSecurityGroupList{}
		g.Expect(env.Env.List(ctx, nsgs, client.InNamespace(ac.Namespace))).To(Succeed())
		for _, nsg := range nsgs.Items {
			g.Expect(nsg.Annotations).To(HaveKeyWithValue(asoannotations.ReconcilePolicy, "manage"))
		}
	}, timeout).Should(Succeed())
}

func TestReconcile_DeleteOwnedResourceGroup(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	ctx, _, ac := newCluster(t, g, "deleted", spec, nil)
	waitReady(ctx, g, ac)
	groupID := fmt.Sprintf("/subscriptions/%s/resourceGroups/deleted", sim.SubscriptionID())
	g.Expect(sim.ExistsInAzure(groupID)).To(BeTrue())

	g.Expect(env.Env.Delete(ctx, ac)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), &infrav1.AzureCluster{}))
	}, timeout).Should(BeTrue())
	g.Expect(sim.ExistsInAzure(groupID)).To(BeFalse())
	g.Expect(sim.Deleted()).To(ContainElement(groupID), "the owned resource group is deleted as a whole")
	rgs := &asoresources.ResourceGroupList{}
	g.Expect(env.Env.List(ctx, rgs, client.InNamespace(ac.Namespace))).To(Succeed())
	g.Expect(rgs.Items).To(BeEmpty())
}

// TestReconcile_IdentityAllowedAndRevoked follows an identity's allowedNamespaces, without any other event: nothing
// is applied while the identity refuses the namespace; allowing it lets the cluster proceed with ASO reading the
// cluster's credential secret; revoking it deletes that secret and removes credential-from from every ASO object.
func TestReconcile_IdentityAllowedAndRevoked(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.IdentityRef = &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "team-identity"}
	ctx, _, ac := newCluster(t, g, "tenancy", spec, nil)
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "team-identity", Namespace: ac.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.WorkloadIdentity, TenantID: "11111111-2222-3333-4444-555555555555",
			ClientID: "66666666-7777-8888-9999-000000000000", AllowedNamespaces: &infrav1.AllowedNamespaces{NamespaceList: []string{"other"}}},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	expectCredentials := func(reason string) {
		g.Eventually(func(g Gomega) {
			live := &infrav1.AzureCluster{}
			g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
			g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", reason))
		}, timeout).Should(Succeed())
	}
	setAllowed := func(allowed *infrav1.AllowedNamespaces) {
		g.Eventually(func() error {
			i := &infrav1.AzureClusterIdentity{}
			if err := env.Env.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(identity), i); err != nil {
				return err
			}
			i.Spec.AllowedNamespaces = allowed
			return env.Env.Update(ctx, i)
		}, timeout).Should(Succeed())
	}
	credentialSecret := client.ObjectKey{Namespace: ac.Namespace, Name: "tenancy-aso-secret"}

	expectCredentials(infrav1.NamespaceNotAllowedReason)
	rgs := &asoresources.ResourceGroupList{}
	g.Expect(env.Env.List(ctx, rgs, client.InNamespace(ac.Namespace))).To(Succeed())
	g.Expect(rgs.Items).To(BeEmpty(), "nothing is applied with an identity the namespace may not use")
	g.Expect(env.Env.GetAPIReader().Get(ctx, credentialSecret, &corev1.Secret{})).To(MatchError(ContainSubstring("not found")))

	// Allowing the namespace lets the cluster proceed, with ASO reading the cluster's credential secret.
	setAllowed(&infrav1.AllowedNamespaces{})
	waitReady(ctx, g, ac)
	g.Expect(env.Env.GetAPIReader().Get(ctx, credentialSecret, &corev1.Secret{})).To(Succeed())
	for _, o := range asoObjects(ctx, g, ac.Namespace) {
		g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, credentialSecret.Name), "%T %s", o, o.GetName())
	}

	// Revoking it removes the credential secret, points ASO's credential-from at a revoked credential (never removes
	// it: ASO would fall back to the namespace's aso-credential Secret or its global credential), and says so.
	setAllowed(&infrav1.AllowedNamespaces{NamespaceList: []string{"other"}})
	expectCredentials(infrav1.NamespaceNotAllowedReason)
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.GetAPIReader().Get(ctx, credentialSecret, &corev1.Secret{})).To(MatchError(ContainSubstring("not found")))
		objs := asoObjects(ctx, g, ac.Namespace)
		g.Expect(objs).NotTo(BeEmpty(), "revoking deletes no ASO object")
		for _, o := range objs {
			g.Expect(o.GetAnnotations()).To(HaveKeyWithValue(asoannotations.PerResourceSecret, "revoked/"+credentialSecret.Name), "%T %s", o, o.GetName())
			g.Expect(o.GetDeletionTimestamp().IsZero()).To(BeTrue())
		}
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Message", ContainSubstring("the credential is revoked")))
	}, timeout).Should(Succeed())
}

// TestReconcile_IdentitySecretCreatedAndRotated creates a service principal's secret after its cluster, then
// rotates it: both reach the cluster's credential secret through the watch on secrets, without any other event.
func TestReconcile_IdentitySecretCreatedAndRotated(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.IdentityRef = &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "sp"}
	ctx, _, ac := newCluster(t, g, "rotation", spec, nil)
	g.Expect(env.Env.Create(ctx, &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "sp", Namespace: ac.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: "11111111-2222-3333-4444-555555555555",
			ClientID: "66666666-7777-8888-9999-000000000000", ClientSecret: corev1.SecretReference{Name: "sp-secret"},
			AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	})).To(Succeed())
	g.Eventually(func(g Gomega) {
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.Get(live, infrav1.CredentialsReadyCondition)).To(HaveField("Reason", "IdentitySecretInvalid"))
	}, timeout).Should(Succeed())

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sp-secret", Namespace: ac.Namespace}, StringData: map[string]string{"clientSecret": "first"}}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	expectClientSecret := func(want string) {
		g.Eventually(func(g Gomega) {
			written := &corev1.Secret{}
			g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "rotation-aso-secret"}, written)).To(Succeed())
			g.Expect(string(written.Data["AZURE_CLIENT_SECRET"])).To(Equal(want))
		}, timeout).Should(Succeed())
	}
	expectClientSecret("first")
	waitReady(ctx, g, ac)

	secret.StringData = map[string]string{"clientSecret": "rotated"}
	g.Expect(env.Env.Update(ctx, secret)).To(Succeed())
	expectClientSecret("rotated")
}

// asoObjects lists the ASO objects of an AzureCluster's kinds in a namespace, from the API server.
func asoObjects(ctx context.Context, g Gomega, namespace string) []client.Object {
	var out []client.Object
	for _, list := range []client.ObjectList{&asoresources.ResourceGroupList{}, &asonetwork.VirtualNetworkList{}, &asonetwork.VirtualNetworksSubnetList{},
		&asonetwork.NetworkSecurityGroupList{}, &asonetwork.LoadBalancerList{}, &asonetwork.PublicIPAddressList{}, &asonetwork.NatGatewayList{}} {
		g.Expect(env.Env.GetAPIReader().List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		items, err := meta.ExtractList(list)
		g.Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			out = append(out, item.(client.Object))
		}
	}
	return out
}

// TestReconcile_ExistingNetworkByName names an existing network (no id) in the cluster's resource group: the engine
// finds it is the user's, and its subnets are then only read, never rewritten nor deleted.
func TestReconcile_ExistingNetworkByName(t *testing.T) {
	g := NewWithT(t)
	groupID := fmt.Sprintf("/subscriptions/%s/resourceGroups/named-rg", sim.SubscriptionID())
	vnetID := groupID + "/providers/Microsoft.Network/virtualNetworks/team-vnet"
	sim.SeedAzure("ResourceGroup", groupID, map[string]string{"owner": "platform-team"})
	sim.SeedAzure("VirtualNetwork", vnetID, map[string]string{"owner": "network-team"})
	for _, subnet := range []string{"cp", "nodes"} {
		sim.SeedAzure("VirtualNetworksSubnet", vnetID+"/subnets/"+subnet, nil)
	}
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.ResourceGroup = "named-rg"
	spec.NetworkSpec.Vnet = infrav1.VnetSpec{Name: "team-vnet", VnetClassSpec: infrav1.VnetClassSpec{CIDRBlocks: []string{"10.0.0.0/16"}}}
	spec.NetworkSpec.Subnets = infrav1.Subnets{
		{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "cp", Role: infrav1.SubnetControlPlane, CIDRBlocks: []string{"10.0.0.0/24"}}},
		{SubnetClassSpec: infrav1.SubnetClassSpec{Name: "nodes", Role: infrav1.SubnetNode, CIDRBlocks: []string{"10.0.1.0/24"}}},
	}
	ctx, _, ac := newCluster(t, g, "named", spec, nil)
	live := waitReady(ctx, g, ac)
	for _, r := range live.Status.Resources {
		switch r.Resource.Kind {
		case "VirtualNetwork", "VirtualNetworksSubnet":
			g.Expect(r.Management).To(Equal(infrav1.ResourceReferenced), r.Resource.Name)
		case "NetworkSecurityGroup", "RouteTable":
			t.Errorf("%s %s: nothing is made for the user's subnets", r.Resource.Kind, r.Resource.Name)
		case "NatGateway":
			// As CAPZ v1.26.0, the node subnet's NAT gateway is made in the cluster's group, never attached to the
			// user's subnet (the events below show nothing in the network was written).
			g.Expect(r.Resource.Name).To(Equal("named-node-natgw-1"))
		}
	}
	g.Expect(env.Env.Delete(ctx, ac)).To(Succeed())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), &infrav1.AzureCluster{}))
	}, timeout).Should(BeTrue())
	for _, e := range sim.Events() {
		g.Expect(e.ID).NotTo(HavePrefix(vnetID), "nothing in the user's network was touched: %s %s", e.Op, e.ID)
	}
}

// TestReconcile_CredentialsNeverLogged provisions a cluster with a service principal identity, with the manager
// logging at every verbosity, and checks that the client secret, which the provider copies into the cluster's ASO
// credential Secret, never reached the logs, while an uncapped logger did see it (in client-go's request and
// response bodies).
func TestReconcile_CredentialsNeverLogged(t *testing.T) {
	g := NewWithT(t)
	clientSecret := []byte("client-secret-" + util.RandomString(32))
	logs.Watch(clientSecret)
	spec := baseSpec()
	spec.SubscriptionID = sim.SubscriptionID()
	spec.IdentityRef = &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "sp-identity"}
	ctx, _, ac := newCluster(t, g, "sp", spec, nil)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "sp-identity-secret", Namespace: ac.Namespace},
		Data:       map[string][]byte{"clientSecret": clientSecret},
	}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	identity := &infrav1.AzureClusterIdentity{
		ObjectMeta: metav1.ObjectMeta{Name: "sp-identity", Namespace: ac.Namespace},
		Spec: infrav1.AzureClusterIdentitySpec{Type: infrav1.ServicePrincipal, TenantID: "11111111-2222-3333-4444-555555555555",
			ClientID: "66666666-7777-8888-9999-000000000000", ClientSecret: corev1.SecretReference{Name: secret.Name},
			AllowedNamespaces: &infrav1.AllowedNamespaces{}},
	}
	g.Expect(env.Env.Create(ctx, identity)).To(Succeed())
	g.Eventually(func(g Gomega) {
		// The identity is not watched: touch the AzureCluster, as a resync would.
		live := &infrav1.AzureCluster{}
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		live.Labels["touched"] = time.Now().Format("150405.000")
		g.Expect(env.Env.Update(ctx, live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, infrav1.CredentialsReadyCondition)).To(BeTrue())
	}, timeout).Should(Succeed())
	waitReady(ctx, g, ac)
	credentials := &corev1.Secret{}
	g.Expect(env.Env.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: ac.Namespace, Name: "sp-aso-secret"}, credentials)).To(Succeed())
	g.Expect(credentials.Data).To(ContainElement(Equal(clientSecret)), "ASO reads the client secret from the cluster's credential Secret")

	logged := logs.Logged()
	g.Expect(logged).To(ContainSubstring(`"AzureCluster"`), "the capture holds the controller's logs")
	g.Expect(logcapture.Leaks(logged, clientSecret)).To(BeEmpty(), "the client secret was logged")
	g.Expect(logs.SeenUncapped(clientSecret)).To(BeTrue(), "without the cap, the client secret would have been logged")
}

// A cluster in a region without availability zones spreads each node group over an availability set: the control
// plane's and each MachineDeployment's, created once the group has a machine and deleted once it has none.
func TestReconcile_AvailabilitySets(t *testing.T) {
	g := NewWithT(t)
	spec := baseSpec()
	spec.Location = "northcentralus"
	ctx, cluster, ac := newCluster(t, g, "noazs", spec, nil)
	live := waitReady(ctx, g, ac)
	g.Expect(live.Status.FailureDomains).To(BeEmpty())
	g.Expect(availabilitySets(ctx, g, ac.Namespace)).To(BeEmpty(), "no machine, no availability set")

	machine := func(name string, labels map[string]string) *clusterv1.Machine {
		labels[clusterv1.ClusterNameLabel] = cluster.Name
		m := &clusterv1.Machine{
			ObjectMeta: metav1.ObjectMeta{Namespace: ac.Namespace, Name: name, Labels: labels},
			Spec: clusterv1.MachineSpec{
				ClusterName: cluster.Name,
				Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: infrav1.GroupVersion.Group, Kind: "AzureMachine", Name: name,
				},
			},
		}
		g.Expect(env.Env.Create(ctx, m)).To(Succeed())
		return m
	}
	controlPlane := machine("noazs-control-plane-abcde", map[string]string{clusterv1.MachineControlPlaneLabel: ""})
	worker := machine("noazs-md-0-fghij-klmno", map[string]string{
		clusterv1.MachineDeploymentNameLabel: "noazs-md-0", clusterv1.MachineSetNameLabel: "noazs-md-0-fghij",
	})
	controlPlaneSet, workerSet := azure.ObjectName("noazs_control-plane-as"), azure.ObjectName("noazs_noazs-md-0-as")
	g.Eventually(func(g Gomega) {
		sets := availabilitySets(ctx, g, ac.Namespace)
		g.Expect(sets).To(HaveLen(2))
		for _, name := range []string{controlPlaneSet, workerSet} {
			g.Expect(sets).To(HaveKey(name))
			g.Expect(genruntime.GetReadyCondition(sets[name])).To(HaveField("Status", metav1.ConditionTrue), name)
		}
		g.Expect(sets[workerSet].Spec.AzureName).To(Equal("noazs_noazs-md-0-as"))
		g.Expect(sets[workerSet].Spec.Sku.Name).To(HaveValue(Equal("Aligned")))
		g.Expect(sets[workerSet].Spec.Location).To(HaveValue(Equal("northcentralus")))
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(ac), live)).To(Succeed())
		g.Expect(conditions.IsTrue(live, "AvailabilitySetsReady")).To(BeTrue())
	}, timeout).Should(Succeed())

	// The MachineDeployment's last machine is gone: its set goes, the control plane's stays.
	g.Expect(env.Env.Delete(ctx, worker)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(availabilitySets(ctx, g, ac.Namespace)).To(HaveLen(1))
		g.Expect(availabilitySets(ctx, g, ac.Namespace)).To(HaveKey(controlPlaneSet))
	}, timeout).Should(Succeed())

	// The whole Cluster is deleted (Cluster API holds it until its machines and infrastructure are gone): the control
	// plane's last machine goes, and its set stays for the resource group to take, as CAPZ leaves it.
	release, err := env.Env.HoldDeletion(ctx, cluster)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = release(context.Background()) })
	g.Expect(env.Env.Delete(ctx, cluster)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(cluster), cluster)).To(Succeed())
		g.Expect(cluster.DeletionTimestamp.IsZero()).To(BeFalse())
	}, timeout).Should(Succeed())
	g.Expect(env.Env.Delete(ctx, controlPlane)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(env.Env.Get(ctx, client.ObjectKeyFromObject(controlPlane), controlPlane)).To(Satisfy(apierrors.IsNotFound))
	}, timeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(availabilitySets(ctx, g, ac.Namespace)).To(HaveKey(controlPlaneSet))
	}, 5*time.Second).Should(Succeed(), "the set of a cluster being deleted goes with its resource group")
}

// availabilitySets returns the AvailabilitySet objects of a namespace by name.
func availabilitySets(ctx context.Context, g Gomega, namespace string) map[string]*asocomputeavset.AvailabilitySet {
	list := &asocomputeavset.AvailabilitySetList{}
	g.Expect(env.Env.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	out := map[string]*asocomputeavset.AvailabilitySet{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}
