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

package azuremachinetemplate

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/util/annotations"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/azurejson"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachinetemplates/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;patch

// identityRetry is how long the controller waits for a missing AzureClusterIdentity, which it does not watch.
const identityRetry = 30 * time.Second

// Reconciler writes the azure.json Secrets of AzureMachineTemplates, and their status for cluster-autoscaler.
type Reconciler struct {
	Client client.Client
	// APIReader reads what the manager does not cache: Secrets, and the cluster's infrastructure object of a kind
	// it does not watch.
	APIReader client.Reader
	// ClusterCache reaches workload clusters: the Nodes of the templates' machines (see reconcileStatus).
	ClusterCache clustercache.ClusterCache
	// Engine decides whether the cluster's identity may be used for the template's machines.
	Engine *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string

	// azureJSON writes the azure.json Secrets.
	azureJSON *azurejson.Writer
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.ClusterCache == nil || r.Engine == nil {
		return fmt.Errorf("client, API reader, cluster cache and engine are required")
	}
	r.azureJSON = &azurejson.Writer{Client: r.Client, APIReader: r.APIReader, Metadata: mgr.GetCache()}
	log := ctrl.LoggerFrom(ctx)
	return capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureMachineTemplate{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		// The Secret is written once the Cluster's infrastructure is provisioned, and not while the Cluster is paused.
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return r.templatesOf(ctx, o.GetNamespace(), o.GetName())
		}), predicates.ClusterPausedTransitionsOrInfrastructureProvisioned(mgr.GetScheme(), log)).
		// The content follows the AzureCluster's spec (network, cloudProviderConfigOverrides, identity).
		Watches(&infrav1.AzureCluster{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return r.templatesOf(ctx, o.GetNamespace(), clusterOf(o))
		})).
		// The identity's tenancy decides whether the Secret carries its credentials.
		Watches(&infrav1.AzureClusterIdentity{}, handler.EnqueueRequestsFromMapFunc(r.identityToTemplates)).
		// The Secret itself (a change or deletion is re-asserted) and the cluster's credential secret, whose
		// service principal secret machines without a VM identity use.
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretToTemplates)).
		// A machine of the template whose Node joined gives the template its capacity.
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(r.machineToTemplate), nodeJoined()).
		// ... once the workload cluster is reachable.
		WatchesRawSource(r.ClusterCache.GetClusterSource("azuremachinetemplate", func(ctx context.Context, o client.Object) []ctrl.Request {
			return r.templatesOf(ctx, o.GetNamespace(), o.GetName())
		})).
		Complete(ctx, r)
}

// Reconcile writes the AzureMachineTemplate's status and azure.json Secret.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	template := &infrav1.AzureMachineTemplate{}
	if err := r.Client.Get(ctx, req.NamespacedName, template); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !template.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	clusterName := clusterOf(template)
	if clusterName == "" {
		log.V(4).Info("Waiting for Cluster API to give the AzureMachineTemplate its Cluster")
		return ctrl.Result{}, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: template.Namespace, Name: clusterName}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get Cluster %s/%s: %w", template.Namespace, clusterName, err)
	}
	log = log.WithValues("Cluster", klog.KObj(cluster))
	ctx = ctrl.LoggerInto(ctx, log)
	if !isAzureCluster(cluster) {
		return ctrl.Result{}, nil
	}
	paused := annotations.IsPaused(cluster, template)
	if !paused {
		if err := r.reconcileStatus(ctx, template, cluster); err != nil {
			return ctrl.Result{}, err
		}
	}
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting != "" {
		log.V(4).Info("Waiting to write the azure.json Secret", "reason", waiting)
		return ctrl.Result{}, nil
	}
	creds, err := infra.Credentials(ctx, r.Engine, template, cluster.Name, nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if paused && creds.Ready {
		// While the Cluster is paused the Secret changes only to lose a revoked identity's credentials.
		log.V(4).Info("Not writing the azure.json Secret while the Cluster is paused")
		return ctrl.Result{}, nil
	}
	spec := template.Spec.Template.Spec
	in, write, waiting, err := azurejson.Input(ctx, r.APIReader, cluster, infra, azurejson.Machines{
		Identity: spec.Identity, UserAssignedIdentities: spec.UserAssignedIdentities,
	}, creds)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting != "" {
		log.Info("Waiting to write the azure.json Secret", "reason", waiting)
	}
	if !write {
		return ctrl.Result{RequeueAfter: identityRetry}, nil
	}
	return ctrl.Result{}, r.azureJSON.Ensure(ctx, template, cluster.Name, in)
}

// isAzureCluster reports whether the Cluster's infrastructure is one whose machines are AzureMachines with
// cloud-provider-azure: any AzureCluster-shaped kind of this provider's group (not an AKS cluster, whose nodes
// AKS configures).
func isAzureCluster(cluster *clusterv1.Cluster) bool {
	ref := cluster.Spec.InfrastructureRef
	return ref.APIGroup == infrav1.GroupVersion.Group && ref.Kind == "AzureCluster"
}

// clusterOf is the name of an object's Cluster: its Cluster owner, which Cluster API sets on the templates its
// control planes and MachineDeployments use, else its cluster-name label, which ClusterClass topologies set.
func clusterOf(o client.Object) string {
	for _, ref := range o.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Kind == "Cluster" && gv.Group == clusterv1.GroupVersion.Group {
			return ref.Name
		}
	}
	return o.GetLabels()[clusterv1.ClusterNameLabel]
}

// templatesOf lists the AzureMachineTemplates of a cluster.
func (r *Reconciler) templatesOf(ctx context.Context, namespace, cluster string) []ctrl.Request {
	if cluster == "" {
		return nil
	}
	templates := &infrav1.AzureMachineTemplateList{}
	if err := r.Client.List(ctx, templates, client.InNamespace(namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Failed to list AzureMachineTemplates", "namespace", namespace)
		return nil
	}
	var out []ctrl.Request
	for i := range templates.Items {
		if clusterOf(&templates.Items[i]) == cluster {
			out = append(out, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&templates.Items[i])})
		}
	}
	return out
}

// secretToTemplates maps an azure.json Secret to its template, and a cluster's credential secret to the
// cluster's templates.
func (r *Reconciler) secretToTemplates(ctx context.Context, o client.Object) []ctrl.Request {
	for _, ref := range o.GetOwnerReferences() {
		if ref.Kind == "AzureMachineTemplate" && ref.Controller != nil && *ref.Controller {
			return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}}}
		}
	}
	if cluster := o.GetLabels()[infrav1.ClusterNameLabel]; cluster != "" && o.GetName() == aso.CredentialSecretName(cluster) {
		return r.templatesOf(ctx, o.GetNamespace(), cluster)
	}
	return nil
}

// identityToTemplates maps an AzureClusterIdentity to the templates of the AzureClusters that use it.
func (r *Reconciler) identityToTemplates(ctx context.Context, o client.Object) []ctrl.Request {
	clusters := &infrav1.AzureClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Failed to list AzureClusters")
		return nil
	}
	var out []ctrl.Request
	for i := range clusters.Items {
		c := &clusters.Items[i]
		ref := c.Spec.IdentityRef
		if ref == nil || ref.Name != o.GetName() {
			continue
		}
		if ns := ref.Namespace; ns == o.GetNamespace() || (ns == "" && c.Namespace == o.GetNamespace()) {
			out = append(out, r.templatesOf(ctx, c.Namespace, clusterOf(c))...)
		}
	}
	return out
}
