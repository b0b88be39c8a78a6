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

package azurecluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/network"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,verbs=get;list;watch

// Reconciler reconciles AzureClusters.
type Reconciler struct {
	Client client.Client
	Engine *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	_, err := (&lifecycle.Kind[*infrav1.AzureCluster, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		New:     func() *infrav1.AzureCluster { return &infrav1.AzureCluster{} },
		Cluster: lifecycle.ClusterWatch{ByInfrastructureRef: true},
		Watches: []lifecycle.Watch{
			// The identity and the Secret it reads (metadata only): a change of allowedNamespaces, or a client secret
			// created or rotated after the cluster, reaches the cluster at once (internal/identities' indexes).
			{Object: &infrav1.AzureClusterIdentity{}, Handler: identities.IdentityToUsers(mgr.GetClient(), &infrav1.AzureClusterList{})},
			{Object: &corev1.Secret{}, Metadata: true, Handler: identities.SecretToUsers(mgr.GetClient(), &infrav1.AzureClusterList{})},
			// A machine created or gone may add or remove its node group's availability set.
			{Object: &clusterv1.Machine{}, Handler: handler.EnqueueRequestsFromMapFunc(r.machineToAvailabilitySetCluster),
				Predicates: []predicate.Predicate{predicate.Funcs{
					UpdateFunc:  func(event.UpdateEvent) bool { return false },
					GenericFunc: func(event.GenericEvent) bool { return false },
				}}},
		},
		Owns:              network.ClusterKinds(),
		Finalizer:         infrav1.ClusterFinalizer,
		Owners:            lifecycle.ClusterOwner,
		ExternallyManaged: true,
		Scope: func(ac *infrav1.AzureCluster, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, azureCluster: ac}
		},
		Identity: func(ac *infrav1.AzureCluster, s *scope) aso.CredentialsInput {
			return aso.CredentialsInput{ClusterName: s.cluster.Name, SubscriptionID: ac.Spec.SubscriptionID, IdentityRef: ac.Spec.IdentityRef, Cloud: ac.Spec.AzureEnvironment}
		},
		Phases:        []lifecycle.Phase[*scope]{r.reconcileResources, r.reconcileEndpoint, r.reconcileFailureDomains},
		Deletes:       "the cluster's Azure resources",
		DeleteOrder:   network.ClusterDeleteOrder,
		GoWithCluster: network.ClusterGoesWithGroup,
		Status:        updateStatus,
	}).Setup(ctx, mgr, options)
	return err
}

// machineToAvailabilitySetCluster maps a Machine to its cluster's AzureCluster when that cluster's machines go
// into availability sets.
func (r *Reconciler) machineToAvailabilitySetCluster(ctx context.Context, obj client.Object) []ctrl.Request {
	clusterName := obj.GetLabels()[clusterv1.ClusterNameLabel]
	if clusterName == "" {
		return nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: clusterName}, cluster); err != nil {
		return nil
	}
	ref := cluster.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "AzureCluster" {
		return nil
	}
	ac := &infrav1.AzureCluster{}
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: ref.Name}
	if err := r.Client.Get(ctx, key, ac); err != nil ||
		!compute.ClusterHasAvailabilitySets(ac.Spec.Location, ac.Spec.FailureDomains, ac.Spec.ExtendedLocation) {
		return nil
	}
	return []ctrl.Request{{NamespacedName: key}}
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster and azureCluster are read by the lifecycle.
	cluster      *clusterv1.Cluster
	azureCluster *infrav1.AzureCluster

	// endpointPending is set by reconcileEndpoint when the control plane endpoint is not known yet; its message says why.
	endpointPending string
}
