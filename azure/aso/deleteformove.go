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
	"net/http"

	asoannotations "github.com/Azure/azure-service-operator/v2/pkg/common/annotations"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// DeleteForMoveWebhookPath is where the manager serves DeleteForMoveWebhook.
const DeleteForMoveWebhookPath = "/mutate-aso-delete-for-move"

// The rule covers every kind of the ASO groups the provider produces kinds of (as the asocrd controller labels
// their CRDs). The release adds a match condition (config/webhook) so that only clusterctl's delete-for-move
// update reaches the webhook.
// +kubebuilder:webhook:verbs=update,path=/mutate-aso-delete-for-move,mutating=true,failurePolicy=fail,matchPolicy=Equivalent,groups=resources.azure.com;network.azure.com;compute.azure.com;containerservice.azure.com;managedidentity.azure.com;authorization.azure.com,resources=*,versions=*,name=deleteformove.aso.infrastructure.cluster.x-k8s.io,sideEffects=None,admissionReviewVersions=v1

// DeleteForMoveWebhook keeps reconcile-policy skip on the ASO objects clusterctl move deletes from the source
// management cluster. Pause set skip on them, but before deleting an object clusterctl (v1.14) replaces all its
// annotations with clusterctl.cluster.x-k8s.io/delete-for-move (a JSON patch "add" of /metadata/annotations), so
// ASO would see the deletion without skip and delete the Azure resource the target management cluster now owns.
// The webhook puts skip back in that same update.
type DeleteForMoveWebhook struct{}

// Handle adds reconcile-policy skip to an object marked delete-for-move.
func (DeleteForMoveWebhook) Handle(_ context.Context, req admission.Request) admission.Response {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	annotations := obj.GetAnnotations()
	if _, moved := annotations[clusterctlv1.DeleteForMoveAnnotation]; !moved || annotations[asoannotations.ReconcilePolicy] == string(asoannotations.ReconcilePolicySkip) {
		return admission.Allowed("")
	}
	annotations[asoannotations.ReconcilePolicy] = string(asoannotations.ReconcilePolicySkip)
	obj.SetAnnotations(annotations)
	mutated, err := json.Marshal(obj.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}
