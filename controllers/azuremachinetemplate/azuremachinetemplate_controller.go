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
	"time"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/azurejson"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
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

// NotAzureClusterReason means the template's Cluster is not an AzureCluster: the controller has nothing to do.
const NotAzureClusterReason = "NotAzureCluster"

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
	r.azureJSON = &azurejson.Writer{Client: r.Client, APIReader: r.APIReader, Metadata: mgr.GetCache()}
	clusterToTemplates := func(ctx context.Context, o client.Object) []ctrl.Request {
		return r.templatesOf(ctx, o.GetNamespace(), o.GetName())
	}
	k := &lifecycle.Kind[*infrav1.AzureMachineTemplate, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs: map[string]any{"API reader": r.APIReader, "cluster cache": r.ClusterCache, "engine": r.Engine},
		New:   func() *infrav1.AzureMachineTemplate { return &infrav1.AzureMachineTemplate{} },
		// The Secret is written once the Cluster's infrastructure is provisioned, and not while the Cluster is paused.
		Cluster: lifecycle.ClusterWatch{Map: clusterToTemplates, Provisioned: true},
		Watches: []lifecycle.Watch{
			// The content follows the AzureCluster's spec (network, cloudProviderConfigOverrides, identity).
			{Object: &infrav1.AzureCluster{}, Handler: handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
				return r.templatesOf(ctx, o.GetNamespace(), lifecycle.ClusterName(o))
			})},
			// The identity's tenancy decides whether the Secret carries its credentials.
			{Object: &infrav1.AzureClusterIdentity{}, Handler: handler.EnqueueRequestsFromMapFunc(r.identityToTemplates)},
			// The Secret itself (a change or deletion is re-asserted) and the cluster's credential secret, whose
			// service principal secret machines without a VM identity use.
			{Object: &corev1.Secret{}, Metadata: true, Handler: handler.EnqueueRequestsFromMapFunc(r.secretToTemplates)},
			// A machine of the template whose Node joined gives the template its capacity.
			{Object: &clusterv1.Machine{}, Handler: handler.EnqueueRequestsFromMapFunc(r.machineToTemplate), Predicates: []predicate.Predicate{nodeJoined()}},
		},
		// A template owns no ASO object, and needs no finalizer: its azure.json Secret goes with it.
		Owners: lifecycle.ClusterRefOrLabel,
		Scope: func(template *infrav1.AzureMachineTemplate, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, template: template}
		},
		// While the Cluster is paused the Secret changes only to lose a revoked identity's credentials.
		WhilePaused: func(ctx context.Context, s *scope) error {
			if err := r.reconcileClusterInfrastructure(ctx, s); err != nil || s.infra == nil || s.Credentials.Ready {
				return err
			}
			return r.reconcileAzureJSON(ctx, s)
		},
		Phases: []lifecycle.Phase[*scope]{r.requireAzureCluster, r.reconcileStatus, r.reconcileClusterInfrastructure, r.reconcileAzureJSON},
	}
	if r.ClusterCache != nil {
		// ... once the workload cluster is reachable.
		k.Watches = append(k.Watches, lifecycle.Watch{Source: r.ClusterCache.GetClusterSource("azuremachinetemplate", clusterToTemplates)})
	}
	_, err := k.Setup(ctx, mgr, options)
	return err
}

// scope holds what the phases of one reconciliation learn.
type scope struct {
	lifecycle.State
	// cluster and template are read by the lifecycle.
	cluster  *clusterv1.Cluster
	template *infrav1.AzureMachineTemplate

	// infra is set by reconcileClusterInfrastructure, with the credentials: the facts read from the cluster's
	// infrastructure object; nil while the machines wait for it.
	infra *clusterinfra.Infrastructure
}

// requireAzureCluster ends the pass of a template whose Cluster is not an AzureCluster: its machines need no
// azure.json Secret, and get their capacity from elsewhere.
func (r *Reconciler) requireAzureCluster(_ context.Context, s *scope) error {
	if !isAzureCluster(s.cluster) {
		s.Waiting = lifecycle.Wait{Reason: NotAzureClusterReason, Message: "the Cluster's infrastructure is not an AzureCluster"}
	}
	return nil
}

// reconcileClusterInfrastructure reads the cluster's infrastructure and whether its identity may be used for the
// template's machines.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil {
		return err
	}
	if waiting != "" {
		ctrl.LoggerFrom(ctx).V(4).Info("Waiting to write the azure.json Secret", "reason", waiting)
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return nil
	}
	creds, err := infra.Credentials(ctx, r.Engine, s.template, s.cluster.Name, nil)
	if err != nil {
		return err
	}
	s.infra, s.Credentials = infra, &creds
	return nil
}

// reconcileAzureJSON writes the template's azure.json Secret: cloud-provider-azure's configuration, which the
// template's machines read. While the Secret cannot be written yet (a missing AzureClusterIdentity, which the
// controller does not watch), it looks again after identityRetry.
func (r *Reconciler) reconcileAzureJSON(ctx context.Context, s *scope) error {
	spec := s.template.Spec.Template.Spec
	in, write, waiting, err := azurejson.Input(ctx, r.APIReader, s.cluster, s.infra, azurejson.Machines{
		Identity: spec.Identity, UserAssignedIdentities: spec.UserAssignedIdentities,
	}, *s.Credentials)
	if err != nil {
		return err
	}
	if waiting != "" {
		ctrl.LoggerFrom(ctx).Info("Waiting to write the azure.json Secret", "reason", waiting)
	}
	if !write {
		s.RequeueAfter = identityRetry
		return nil
	}
	return r.azureJSON.Ensure(ctx, s.template, s.cluster.Name, in)
}

// isAzureCluster reports whether the Cluster's infrastructure is one whose machines are AzureMachines with
// cloud-provider-azure: any AzureCluster-shaped kind of this provider's group (not an AKS cluster, whose nodes
// AKS configures).
func isAzureCluster(cluster *clusterv1.Cluster) bool {
	ref := cluster.Spec.InfrastructureRef
	return ref.APIGroup == infrav1.GroupVersion.Group && ref.Kind == "AzureCluster"
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
		if lifecycle.ClusterName(&templates.Items[i]) == cluster {
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
			out = append(out, r.templatesOf(ctx, c.Namespace, lifecycle.ClusterName(c))...)
		}
	}
	return out
}
