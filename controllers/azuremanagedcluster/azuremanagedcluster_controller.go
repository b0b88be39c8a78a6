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

package azuremanagedcluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/annotations"
	"sigs.k8s.io/cluster-api/util/conditions"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/patch"
	"sigs.k8s.io/cluster-api/util/paused"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedclusters;azuremanagedclusters/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremanagedcontrolplanes,verbs=get;list;watch

// WaitingForControlPlaneEndpointReason means the control plane has not reported its endpoint yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// Reconciler reconciles AzureManagedClusters.
type Reconciler struct {
	Client client.Client

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil {
		return fmt.Errorf("client is required")
	}
	log := ctrl.LoggerFrom(ctx)
	return capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureManagedCluster{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(util.ClusterToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureManagedCluster"), mgr.GetClient(), &infrav1.AzureManagedCluster{})),
			predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		Watches(&infrav1.AzureManagedControlPlane{}, handler.EnqueueRequestsFromMapFunc(managed.ControlPlaneToInfraCluster(r.Client, "AzureManagedCluster"))).
		Complete(ctx, r)
}

// Reconcile copies the control plane's endpoint and reports the cluster provisioned once it has one.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	amc := &infrav1.AzureManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, amc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	cluster, err := util.GetOwnerCluster(ctx, r.Client, amc.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cluster == nil {
		log.Info("Waiting for the Cluster controller to set an owner reference on the AzureManagedCluster")
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, log.WithValues("Cluster", klog.KObj(cluster)))
	if annotations.IsExternallyManaged(amc) || !amc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	patchHelper, err := patch.NewHelper(amc, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, amc); err != nil || isPaused || requeue {
		return ctrl.Result{}, err
	}

	if !amc.Spec.ControlPlaneEndpoint.IsValid() && cluster.Spec.ControlPlaneRef.Kind == "AzureManagedControlPlane" {
		cp := &infrav1.AzureManagedControlPlane{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: amc.Namespace, Name: cluster.Spec.ControlPlaneRef.Name}, cp); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		amc.Spec.ControlPlaneEndpoint = cp.Spec.ControlPlaneEndpoint
	}
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionTrue, Reason: infrav1.ReadyReason}
	if !amc.Spec.ControlPlaneEndpoint.IsValid() {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, WaitingForControlPlaneEndpointReason,
			"waiting for the AzureManagedControlPlane to report the AKS cluster's endpoint"
	} else {
		amc.Status.Initialization.Provisioned = ptr.To(true)
	}
	conditions.Set(amc, ready)
	return ctrl.Result{}, patchHelper.Patch(ctx, amc, patch.WithOwnedConditions{Conditions: []string{clusterv1.ReadyCondition, clusterv1.PausedCondition}},
		patch.WithStatusObservedGeneration{})
}
