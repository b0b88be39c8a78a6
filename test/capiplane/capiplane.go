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

package capiplane

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/reconcilers/kubeadmconfig"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/reconcilers/kubeadmcontrolplane"
	"sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterclass"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourceset"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourcesetbinding"
	"sigs.k8s.io/cluster-api/core/reconcilers/machine"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinehealthcheck"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinepool"
	"sigs.k8s.io/cluster-api/core/reconcilers/machineset"
	topologycluster "sigs.k8s.io/cluster-api/core/reconcilers/topology/cluster"
	topologymachinedeployment "sigs.k8s.io/cluster-api/core/reconcilers/topology/machinedeployment"
	topologymachineset "sigs.k8s.io/cluster-api/core/reconcilers/topology/machineset"
	capisetup "sigs.k8s.io/cluster-api/core/setup"
	capifeature "sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/cluster-api/util/index"
	"sigs.k8s.io/cluster-api/util/secret"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

const (
	// ControllerName is the user agent of Cluster API's controllers towards workload clusters.
	ControllerName = "capzaso-capiplane"
	// syncPeriod is Cluster API's default --sync-period.
	syncPeriod = 10 * time.Minute
	// concurrency is the number of objects each reconciler works on at once.
	concurrency = 10
)

// Options choose the optional parts of Cluster API.
type Options struct {
	// KubeadmControlPlane runs the kubeadm control plane provider (test/kubeletsim plays the etcd members and
	// static pods it checks).
	KubeadmControlPlane bool
	// Topology runs ClusterClass and the topology reconcilers, turning on Cluster API's ClusterTopology gate for
	// the process.
	Topology bool
	// MachineHealthChecks runs Cluster API's machine health check controller, which remediates (deletes) the
	// machines of unhealthy Nodes.
	MachineHealthChecks bool
	// EtcdLogger receives the logs of the kubeadm control plane provider's etcd clients; nil discards them
	// (otherwise etcd's client writes them to stderr).
	EtcdLogger *zap.Logger
}

// Scheme is the provider's scheme plus ExtensionConfig, which Cluster API's ClusterClass controller watches (without
// it, its cache never syncs and the manager stops), and the older Cluster API versions its webhooks convert.
func Scheme() *runtime.Scheme {
	s := scheme.New()
	utilruntime.Must(runtimev1.AddToScheme(s))
	addOlderVersions(s)
	return s
}

// ManagerOptions configures a manager for the provider and Cluster API together, as both main.go files do: the
// provider's cache of ASO kinds limited to the objects it labelled, Cluster API's cache of Secrets limited to
// those of a cluster, and a client that reads Secrets and ConfigMaps from the API server.
func ManagerOptions(o *ctrl.Options) {
	// Cluster API's objects keep their managedFields in the cache, as in Cluster API's managers: the topology
	// controller reads them to work around a kube-apiserver issue, and requeues a Cluster for ever without them.
	opts := capisetup.ManagerCacheOptions(o.Scheme, ControllerName, "", syncPeriod)
	// Cluster API names its informers for metrics, one per resource; in one manager with the provider a resource
	// has a typed and an unstructured informer, and the second name is refused (noisily). Metrics do not matter here.
	opts.NewInformer = nil
	// Core keeps the data of kubeconfig Secrets only, the kubeadm providers that of every cluster certificate too:
	// with all of them in one manager, keep what the kubeadm providers read through their cache.
	for obj := range opts.ByObject {
		if _, ok := obj.(*corev1.Secret); ok {
			delete(opts.ByObject, obj)
		}
	}
	opts.ByObject[&corev1.Secret{}] = clusterSecretsCache()
	// The provider's ASO objects drop theirs, as in the provider's manager.
	for obj, byObject := range setup.CacheByObject() {
		if byObject.Transform == nil {
			byObject.Transform = cache.TransformStripManagedFields()
		}
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

// Setup registers Cluster API's field indexes, its ClusterCache and its reconcilers with the manager (configured
// with ManagerOptions), and labels the kubeadm providers' CRDs with their contract versions. It returns the
// ClusterCache, which the provider's controllers must share (setup.Options.ClusterCache).
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) (clustercache.ClusterCache, error) {
	if err := labelKubeadmContract(ctx, mgr); err != nil {
		return nil, err
	}
	if opts.Topology {
		if err := capifeature.MutableGates.Set(string(capifeature.ClusterTopology) + "=true"); err != nil {
			return nil, fmt.Errorf("failed to turn on Cluster API's ClusterTopology gate: %w", err)
		}
	}
	// Ignition bootstrap data, for the flatcar flavors (EXP_KUBEADM_BOOTSTRAP_FORMAT_IGNITION=true at clusterctl
	// init).
	if err := capifeature.MutableGates.Set(string(capifeature.KubeadmBootstrapFormatIgnition) + "=true"); err != nil {
		return nil, fmt.Errorf("failed to turn on Cluster API's KubeadmBootstrapFormatIgnition gate: %w", err)
	}
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
		Client:       capisetup.ClusterCacheClientOptions(ControllerName, 20, 30),
	}, options())
	if err != nil {
		return nil, fmt.Errorf("failed to set up Cluster API's ClusterCache: %w", err)
	}
	// Cluster API reads the Secrets a ClusterResourceSet applies through a metadata-only cache of every Secret.
	partialSecretCache, err := cache.New(mgr.GetConfig(), cache.Options{
		Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient(),
		DefaultTransform: func(in any) (any, error) {
			if _, ok := in.(*metav1.PartialObjectMetadata); !ok {
				return nil, fmt.Errorf("the partial Secret cache got a %T", in)
			}
			return cache.TransformStripManagedFields()(in)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create the metadata cache of Secrets: %w", err)
	}
	if err := mgr.Add(partialSecretCache); err != nil {
		return nil, err
	}

	c, reader := mgr.GetClient(), mgr.GetAPIReader()
	reconcilers := map[string]func() error{
		"Cluster": func() error {
			return (&cluster.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache, RemoteConnectionGracePeriod: 50 * time.Second}).
				SetupWithManager(ctx, mgr, options())
		},
		"Machine": func() error {
			return (&machine.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache, RemoteConditionsGracePeriod: 5 * time.Minute}).
				SetupWithManager(ctx, mgr, options())
		},
		"MachineSet": func() error {
			return (&machineset.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache,
				PreflightChecks: sets.New(clusterv1.MachineSetPreflightCheckAll)}).SetupWithManager(ctx, mgr, options())
		},
		"MachineDeployment": func() error {
			return (&machinedeployment.Reconciler{Client: c, APIReader: reader}).SetupWithManager(ctx, mgr, options())
		},
		"MachinePool": func() error {
			return (&machinepool.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, options())
		},
		"ClusterResourceSet": func() error {
			return (&clusterresourceset.Reconciler{Client: c, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, options(), partialSecretCache)
		},
		"ClusterResourceSetBinding": func() error {
			return (&clusterresourcesetbinding.Reconciler{Client: c}).SetupWithManager(ctx, mgr, options())
		},
		"KubeadmConfig": func() error {
			return (&kubeadmconfig.Reconciler{Client: c, SecretCachingClient: secretCachingClient, APIReader: reader,
				ClusterCache: clusterCache, TokenTTL: kubeadmconfig.DefaultTokenTTL}).SetupWithManager(ctx, mgr, options())
		},
	}
	if opts.KubeadmControlPlane {
		etcdLogger := opts.EtcdLogger
		if etcdLogger == nil {
			etcdLogger = zap.NewNop()
		}
		reconcilers["KubeadmControlPlane"] = func() error {
			return (&kubeadmcontrolplane.Reconciler{Client: c, APIReader: reader, SecretCachingClient: secretCachingClient,
				ClusterCache: clusterCache, EtcdDialTimeout: 10 * time.Second, EtcdCallTimeout: 15 * time.Second,
				EtcdLogger: etcdLogger, RemoteConditionsGracePeriod: 5 * time.Minute}).SetupWithManager(ctx, mgr, options())
		}
	}
	if opts.MachineHealthChecks {
		reconcilers["MachineHealthCheck"] = func() error {
			return (&machinehealthcheck.Reconciler{Client: c, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, options())
		}
	}
	if opts.Topology {
		reconcilers["ClusterClass"] = func() error {
			return (&clusterclass.Reconciler{Client: c}).SetupWithManager(ctx, mgr, options())
		}
		reconcilers["ClusterTopology"] = func() error {
			return (&topologycluster.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, options())
		}
		reconcilers["MachineDeploymentTopology"] = func() error {
			return (&topologymachinedeployment.Reconciler{Client: c, APIReader: reader}).SetupWithManager(ctx, mgr, options())
		}
		reconcilers["MachineSetTopology"] = func() error {
			return (&topologymachineset.Reconciler{Client: c, APIReader: reader}).SetupWithManager(ctx, mgr, options())
		}
	}
	var failed []string
	for _, name := range sets.List(sets.KeySet(reconcilers)) {
		if err := reconcilers[name](); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("failed to set up Cluster API's reconcilers: %s", strings.Join(failed, "; "))
	}
	return clusterCache, nil
}

// Shutdown closes the ClusterCache's connections to workload clusters, which outlive the manager otherwise (and
// keep a workload API server from stopping).
func Shutdown(cc clustercache.ClusterCache) {
	if s, ok := cc.(interface{ Shutdown() }); ok {
		s.Shutdown()
	}
}

func options() controller.Options {
	return controller.Options{MaxConcurrentReconciles: concurrency}
}

// labelKubeadmContract labels the kubeadm providers' CRDs with the Cluster API contract versions they implement,
// as their release manifests do (test/env installs the bare CRD bases). Cluster API reads a reference's API
// version from these labels.
func labelKubeadmContract(ctx context.Context, mgr ctrl.Manager) error {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	crds := []string{
		contract.CalculateCRDName(bootstrapv1.GroupVersion.Group, "KubeadmConfig"),
		contract.CalculateCRDName(bootstrapv1.GroupVersion.Group, "KubeadmConfigTemplate"),
		contract.CalculateCRDName(controlplanev1.GroupVersion.Group, "KubeadmControlPlane"),
		contract.CalculateCRDName(controlplanev1.GroupVersion.Group, "KubeadmControlPlaneTemplate"),
	}
	for _, name := range crds {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return fmt.Errorf("failed to get CustomResourceDefinition %s: %w", name, err)
		}
		patch := client.MergeFrom(crd.DeepCopy())
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels[clusterv1.GroupVersion.Group+"/v1beta1"] = "v1beta1"
		crd.Labels[clusterv1.GroupVersion.Group+"/v1beta2"] = "v1beta2"
		if err := c.Patch(ctx, crd, patch); err != nil {
			return fmt.Errorf("failed to label CustomResourceDefinition %s: %w", name, err)
		}
	}
	return nil
}
