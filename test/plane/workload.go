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
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
)

// Workload is a second real API server that plays the workload cluster of every Cluster of the plane: Cluster API
// reaches it through each Cluster's kubeconfig Secret, and simulated kubelets register Nodes in it.
type Workload struct {
	started chan struct{}
	cp      *env.ControlPlane
	client  client.Client
	err     error
}

// StartWorkload starts the workload cluster's API server in the background; Get waits for it. With
// kubeadmInitialized it also writes what kubeadm init leaves in kube-system.
func StartWorkload(ctx context.Context, kubeadmInitialized bool) *Workload {
	w := &Workload{started: make(chan struct{})}
	go func() {
		defer close(w.started)
		cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Workload: true})
		if err != nil {
			w.err = fmt.Errorf("failed to start the workload cluster: %w", err)
			return
		}
		w.cp = cp
		if w.client, err = client.New(cp.Config, client.Options{Scheme: clientgoscheme.Scheme}); err != nil {
			w.err = fmt.Errorf("failed to create a client for the workload cluster: %w", err)
			return
		}
		if kubeadmInitialized {
			w.err = w.initKubeadm(ctx)
		}
	}()
	return w
}

// initKubeadm creates kubeadm's ConfigMap in kube-system, which KubeadmControlPlane checks to consider the control
// plane initialized.
func (w *Workload) initKubeadm(ctx context.Context) error {
	cm := kubeletsim.KubeadmConfigMap()
	// kube-system appears shortly after the API server starts.
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := w.client.Create(ctx, cm)
		return err == nil || apierrors.IsAlreadyExists(err), nil
	})
}

// Get waits until the workload cluster runs and returns it; the test fails if it could not start.
func (w *Workload) Get(t *testing.T) (*env.ControlPlane, client.Client) {
	t.Helper()
	<-w.started
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.cp, w.client
}

// Kubeconfig waits until the workload cluster runs and returns its admin kubeconfig.
func (w *Workload) Kubeconfig() ([]byte, error) {
	<-w.started
	if w.err != nil {
		return nil, w.err
	}
	return w.cp.KubeConfig, nil
}

// Stop stops the workload cluster's API server; it may be called more than once.
func (w *Workload) Stop() error {
	<-w.started
	if w.cp == nil {
		return nil
	}
	return w.cp.Stop()
}
