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

package capiplane

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/version"
	addonsv1beta1 "sigs.k8s.io/cluster-api/api/addons/v1beta1"
	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1alpha1 "sigs.k8s.io/cluster-api/api/ipam/v1alpha1"
	ipamv1beta1 "sigs.k8s.io/cluster-api/api/ipam/v1beta1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	runtimev1alpha1 "sigs.k8s.io/cluster-api/api/runtime/v1alpha1"
	bootstrapadmission "sigs.k8s.io/cluster-api/bootstrap/kubeadm/webhooks/admission"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	controlplaneadmission "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/admission"
	controlplaneconversion "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/conversion"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/util/contract"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// addOlderVersions adds the API versions of Cluster API that its conversion webhooks convert from: v1beta1
// manifests (most users' and CAPZ's templates) and the older IPAM and runtime versions.
func addOlderVersions(s *runtime.Scheme) {
	for _, add := range []func(*runtime.Scheme) error{
		clusterv1beta1.AddToScheme, bootstrapv1beta1.AddToScheme, controlplanev1beta1.AddToScheme, addonsv1beta1.AddToScheme,
		ipamv1alpha1.AddToScheme, ipamv1beta1.AddToScheme, ipamv1.AddToScheme, runtimev1alpha1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
}

// Webhooks registers Cluster API's own webhooks, as its core, kubeadm bootstrap and kubeadm control plane managers
// serve them: defaulting and validation of every kind, and the conversion of the older API versions (a v1beta1
// Cluster is stored as v1beta2, with its references' API versions resolved from the CRDs' contract labels). The API
// server reaches them through the webhook configurations and CRD conversions test/env installs for Cluster API.
func Webhooks(mgr ctrl.Manager, clusterCache clustercache.ClusterCache) error {
	apiVersion := func(ctx context.Context, gk schema.GroupKind) (string, error) {
		return contractAPIVersion(ctx, mgr.GetClient(), gk)
	}
	coreconversion.SetAPIVersionGetter(apiVersion)
	controlplaneconversion.SetAPIVersionGetter(apiVersion)
	webhooks := map[string]interface{ SetupWebhookWithManager(ctrl.Manager) error }{
		"Cluster":                     &coreadmission.Cluster{Client: mgr.GetClient(), ClusterCacheReader: clusterCache},
		"ClusterClass":                &coreadmission.ClusterClass{Client: mgr.GetClient()},
		"Machine":                     &coreadmission.Machine{},
		"MachineSet":                  &coreadmission.MachineSet{},
		"MachineDeployment":           &coreadmission.MachineDeployment{},
		"MachineDrainRule":            &coreadmission.MachineDrainRule{},
		"MachinePool":                 &coreadmission.MachinePool{},
		"MachineHealthCheck":          &coreadmission.MachineHealthCheck{},
		"ClusterResourceSet":          &coreadmission.ClusterResourceSet{},
		"ClusterResourceSetBinding":   &coreadmission.ClusterResourceSetBinding{},
		"ExtensionConfig":             &coreadmission.ExtensionConfig{},
		"IPAddress":                   &coreadmission.IPAddress{Client: mgr.GetAPIReader()},
		"IPAddressClaim":              &coreadmission.IPAddressClaim{},
		"KubeadmConfig":               &bootstrapadmission.KubeadmConfig{},
		"KubeadmConfigTemplate":       &bootstrapadmission.KubeadmConfigTemplate{},
		"KubeadmControlPlane":         &controlplaneadmission.KubeadmControlPlane{},
		"KubeadmControlPlane scale":   &controlplaneadmission.ScaleValidator{Client: mgr.GetClient()},
		"KubeadmControlPlaneTemplate": &controlplaneadmission.KubeadmControlPlaneTemplate{},
	}
	for name, w := range webhooks {
		if err := w.SetupWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("failed to set up Cluster API's %s webhook: %w", name, err)
		}
	}
	return nil
}

// contractVersions are the Cluster API contracts whose CRD labels name a kind's API versions, newest first.
var contractVersions = []string{"v1beta2", "v1beta1"}

// contractAPIVersion is the API version of a kind that Cluster API's contract labels on its CRD name
// (cluster.x-k8s.io/<contract>: <version>[_<version>…]): the newest version of the newest contract. The conversion
// webhooks fill the apiVersion of references from it, as Cluster API's managers do.
func contractAPIVersion(ctx context.Context, c client.Reader, gk schema.GroupKind) (string, error) {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := c.Get(ctx, client.ObjectKey{Name: contract.CalculateCRDName(gk.Group, gk.Kind)}, crd); err != nil {
		return "", fmt.Errorf("failed to get the CRD of %s: %w", gk, err)
	}
	for _, contractVersion := range contractVersions {
		value := crd.Labels[clusterv1.GroupVersion.Group+"/"+contractVersion]
		if value == "" {
			continue
		}
		versions := strings.Split(value, "_")
		sort.Slice(versions, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0 })
		return schema.GroupVersion{Group: gk.Group, Version: versions[0]}.String(), nil
	}
	return "", fmt.Errorf("the CRD of %s has no Cluster API contract label", gk)
}
