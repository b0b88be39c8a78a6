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

package azureasomanagedcluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/cluster-api/util/annotations"
	"sigs.k8s.io/cluster-api/util/conditions"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/finalizers"
	"sigs.k8s.io/cluster-api/util/patch"
	"sigs.k8s.io/cluster-api/util/paused"
	"sigs.k8s.io/cluster-api/util/predicates"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/asomanaged"
	"github.com/capzaso/cluster-api-provider-azure/controllers/internal/managed"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters;azureasomanagedclusters/status;azureasomanagedclusters/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedcontrolplanes,verbs=get;list;watch

// WaitingForControlPlaneEndpointReason means the control plane has not reported its endpoint yet.
const WaitingForControlPlaneEndpointReason = "WaitingForControlPlaneEndpoint"

// Reconciler reconciles AzureASOManagedClusters.
type Reconciler struct {
	Client client.Client
	Engine *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.Engine == nil {
		return fmt.Errorf("client and engine are required")
	}
	log := ctrl.LoggerFrom(ctx)
	controlPlaneToCluster := func(ctx context.Context, o client.Object) []ctrl.Request {
		cluster, err := util.GetOwnerCluster(ctx, r.Client, metav1.ObjectMeta{Namespace: o.GetNamespace(), OwnerReferences: o.GetOwnerReferences()})
		if err != nil || cluster == nil || cluster.Spec.InfrastructureRef.Kind != "AzureASOManagedCluster" {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Spec.InfrastructureRef.Name}}}
	}
	return capicontroller.NewControllerManagedBy(mgr, log).
		For(&infrav1.AzureASOManagedCluster{}).
		WithOptions(options).
		WithEventFilter(predicates.ResourceHasFilterLabel(mgr.GetScheme(), log, r.WatchFilterValue)).
		Watches(&clusterv1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(util.ClusterToInfrastructureMapFunc(ctx, infrav1.GroupVersion.WithKind("AzureASOManagedCluster"), mgr.GetClient(), &infrav1.AzureASOManagedCluster{})),
			predicates.ClusterPausedTransitions(mgr.GetScheme(), log)).
		Watches(&infrav1.AzureASOManagedControlPlane{}, handler.EnqueueRequestsFromMapFunc(controlPlaneToCluster)).
		Complete(ctx, r)
}

// Reconcile applies the cluster's raw ASO objects and reports the endpoint.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	amc := &infrav1.AzureASOManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, amc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx)
	cluster, err := util.GetOwnerCluster(ctx, r.Client, amc.ObjectMeta)
	if err != nil {
		return ctrl.Result{}, err
	}
	if cluster == nil {
		log.Info("Waiting for the Cluster controller to set an owner reference on the AzureASOManagedCluster")
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, log.WithValues("Cluster", klog.KObj(cluster)))
	if annotations.IsExternallyManaged(amc) {
		return ctrl.Result{}, nil
	}
	if added, err := finalizers.EnsureFinalizer(ctx, r.Client, amc, infrav1.ASOManagedClusterFinalizer); err != nil || added {
		return ctrl.Result{}, err
	}
	patchHelper, err := patch.NewHelper(amc, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	kinds := managed.RecordedKinds(amc)
	if isPaused, requeue, err := paused.EnsurePausedCondition(ctx, r.Client, cluster, amc); err != nil || isPaused || requeue {
		if err != nil || requeue || !isPaused {
			return ctrl.Result{}, err
		}
		done, _, err := r.Engine.Pause(ctx, amc, cluster.Name, kinds)
		if err != nil || !done {
			return ctrl.Result{}, err
		}
		aso.SetBlockMove(amc, false)
		return ctrl.Result{}, patchHelper.Patch(ctx, amc)
	}

	var result *aso.Result
	invalid, waiting := "", ""
	defer func() {
		setStatus(amc, result, invalid, waiting, !amc.DeletionTimestamp.IsZero())
		options := []patch.Option{patch.WithOwnedConditions{Conditions: []string{clusterv1.ReadyCondition, clusterv1.PausedCondition,
			infrav1.ResourcesReadyCondition, infrav1.PatchesAppliedCondition, managed.ResourcesFamily + "Ready"}}}
		if reterr == nil {
			options = append(options, patch.WithStatusObservedGeneration{})
		}
		if err := patchHelper.Patch(ctx, amc, options...); err != nil {
			reterr = kerrors.NewAggregate([]error{reterr, err})
		}
	}()

	if !amc.DeletionTimestamp.IsZero() {
		done, res, err := r.Engine.Delete(ctx, amc, aso.DeleteOptions{ClusterName: cluster.Name, Kinds: kinds})
		result = res
		if err == nil && done {
			controllerutil.RemoveFinalizer(amc, infrav1.ASOManagedClusterFinalizer)
		}
		return ctrl.Result{}, err
	}

	aso.SetBlockMove(amc, true)
	objs, err := asomanaged.Parse(amc.Spec.Resources)
	if err != nil {
		invalid = err.Error()
		return ctrl.Result{}, nil
	}
	if kinds, err = managed.RecordKinds(ctx, r.Client, amc, objs); err != nil {
		return ctrl.Result{}, err
	}
	if result, err = r.Engine.Reconcile(ctx, amc, managed.Resources(objs), aso.Options{ClusterName: cluster.Name, Kinds: kinds}); err != nil {
		return ctrl.Result{}, err
	}

	// The control plane's endpoint is the cluster's: Cluster API reads it from the infrastructure cluster.
	if !amc.Spec.ControlPlaneEndpoint.IsValid() && cluster.Spec.ControlPlaneRef.Kind == "AzureASOManagedControlPlane" {
		cp := &infrav1.AzureASOManagedControlPlane{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: amc.Namespace, Name: cluster.Spec.ControlPlaneRef.Name}, cp); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		amc.Spec.ControlPlaneEndpoint = cp.Status.ControlPlaneEndpoint
	}
	if !amc.Spec.ControlPlaneEndpoint.IsValid() {
		waiting = "waiting for the control plane to report its endpoint"
	}
	return ctrl.Result{}, nil
}

// setStatus summarises the cluster's state in its conditions and initialization status.
func setStatus(amc *infrav1.AzureASOManagedCluster, result *aso.Result, invalid, waiting string, deleting bool) {
	var first *infrav1.ResourceStatus
	if result != nil {
		amc.Status.Resources = result.Statuses()
		for _, c := range result.Conditions() {
			conditions.Set(amc, c)
		}
		first = result.FirstNotReady()
	}
	ready := metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionFalse}
	switch {
	case deleting:
		ready.Reason, ready.Message = infrav1.DeletingReason, "deleting the cluster's Azure resources"
	case invalid != "":
		ready.Reason, ready.Message = "InvalidResources", invalid
	case result == nil:
		return
	case first != nil:
		ready.Reason, ready.Message = first.Reason, fmt.Sprintf("%s %s: %s", first.Resource.Kind, first.Resource.Name, first.Message)
	case waiting != "":
		ready.Reason, ready.Message = WaitingForControlPlaneEndpointReason, waiting
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, infrav1.ReadyReason
	}
	conditions.Set(amc, ready)
	if ready.Status == metav1.ConditionTrue {
		amc.Status.Initialization.Provisioned = ptr.To(true)
	}
}
