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

package v1beta1

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Helpers shared by the tests of the managed (AKS) and ASO-managed kinds' webhooks.

// causePaths lists the field paths a webhook's API error names, or nil for no error.
func causePaths(err error) []string {
	if err == nil {
		return nil
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil {
		return []string{"not a field error: " + err.Error()}
	}
	var paths []string
	for _, c := range status.Status().Details.Causes {
		paths = append(paths, c.Field)
	}
	return paths
}

// topologyDryRunContext is the context of a server-side-apply dry-run request, as Cluster API's topology
// controller makes them.
func topologyDryRunContext() context.Context {
	return admission.NewContextWithRequest(context.Background(), admission.Request{
		AdmissionRequest: admissionv1.AdmissionRequest{DryRun: ptr.To(true)},
	})
}

// topologyDryRunAnnotations is the annotation the topology controller sets on the objects of a dry-run.
func topologyDryRunAnnotations() map[string]string {
	return map[string]string{clusterv1.TopologyDryRunAnnotation: ""}
}
