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

package progress

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// Kinds are the kinds the view shows: Cluster API's clusters, machines, machine deployments and pools, the kubeadm
// control plane, the provider's kinds that clusters, machines and pools reference, and the ASO kinds it produces.
func Kinds() []client.Object {
	return append([]client.Object{
		&clusterv1.Cluster{}, &clusterv1.Machine{}, &clusterv1.MachineDeployment{}, &clusterv1.MachinePool{},
		&controlplanev1.KubeadmControlPlane{},
		&infrav1.AzureCluster{}, &infrav1.AzureMachine{}, &infrav1.AzureManagedCluster{}, &infrav1.AzureManagedControlPlane{},
		&infrav1.AzureManagedMachinePool{}, &infrav1.AzureASOManagedCluster{}, &infrav1.AzureASOManagedControlPlane{},
		&infrav1.AzureASOManagedMachinePool{}, &infrav1exp.AzureMachinePool{},
	}, aso.Kinds()...)
}

// Collect lists the objects of kinds (typed, registered in scheme) with r, as unstructured objects for Build. It
// returns what it could list, and the errors of the kinds it could not.
func Collect(ctx context.Context, r client.Reader, scheme *runtime.Scheme, kinds []client.Object) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	var errs []error
	for _, kind := range kinds {
		gvk, err := apiutil.GVKForObject(kind, scheme)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := r.List(ctx, list.(client.ObjectList)); err != nil {
			errs = append(errs, fmt.Errorf("failed to list %s: %w", gvk.Kind, err))
			continue
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, item := range items {
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(item)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			u := unstructured.Unstructured{Object: content}
			u.SetGroupVersionKind(gvk) // objects from a cache may lack their type
			out = append(out, u)
		}
	}
	return out, kerrors.NewAggregate(errs)
}
