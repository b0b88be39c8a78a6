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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/finalizers"
	"sigs.k8s.io/cluster-api/util/patch"
	"sigs.k8s.io/cluster-api/util/paused"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes;azureasomanagedcontrolplanes/status;azureasomanagedcontrolplanes/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedmachinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=containerservice.azure.com,resources=managedclusters;managedclustersagentpools,verbs=get;list;watch;create;update;patch;delete

// kubeconfigRefresh is how often a ready control plane re-reads the kubeconfig ASO writes, which ASO rotates.
const kubeconfigRefresh = 10 * time.Minute

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
	if r.Client == nil || r.APIReader == nil || r.Engine == nil {
		return fmt.Errorf("client, API reader and engine are required")
	}
	log := ctrl.LoggerFrom(ctx)
	toControlPlane := func(_ context.Context, o client.Object) []ctrl.Request {
		cluster, ok := o.(*clusterv1.Cluster)
		if !ok || cluster.Spec.ControlPlaneRef.Kind != "AzureASOManagedControlPlane" {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Spec.ControlPlaneRef.Name}}}
	}
	poolToControlPlane := func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster, err := util.GetClusterFromMetadata(ctx, r.Client, metaOf(o))
		if err != nil {
			return nil
		}
		return toControlPlane(ctx, cluster)
	}
	return capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedControlPlane{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(toControlPlane), predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		// A new machine pool may be the system pool the managed cluster waits for.
		Watches(&infrav1.AzureASOManagedMachinePool{}, handler.EnqueueRequestsFromMapFunc(poolToControlPlane)).
		Owns(managedClusterObject()).
		Complete(ctx, r)
}

// Reconcile makes the control plane's ASO objects match spec.resources.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	cp := &infrav1.AzureASOManagedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, cp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	cluster, err := util.GetOwnerCluster(ctx, r.Client, cp.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cluster == nil {
		log.Info("Waiting for the Cluster controller to set an owner reference on the AzureASOManagedControlPlane")
		return ctrl.Result{}, nil
	}
	log = log.WithValues("Cluster", klog.KObj(cluster))
	ctx = ctrl.LoggerInto(ctx, log)

	if added, err := finalizers.EnsureFinalizer(ctx, r.Client, cp, infrav1.ASOManagedControlPlaneFinalizer); err != nil || added {
		return ctrl.Result{}, err
	}
	patchHelper, err := patch.NewHelper(cp, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{cluster: cluster, controlPlane: cp, kinds: managed.RecordedKinds(cp)}
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, cp); err != nil || isPaused || requeue {
		if err != nil || requeue || !isPaused {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.reconcilePaused(ctx, s, patchHelper)
	}

	defer func() {
		updateStatus(s)
		options := []patch.Option{patch.WithOwnedConditions{Conditions: ownedConditions()}}
		if reterr == nil {
			options = append(options, patch.WithStatusObservedGeneration{})
		}
		if err := patchHelper.Patch(ctx, cp, options...); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if !cp.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, s)
	}
	if err := r.reconcileResources(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.reconcileManagedClusterStatus(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.kubeconfigWritten {
		return ctrl.Result{RequeueAfter: kubeconfigRefresh}, nil
	}
	return ctrl.Result{}, nil
}

// reconcilePaused sets reconcile-policy skip on every ASO object of the control plane and lifts the block on
// clusterctl move once that is done.
func (r *Reconciler) reconcilePaused(ctx context.Context, s *scope, patchHelper *patch.Helper) error {
	done, _, err := r.Engine.Pause(ctx, s.controlPlane, s.cluster.Name, s.kinds)
	if err != nil || !done {
		return err
	}
	aso.SetBlockMove(s.controlPlane, false)
	return patchHelper.Patch(ctx, s.controlPlane)
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	// cluster and controlPlane are read by Reconcile.
	cluster      *clusterv1.Cluster
	controlPlane *infrav1.AzureASOManagedControlPlane
	// kinds are the recorded kinds of the control plane's raw objects: read by Reconcile, extended by reconcileResources.
	kinds []schema.GroupVersionKind

	// invalid is set by reconcileResources when spec.resources cannot be applied as given (a value contradicting
	// what Cluster API owns); it is the Ready message.
	invalid string
	// waiting is set by reconcileResources while the managed cluster cannot be created yet.
	waiting string
	// result is set by reconcileResources and reconcileDelete: the state of every ASO object.
	result *aso.Result
	// kubeconfigWritten is set by reconcileResources once Cluster API's kubeconfig secret is written.
	kubeconfigWritten bool
	// kubeconfigMissing is set by reconcileResources when ASO was asked for no kubeconfig Cluster API can use.
	kubeconfigMissing string
	// managedClusterName is set by reconcileResources: the ManagedCluster object's name.
	managedClusterName string
	// deleting is set by reconcileDelete.
	deleting bool
}
