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

package aso

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Check is a post-reconcile check: it runs on an object ASO reports Ready and may hold it not ready, with a
// reason and message, for something ASO does not wait for (the idea of ASO's PostReconciliationChecker).
type Check func(ctx context.Context, reader client.Reader, obj client.Object) (ready bool, reason, message string)

const (
	// ApprovalPendingReason means a private endpoint waits for the remote owner to approve its connection.
	ApprovalPendingReason = "ApprovalPending"
	// KubeconfigPendingReason means ASO has not yet written the kubeconfig secret of a managed cluster.
	KubeconfigPendingReason = "KubeconfigPending"
)

// DefaultChecks returns the provider's post-reconcile checks.
func DefaultChecks() map[schema.GroupKind]Check {
	return map[schema.GroupKind]Check{
		{Group: "network.azure.com", Kind: "PrivateEndpoint"}:         privateEndpointApproved,
		{Group: "containerservice.azure.com", Kind: "ManagedCluster"}: managedClusterKubeconfigWritten,
	}
}

// privateEndpointApproved holds a private endpoint until every connection is Approved.
func privateEndpointApproved(_ context.Context, _ client.Reader, obj client.Object) (bool, string, string) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false, ApprovalPendingReason, err.Error()
	}
	status, _ := content["status"].(map[string]any)
	for _, field := range []string{"privateLinkServiceConnections", "manualPrivateLinkServiceConnections"} {
		connections, _ := status[field].([]any)
		for _, c := range connections {
			conn, _ := c.(map[string]any)
			state, _ := conn["privateLinkServiceConnectionState"].(map[string]any)
			if s, _ := state["status"].(string); !strings.EqualFold(s, "Approved") {
				name, _ := conn["name"].(string)
				return false, ApprovalPendingReason, fmt.Sprintf("connection %q is %s; it must be approved by the owner of the private link service", name, orDefault(s, "pending"))
			}
		}
	}
	return true, "", ""
}

// managedClusterKubeconfigWritten holds a managed cluster until ASO has written the kubeconfig secrets it was
// asked for in spec.operatorSpec.secrets.
func managedClusterKubeconfigWritten(ctx context.Context, reader client.Reader, obj client.Object) (bool, string, string) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false, KubeconfigPendingReason, err.Error()
	}
	spec, _ := content["spec"].(map[string]any)
	operator, _ := spec["operatorSpec"].(map[string]any)
	secrets, _ := operator["secrets"].(map[string]any)
	for _, field := range []string{"adminCredentials", "userCredentials"} {
		dest, _ := secrets[field].(map[string]any)
		name, _ := dest["name"].(string)
		key, _ := dest["key"].(string)
		if name == "" {
			continue
		}
		secret := &corev1.Secret{}
		err := reader.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, secret)
		switch {
		case apierrors.IsNotFound(err):
			return false, KubeconfigPendingReason, fmt.Sprintf("waiting for ASO to write the kubeconfig secret %s", name)
		case err != nil:
			return false, KubeconfigPendingReason, fmt.Sprintf("failed to read the kubeconfig secret %s: %v", name, err)
		case len(secret.Data[key]) == 0:
			return false, KubeconfigPendingReason, fmt.Sprintf("the kubeconfig secret %s has no key %s yet", name, key)
		}
	}
	return true, "", ""
}
