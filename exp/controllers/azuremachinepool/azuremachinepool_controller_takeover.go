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

package azuremachinepool

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// deletionCheckedAnnotation records on a deleted AzureMachinePool that its scale set has an ASO object the deletion
// may remove (takeOverBeforeDelete): the provider made it, took it over, or found it the user's or gone from Azure.
const deletionCheckedAnnotation = "infrastructure.cluster.x-k8s.io/deletion-takeover-checked"

// beforeDelete takes the pool's scale set over when another controller made it (takeOverBeforeDelete), then deletes
// the pool's instances (deleteReplicas); the engine deletes the scale set afterwards.
func (r *Reconciler) beforeDelete(ctx context.Context, s *scope) (bool, error) {
	if done, err := r.takeOverBeforeDelete(ctx, s); err != nil || !done {
		return false, err
	}
	return r.deleteReplicas(ctx, s)
}

// takeOverBeforeDelete takes over, before its deletion, a pool whose scale set another controller made (CAPZ, before
// a switch): the AzureMachinePool has its provider ID but no takeover is recorded (the pool was deleted before the
// provider's first pass). The deletion removes only the ASO objects the provider made, so without this the scale set
// and its instances would stay in Azure. The scale set is applied as a live pass would (reconcileScaleSet, with
// deleting set), so that ASO looks it up and the engine takes it over, as it is, when it carries the cluster's owned
// tag; the deletion then deletes it through ASO, with its instances. What ASO finds without the tag is the user's and
// stays in Azure; a scale set Azure no longer has is not made again.
//
// Whether the takeover was needed is decided once, in the deletion's first passes, and recorded on the pool
// (deletionCheckedAnnotation): once the deletion has removed the scale set's ASO object, a missing object means
// nothing.
func (r *Reconciler) takeOverBeforeDelete(ctx context.Context, s *scope) (bool, error) {
	pool := s.pool
	if pool.Spec.ProviderID == "" || pool.Annotations[deletionCheckedAnnotation] == "true" {
		return true, nil
	}
	s.deleting = true
	if err := r.readScaleSet(ctx, s); err != nil {
		return false, err
	}
	if obj := s.scaleSet; obj != nil {
		if _, known := aso.Adopted(obj); known || !aso.AdoptionRecorded(obj) || aso.MissingInAzure(obj) {
			// Taken over, the user's, made by the provider, or gone from Azure: the deletion does the rest. The pass's
			// patch records it before the deletion of the scale set's object can be seen.
			metav1.SetMetaDataAnnotation(&pool.ObjectMeta, deletionCheckedAnnotation, "true")
			return true, nil
		}
	}
	for _, phase := range []func(context.Context, *scope) error{r.reconcileClusterInfrastructure, r.requireCredentials, r.reconcileScaleSet} {
		if err := phase(ctx, s); err != nil || s.Waiting.Reason != "" {
			return false, err
		}
	}
	return false, nil
}
