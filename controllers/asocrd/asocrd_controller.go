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

package asocrd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/gobuffalo/flect"
	authorizationv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	capicontroller "sigs.k8s.io/cluster-api/util/controller"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// The controller watches the metadata of every CRD, and may patch only the CRDs of aso.Kinds() (azure/aso's
// registry_test.go checks the list against aso.Registry, config/config_test.go the role against CRDNames). The CRD of a kind added with ADDITIONAL_ASO_CRDS needs a ClusterRole of the user's (README).
//
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=patch,resourceNames=availabilitysets.compute.azure.com;bastionhosts.network.azure.com;disks.compute.azure.com;loadbalancers.network.azure.com;loadbalancersinboundnatrules.network.azure.com;maintenanceconfigurations.containerservice.azure.com;managedclusters.containerservice.azure.com;managedclustersagentpools.containerservice.azure.com;natgateways.network.azure.com;networkinterfaces.network.azure.com;networksecuritygroups.network.azure.com;networksecuritygroupssecurityrules.network.azure.com;privatednszones.network.azure.com;privatednszonesarecords.network.azure.com;privatednszonesvirtualnetworklinks.network.azure.com;privateendpoints.network.azure.com;publicipaddresses.network.azure.com;resourcegroups.resources.azure.com;roleassignments.authorization.azure.com;routetables.network.azure.com;routetablesroutes.network.azure.com;userassignedidentities.managedidentity.azure.com;virtualmachines.compute.azure.com;virtualmachinescalesets.compute.azure.com;virtualmachinesextensions.compute.azure.com;virtualnetworks.network.azure.com;virtualnetworkssubnets.network.azure.com;virtualnetworksvirtualnetworkpeerings.network.azure.com

// ProviderName is the name clusterctl knows the provider by, the value of the cluster.x-k8s.io/provider label.
const ProviderName = "infrastructure-azure"

// Labels returns the labels the reconciler keeps on the ASO CRDs: clusterctl move discovers the kinds of CRDs
// labelled clusterctl.cluster.x-k8s.io, and clusterctl attributes CRDs to a provider by cluster.x-k8s.io/provider.
func Labels() map[string]string {
	return map[string]string{clusterctlv1.ClusterctlLabel: "", clusterv1.ProviderNameLabel: ProviderName}
}

// recheckAfter is how often the reconciler asks again whether it may label a CRD its role does not name.
const recheckAfter = 10 * time.Minute

// Reconciler labels the CRDs of the API groups of the ASO kinds the provider produces (aso.Kinds()), so that
// clusterctl move moves a cluster's ASO objects with it. Every CRD of those groups is labelled: kinds added to
// ASO's CRD pattern in the same groups (ADDITIONAL_ASO_CRDS) may be owned by a cluster too. The manager's role
// allows patching the CRDs of aso.Kinds() only (CRDNames); another CRD is labelled once a ClusterRole of the user's
// allows it, which the reconciler asks the API server (a SelfSubjectAccessReview) before it tries.
type Reconciler struct {
	Client client.Client

	// groups are the ASO API groups and names the CRD names of aso.Kinds(), resolved by SetupWithManager.
	groups, names sets.Set[string]
}

// SetupWithManager sets up the controller with the manager. It watches only the metadata of CRDs, and selects
// them by name (<plural>.<group>), not by label: the labels are what ASO's upgrades take away.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if r.Client == nil {
		return errors.New("client is required")
	}
	var err error
	if r.groups, err = Groups(mgr.GetScheme()); err != nil {
		return err
	}
	if r.names, err = CRDNames(mgr.GetScheme()); err != nil {
		return err
	}
	return capicontroller.NewControllerManagedBy(mgr, ctrl.LoggerFrom(ctx)).
		Named("asocrd").
		For(&apiextensionsv1.CustomResourceDefinition{}, builder.OnlyMetadata,
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return r.isASOCRD(o.GetName()) }))).
		WithOptions(options).
		Complete(ctx, r)
}

// Groups returns the API groups of the ASO kinds the provider produces.
func Groups(scheme *runtime.Scheme) (sets.Set[string], error) {
	gvks, err := aso.GVKs(scheme, aso.Kinds()...)
	if err != nil {
		return nil, err
	}
	groups := sets.New[string]()
	for _, gvk := range gvks {
		groups.Insert(gvk.Group)
	}
	return groups, nil
}

// CRDNames returns the names of the CRDs of the ASO kinds the provider produces (<plural>.<group>, the plural as
// ASO's CRDs spell it), which the manager's role allows it to patch.
func CRDNames(scheme *runtime.Scheme) (sets.Set[string], error) {
	gvks, err := aso.GVKs(scheme, aso.Kinds()...)
	if err != nil {
		return nil, err
	}
	names := sets.New[string]()
	for _, gvk := range gvks {
		// ASO's CRDs are generated by controller-gen, which pluralizes the lower-cased kind with flect.
		names.Insert(flect.Pluralize(strings.ToLower(gvk.Kind)) + "." + gvk.Group)
	}
	return names, nil
}

// isASOCRD tells whether a CRD name (<plural>.<group>) is in one of the ASO groups.
func (r *Reconciler) isASOCRD(name string) bool {
	_, group, ok := strings.Cut(name, ".")
	return ok && r.groups.Has(group)
}

// Reconcile adds the labels a CRD lacks, with a merge patch of its labels only.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := r.Client.Get(ctx, req.NamespacedName, crd); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := Labels()
	labels := crd.GetLabels()
	missing := false
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			missing = true
		}
	}
	if !missing {
		return ctrl.Result{}, nil
	}
	if !r.names.Has(crd.Name) {
		allowed, err := r.mayPatch(ctx, crd.Name)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !allowed {
			ctrl.LoggerFrom(ctx).V(2).Info("Not labelling the CRD for clusterctl move: no ClusterRole allows the manager to patch it (see ADDITIONAL_ASO_CRDS in the README)",
				"CustomResourceDefinition", klog.KObj(crd))
			return ctrl.Result{RequeueAfter: recheckAfter}, nil
		}
	}
	base := crd.DeepCopy()
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, want)
	crd.SetLabels(labels)
	if err := r.Client.Patch(ctx, crd, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("failed to label CustomResourceDefinition %s: %w", crd.Name, err))
	}
	ctrl.LoggerFrom(ctx).Info("Labelled the CRD for clusterctl move", "CustomResourceDefinition", klog.KObj(crd))
	return ctrl.Result{}, nil
}

// mayPatch asks the API server whether the manager may patch a CRD.
func (r *Reconciler) mayPatch(ctx context.Context, name string) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "patch", Group: apiextensionsv1.GroupName, Resource: "customresourcedefinitions", Name: name,
		},
	}}
	if err := r.Client.Create(ctx, review); err != nil {
		return false, fmt.Errorf("failed to review the access to CustomResourceDefinition %s: %w", name, err)
	}
	return review.Status.Allowed, nil
}
