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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/capiplane"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
	"github.com/capzaso/cluster-api-provider-azure/test/kubeletsim"
)

// The values of --azure: which Azure the ASO objects meet.
const (
	azureSimulated = "simulated"
	azureFakeARM   = "fake-arm"
	azureNone      = "none"
)

const (
	// simulatedSubscriptionID is the Azure subscription of the samples; the ASO simulator's default.
	simulatedSubscriptionID = "00000000-0000-0000-0000-000000000000"
	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = 2 * time.Second
	// kubeletInterval is how often the simulated kubelets look for new machines.
	kubeletInterval = 500 * time.Millisecond
)

// The values of --provider: where the provider runs.
const (
	providerInProcess = "in-process"
	providerNone      = "none"
)

// planeOptions configure startPlane.
type planeOptions struct {
	stateDir string
	keep     bool
	azure    string
	// provider is where the provider runs: in-process, or none (its webhook configurations are not installed either).
	provider                   string
	managementLog, workloadLog io.Writer
	// managerLog receives the logs of the controllers that do not log with klog.
	managerLog io.Writer
}

// plane is what runs: the management cluster's API server with the manager (Cluster API and the provider) and the
// ASO simulator, and the simulated workload cluster with its kubelets.
type plane struct {
	management, workload           *env.ControlPlane
	kubeconfig, workloadKubeconfig string
	// client writes to the management cluster; reader reads it through the manager's cache.
	client client.Client
	reader client.Reader
	scheme *runtime.Scheme

	sim          *asosim.Simulator
	arm          *fakearm.Server
	clusterCache clustercache.ClusterCache
	kubelets     *kubeletsim.Simulator
	// cancel stops the manager; done is closed when it has stopped, with err.
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// startPlane starts everything. On error, the plane it returns (if any) holds what started, for stop.
func startPlane(ctx context.Context, o planeOptions) (*plane, error) {
	capiScheme := capiplane.Scheme()
	// The workload cluster's API server starts while the management cluster's does.
	type started struct {
		cp  *env.ControlPlane
		err error
	}
	workloadStarted := make(chan started, 1)
	go func() {
		cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{Output: o.workloadLog, Workload: true})
		workloadStarted <- started{cp, err}
	}()
	// As a real management cluster: Cluster API's webhooks (v1beta1 manifests are converted, every Cluster API
	// object defaulted and validated) and kube-controller-manager's garbage collector and namespace controller.
	opts := env.ControlPlaneOptions{
		Scheme: capiScheme, InstallWebhooks: o.provider != providerNone, ClusterAPIWebhooks: true, ControllerManager: true, Output: o.managementLog,
	}
	if o.keep {
		opts.EtcdDataDir = filepath.Join(o.stateDir, "etcd")
	}
	p := &plane{scheme: capiScheme}
	var armErr error
	// workloadSet is closed once p.workload is set (to a started workload cluster, or nil).
	workloadSet := make(chan struct{})
	if o.azure == azureFakeARM {
		// Every AKS cluster's kubeconfig reaches the simulated workload cluster, once it has started.
		p.arm, armErr = fakearm.Start(fakearm.Options{Polls: 1, Kubeconfig: func(string) ([]byte, error) {
			select {
			case <-workloadSet:
				if p.workload != nil {
					return p.workload.KubeConfig, nil
				}
			default:
			}
			return nil, errors.New("the simulated workload cluster has not started")
		}})
		if armErr == nil {
			opts.ASOAzure = env.FakeAzure(p.arm, simulatedSubscriptionID)
		}
	}
	var err error
	if armErr == nil {
		p.management, err = env.StartControlPlane(ctx, opts)
	}
	w := <-workloadStarted
	p.workload = w.cp
	close(workloadSet)
	if err := kerrors.NewAggregate([]error{armErr, err, w.err}); err != nil {
		return p, err
	}
	management := p.management
	p.kubeconfig = filepath.Join(o.stateDir, "kubeconfig")
	p.workloadKubeconfig = filepath.Join(o.stateDir, "workload-kubeconfig")
	if err := management.WriteKubeconfig(p.kubeconfig); err != nil {
		return p, err
	}
	if err := p.workload.WriteKubeconfig(p.workloadKubeconfig); err != nil {
		return p, err
	}
	if p.client, err = client.New(management.Config, client.Options{Scheme: p.scheme}); err != nil {
		return p, err
	}
	workloadClient, err := client.New(p.workload.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return p, err
	}

	mgrOpts := ctrl.Options{
		Scheme:                 p.scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(management.WebhookServerOptions()),
	}
	capiplane.ManagerOptions(&mgrOpts)
	mgr, err := ctrl.NewManager(management.Config, mgrOpts)
	if err != nil {
		return p, fmt.Errorf("failed to create the manager: %w", err)
	}
	mgrCtx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	if o.provider != providerNone {
		// The manager's default: the flavors and config/samples make run applies name an identity.
		if err := setup.Webhooks(mgr, setup.WebhookOptions{}); err != nil {
			return p, err
		}
	}
	if o.azure == azureSimulated {
		p.sim, err = asosim.Start(mgrCtx, management.Config, asosim.Options{
			Scheme: scheme.New(), SubscriptionID: simulatedSubscriptionID, DeleteDelay: asoDeleteDelay,
			// Every AKS cluster's kubeconfig reaches the simulated workload cluster.
			Kubeconfig: func(context.Context, client.Object, string) ([]byte, error) { return p.workload.KubeConfig, nil },
		})
		if err != nil {
			return p, fmt.Errorf("failed to start the ASO simulator: %w", err)
		}
	}
	// KubeadmControlPlane's etcd clients log with zap, to the manager's log like the rest.
	etcdLogger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(o.managerLog), zap.InfoLevel))
	if p.clusterCache, err = capiplane.Setup(mgrCtx, mgr, capiplane.Options{KubeadmControlPlane: true, Topology: true, EtcdLogger: etcdLogger}); err != nil {
		return p, err
	}
	if err := capiplane.Webhooks(mgr, p.clusterCache); err != nil {
		return p, err
	}
	if err := (&kubeconfigHandout{client: mgr.GetClient(), kubeconfig: p.workload.KubeConfig}).setupWithManager(mgr); err != nil {
		return p, fmt.Errorf("failed to set up the kubeconfig handout: %w", err)
	}
	// The provider shares Cluster API's ClusterCache, as it must in one manager.
	if o.provider != providerNone {
		if err := setup.Controllers(mgrCtx, mgr, setup.Options{ClusterCache: p.clusterCache}); err != nil {
			return p, err
		}
	}
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		p.err = mgr.Start(mgrCtx)
	}()
	if !mgr.GetCache().WaitForCacheSync(mgrCtx) {
		return p, fmt.Errorf("the manager's cache did not sync")
	}
	p.reader = mgr.GetClient()
	p.kubelets = kubeletsim.Start(kubeletsim.Options{
		Management: p.reader, Workload: workloadClient, SubscriptionID: simulatedSubscriptionID, Interval: kubeletInterval,
		// The fake ARM's scale sets (if it runs) make their instances; those get Nodes too.
		ARM:  p.arm,
		Logf: func(format string, args ...any) { klog.Infof("kubeletsim: "+format, args...) },
	})
	return p, nil
}

// managerErr is why the manager stopped, once it has.
func (p *plane) managerErr() error {
	if p.done == nil {
		return nil
	}
	<-p.done
	return p.err
}

// stop stops what runs, in order: the manager (with Cluster API's connections to the workload cluster), the ASO
// simulator and the kubelets, then both API servers and etcds.
func (p *plane) stop() error {
	var errs []error
	if p.cancel != nil {
		p.cancel()
	}
	if p.done != nil {
		<-p.done
	}
	if p.clusterCache != nil {
		capiplane.Shutdown(p.clusterCache)
	}
	if p.sim != nil {
		errs = append(errs, p.sim.Stop())
	}
	if p.kubelets != nil {
		p.kubelets.Stop()
	}
	if p.workload != nil {
		errs = append(errs, p.workload.Stop())
	}
	if p.management != nil {
		errs = append(errs, p.management.Stop())
	}
	if p.arm != nil {
		errs = append(errs, p.arm.Close())
	}
	return kerrors.NewAggregate(errs)
}
