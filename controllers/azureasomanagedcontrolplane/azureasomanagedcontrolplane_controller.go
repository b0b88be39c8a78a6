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

package azureasomanagedcontrolplane

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
	"github.com/capzaso/cluster-api-provider-azure/internal/identities"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch

// Reconciler reconciles AzureASOManagedControlPlanes.
type Reconciler struct {
	Client    client.Client
	APIReader client.Reader
	Engine    *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	_, err := (&lifecycle.Kind[*infrav1.AzureASOManagedControlPlane, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs:   map[string]any{"API reader": r.APIReader},
		New:     func() *infrav1.AzureASOManagedControlPlane { return &infrav1.AzureASOManagedControlPlane{} },
		Cluster: lifecycle.ClusterWatch{ByControlPlaneRef: true},
		Watches: []lifecycle.Watch{
			// The credentials the raw resources name are judged again when they, or the identities, change.
			{Object: &infrav1.AzureClusterIdentity{}, Handler: identities.IdentityToAll(mgr.GetClient(), &infrav1.AzureASOManagedControlPlaneList{})},
			{Object: &corev1.Secret{}, Metadata: true, Handler: identities.CredentialToRawOwners(mgr.GetClient(), &infrav1.AzureASOManagedControlPlaneList{})},
			// A new machine pool may be the system pool the managed cluster waits for.
			{Object: &infrav1.AzureASOManagedMachinePool{}, Handler: handler.EnqueueRequestsFromMapFunc(managed.MemberToControlPlane(r.Client, "AzureASOManagedControlPlane"))},
		},
		OwnedKinds: managed.RecordedKinds,
		Finalizer:  infrav1.ASOManagedControlPlaneFinalizer,
		Owners:     lifecycle.ClusterOwner,
		Scope: func(cp *infrav1.AzureASOManagedControlPlane, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, controlPlane: cp}
		},
		Phases:      []lifecycle.Phase[*scope]{r.reconcileResources, r.reconcileManagedClusterStatus},
		Deletes:     "the control plane's Azure resources",
		DeleteOrder: asomanaged.ManagedClusterDeleteOrder,
		// A deleted Cluster's maintenance configurations (and agent pools listed here) go with its managed cluster.
		GoWithCluster: aks.GoWithManagedCluster,
		Status:        updateStatus,
	}).Setup(ctx, mgr, options)
	return err
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster and controlPlane are read by the lifecycle.
	cluster      *clusterv1.Cluster
	controlPlane *infrav1.AzureASOManagedControlPlane

	// kubeconfigWritten is set by reconcileResources once Cluster API's kubeconfig secret is written.
	kubeconfigWritten bool
	// kubeconfigMissing is set by reconcileResources when ASO was asked for no kubeconfig Cluster API can use.
	kubeconfigMissing string
	// managedClusterName is set by reconcileResources: the ManagedCluster object's name.
	managedClusterName string
}
