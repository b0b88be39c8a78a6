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

package asomanagedadoption

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aks"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
)

// +kubebuilder:rbac:groups=containerservice.azure.com,resources=managedclusters;managedclustersagentpools,verbs=get;list;watch
// +kubebuilder:rbac:groups=resources.azure.com,resources=resourcegroups,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinepools,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azureasomanagedclusters;azureasomanagedcontrolplanes;azureasomanagedmachinepools,verbs=get;list;watch;create

// waitForClusterAdoption is how long an annotated agent pool waits before looking again for its adopted cluster.
const waitForClusterAdoption = 10 * time.Second

// NewCache returns the cache the adoption controllers read ASO ManagedClusters and agent pools from: every object
// of the two kinds, metadata and spec, whoever made them. The caller adds it to the manager.
func NewCache(mgr ctrl.Manager) (cache.Cache, error) {
	return cache.New(mgr.GetConfig(), cache.Options{
		Scheme:           mgr.GetScheme(),
		Mapper:           mgr.GetRESTMapper(),
		DefaultTransform: cache.TransformStripManagedFields(),
	})
}

// handedOver selects the objects to adopt: annotated, and not controlled by anyone yet.
func handedOver(o client.Object) bool {
	return o.GetAnnotations()[aso.HandOverAnnotation] == "true" && metav1.GetControllerOf(o) == nil
}

// ManagedClusterReconciler creates the Cluster API objects around a handed-over ASO ManagedCluster: a Cluster, an
// AzureASOManagedControlPlane with the ManagedCluster (the Cluster API objects take the ManagedCluster's name), and
// an AzureASOManagedCluster with the cluster's resource group when that was handed over too.
type ManagedClusterReconciler struct {
	Client client.Client
	// APIReader reads the user's resource group, which no cache holds.
	APIReader client.Reader
	// Cache is the adoption cache (NewCache).
	Cache cache.Cache
}

// SetupWithManager sets up the controller with the manager.
func (r *ManagedClusterReconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.APIReader == nil || r.Cache == nil {
		return fmt.Errorf("client, API reader and adoption cache are required")
	}
	return builder.TypedControllerManagedBy[ctrl.Request](mgr).
		Named("asomanagedclusteradoption").
		WithOptions(options).
		WatchesRawSource(source.Kind(r.Cache, client.Object(aks.ManagedClusterRef("")),
			&handler.EnqueueRequestForObject{}, predicate.NewPredicateFuncs(handedOver))).
		Complete(r)
}

// Reconcile creates what is missing of the Cluster API objects of a handed-over ManagedCluster.
func (r *ManagedClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var mc client.Object = aks.ManagedClusterRef(req.Name)
	if err := r.Cache.Get(ctx, req.NamespacedName, mc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	st, _ := aks.ReadManagedCluster(mc)
	if !handedOver(mc) || !mc.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	name, namespace := mc.GetName(), mc.GetNamespace()
	existing := &clusterv1.Cluster{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, existing)
	switch {
	case err == nil && existing.Spec.ControlPlaneRef.Kind != "AzureASOManagedControlPlane":
		log.Info("Not adopting the ManagedCluster: a Cluster of its name exists with another control plane", "controlPlane", existing.Spec.ControlPlaneRef.Kind)
		return ctrl.Result{}, nil
	case client.IgnoreNotFound(err) != nil:
		return ctrl.Result{}, err
	}

	version := st.SpecVersion
	if version == "" {
		version = st.Version
	}
	managedCluster, err := rawResource(r.Client, mc, func(spec map[string]any) {
		// The agent pools are the machine pools' (AKS only reads inline pools when it creates a cluster).
		delete(spec, "agentPoolProfiles")
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	var clusterResources []runtime.RawExtension
	if st.Owner != "" {
		var rg client.Object = resources.ResourceGroupRef(st.Owner)
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: st.Owner}, rg)
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		if err == nil && handedOver(rg) {
			raw, err := rawResource(r.Client, rg, nil)
			if err != nil {
				return ctrl.Result{}, err
			}
			clusterResources = append(clusterResources, raw)
		}
	}

	labels := map[string]string{clusterv1.ClusterNameLabel: name}
	objs := []client.Object{
		&clusterv1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: clusterv1.ClusterSpec{
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedCluster", Name: name},
				ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedControlPlane", Name: name},
			},
		},
		&infrav1.AzureASOManagedCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
			Spec: infrav1.AzureASOManagedClusterSpec{AzureASOManagedClusterTemplateResourceSpec: infrav1.AzureASOManagedClusterTemplateResourceSpec{
				Resources: clusterResources,
			}},
		},
		&infrav1.AzureASOManagedControlPlane{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
			Spec: infrav1.AzureASOManagedControlPlaneSpec{AzureASOManagedControlPlaneTemplateResourceSpec: infrav1.AzureASOManagedControlPlaneTemplateResourceSpec{
				Version:   "v" + strings.TrimPrefix(version, "v"),
				Resources: []runtime.RawExtension{managedCluster},
			}},
		},
	}
	for _, obj := range objs {
		if err := createIfMissing(ctx, r.Client, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	log.Info("Adopted the ManagedCluster", "cluster", name)
	return ctrl.Result{}, nil
}

// AgentPoolReconciler creates a MachinePool and an AzureASOManagedMachinePool (named after the agent pool object)
// around a handed-over ManagedClustersAgentPool, once its ManagedCluster belongs to a Cluster.
type AgentPoolReconciler struct {
	Client client.Client
	// Cache is the adoption cache (NewCache).
	Cache cache.Cache
}

// SetupWithManager sets up the controller with the manager.
func (r *AgentPoolReconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil || r.Cache == nil {
		return fmt.Errorf("client and adoption cache are required")
	}
	return builder.TypedControllerManagedBy[ctrl.Request](mgr).
		Named("asomanagedagentpooladoption").
		WithOptions(options).
		WatchesRawSource(source.Kind(r.Cache, client.Object(aks.AgentPoolRef("")),
			&handler.EnqueueRequestForObject{}, predicate.NewPredicateFuncs(handedOver))).
		Complete(r)
}

// Reconcile creates what is missing of the Cluster API objects of a handed-over agent pool.
func (r *AgentPoolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ap client.Object = aks.AgentPoolRef(req.Name)
	if err := r.Cache.Get(ctx, req.NamespacedName, ap); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	st, _ := aks.ReadAgentPool(ap)
	if !handedOver(ap) || !ap.GetDeletionTimestamp().IsZero() || st.ManagedCluster == "" {
		return ctrl.Result{}, nil
	}
	name, namespace := ap.GetName(), ap.GetNamespace()
	// The pool joins the Cluster its ManagedCluster belongs to, once the control plane took the cluster over.
	var mc client.Object = aks.ManagedClusterRef(st.ManagedCluster)
	if err := r.Cache.Get(ctx, client.ObjectKey{Namespace: namespace, Name: st.ManagedCluster}, mc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	clusterName := mc.GetLabels()[clusterv1.ClusterNameLabel]
	if owner := metav1.GetControllerOf(mc); owner == nil || owner.Kind != "AzureASOManagedControlPlane" || clusterName == "" {
		ctrl.LoggerFrom(ctx).V(4).Info("Waiting for the agent pool's ManagedCluster to be adopted", "managedCluster", st.ManagedCluster)
		return ctrl.Result{RequeueAfter: waitForClusterAdoption}, nil
	}

	pool, err := rawResource(r.Client, ap, nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	version := st.Version
	if version == "" {
		version = st.CurrentVersion
	}
	replicas := 1
	switch {
	case st.SpecCount != nil:
		replicas = *st.SpecCount
	case st.Count != nil:
		replicas = *st.Count
	}
	labels := map[string]string{clusterv1.ClusterNameLabel: clusterName}
	machinePool := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To(int32(replicas)),
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName: clusterName,
				// AKS bootstraps its nodes itself: no bootstrap data.
				Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "AzureASOManagedMachinePool", Name: name},
			}},
		},
	}
	if version != "" {
		machinePool.Spec.Template.Spec.Version = "v" + strings.TrimPrefix(version, "v")
	}
	objs := []client.Object{
		machinePool,
		&infrav1.AzureASOManagedMachinePool{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
			Spec:       infrav1.AzureASOManagedMachinePoolSpec{Resources: []runtime.RawExtension{pool}},
		},
	}
	for _, obj := range objs {
		if err := createIfMissing(ctx, r.Client, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	ctrl.LoggerFrom(ctx).Info("Adopted the agent pool", "cluster", clusterName, "machinePool", name)
	return ctrl.Result{}, nil
}

// rawResource is an ASO object as an entry of spec.resources: its kind, name, ASO annotations (the credential
// among them, and the hand-over annotation that lets the engine take the object) and spec; edit may drop fields.
func rawResource(c client.Client, obj client.Object, edit func(spec map[string]any)) (runtime.RawExtension, error) {
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return runtime.RawExtension{}, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return runtime.RawExtension{}, err
	}
	spec, _ := content["spec"].(map[string]any)
	if edit != nil {
		edit(spec)
	}
	annotations := map[string]any{}
	for k, v := range obj.GetAnnotations() {
		if strings.HasPrefix(k, "serviceoperator.azure.com/") || k == aso.HandOverAnnotation {
			annotations[k] = v
		}
	}
	raw, err := json.Marshal(map[string]any{
		"apiVersion": gvk.GroupVersion().String(),
		"kind":       gvk.Kind,
		"metadata":   map[string]any{"name": obj.GetName(), "annotations": annotations},
		"spec":       spec,
	})
	return runtime.RawExtension{Raw: raw}, err
}

// createIfMissing creates an object unless one of its name exists (a previous pass, or the user, made it).
func createIfMissing(ctx context.Context, c client.Client, obj client.Object) error {
	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to create %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
