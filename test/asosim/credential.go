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

package asosim

import (
	"context"
	"fmt"
	"strings"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// credential checks the Secret that a resource's credential-from annotation names, as ASO does before it claims the
// resource: in the resource's namespace, with the subscription, tenant and client IDs, and all or none of a cloud's
// endpoints. It returns the credential's subscription, or why ASO could make no credential of it (ASO reports that
// as Ready false, severity Warning, reason Failed, and retries). A resource that names none has ASO's global
// credential, of the simulator's subscription.
func (r *reconciler) credential(ctx context.Context, obj client.Object) (subscription, problem string, err error) {
	name, ok := obj.GetAnnotations()[asoannotations.PerResourceSecret]
	if !ok {
		return r.sim.opts.SubscriptionID, "", nil
	}
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}
	if strings.Contains(name, "/") {
		return "", fmt.Sprintf("%s does not exist (%s cannot contain '/'. Secret must be in same namespace as resource.)", key, asoannotations.PerResourceSecret), nil
	}
	secret := &corev1.Secret{}
	if err := r.sim.client.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return "", fmt.Sprintf("%s does not exist (credential secret not found: %v)", key, err), nil
		}
		return "", "", err
	}
	for _, field := range []string{asoconfig.AzureSubscriptionID, asoconfig.AzureTenantID, asoconfig.AzureClientID} {
		if _, ok := secret.Data[field]; !ok {
			return "", fmt.Sprintf("%s does not exist (credential Secret %q does not contain key %q)", key, key, field), nil
		}
	}
	cloud := 0
	for _, field := range []string{asoconfig.ResourceManagerEndpoint, asoconfig.ResourceManagerAudience, asoconfig.AzureAuthorityHost} {
		if _, ok := secret.Data[field]; ok {
			cloud++
		}
	}
	if cloud != 0 && cloud != 3 {
		return "", fmt.Sprintf("%s does not exist (credential Secret %q must specify ALL or NONE of %q, %q, and %q (found %d of 3))", key, key,
			asoconfig.ResourceManagerEndpoint, asoconfig.ResourceManagerAudience, asoconfig.AzureAuthorityHost, cloud), nil
	}
	return string(secret.Data[asoconfig.AzureSubscriptionID]), "", nil
}

// subscriptionMismatch is why ASO refuses a resource in a resource group of another subscription than its
// credential's (Ready false, severity Error, reason Failed), or "".
func subscriptionMismatch(id, subscription string) string {
	parts := strings.Split(id, "/")
	if len(parts) > 4 && strings.EqualFold(parts[1], "subscriptions") && strings.EqualFold(parts[3], "resourceGroups") &&
		!strings.EqualFold(parts[2], subscription) {
		return fmt.Sprintf("resource subscription %q does not match parent subscription %q", subscription, parts[2])
	}
	return ""
}
