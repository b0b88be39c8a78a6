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

package setup_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// TestLeaderElection: the manager, as the provider's ServiceAccount and elected as main.go elects it (--leader-elect,
// a Lease in its own namespace), becomes the leader with the leader election Role of config/rbac and records the
// event. Under make test, test/rbaccheck then finds every rule of that Role used.
func TestLeaderElection(t *testing.T) {
	g := NewWithT(t)
	p := startServingPlane(t, g)
	const id = "controller-leader-election-capz-aso"

	mgr, err := ctrl.NewManager(p.manager, ctrl.Options{
		Scheme:                     scheme.New(),
		Logger:                     testr.New(t),
		Metrics:                    metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:     "0",
		LeaderElection:             true,
		LeaderElectionID:           id,
		LeaderElectionNamespace:    env.ProviderNamespace,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
	})
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	g.Eventually(mgr.Elected(), 30*time.Second).Should(BeClosed())
	admin, err := kubernetes.NewForConfig(p.cp.Config)
	g.Expect(err).NotTo(HaveOccurred())
	var lease *coordinationv1.Lease
	g.Eventually(func(g Gomega) {
		lease, err = admin.CoordinationV1().Leases(env.ProviderNamespace).Get(t.Context(), id, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
	}, 30*time.Second).Should(Succeed())
	// The leader renews its Lease (an update).
	renewed := lease.Spec.RenewTime.Time
	g.Eventually(func(g Gomega) {
		lease, err := admin.CoordinationV1().Leases(env.ProviderNamespace).Get(t.Context(), id, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(lease.Spec.RenewTime.Time).To(BeTemporally(">", renewed))
	}, 30*time.Second).Should(Succeed())
	g.Eventually(func(g Gomega) {
		events, err := admin.CoreV1().Events(env.ProviderNamespace).List(t.Context(), metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(events.Items).To(ContainElement(And(
			HaveField("InvolvedObject.Kind", "Lease"),
			HaveField("Reason", "LeaderElection"),
			HaveField("Type", corev1.EventTypeNormal),
		)))
	}, 30*time.Second).Should(Succeed())
}
