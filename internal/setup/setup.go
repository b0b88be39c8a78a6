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

package setup

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/asocrd"
	"github.com/capzaso/cluster-api-provider-azure/controllers/asomanagedadoption"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azureasomanagedcluster"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azureasomanagedcontrolplane"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azureasomanagedmachinepool"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azurecluster"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremachine"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremachinetemplate"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremanagedcluster"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremanagedcontrolplane"
	"github.com/capzaso/cluster-api-provider-azure/controllers/azuremanagedmachinepool"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepool"
	"github.com/capzaso/cluster-api-provider-azure/exp/controllers/azuremachinepoolmachine"
	"github.com/capzaso/cluster-api-provider-azure/feature"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
)

// Options configure the controllers.
type Options struct {
	// WatchFilterValue restricts the controllers to objects labelled cluster.x-k8s.io/watch-filter=<value>.
	WatchFilterValue string
	// Concurrency is the number of objects each controller reconciles at once, by controller name
	// (azurecluster, azuremachine); DefaultConcurrency when unset.
	Concurrency map[string]int
	// IdentityCertDirs are the directories an AzureClusterIdentity's certPath may name (see aso.Engine).
	IdentityCertDirs []string
	// ASOCloud is the azureEnvironment of the cloud ASO is configured for (see aso.Engine).
	ASOCloud string
	// CredentialPolicy and IdentityBindings decide which credentials ASO objects may name (see aso.Engine).
	CredentialPolicy aso.CredentialPolicy
	IdentityBindings *aso.BindingsFile
	// ClusterCache reaches workload clusters (the nodes of machine pools and of machine templates' machines). When
	// nil, Controllers sets one up;
	// pass the one Cluster API's reconcilers use when they run in the same manager.
	ClusterCache clustercache.ClusterCache
}

// DefaultConcurrency is the number of objects a controller reconciles at once unless told otherwise.
const DefaultConcurrency = 10

// Controller names, the keys of Options.Concurrency and of the manager's --<name>-concurrency flags.
const (
	AzureClusterController                = "azurecluster"
	AzureMachineController                = "azuremachine"
	AzureMachineTemplateController        = "azuremachinetemplate"
	AzureManagedClusterController         = "azuremanagedcluster"
	AzureManagedControlPlaneController    = "azuremanagedcontrolplane"
	AzureManagedMachinePoolController     = "azuremanagedmachinepool"
	AzureASOManagedClusterController      = "azureasomanagedcluster"
	AzureASOManagedControlPlaneController = "azureasomanagedcontrolplane"
	AzureASOManagedMachinePoolController  = "azureasomanagedmachinepool"
	AzureMachinePoolController            = "azuremachinepool"
	AzureMachinePoolMachineController     = "azuremachinepoolmachine"
	ManagedClusterAdoptionController      = "asomanagedclusteradoption"
	AgentPoolAdoptionController           = "asomanagedagentpooladoption"
)

// ControllerNames lists every controller, for flags.
func ControllerNames() []string {
	return []string{AzureClusterController, AzureMachineController, AzureMachineTemplateController, AzureManagedClusterController,
		AzureManagedControlPlaneController, AzureManagedMachinePoolController, AzureASOManagedClusterController,
		AzureASOManagedControlPlaneController, AzureASOManagedMachinePoolController, ManagedClusterAdoptionController,
		AgentPoolAdoptionController, AzureMachinePoolController, AzureMachinePoolMachineController}
}

func (o Options) controllerOptions(name string) controller.Options {
	n := o.Concurrency[name]
	if n <= 0 {
		n = DefaultConcurrency
	}
	return workQueueOptions(n)
}

// workQueueOptions are the options of every controller of the provider, with n workers. They use client-go's
// rate-limited work queue, not controller-runtime v0.24's priority queue (its default): that queue can deadlock
// when the manager stops, a worker waiting in Done for a lock held while an item is handed to a worker that has
// already returned (controller-runtime issue #3538, fixed after v0.24.1), so that a SIGTERM never ends the
// process. The crash suite (test/chaos) caught it.
func workQueueOptions(n int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: n, UsePriorityQueue: ptr.To(false)}
}

// WebhookOptions configure the webhooks.
type WebhookOptions struct {
	// AllowASODefaultCredential admits AzureClusters and AzureManagedControlPlanes without spec.identityRef, whose
	// ASO objects then use ASO's default credential (--allow-aso-default-credential; see infrav1.WebhookOptions).
	// It is for single-tenant management clusters; the strict credential policy never allows it.
	AllowASODefaultCredential bool
}

// Webhooks registers the defaulting and validating webhooks of every kind, and the one that keeps reconcile-policy
// skip on the ASO objects clusterctl move deletes.
func Webhooks(mgr ctrl.Manager, opts WebhookOptions) error {
	infraOpts := infrav1.WebhookOptions{AllowASODefaultCredential: opts.AllowASODefaultCredential}
	azureCluster := func(mgr ctrl.Manager) error { return infrav1.SetupAzureClusterWebhookWithManager(mgr, infraOpts) }
	azureManagedControlPlane := func(mgr ctrl.Manager) error {
		return infrav1.SetupAzureManagedControlPlaneWebhookWithManager(mgr, infraOpts)
	}
	webhooks := map[string]func(ctrl.Manager) error{
		"AzureCluster":                        azureCluster,
		"AzureClusterTemplate":                infrav1.SetupAzureClusterTemplateWebhookWithManager,
		"AzureClusterIdentity":                infrav1.SetupAzureClusterIdentityWebhookWithManager,
		"AzureMachine":                        infrav1.SetupAzureMachineWebhookWithManager,
		"AzureMachineTemplate":                infrav1.SetupAzureMachineTemplateWebhookWithManager,
		"AzureManagedControlPlane":            azureManagedControlPlane,
		"AzureManagedControlPlaneTemplate":    infrav1.SetupAzureManagedControlPlaneTemplateWebhookWithManager,
		"AzureManagedCluster":                 infrav1.SetupAzureManagedClusterWebhookWithManager,
		"AzureManagedClusterTemplate":         infrav1.SetupAzureManagedClusterTemplateWebhookWithManager,
		"AzureManagedMachinePool":             infrav1.SetupAzureManagedMachinePoolWebhookWithManager,
		"AzureManagedMachinePoolTemplate":     infrav1.SetupAzureManagedMachinePoolTemplateWebhookWithManager,
		"AzureASOManagedCluster":              infrav1.SetupAzureASOManagedClusterWebhookWithManager,
		"AzureASOManagedClusterTemplate":      infrav1.SetupAzureASOManagedClusterTemplateWebhookWithManager,
		"AzureASOManagedControlPlane":         infrav1.SetupAzureASOManagedControlPlaneWebhookWithManager,
		"AzureASOManagedControlPlaneTemplate": infrav1.SetupAzureASOManagedControlPlaneTemplateWebhookWithManager,
		"AzureASOManagedMachinePool":          infrav1.SetupAzureASOManagedMachinePoolWebhookWithManager,
		"AzureASOManagedMachinePoolTemplate":  infrav1.SetupAzureASOManagedMachinePoolTemplateWebhookWithManager,
	}
	if feature.Gates.Enabled(feature.MachinePool) {
		webhooks["AzureMachinePool"] = infrav1exp.SetupAzureMachinePoolWebhookWithManager
		webhooks["AzureMachinePoolMachine"] = infrav1exp.SetupAzureMachinePoolMachineWebhookWithManager
	}
	for name, setup := range webhooks {
		if err := setup(mgr); err != nil {
			return fmt.Errorf("failed to set up the %s webhook: %w", name, err)
		}
	}
	// Keeps ASO from deleting in Azure what clusterctl move deletes from this management cluster.
	mgr.GetWebhookServer().Register(aso.DeleteForMoveWebhookPath, &webhook.Admission{Handler: aso.DeleteForMoveWebhook{}})
	return nil
}

// CheckCredentialSettings refuses a manager whose settings contradict each other: the strict credential policy never
// lets an ASO object use ASO's default credential, so it cannot run with AllowASODefaultCredential.
func CheckCredentialSettings(policy aso.CredentialPolicy, opts WebhookOptions) error {
	if policy == aso.StrictPolicy && opts.AllowASODefaultCredential {
		return errors.New("--allow-aso-default-credential cannot be used with --credential-policy=strict: the strict policy " +
			"never lets a cluster use ASO's default credential (the namespace's aso-credential Secret or ASO's global " +
			"credential); give every AzureCluster and AzureManagedControlPlane an identityRef (see docs/security.md)")
	}
	return nil
}

// WebhooksWith returns a function that registers the webhooks with opts, for test environments (env.Options).
func WebhooksWith(opts WebhookOptions) func(ctrl.Manager) error {
	return func(mgr ctrl.Manager) error { return Webhooks(mgr, opts) }
}

// NewClusterCache sets up the cache through which the controllers reach workload clusters (the nodes of machine
// pools and machine templates), for a manager that does not run Cluster API's reconcilers.
func NewClusterCache(ctx context.Context, mgr ctrl.Manager, watchFilter string) (clustercache.ClusterCache, error) {
	cc, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient:     mgr.GetClient(),
		WatchFilterValue: watchFilter,
		Client:           clustercache.ClientOptions{UserAgent: "cluster-api-provider-azure-aso-clustercache"},
		Cache:            clustercache.CacheOptions{},
	}, workQueueOptions(DefaultConcurrency))
	if err != nil {
		return nil, fmt.Errorf("failed to set up the cluster cache: %w", err)
	}
	return cc, nil
}

// CacheOptions are the manager's cache options: the ASO kinds limited to the objects the provider labelled (see
// CacheByObject), managedFields dropped from every object, and, with a namespace, only that namespace.
func CacheOptions(syncPeriod *time.Duration, namespace string) cache.Options {
	opts := cache.Options{
		SyncPeriod:       syncPeriod,
		ByObject:         CacheByObject(),
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if namespace != "" {
		opts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	return opts
}

// ClientOptions are the manager's client options: Secrets and ConfigMaps are read from the API server, never
// cached (the provider reads few of them, in every namespace).
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}}}}
}

// CacheByObject limits the manager's cache of ASO kinds to the objects the provider labelled.
func CacheByObject() map[client.Object]cache.ByObject {
	return aso.CacheByObject(aso.Kinds()...)
}

// namedController is a controller of the provider and its name (see ControllerNames).
type namedController struct {
	name       string
	reconciler interface {
		SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error
	}
}

// Controllers registers the controllers, and the one that keeps clusterctl's labels on the ASO CRDs (asocrd). The
// controllers share one engine, which reads ASO objects from the manager's cache (see CacheByObject) and writes them
// with server-side apply.
func Controllers(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	c, reader, filter := mgr.GetClient(), mgr.GetAPIReader(), opts.WatchFilterValue
	engine := &aso.Engine{
		Client: c, APIReader: reader, IdentityCertDirs: opts.IdentityCertDirs, ASOCloud: opts.ASOCloud,
		CredentialPolicy: opts.CredentialPolicy, Bindings: opts.IdentityBindings, Events: mgr.GetEventRecorder("capz-aso-engine"),
	}
	// The adoption controllers see ASO objects the provider has not labelled: they have a cache of their own.
	adoptionCache, err := asomanagedadoption.NewCache(mgr)
	if err != nil {
		return fmt.Errorf("failed to create the adoption cache: %w", err)
	}
	if err := mgr.Add(adoptionCache); err != nil {
		return err
	}
	// The cluster controllers find the users of an identity, and the identities of a Secret, through these indexes.
	if err := identities.AddIndexes(ctx, mgr); err != nil {
		return err
	}
	clusterCache := opts.ClusterCache
	if clusterCache == nil {
		if clusterCache, err = NewClusterCache(ctx, mgr, filter); err != nil {
			return err
		}
	}
	controllers := []namedController{
		{AzureClusterController, &azurecluster.Reconciler{Client: c, Engine: engine, WatchFilterValue: filter}},
		{AzureMachineController, &azuremachine.Reconciler{Client: c, APIReader: reader, Engine: engine, WatchFilterValue: filter}},
		{AzureMachineTemplateController, &azuremachinetemplate.Reconciler{Client: c, APIReader: reader, ClusterCache: clusterCache, Engine: engine, WatchFilterValue: filter}},
		{AzureManagedClusterController, &azuremanagedcluster.Reconciler{Client: c, WatchFilterValue: filter}},
		{AzureManagedControlPlaneController, &azuremanagedcontrolplane.Reconciler{Client: c, APIReader: reader, Engine: engine, WatchFilterValue: filter}},
		{AzureASOManagedClusterController, &azureasomanagedcluster.Reconciler{Client: c, Engine: engine, WatchFilterValue: filter}},
		{AzureASOManagedControlPlaneController, &azureasomanagedcontrolplane.Reconciler{Client: c, APIReader: reader, Engine: engine, WatchFilterValue: filter}},
		{ManagedClusterAdoptionController, &asomanagedadoption.ManagedClusterReconciler{Client: c, APIReader: reader, Cache: adoptionCache}},
	}
	if feature.Gates.Enabled(feature.MachinePool) {
		controllers = append(controllers,
			namedController{AzureManagedMachinePoolController, &azuremanagedmachinepool.Reconciler{Client: c, Engine: engine, ClusterCache: clusterCache, WatchFilterValue: filter}},
			namedController{AzureASOManagedMachinePoolController, &azureasomanagedmachinepool.Reconciler{Client: c, Engine: engine, ClusterCache: clusterCache, WatchFilterValue: filter}},
			namedController{AgentPoolAdoptionController, &asomanagedadoption.AgentPoolReconciler{Client: c, Cache: adoptionCache}},
			namedController{AzureMachinePoolController, &azuremachinepool.Reconciler{Client: c, APIReader: reader, Engine: engine, ClusterCache: clusterCache, WatchFilterValue: filter}},
			namedController{AzureMachinePoolMachineController, &azuremachinepoolmachine.Reconciler{Client: c, APIReader: reader, Engine: engine, WatchFilterValue: filter}},
		)
	}
	for _, ctl := range controllers {
		if err := ctl.reconciler.SetupWithManager(ctx, mgr, opts.controllerOptions(ctl.name)); err != nil {
			return fmt.Errorf("failed to set up the %s controller: %w", ctl.name, err)
		}
	}
	// The ASO CRDs change rarely (ASO installs or upgrades them): one worker, and no concurrency flag.
	if err := (&asocrd.Reconciler{Client: c}).SetupWithManager(ctx, mgr, workQueueOptions(1)); err != nil {
		return fmt.Errorf("failed to set up the asocrd controller: %w", err)
	}
	return nil
}
