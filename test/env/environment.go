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

package env

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// readyTimeout bounds the wait for the manager's caches and webhook server.
const readyTimeout = 2 * time.Minute

// Options configures Start and Run.
type Options struct {
	// Scheme is the manager's scheme. Required.
	Scheme *runtime.Scheme

	// SetupWebhooks registers our webhooks with the manager. When it is set, the
	// webhook configurations in config/webhook/manifests.yaml are installed and
	// served in-process; when it is nil, no webhook is installed.
	SetupWebhooks func(mgr ctrl.Manager) error

	// SetupReconcilers registers reconcilers (and field indexes) with the
	// manager before it starts. ctx ends when the environment stops.
	SetupReconcilers func(ctx context.Context, mgr ctrl.Manager) error

	// ManagerOptions may change the manager's options before it is created.
	ManagerOptions func(*ctrl.Options)

	// AdminManager runs the manager as an admin. By default it runs as the provider's ServiceAccount
	// (ProviderConfig), bound to the provider's generated roles, so that the controllers and webhooks
	// under test fail on a missing rule. A suite whose manager runs Cluster API's reconcilers sets it, and runs the
	// provider's controllers in a manager of their own with Environment.ProviderConfig (see test/plane).
	AdminManager bool

	// ClusterAPIWebhooks installs Cluster API's webhook configurations and CRD conversions; SetupReconcilers must
	// register Cluster API's webhooks (test/capiplane.Webhooks). See ControlPlaneOptions.
	ClusterAPIWebhooks bool

	// ControllerManager runs kube-controller-manager's garbage collector and namespace controller beside the API
	// server (see ControlPlaneOptions).
	ControllerManager bool

	// ASOAzure runs ASO's controllers against this Azure (see ControlPlaneOptions).
	ASOAzure *ASOAzure

	// APIServerFlags are extra kube-apiserver flags (see ControlPlaneOptions), e.g. an audit webhook that tells a
	// suite when the provider writes (test/plane).
	APIServerFlags map[string]string
}

// Environment is a running control plane with a started manager.
type Environment struct {
	// Client is the tests' client. With AdminManager it is the manager's client, which reads from its cache;
	// otherwise it is an admin client that reads from the API server (the manager's cache, which runs as the
	// provider, holds only what the provider may read).
	client.Client

	// Config is an admin client configuration for the API server.
	Config *rest.Config
	// ProviderConfig authenticates as the provider's ServiceAccount (see ProviderConfig).
	ProviderConfig *rest.Config
	// Manager is the started manager.
	Manager ctrl.Manager
	// ControlPlane is the API server and etcd (kubeconfig, extra users).
	ControlPlane *ControlPlane

	adminManager bool
	cancel       context.CancelFunc
	mgrDone      chan struct{}
	mgrErr       error
	stopOnce     sync.Once
	stopErr      error
}

// Start starts the control plane (see StartControlPlane), creates a manager,
// runs the setup functions, starts the manager and waits until its caches have
// synced and, with webhooks, until its webhook server answers.
func Start(ctx context.Context, opts Options) (*Environment, error) {
	if opts.Scheme == nil {
		return nil, errors.New("env.Options.Scheme is required")
	}
	cp, err := StartControlPlane(ctx, ControlPlaneOptions{
		Scheme:             opts.Scheme,
		InstallWebhooks:    opts.SetupWebhooks != nil,
		ControllerManager:  opts.ControllerManager,
		ClusterAPIWebhooks: opts.ClusterAPIWebhooks,
		ASOAzure:           opts.ASOAzure,
		APIServerFlags:     opts.APIServerFlags,
	})
	if err != nil {
		return nil, err
	}

	if err := cp.InstallProviderRBAC(ctx); err != nil {
		return nil, kerrors.NewAggregate([]error{err, cp.Stop()})
	}
	e, err := startManager(ctx, cp, opts)
	if err != nil {
		return nil, kerrors.NewAggregate([]error{err, cp.Stop()})
	}
	return e, nil
}

func startManager(ctx context.Context, cp *ControlPlane, opts Options) (*Environment, error) {
	mgrOpts := ctrl.Options{
		Scheme:                  opts.Scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		WebhookServer:           webhook.NewServer(cp.WebhookServerOptions()),
		GracefulShutdownTimeout: ptr.To(managerShutdownTimeout),
	}
	if opts.ManagerOptions != nil {
		opts.ManagerOptions(&mgrOpts)
	}
	providerConfig, err := ProviderConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	mgrConfig := providerConfig
	if opts.AdminManager {
		mgrConfig = cp.Config
	}
	mgr, err := ctrl.NewManager(mgrConfig, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("failed to create the manager: %w", err)
	}
	c := mgr.GetClient()
	if !opts.AdminManager {
		if c, err = client.New(cp.Config, client.Options{Scheme: opts.Scheme, Mapper: mgr.GetRESTMapper()}); err != nil {
			return nil, fmt.Errorf("failed to create the admin client: %w", err)
		}
	}

	mgrCtx, cancel := context.WithCancel(ctx)
	e := &Environment{
		Client:         c,
		Config:         cp.Config,
		ProviderConfig: providerConfig,
		Manager:        mgr,
		ControlPlane:   cp,
		adminManager:   opts.AdminManager,
		cancel:         cancel,
		mgrDone:        make(chan struct{}),
	}

	if opts.SetupWebhooks != nil {
		if err := opts.SetupWebhooks(mgr); err != nil {
			cancel()
			return nil, fmt.Errorf("failed to set up webhooks: %w", err)
		}
	}
	if opts.SetupReconcilers != nil {
		if err := opts.SetupReconcilers(mgrCtx, mgr); err != nil {
			cancel()
			return nil, fmt.Errorf("failed to set up reconcilers: %w", err)
		}
	}

	go func() {
		defer close(e.mgrDone)
		e.mgrErr = mgr.Start(mgrCtx)
	}()

	if err := e.waitReady(ctx, opts.SetupWebhooks != nil); err != nil {
		cancel()
		<-e.mgrDone
		return nil, err
	}
	return e, nil
}

// waitReady waits for the manager's caches and, if asked, its webhook server.
func (e *Environment) waitReady(ctx context.Context, webhooks bool) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()

	synced := make(chan bool, 1)
	go func() { synced <- e.Manager.GetCache().WaitForCacheSync(ctx) }()
	select {
	case <-e.mgrDone:
		return fmt.Errorf("manager stopped while starting: %w", e.mgrErr)
	case ok := <-synced:
		if !ok {
			return fmt.Errorf("manager caches did not sync within %s", readyTimeout)
		}
	}

	if !webhooks {
		return nil
	}
	started := e.Manager.GetWebhookServer().StartedChecker()
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		select {
		case <-e.mgrDone:
			return false, fmt.Errorf("manager stopped while starting: %w", e.mgrErr)
		default:
		}
		lastErr = started(nil)
		return lastErr == nil, nil
	})
	if err != nil {
		return fmt.Errorf("webhook server did not start (last check: %v): %w", lastErr, err)
	}
	return nil
}

// Stop stops the manager, then the control plane. It is safe to call more than
// once and from several goroutines.
func (e *Environment) Stop() error {
	e.stopOnce.Do(func() {
		e.cancel()
		AwaitStop("the test environment's manager", e.mgrDone)
		e.stopErr = kerrors.NewAggregate([]error{judgeSlowStop(e.mgrErr, stuckGoroutines()), e.ControlPlane.Stop()})
	})
	return e.stopErr
}

// GetAPIReader returns a client that reads from the API server, not the cache, as an admin.
func (e *Environment) GetAPIReader() client.Reader {
	if e.adminManager {
		return e.Manager.GetAPIReader()
	}
	return e.Client
}

// CreateNamespace creates a namespace named generateName plus a random suffix.
func (e *Environment) CreateNamespace(ctx context.Context, generateName string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: generateName + "-",
			Labels:       map[string]string{"test-env/name": generateName},
		},
	}
	if err := e.Create(ctx, ns); err != nil {
		return nil, fmt.Errorf("failed to create Namespace %s-*: %w", generateName, err)
	}
	return ns, nil
}

// Cleanup deletes objs, ignoring those already gone. Without the controller
// manager (Options.ControllerManager) a deleted namespace stays Terminating and
// the objects in it stay; tests use their own namespaces and names, so that is
// harmless.
func (e *Environment) Cleanup(ctx context.Context, objs ...client.Object) error {
	var errs []error
	for _, o := range objs {
		if err := e.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("failed to delete %T %s: %w", o, client.ObjectKeyFromObject(o), err))
		}
	}
	return kerrors.NewAggregate(errs)
}

// holdFinalizer is the finalizer HoldDeletion gives an object.
const holdFinalizer = "test.cluster.x-k8s.io/hold"

// HoldDeletion gives an object a finalizer, as its controller's would (Cluster API's of a Cluster, which waits for its
// descendants), so that a deletion of it waits; the returned release removes it, and is safe to call when the
// object is gone.
func (e *Environment) HoldDeletion(ctx context.Context, obj client.Object) (release func(context.Context) error, err error) {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	controllerutil.AddFinalizer(obj, holdFinalizer)
	if err := e.Patch(ctx, obj, patch); err != nil {
		return nil, fmt.Errorf("failed to hold the deletion of %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
	return func(ctx context.Context) error {
		live := obj.DeepCopyObject().(client.Object)
		if err := e.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
			return client.IgnoreNotFound(err)
		}
		patch := client.MergeFrom(live.DeepCopyObject().(client.Object))
		controllerutil.RemoveFinalizer(live, holdFinalizer)
		return client.IgnoreNotFound(e.Patch(ctx, live, patch))
	}, nil
}
