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

// Command localplane runs a local management plane for development (make run): the pinned kube-apiserver and
// etcd on loopback with every CRD installed, the provider's webhooks and controllers in-process, and the ASO
// simulator standing in for ASO and Azure. Nothing reaches Azure. It prints a kubeconfig for kubectl and stops
// everything on Ctrl-C.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func main() {
	stateDir := flag.String("state-dir", ".local", "Directory for the kubeconfig, logs and etcd data.")
	keep := flag.Bool("keep", false, "Keep etcd's data across runs (in <state-dir>/etcd).")
	simulate := flag.Bool("simulate-aso", true, "Run the ASO simulator, so that ASO objects become Ready without Azure.")
	klog.InitFlags(nil)
	flag.Parse()
	ctrl.SetLogger(klog.Background())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *stateDir, *keep, *simulate); err != nil {
		fmt.Fprintf(os.Stderr, "localplane: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stateDir string, keep, simulate bool) (reterr error) {
	stateDir, err := filepath.Abs(stateDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(stateDir, "control-plane.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	managerLog, err := os.Create(filepath.Join(stateDir, "manager.log"))
	if err != nil {
		return err
	}
	defer managerLog.Close()
	// The terminal shows what the user needs; the controllers' logs go to a file.
	klog.LogToStderr(false)
	klog.SetOutput(managerLog)

	fmt.Println("Starting kube-apiserver and etcd on loopback ...")
	start := time.Now()
	opts := env.ControlPlaneOptions{Scheme: scheme.New(), InstallWebhooks: true, Output: io.Writer(logFile)}
	if keep {
		opts.EtcdDataDir = filepath.Join(stateDir, "etcd")
	}
	cp, err := env.StartControlPlane(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("Stopping kube-apiserver and etcd ...")
		reterr = kerrors.NewAggregate([]error{reterr, cp.Stop()})
	}()

	mgr, err := ctrl.NewManager(cp.Config, ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(cp.WebhookServerOptions()),
		Cache:                  cache.Options{ByObject: setup.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()},
	})
	if err != nil {
		return fmt.Errorf("failed to create the manager: %w", err)
	}
	if err := setup.Webhooks(mgr); err != nil {
		return err
	}
	if err := setup.Controllers(ctx, mgr, setup.Options{}); err != nil {
		return err
	}
	if simulate {
		if _, err := asosim.Start(ctx, cp.Config, asosim.Options{Scheme: scheme.New(), DeleteDelay: 2 * time.Second}); err != nil {
			return err
		}
	}
	kubeconfig := filepath.Join(stateDir, "kubeconfig")
	if err := cp.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}

	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("the manager's cache did not sync")
	}
	rel, _ := filepath.Rel(cp.RootDir, kubeconfig)
	fmt.Printf(`
Local management plane is running (started in %s).
  API server:  %s
  kubeconfig:  %s
  logs:        %s, %s
  Azure:       simulated=%t (the ASO simulator plays ASO; nothing reaches Azure)

Try:
  export KUBECONFIG=%s
  kubectl apply -f config/samples/
  kubectl get azureclusters,azuremachines,azuremanagedcontrolplanes -A

Press Ctrl-C to stop.
`, time.Since(start).Round(100*time.Millisecond), cp.Config.Host, kubeconfig, logFile.Name(), managerLog.Name(), simulate, rel)
	select {
	case <-ctx.Done():
		return <-errs
	case err := <-errs:
		return err
	}
}
