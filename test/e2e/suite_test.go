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

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/reconcilers/kubeadmconfig"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	"sigs.k8s.io/cluster-api/core/reconcilers/machine"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment"
	"sigs.k8s.io/cluster-api/core/reconcilers/machineset"
	capisetup "sigs.k8s.io/cluster-api/core/setup"
	"sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/cluster-api/util/index"
	"sigs.k8s.io/cluster-api/util/secret"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/asosim"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

const (
	// controllerName is the user agent of the Cluster API controllers towards the workload cluster.
	controllerName = "capzaso-e2e-manager"
	// syncPeriod is Cluster API's default --sync-period.
	syncPeriod = 10 * time.Minute
	// asoDeleteDelay is how long a deletion takes in the simulated Azure.
	asoDeleteDelay = time.Second
)

var (
	// sim plays ASO for every test of the package.
	sim *asosim.Simulator
	// workload is the API server that plays every workload cluster of the package.
	workload *workloadCluster
)

func TestMain(m *testing.M) {
	ctx := context.Background()
	// The workload cluster's API server starts while the management cluster's does.
	workload = startWorkloadCluster(ctx)
	code := env.Run(ctx, m, env.Options{
		Scheme:           scheme.New(),
		SetupWebhooks:    setup.Webhooks,
		ManagerOptions:   managerOptions,
		SetupReconcilers: setupReconcilers,
	})
	// The manager stops the workload cluster when it stops; this covers a manager that never started.
	if err := workload.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "test/e2e: failed to stop the workload cluster: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// managerOptions configures one manager for the provider and Cluster API, the way both main.go files do: the
// provider's cache of ASO kinds limited to the objects it labelled, Cluster API's cache of Secrets limited to
// those of a cluster, and a client that reads Secrets and ConfigMaps from the API server.
func managerOptions(o *ctrl.Options) {
	opts := capisetup.ManagerCacheOptions(o.Scheme, controllerName, "", syncPeriod)
	opts.DefaultTransform = cache.TransformStripManagedFields()
	// Cluster API names its informers for metrics, one per resource; in one manager with the provider a resource
	// has a typed and an unstructured informer, and the second name is refused (noisily). Metrics do not matter here.
	opts.NewInformer = nil
	// Core keeps the data of kubeconfig Secrets only, the kubeadm bootstrap provider that of every cluster
	// certificate too: with both in one manager, keep what the bootstrap provider reads through its cache.
	for obj := range opts.ByObject {
		if _, ok := obj.(*corev1.Secret); ok {
			delete(opts.ByObject, obj)
		}
	}
	opts.ByObject[&corev1.Secret{}] = clusterSecretsCache()
	for obj, byObject := range setup.CacheByObject() {
		opts.ByObject[obj] = byObject
	}
	o.Cache = opts
	o.Client = capisetup.ManagerClientOptions()
}

// clusterSecretsCache caches the Secrets of clusters (labelled with the cluster name) and drops the data of
// those Cluster API does not read from its cache.
func clusterSecretsCache() cache.ByObject {
	hasCluster, err := labels.NewRequirement(clusterv1.ClusterNameLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant, valid label key
	}
	return cache.ByObject{
		Label: labels.NewSelector().Add(*hasCluster),
		Transform: func(in any) (any, error) {
			if s, ok := in.(*corev1.Secret); ok {
				s.SetManagedFields(nil)
				if !secret.HasPurposeSuffix(s.Name) {
					s.Data = nil
				}
			}
			return in, nil
		},
	}
}

// setupReconcilers starts the ASO simulator and registers Cluster API's reconcilers and the provider's
// controllers with the manager. It fails when any of them cannot be set up.
func setupReconcilers(ctx context.Context, mgr ctrl.Manager) error {
	if err := labelKubeadmContract(ctx, mgr.GetConfig()); err != nil {
		return err
	}
	var err error
	sim, err = asosim.Start(ctx, mgr.GetConfig(), asosim.Options{Scheme: scheme.New(), DeleteDelay: asoDeleteDelay})
	if err != nil {
		return fmt.Errorf("failed to start the ASO simulator: %w", err)
	}
	clusterCache, err := setupClusterAPI(ctx, mgr)
	if err != nil {
		return err
	}
	// When the manager stops, the ClusterCache's connections to the workload cluster close (they outlive the
	// manager otherwise), then the workload cluster stops.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		if cc, ok := clusterCache.(interface{ Shutdown() }); ok {
			cc.Shutdown()
		}
		return workload.stop()
	})); err != nil {
		return fmt.Errorf("failed to tie the workload cluster to the manager: %w", err)
	}
	// The provider shares Cluster API's ClusterCache, as it must when both run in one manager.
	if err := setup.Controllers(ctx, mgr, setup.Options{ClusterCache: clusterCache}); err != nil {
		return fmt.Errorf("failed to set up the provider's controllers: %w", err)
	}
	return nil
}

// labelKubeadmContract labels the kubeadm bootstrap provider's CRDs with the Cluster API contract versions they
// implement, as the provider's release manifests do (its kustomization adds them; test/env installs the bare CRD
// bases). Cluster API reads a bootstrap config reference's API version from these labels.
func labelKubeadmContract(ctx context.Context, cfg *rest.Config) error {
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	for _, kind := range []string{"KubeadmConfig", "KubeadmConfigTemplate"} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		name := contract.CalculateCRDName(bootstrapv1.GroupVersion.Group, kind)
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return fmt.Errorf("failed to get CustomResourceDefinition %s: %w", name, err)
		}
		patch := client.MergeFrom(crd.DeepCopy())
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels["cluster.x-k8s.io/v1beta1"] = "v1beta1"
		crd.Labels["cluster.x-k8s.io/v1beta2"] = "v1beta2"
		if err := c.Patch(ctx, crd, patch); err != nil {
			return fmt.Errorf("failed to label CustomResourceDefinition %s: %w", name, err)
		}
	}
	return nil
}

// setupClusterAPI registers what Cluster API's core and kubeadm bootstrap managers run for the kinds the tests
// use: the field indexes, the ClusterCache that reaches workload clusters through their kubeconfig Secrets,
// and the Cluster, Machine, MachineSet, MachineDeployment and KubeadmConfig reconcilers with their defaults.
func setupClusterAPI(ctx context.Context, mgr ctrl.Manager) (clustercache.ClusterCache, error) {
	if err := index.AddDefaultIndexes(ctx, mgr); err != nil {
		return nil, fmt.Errorf("failed to add Cluster API's indexes: %w", err)
	}
	secretCachingClient, err := capisetup.CreateSecretCachingClient(mgr)
	if err != nil {
		return nil, fmt.Errorf("failed to create Cluster API's secret caching client: %w", err)
	}
	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: secretCachingClient,
		Cache:        capisetup.ClusterCacheCacheOptions(),
		Client:       capisetup.ClusterCacheClientOptions(controllerName, 20, 30),
	}, concurrency(10))
	if err != nil {
		return nil, fmt.Errorf("failed to set up Cluster API's ClusterCache: %w", err)
	}

	reconcilers := []struct {
		name  string
		setup func() error
	}{
		{"Cluster", func() error {
			return (&cluster.Reconciler{
				Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ClusterCache: clusterCache,
				RemoteConnectionGracePeriod: 50 * time.Second,
			}).SetupWithManager(ctx, mgr, concurrency(10))
		}},
		{"Machine", func() error {
			return (&machine.Reconciler{
				Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ClusterCache: clusterCache,
				RemoteConditionsGracePeriod: 5 * time.Minute,
			}).SetupWithManager(ctx, mgr, concurrency(10))
		}},
		{"MachineSet", func() error {
			return (&machineset.Reconciler{
				Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ClusterCache: clusterCache,
				PreflightChecks: sets.New(clusterv1.MachineSetPreflightCheckAll),
			}).SetupWithManager(ctx, mgr, concurrency(10))
		}},
		{"MachineDeployment", func() error {
			return (&machinedeployment.Reconciler{
				Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(),
			}).SetupWithManager(ctx, mgr, concurrency(10))
		}},
		{"KubeadmConfig", func() error {
			return (&kubeadmconfig.Reconciler{
				Client: mgr.GetClient(), SecretCachingClient: secretCachingClient, APIReader: mgr.GetAPIReader(),
				ClusterCache: clusterCache, TokenTTL: kubeadmconfig.DefaultTokenTTL,
			}).SetupWithManager(ctx, mgr, concurrency(10))
		}},
	}
	var failed []string
	for _, r := range reconcilers {
		if err := r.setup(); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", r.name, err))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("failed to set up Cluster API's reconcilers: %s", strings.Join(failed, "; "))
	}
	return clusterCache, nil
}

func concurrency(n int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: n}
}
