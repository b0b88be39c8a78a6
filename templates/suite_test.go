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

package templates

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// This suite runs, in one manager on one API server, what a management cluster runs for these templates: Cluster
// API's core (with ClusterClass, topology and ClusterResourceSet), kubeadm bootstrap and kubeadm control plane
// reconcilers (test/capiplane), and the provider's webhooks and controllers; test/asosim plays ASO. Cluster API's
// own webhooks do not run, so the templates carry the values they would default. A second, plain API server plays
// every workload cluster (and the empty cluster the provider's components are applied to).

const (
	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = time.Second
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// workload is the API server of every workload cluster.
	workload *workloadCluster
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	var err error
	if repoDir, err = os.MkdirTemp("", "capzaso-clusterctl-repository-"); err != nil {
		fmt.Fprintf(os.Stderr, "templates: %v\n", err)
		os.Exit(1)
	}
	workload = startWorkloadCluster(ctx)
	code := env.Run(ctx, m, env.Options{
		Scheme:           capiplane.Scheme(),
		SetupWebhooks:    setup.Webhooks,
		ManagerOptions:   capiplane.ManagerOptions,
		SetupReconcilers: setupReconcilers,
		// Cluster API's reconcilers and the simulator run as admins.
		AdminManager: true,
	})
	if err := workload.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "templates: failed to stop the workload cluster: %v\n", err)
		code = max(code, 1)
	}
	if err := os.RemoveAll(repoDir); err != nil {
		fmt.Fprintf(os.Stderr, "templates: %v\n", err)
	}
	os.Exit(code)
}

// workloadCluster is a plain API server (Cluster API's, ASO's and our CRDs, no webhooks) that plays the workload
// cluster of every Cluster: KubeadmControlPlanes find kubeadm's ConfigMap there (so they initialize), kubeadm
// bootstrap writes its tokens there and ClusterResourceSets apply the add-ons there.
type workloadCluster struct {
	started chan struct{}
	cp      *env.ControlPlane
	client  client.Client
	err     error
}

// startWorkloadCluster starts the workload cluster's API server in the background; get waits for it.
func startWorkloadCluster(ctx context.Context) *workloadCluster {
	w := &workloadCluster{started: make(chan struct{})}
	go func() {
		defer close(w.started)
		cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{})
		if err != nil {
			w.err = fmt.Errorf("failed to start the workload cluster: %w", err)
			return
		}
		w.cp = cp
		if w.client, err = client.New(cp.Config, client.Options{Scheme: clientgoscheme.Scheme}); err != nil {
			w.err = fmt.Errorf("failed to create a client for the workload cluster: %w", err)
			return
		}
		w.err = w.initKubeadm(ctx)
	}()
	return w
}

// initKubeadm creates what kubeadm init leaves in kube-system that KubeadmControlPlane checks to consider the
// control plane initialized.
func (w *workloadCluster) initKubeadm(ctx context.Context) error {
	cm := kubeletsim.KubeadmConfigMap()
	// kube-system appears shortly after the API server starts.
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := w.client.Create(ctx, cm)
		return err == nil || apierrors.IsAlreadyExists(err), nil
	})
}

// get waits until the workload cluster runs; it fails the test if it could not start.
func (w *workloadCluster) get(t *testing.T) (*env.ControlPlane, client.Client) {
	t.Helper()
	<-w.started
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.cp, w.client
}

// kubeconfig waits for the workload cluster and returns its admin kubeconfig.
func (w *workloadCluster) kubeconfig() ([]byte, error) {
	<-w.started
	if w.err != nil {
		return nil, w.err
	}
	return w.cp.KubeConfig, nil
}

// stop stops the workload cluster's API server; it may be called more than once.
func (w *workloadCluster) stop() error {
	<-w.started
	if w.cp == nil {
		return nil
	}
	return w.cp.Stop()
}

// setupReconcilers starts the ASO simulator, whose kubeconfig of every managed cluster points at the workload
// cluster, and registers Cluster API's reconcilers (with the kubeadm control plane and topology) and the
// provider's controllers.
func setupReconcilers(ctx context.Context, mgr ctrl.Manager) error {
	var err error
	sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{
		Scheme:      scheme.New(),
		DeleteDelay: asoDeleteDelay,
		Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) {
			return workload.kubeconfig()
		},
	})
	if err != nil {
		return fmt.Errorf("failed to start the ASO simulator: %w", err)
	}
	clusterCache, err := capiplane.Setup(ctx, mgr, capiplane.Options{KubeadmControlPlane: true, Topology: true})
	if err != nil {
		return err
	}
	// The provider runs in a manager of its own, as its ServiceAccount.
	if _, err := plane.RunWith(mgr, logr.Logger{}, nil, func() error {
		capiplane.Shutdown(clusterCache)
		return nil
	}); err != nil {
		return fmt.Errorf("failed to set up the provider: %w", err)
	}
	return nil
}
