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
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/proxy"
	"sigs.k8s.io/cluster-api/util/certs"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestSimulator_KubeadmControlPlaneReachesEtcd reaches the simulated etcd of a control plane the way the kubeadm
// control plane provider does, with its own etcd client: a port-forward through a real workload API server to the
// etcd-<node> static pod, TLS with a client certificate of the cluster's etcd CA. The members are the control plane
// Nodes; the leadership moves and a member is removed as that provider asks; a removed member stops answering, and
// other ports of the pods refuse.
func TestSimulator_KubeadmControlPlaneReachesEtcd(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	workloadCP, workload, err := env.StartWorkloadCluster(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = workloadCP.Stop() }()

	certificates := secret.NewCertificatesForInitialControlPlane(&bootstrapv1.ClusterConfiguration{})
	g.Expect(certificates.Generate()).To(Succeed())
	etcdCA := certificates.GetByPurpose(secret.EtcdCA)
	management := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		etcdCA.AsSecret(client.ObjectKey{Namespace: "ns", Name: "c1"}, metav1.OwnerReference{}),
		controlPlaneMachine("c1-cp-0", "c1"), controlPlaneMachine("c1-cp-1", "c1"),
		azureMachine("md-0", "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/md-0", false),
	).Build()
	sim := Start(Options{Management: management, Workload: workload, SubscriptionID: subscription, Interval: 10 * time.Millisecond, Logf: t.Logf})
	defer func() { g.Expect(sim.DeleteNodes(ctx)).To(Succeed()) }()

	// The control plane Nodes run kubeadm's static pods, reported running and ready; a worker runs none.
	g.Eventually(func(g Gomega) {
		for _, node := range []string{"c1-cp-0", "c1-cp-1"} {
			for _, component := range controlPlaneComponents {
				pod := &corev1.Pod{}
				g.Expect(workload.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: component + "-" + node}, pod)).To(Succeed())
				g.Expect(pod.Spec.NodeName).To(Equal(node))
				g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
				g.Expect(pod.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionTrue))))
			}
		}
	}).WithTimeout(20 * time.Second).Should(Succeed())
	pods := &corev1.PodList{}
	g.Expect(workload.List(ctx, pods, client.InNamespace(metav1.NamespaceSystem))).To(Succeed())
	g.Expect(pods.Items).To(HaveLen(2 * len(controlPlaneComponents)))

	caCert, err := certs.DecodeCertPEM(etcdCA.KeyPair.Cert)
	g.Expect(err).NotTo(HaveOccurred())
	caKey, err := certs.DecodePrivateKeyPEM(etcdCA.KeyPair.Key)
	g.Expect(err).NotTo(HaveOccurred())
	clientCert, err := issueCertificate(caCert, caKey, "capi-etcd-client")
	g.Expect(err).NotTo(HaveOccurred())
	roots := x509.NewCertPool()
	roots.AddCert(caCert)
	// As the kubeadm control plane provider does: the pod's name is not in the certificate; the chain to the CA is
	// what is verified.
	tlsConfig := func(certificates ...tls.Certificate) *tls.Config {
		return &tls.Config{Certificates: certificates, MinVersion: tls.VersionTLS12, InsecureSkipVerify: true, //nolint:gosec // Verified below.
			VerifyConnection: func(cs tls.ConnectionState) error {
				_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots})
				return err
			}}
	}
	connect := func(pod string, port int, certificates ...tls.Certificate) (*etcd.Client, error) {
		return etcd.NewClient(ctx, etcd.ClientConfiguration{
			Endpoint:    pod,
			Proxy:       proxy.Proxy{Kind: "pods", Namespace: metav1.NamespaceSystem, KubeConfig: rest.CopyConfig(workloadCP.Config), Port: port},
			TLSConfig:   tlsConfig(certificates...),
			DialTimeout: 3 * time.Second,
			CallTimeout: 3 * time.Second,
		})
	}

	c, err := connect("etcd-c1-cp-1", etcdClientPort, clientCert)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() {
		if err := c.Close(); err != nil {
			t.Logf("closing the etcd client: %v", err) // the checks below are done; a failed close only leaks a test connection
		}
	}()
	members, err := c.Members(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(members).To(HaveLen(2))
	g.Expect(members[0].Name).To(Equal("c1-cp-0"))
	g.Expect(members[1].Name).To(Equal("c1-cp-1"))
	g.Expect(members[0].ClusterID).NotTo(BeZero())
	g.Expect(c.LeaderID).To(Equal(members[0].ID), "the first member leads")
	alarms, err := c.Alarms(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(alarms).To(BeEmpty())

	// Scaling down, the provider moves the leadership away from the member it removes, then removes it.
	g.Expect(c.MoveLeader(ctx, members[1].ID)).To(Succeed())
	g.Expect(c.RemoveMember(ctx, members[0].ID)).To(Succeed())
	members, err = c.Members(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(members).To(ConsistOf(HaveField("Name", "c1-cp-1")))
	_, err = connect("etcd-c1-cp-0", etcdClientPort, clientCert)
	g.Expect(err).To(HaveOccurred(), "a removed member stops")

	// A client without a certificate of the etcd CA is refused.
	_, err = connect("etcd-c1-cp-1", etcdClientPort)
	g.Expect(err).To(HaveOccurred(), "etcd verifies its clients' certificates")

	// Another port of a static pod has nothing behind it.
	_, err = connect("kube-apiserver-c1-cp-1", 6443, clientCert)
	g.Expect(err).To(HaveOccurred())
}

// controlPlaneMachine is a control plane AzureMachine of a cluster whose VM exists.
func controlPlaneMachine(name, cluster string) client.Object {
	am := azureMachine(name, "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"+name, true)
	am.Labels[clusterv1.ClusterNameLabel] = cluster
	return am
}

// TestSimulator_ControlPlaneNodeIsReachableWhenSeen: a control plane Node is never seen, not even in the event of its
// creation, without its kubelet endpoint or before its control plane pods. Otherwise a port-forward to its etcd pod
// could be refused, and the kubeadm control plane provider's dialer would fall back to SPDY, whose round tripper its
// concurrent dials share (a data race in Cluster API v1.14.2 that fails every test of the process under -race).
func TestSimulator_ControlPlaneNodeIsReachableWhenSeen(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	workloadCP, workload, err := env.StartWorkloadCluster(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = workloadCP.Stop() }()
	watcher, err := client.NewWithWatch(workloadCP.Config, client.Options{Scheme: workload.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	nodes, err := watcher.Watch(ctx, &corev1.NodeList{})
	g.Expect(err).NotTo(HaveOccurred())
	defer nodes.Stop()

	management := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		controlPlaneMachine("c2-cp-0", "c2"), controlPlaneMachine("c2-cp-1", "c2"),
	).Build()
	sim := Start(Options{Management: management, Workload: workload, SubscriptionID: subscription, Interval: 10 * time.Millisecond, Logf: t.Logf})
	defer func() { g.Expect(sim.DeleteNodes(ctx)).To(Succeed()) }()

	seen := map[string]bool{}
	timeout := time.After(30 * time.Second)
	for len(seen) < 2 {
		select {
		case <-timeout:
			t.Fatalf("saw the creation of %d of 2 control plane Nodes", len(seen))
		case ev := <-nodes.ResultChan():
			node, ok := ev.Object.(*corev1.Node)
			if !ok || seen[node.Name] {
				continue
			}
			seen[node.Name] = true
			g.Expect(node.Status.DaemonEndpoints.KubeletEndpoint.Port).NotTo(BeZero(), "Node %s is seen with its kubelet endpoint", node.Name)
			g.Expect(node.Status.Addresses).NotTo(BeEmpty(), "Node %s is seen with its address", node.Name)
			for _, component := range controlPlaneComponents {
				g.Expect(workload.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: staticPodName(component, node.Name)}, &corev1.Pod{})).
					To(Succeed(), "the %s pod of Node %s exists when the Node is seen", component, node.Name)
			}
		}
	}
}
