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
	"encoding/json"
	"fmt"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure"
)

// TakesOver reports whether the engine took over, or takes over in the pass that reads this live object, an
// adoptable resource: ASO found it in Azure with the cluster's owned tag (another controller, CAPZ, made it for the
// cluster), or the takeover is recorded.
func TakesOver(live client.Object, clusterName string) bool {
	if live == nil {
		return false
	}
	adoption, waiting := adoptionOf(live, clusterName)
	return !waiting && adoption == adoptionTakenOver
}

// settleDeleteWithOwner decides, before deleting it with its owner, about an object its owner only read while it
// lived and deletes in Azure with it (azure.DeleteWithOwnerAnnotation, reconcile-policy skip): once ASO has found the
// resource, the object gets reconcile-policy manage, so that ASO deletes it in Azure; one ASO reports missing from
// Azure is deleted as it is. It returns why the object is not deleted yet: ASO has not found the resource (it has
// not answered, or failed to read it), and deleting the object at skip would leave the resource in Azure.
func (e *Engine) settleDeleteWithOwner(ctx context.Context, obj client.Object) (string, error) {
	annotations := obj.GetAnnotations()
	if annotations[azure.DeleteWithOwnerAnnotation] != "true" || annotations[asoannotations.ReconcilePolicy] != string(asoannotations.ReconcilePolicySkip) {
		return "", nil
	}
	if missingInAzure(obj) {
		return "", nil
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	ready := readyCondition(obj)
	if ready == nil || ready.ObservedGeneration < obj.GetGeneration() || ready.Status != metav1.ConditionTrue {
		why := "ASO has not looked it up yet"
		if ready != nil && ready.Message != "" {
			why = "ASO: " + ready.Message
		}
		return fmt.Sprintf("%s %s is not deleted yet: it goes from Azure with its owner once ASO has found it there (%s)", kind, obj.GetName(), why), nil
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{asoannotations.ReconcilePolicy: string(asoannotations.ReconcilePolicyManage)}}})
	if err != nil {
		return "", err
	}
	if err := e.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("failed to let ASO delete %s %s in Azure: %w", kind, client.ObjectKeyFromObject(obj), err)
	}
	return "", nil
}
